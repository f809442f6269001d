#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest tests of userspace/ (run by `make check` in the VM on the patched
# kernel; env REPO, BUILD; cwd=$REPO). TAP; exit 0 only if all passed.
# Asserts: FUTEX_LOCK is present; the RFC invocations (futex_lock -i N -t 8,
# with and without -a) complete with exactly N lock/unlock calls and an
# intact protected counter; JSON equals the text; every lock implementation,
# the FUTEX_LOCK ones included, keeps mutual exclusion and counts syscalls;
# futex_lock --perf-loop (make perfagree) runs with and without -a, counts
# every iteration as a call and the syscalls the kernel counts; perf bench
# futex lock (make perf) runs with and without -a, prints perf's summary
# and the syscall ratios, counts the syscalls the kernel counts.
# Checks use bash builtins: every exec over 9p costs ~0.1-1 s under TCG.
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
U=$REPO/userspace
FL=$U/build/futex_lock
TL=$U/build/test_locks
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
N=${FL_VM_ITER:-20000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n=0 pass=0 fail=0 t0=$SECONDS
ok()  { n=$((n+1)); pass=$((pass+1)); echo "ok $n - $* [$((SECONDS - t0))s]"; }
nok() { n=$((n+1)); fail=$((fail+1)); echo "not ok $n - $* [$((SECONDS - t0))s]"; }
skp() { n=$((n+1)); pass=$((pass+1)); echo "ok $n - $* # SKIP"; }
# shellcheck source=tap.sh
. "$U/tests/tap.sh"
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
comment() { local l; while IFS= read -r l; do echo "# $l"; done <<<"$1"; }
has_line() { [[ $'\n'$1$'\n' == *$'\n'"$2"$'\n'* ]]; }	# TEXT LINE
# excl_ok (tap.sh): exclusion ok or not exercised; test_locks forces contention

echo "TAP version 13"
echo "# kernel $(uname -r)"
if [ ! -x "$FL" ] || [ ! -x "$TL" ]; then
	nok "binaries built ($FL, $TL): run make -C userspace first"
	echo "1..$n"; echo "$pass passed, $fail failed"; exit 1
fi
probe=$("$FL" --probe); rc=$?
echo "# $probe"
check "kernel has FUTEX_LOCK (probe FUTEX_UNLOCK -> EPERM)" test $rc -eq 0

sys_re='^(un)?lock syscalls: [0-9]+ \([0-9]+\.[0-9]{2}%\)$'
rfc_ok() {	# OUT ADAPTIVE: the 7 RFC lines
	local -a L
	mapfile -t L <<<"$1"
	[[ ${L[0]} == "futex_lock: Measure FUTEX_LOCK operations per second" &&
	   ${L[1]} == "Arguments: iterations=$N threads=8 adaptive=$2" &&
	   ${L[2]} =~ ^Result:\ [0-9]+\ Kiter/s$ && ${L[3]} == "lock calls: $N" &&
	   ${L[4]} =~ $sys_re && ${L[5]} == "unlock calls: $N" && ${L[6]} =~ $sys_re ]]
}
json_args=()
for a in "" "-a"; do
	adaptive=0
	[ -n "$a" ] && adaptive=1
	out=$("$FL" $a -i "$N" -t 8 --json-file "$TMP/rfc$adaptive.json" 2>&1)
	rc=$?
	comment "$out"
	printf '%s\n' "$out" >"$TMP/rfc$adaptive.txt"
	check "futex_lock $a -i $N -t 8 exits 0" test $rc -eq 0
	check "futex_lock $a -i $N -t 8: RFC block, exactly $N lock and unlock calls" \
		rfc_ok "$out" $adaptive
	check "futex_lock $a: mutual exclusion (protected counter = $N; ok, or not exercised on a loaded host)" \
		excl_ok "$out" "$N"
	if [ -r /sys/kernel/debug/futex_lock/stats ]; then
		# values that change: the kernel's own count of this run's
		# lock/unlock syscalls (debugfs delta) must equal ours
		ks_same() {
			local kl=lock_syscalls ul us ks ku
			[ "$adaptive" = 1 ] && kl=lock_adaptive_syscalls
			[[ $out =~ $'\n'"lock syscalls: "([0-9]+) ]] && ul=${BASH_REMATCH[1]}
			[[ $out =~ $'\n'"unlock syscalls: "([0-9]+) ]] && us=${BASH_REMATCH[1]}
			[[ $out =~ " $kl="([0-9]+) ]] && ks=${BASH_REMATCH[1]}
			[[ $out =~ " unlock_syscalls="([0-9]+) ]] && ku=${BASH_REMATCH[1]}
			echo "# lock syscalls: ours ${ul:-?}, kernel ${ks:-?}; unlock syscalls: ours ${us:-?}, kernel ${ku:-?}"
			[ -n "${ul:-}" ] && [ "$ul" = "${ks:-x}" ] && [ "${us:-}" = "${ku:-x}" ]
		}
		check "futex_lock $a: kernel stats delta = our syscall counts" ks_same
	fi
	json_args+=("$TMP/rfc$adaptive.txt" "$TMP/rfc$adaptive.json" 1 "$N")
done
check "--json-file of both runs parses and equals the text" \
	"$PY" "$U/tests/json_vs_text.py" "${json_args[@]}"
# the user-space spin by its knob (this program's, no debugfs): off for
# adaptive, on for futex_lock; json_vs_text.py checks text = JSON and
# that off spins never and on spins before every lock syscall
out=$("$FL" -m adaptive@user_spin=0 -m futex_lock@user_spin=1 -m adaptive@user_spin_woken=0 \
	-m adaptive@user_spin_backoff=1 \
	-t 2 -d 1000 -w 1000 -i "$N" --json-file "$TMP/us.json" 2>&1); rc=$?
printf '%s\n' "$out" >"$TMP/us.txt"
check "futex_lock -m adaptive@user_spin=0 -m futex_lock@user_spin=1 -m adaptive@user_spin_woken=0 -m adaptive@user_spin_backoff=1: exit 0, spin off and on, the woken mark ignored, the back-off on, text = JSON, the spin's invariants" \
	eval '[ $rc -eq 0 ] && grep -q "^user spin: off," <<<"$out" && grep -q "^user spin: on,.*honoured: yes); .*(back-off: off)" <<<"$out" &&
	      grep -q "^user spin: on,.*honoured: no)" <<<"$out" && grep -q "^user spin: on,.*(back-off: on)$" <<<"$out" &&
	      "$PY" "$U/tests/json_vs_text.py" "$TMP/us.txt" "$TMP/us.json" 4 "$N"'

# every lock, FUTEX_LOCK modes required now (no process substitution:
# the guest has no /dev/fd)
# (exit status and TAP plan checked: a crash part-way fails)
"$TL" --require-futex-lock -t 4 -i 5000 >"$TMP/tl.out" 2>&1
fold_tap test_locks "$TMP/tl.out" $?

# RFC thread count, short: 256 threads on a plain lock();unlock() loop
for a in "" "-a"; do
	out=$("$FL" $a -i 25600 -d 0 -w 0 2>&1); rc=$?
	check "futex_lock $a -i 25600 (256 threads, no delays): exact, mutually exclusive (or not exercised on a loaded host)" \
		eval '[ $rc -eq 0 ] && has_line "$out" "lock calls: 25600" && excl_ok "$out" 25600'
done

# --perf-loop (make perfagree): perf bench futex lock's loop on the new ops,
# 4 threads on 2 CPUs so that it contends: calls = iterations, perf's
# figure printed, and the kernel counted the syscalls we counted
perf_loop_ok() {
	local c u i
	[[ $out =~ $'\n'"lock calls: "([0-9]+) ]] && c=${BASH_REMATCH[1]}
	[[ $out =~ $'\n'"unlock calls: "([0-9]+) ]] && u=${BASH_REMATCH[1]}
	[[ $out =~ $'\n'"iterations: "([0-9]+)" in " ]] && i=${BASH_REMATCH[1]}
	[ $rc -eq 0 ] && [ -n "${c:-}" ] && [ "$c" -gt 0 ] && [ "$c" = "${u:-x}" ] &&
	[ "$c" = "${i:-x}" ] &&
	[[ $out =~ $'\n'"perf bench style: Averaged "[1-9][0-9]*" operations/sec (+- "[0-9.]+"%), total secs = 1 " ]] &&
	has_line "$out" "mutual exclusion: not checked (--perf-loop: perf's loop has no check)"
}
for a in "" "-a"; do
	adaptive=0
	[ -n "$a" ] && adaptive=1
	out=$("$FL" $a --perf-loop -t 4 -d 100 --duration 1 2>&1); rc=$?
	comment "$out"
	check "futex_lock $a --perf-loop -t 4 -d 100: exit 0, calls = iterations, perf's Averaged line" \
		perf_loop_ok
	if [ -r /sys/kernel/debug/futex_lock/stats ]; then
		check "futex_lock $a --perf-loop: kernel stats delta = our syscall counts" ks_same
	fi
done

# --compare: no mode unavailable on the patched kernel; baseline futex_lock,
# every other mode and the A/A control with a ratio, interval and verdict
out=$("$FL" --compare -r 5 --duration 0.2 -t 4 -d 100 -w 1000 2>&1); rc=$?
comment "$out"
cmp_modes() {
	local l c=0 base=0
	while IFS= read -r l; do
		[[ $l == ratio* ]] && break
		[[ $l =~ ^futex_lock\ +[0-9.]+\ +1\ \(baseline\) ]] && base=1
		[[ $l =~ ^(adaptive|pi|waitwake|waitwake-spin|pthread|pthread-adaptive|spin|futex_lock\ \(A/A\))\ +[0-9.]+\ +[0-9.]+\ [0-9.]+-[0-9.]+\ +(faster|slower|indistinguishable|control)\  ]] && c=$((c + 1))
	done <<<"$out"
	[ $rc -eq 0 ] && [ $base -eq 1 ] && [ $c -eq 8 ]
}
check "--compare: baseline futex_lock; 7 modes + A/A control with ratio, 95% CI, verdict" cmp_modes

# perf bench futex lock, from the patched tree (make perf); briefly: 1 s
# runs.  Format and counts only, never a speed.
PERF=${BUILD:-$REPO/build}/perf/perf
KS=/sys/kernel/debug/futex_lock/stats
kstat() {	# NAME: the counter's value now
	local k v
	while IFS=': ' read -r k v; do
		[ "$k" = "$1" ] && { echo "$v"; return; }
	done <"$KS"
}
avg_re='^Averaged [0-9]+ operations/sec \(\+- [0-9]+\.[0-9]{2}%\), total secs = 1$'
sys_pre='Lock syscalls: ([0-9]+) of ([0-9]+) calls \([0-9]+\.[0-9]{2}%\), '
sys_re="^${sys_pre}unlock syscalls: ([0-9]+) of ([0-9]+) calls \\([0-9]+\\.[0-9]{2}%\\)$"
# perf_ok OUT THREADS OPNAME: the lock-pi style report plus the ratio line;
# sets LS, US (lock, unlock syscalls) and CALLS
perf_ok() {
	local l thr=0 avg=0 sum=0
	LS= US= CALLS=
	while IFS= read -r l; do
		[[ $l =~ ^\[thread\ +[0-9]+\]\ futex:\ 0x[0-9a-f]+\ \[\ [0-9]+\ ops/sec\ \]$ ]] && thr=$((thr + 1))
		[[ $l =~ $avg_re ]] && avg=1
		[[ $l == "Run summary [PID "*"]: $2 threads doing $3 lock/unlock pairing for 1 secs." ]] && sum=1
		if [[ $l =~ $sys_re ]]; then
			LS=${BASH_REMATCH[1]} CALLS=${BASH_REMATCH[2]} US=${BASH_REMATCH[3]}
			[ "${BASH_REMATCH[4]}" = "$CALLS" ] || CALLS=
		fi
	done <<<"$1"
	[ $sum = 1 ] && [ $thr = "$2" ] && [ $avg = 1 ] && [ -n "$CALLS" ] && [ "$CALLS" -gt 0 ]
}
if [ ! -x "$PERF" ]; then
	nok "perf built at $PERF (make perf)"
else
	for a in "" "-a"; do
		op=FUTEX_LOCK kl=lock_syscalls
		[ -n "$a" ] && op=FUTEX_LOCK_ADAPTIVE kl=lock_adaptive_syscalls
		[ -r $KS ] && { k0=$(kstat $kl); u0=$(kstat unlock_syscalls); }
		out=$("$PERF" bench futex lock $a -t 4 -r 1 2>&1); rc=$?
		comment "$out"
		check "perf bench futex lock${a:+ $a} -t 4 -r 1 exits 0" test $rc -eq 0
		check "perf bench futex lock${a:+ $a}: run summary, 4 thread lines, Averaged line, lock/unlock syscall ratios" \
			perf_ok "$out" 4 $op
		if [ -r $KS ] && [ -n "$CALLS" ]; then
			# the kernel's counts of this run: ours, plus the
			# FUTEX_UNLOCK of perf's probe for the ops
			k1=$(kstat $kl) u1=$(kstat unlock_syscalls)
			echo "# kernel: $kl +$((k1 - k0)), unlock_syscalls +$((u1 - u0)); perf: $LS, $US (+1 probe)"
			check "perf bench futex lock${a:+ $a}: its syscall counts are the kernel's (debugfs delta)" \
				eval '[ $((k1 - k0)) = "$LS" ] && [ $((u1 - u0)) = $((US + 1)) ]'
		fi
	done
	# one futex per thread: never contended, so never a syscall
	out=$("$PERF" bench futex lock -M -l 0 -t 2 -r 1 -s 2>&1); rc=$?
	comment "$out"
	fast_ok() {
		[ $rc -eq 0 ] &&
		[[ $out =~ $'\n'"Lock syscalls: 0 of "[1-9][0-9]*" calls (0.00%), unlock syscalls: 0 of " ]]
	}
	check "perf bench futex lock -M -l 0: exit 0, only fast paths (0 lock and 0 unlock syscalls)" fast_ok
fi

# the LD_PRELOAD library under FUTEX_LOCK and FUTEX_LOCK_ADAPTIVE: its
# tests, the kernel counters = its own counts, a real program (sysbench)
"$U/tests/preload-tests.sh" vm >"$TMP/pl.out" 2>&1
fold_tap preload "$TMP/pl.out" $?

echo "1..$n"
echo "# $((SECONDS - t0)) s"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
