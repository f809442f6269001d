#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of libfutexlock-preload.so (userspace/preload/), TAP on stdout, exit 0
# only if all passed.  Sourced-style helpers from tap.sh; run by
# host-tests.sh ("host") and by vm-test.sh in the guest ("vm").
#
#   preload-tests.sh host   kernel without the ops (or with): modes off and
#                           emulate run the whole suite; lock must say once
#                           that the kernel lacks the ops and pass through
#   preload-tests.sh vm     patched kernel: the suite under lock and
#                           adaptive, the kernel's debugfs counters must show
#                           the preload's own count of FUTEX_LOCK/UNLOCK
#                           syscalls; a real program (sysbench threads, one
#                           hot mutex) in both modes
# Env: PRELOAD_SO (default build/libfutexlock-preload.so: the mutant runner
# points it at a broken build), FL_PRELOAD_GUARD (hang guard per test, s).
set -u
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
SO=${PRELOAD_SO:-$PWD/$B/libfutexlock-preload.so}
TP=$B/test_preload
FL=$B/futex_lock
KS=/sys/kernel/debug/futex_lock/stats
# hang guard of the whole-program runs (s), not a deadline; timeout runs
# outside the preload (its probe would count in the kernel's counters)
GUARD=$(( ${FL_PRELOAD_GUARD:-30} * 4 ))
where=${1:-host}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n=0 pass=0 fail=0 t0=$SECONDS
ok()  { n=$((n+1)); pass=$((pass+1)); echo "ok $n - $*"; }
nok() { n=$((n+1)); fail=$((fail+1)); echo "not ok $n - $*"; }
skp() { n=$((n+1)); pass=$((pass+1)); echo "ok $n - $* # SKIP"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
comment() { local l; while IFS= read -r l; do echo "# $l"; done <"$1"; }
# shellcheck source=tap.sh
. tests/tap.sh

echo "TAP version 13"
echo "# preload: $SO"
if [ ! -f "$SO" ] || [ ! -x "$TP" ] || [ ! -x "$FL" ]; then
	nok "built: $SO, $TP, $FL (make -C userspace)"
	echo "1..$n"; echo "$pass passed, $fail failed"; exit 1
fi
have_ops=0
"$FL" --probe >/dev/null 2>&1 && have_ops=1
echo "# kernel has FUTEX_LOCK: $have_ops"

# kernel counter NAME from a saved copy of the debugfs file
kval() { local l; while IFS= read -r l; do [ "${l%%:*}" = "$1" ] && { echo "${l##* }"; return; }; done <"$2"; echo 0; }
# preload stats value: the number after WORD on the stats lines of FILE
sval() { local l re="[ :]$1 ([0-9]+)"; while IFS= read -r l; do [[ $l == futexlock-preload:\ stats:* && $l =~ $re ]] && { echo "${BASH_REMATCH[1]}"; return; }; done <"$2"; echo -1; }

# suite MODE EXPECTED-MODE: the C tests under the preload; the owner
# check every 2 s instead of 10 (owner-died-asleep waits for it: 8 s less
# per suite, wall time, the same in the guest)
suite() {
	local rc
	LD_PRELOAD=$SO FUTEXLOCK_PRELOAD=$1 FUTEXLOCK_PRELOAD_DEADCHECK=2 \
		"$TP" --expect-mode "$2" >"$TMP/s.out" 2>"$TMP/s.err"
	rc=$?
	fold_tap "preload $1" "$TMP/s.out" $rc
	[ -s "$TMP/s.err" ] && comment "$TMP/s.err"
	# C++: std::mutex (static initialiser, never destroyed), condvar
	# wait_for (pthread_cond_clockwait), timed and recursive mutexes;
	# stderr must stay clean
	LD_PRELOAD=$SO FUTEXLOCK_PRELOAD=$1 "$B/test_preload_cxx" >"$TMP/x.out" 2>"$TMP/x.err"
	rc=$?
	[ -s "$TMP/x.err" ] && { comment "$TMP/x.err"; rc=99; }
	fold_tap "preload $1 C++" "$TMP/x.out" $rc
}

# stats MODE: futex_lock's pthread mode (one pthread_mutex_init'ed mutex,
# 4 threads, exactly 20000 lock/unlock calls) under the preload with
# FUTEXLOCK_PRELOAD_STATS=1; in the guest the kernel's counters must equal
# the preload's syscall counts
stats_run() {
	local m=$1 conv=$2 nospin=${3:-} rc k0=$TMP/k0 k1=$TMP/k1 ls us pr cs klk kul key
	rm -f "$k0" "$k1"
	[ -r $KS ] && [ "$conv" = 1 ] && [ "$m" != emulate ] && cp $KS "$k0"
	timeout $GUARD env LD_PRELOAD=$SO FUTEXLOCK_PRELOAD=$m FUTEXLOCK_PRELOAD_STATS=1 \
		${nospin:+FUTEXLOCK_PRELOAD_USER_SPIN=0} \
		"$FL" -m pthread -i 20000 -t 4 -d 0 -w 0 >"$TMP/f.out" 2>"$TMP/f.err"
	rc=$?
	m=$m${nospin:+ (FUTEXLOCK_PRELOAD_USER_SPIN=0)}
	[ -f "$k0" ] && cp $KS "$k1"
	comment "$TMP/f.err"
	# the counts need exactly 20000 calls, too few for futex_lock's
	# "ok" (100 hand-offs) on a loaded host: not violated is the check
	check "stats $m: futex_lock -m pthread exits 0, mutual exclusion not violated" \
		eval '[ $rc -eq 0 ] && excl_ok "$(<"$TMP/f.out")" 20000'
	if [ "$conv" = 1 ]; then
		local fast slow uf us
		fast=$(sval fast "$TMP/f.err") slow=$(sval slow "$TMP/f.err")
		check "stats $m: one converted normal mutex, lock fast+slow >= 20000 ($fast+$slow)" \
			eval 'grep -q "converted mutexes: normal 1+0 " "$TMP/f.err" && [ $((fast + slow)) -ge 20000 ]'
		# the user-space spin: adaptive only; every slow lock spins
		# first or skips the spin (the woken mark, the back-off), and
		# every spin that did not take the lock and every skip made a
		# lock syscall
		local usp usa usl lsc usk usb
		usp=$(sval user-spins "$TMP/f.err") usa=$(sval user-spin-acquired "$TMP/f.err")
		usl=$(sval user-spin-limit "$TMP/f.err") lsc=$(sval lock-syscalls "$TMP/f.err")
		usk=$(sval user-spin-skipped "$TMP/f.err") usb=$(sval user-spin-backoff "$TMP/f.err")
		if [ "$m" = adaptive ] || [ "$m" = emulate ]; then
			# (calibrated at the first contended lock: none, no limit)
			check "stats $m: user spin calibrated (limit $usl); $usp spins + $usk skipped + $usb backed off = $slow slow locks; $usa took it, the rest made >= 1 syscall each ($lsc)" \
				eval '[ $((usp + usk + usb)) = "$slow" ] && [ "$usk" -ge 0 ] && [ "$usb" -ge 0 ] && [ "$usa" -ge 0 ] &&
				      [ "$usa" -le "$usp" ] && [ "$lsc" -ge $((usp - usa + usk + usb)) ] && { [ "$usl" -ge 2 ] || [ "$slow" = 0 ]; }'
		else
			check "stats $m: no user spin ($usp spins, $usk skipped, $usb backed off, limit $usl)" \
				eval '[ "$usp" = 0 ] && [ "$usa" = 0 ] && [ "$usl" = 0 ] && [ "$usk" = 0 ] && [ "$usb" = 0 ]'
		fi
	else
		check "stats $m: mutexes passed through (mode off), no converted mutex" \
			eval 'grep -q "mode-off 1 " "$TMP/f.err" && grep -q "converted mutexes: normal 0+0 " "$TMP/f.err"'
	fi
	if [ -f "$k1" ]; then
		key=lock_syscalls
		[[ $m == adaptive* ]] && key=lock_adaptive_syscalls
		ls=$(sval lock-syscalls "$TMP/f.err") us=$(sval unlock-syscalls "$TMP/f.err")
		pr=$(sval probe-syscalls "$TMP/f.err") cs=$(sval calibration-syscalls "$TMP/f.err")
		klk=$(( $(kval $key "$k1") - $(kval $key "$k0") ))
		kul=$(( $(kval unlock_syscalls "$k1") - $(kval unlock_syscalls "$k0") ))
		echo "# $m: preload lock-syscalls $ls + user-spin calibration $cs, kernel $key delta $klk; preload unlock-syscalls $us + probe $pr, kernel unlock_syscalls delta $kul"
		check "stats $m: kernel $key delta = the preload's count + its calibration ($klk)" test "$klk" = $((ls + cs))
		check "stats $m: kernel unlock_syscalls delta = the preload's count + its probe ($kul)" \
			test "$kul" = $((us + pr))
	fi
}

# in_process TEST WHAT MODE STAT=N... [-- ENV=VALUE...]: test_preload's
# TEST in one process (--in-process: it exits through exit(), so the
# preload prints its stats) under MODE; passes when it exits 0 and each
# named statistic of the preload (sval) has its count.  The tests:
# woken-mark, two contended locks, the second on a mutex marked by hand
# (a spinning mode spins on the first and skips the second); backoff, ten
# contended locks whose spins fail for certain (a spinning mode with the
# back-off spins on rounds 1-4, 6 and 9 only); live-thread, 7 locks in a
# joined thread and 5 in one still running at exit (12 counted)
in_process() {
	local t=$1 what=$2 m=$3 rc w v got= ok=1
	local -a want=()
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do want+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift
	timeout $GUARD env LD_PRELOAD=$SO FUTEXLOCK_PRELOAD=$m FUTEXLOCK_PRELOAD_STATS=1 "$@" \
		"$TP" --in-process "$t" >"$TMP/i.out" 2>"$TMP/i.err"
	rc=$?
	[ $rc -eq 0 ] || ok=0
	for w in "${want[@]}"; do
		v=$(sval "${w%%=*}" "$TMP/i.err")
		got+=", ${w%%=*} $v (want ${w#*=})"
		[ "$v" = "${w#*=}" ] || ok=0
	done
	[ $ok = 1 ] || comment "$TMP/i.err"
	check "$what under $m${1:+ ($*)}: test_preload exit $rc$got" test $ok = 1
}

# exits MODE: test_preload's static-normal test in one process, left once
# through exit() and once through _exit() (as stress-ng's stressor
# processes leave): the preload prints its stats once either way, with
# the test's locks counted
exits() {
	local m=$1 how rc np fast w
	for how in --in-process --in-process-_exit; do
		timeout $GUARD env LD_PRELOAD=$SO FUTEXLOCK_PRELOAD=$m FUTEXLOCK_PRELOAD_STATS=1 \
			"$TP" $how static-normal >/dev/null 2>"$TMP/e.err"
		rc=$?
		np=$(grep -c "^futexlock-preload: stats: pid " "$TMP/e.err")
		fast=$(sval fast "$TMP/e.err")
		[ $rc -eq 0 ] && [ "$np" = 1 ] || comment "$TMP/e.err"
		w=exit
		[ $how = --in-process ] || w=_exit
		check "stats at $w() under $m: one stats printout ($np), the test's locks counted (fast $fast)" \
			eval '[ $rc -eq 0 ] && [ "$np" = 1 ] && [ "$fast" -gt 0 ]'
	done
	# a fork child (of a process with a second, blocked thread) prints
	# its own counts at _exit(), a vfork child (the parent's memory)
	# nothing, and the parent's stay the parent's
	local main got l re='^futexlock-preload: stats: pid ([0-9]+) ' pid=
	timeout $GUARD env LD_PRELOAD=$SO FUTEXLOCK_PRELOAD=$m FUTEXLOCK_PRELOAD_STATS=1 \
		"$TP" --in-process fork-exit >"$TMP/e.out" 2>"$TMP/e.err"
	rc=$?
	main=$(sed -n 's/^# main pid //p' "$TMP/e.out")
	got=
	while IFS= read -r l; do
		[[ $l =~ $re ]] && pid=${BASH_REMATCH[1]}
		[[ $l =~ ^futexlock-preload:\ stats:\ lock\ fast\ ([0-9]+)\  ]] &&
			got+="$([ "$pid" = "$main" ] && echo main || echo child):${BASH_REMATCH[1]} "
	done <"$TMP/e.err"
	[ $rc -eq 0 ] || comment "$TMP/e.err"
	check "stats at _exit() under $m: a fork child of two threads prints its own (lock fast 5), a vfork child nothing, main its own (>= 13): $got" \
		eval '[ $rc -eq 0 ] && [[ $got =~ ^(child:5\ main:(1[3-9]|[2-9][0-9]|[0-9]{3,})\ |main:(1[3-9]|[2-9][0-9]|[0-9]{3,})\ child:5\ )$ ]]'
}

# smoke MODE: a real program, sysbench threads with one mutex for all
# threads, whose holder yields inside the lock: its own count must come
# out, the preload must have converted its mutexes and (guest) entered the
# kernel through FUTEX_LOCK, as the debugfs counters must show
smoke() {
	local m=$1 conv=$2 rc ev=4000 k0=$TMP/k0 k1=$TMP/k1 key klk ls kul us pr cs
	if ! command -v sysbench >/dev/null; then
		skp "real program under $m: sysbench not installed"
		return
	fi
	rm -f "$k0" "$k1"
	[ -r $KS ] && [ "$m" != emulate ] && cp $KS "$k0"
	timeout $GUARD env LD_PRELOAD=$SO FUTEXLOCK_PRELOAD=$m FUTEXLOCK_PRELOAD_STATS=1 \
		sysbench threads --threads=4 --thread-locks=1 --thread-yields=10 \
		--events=$ev --time=0 run >"$TMP/sb.out" 2>"$TMP/sb.err"
	rc=$?
	[ -f "$k0" ] && cp $KS "$k1"
	comment "$TMP/sb.err"
	check "sysbench threads under $m: exits 0, total number of events $ev" \
		eval '[ $rc -eq 0 ] && grep -Eq "total number of events: +$ev\$" "$TMP/sb.out"'
	if [ "$conv" = 1 ]; then
		ls=$(sval lock-syscalls "$TMP/sb.err")
		check "sysbench threads under $m: mutexes converted, contended ($ls lock syscalls)" \
			eval 'grep -Eq "converted mutexes: normal [1-9]" "$TMP/sb.err" && [ "$ls" -gt 0 ]'
		if [ -f "$k1" ]; then
			key=lock_syscalls
			[ "$m" = adaptive ] && key=lock_adaptive_syscalls
			klk=$(( $(kval $key "$k1") - $(kval $key "$k0") ))
			kul=$(( $(kval unlock_syscalls "$k1") - $(kval unlock_syscalls "$k0") ))
			us=$(sval unlock-syscalls "$TMP/sb.err") pr=$(sval probe-syscalls "$TMP/sb.err")
			cs=$(sval calibration-syscalls "$TMP/sb.err")
			echo "# sysbench $m: kernel $key delta $klk, preload $ls + user-spin calibration $cs; kernel unlock_syscalls delta $kul, preload $us + probe $pr"
			check "sysbench threads under $m: kernel $key delta = the preload's count + its calibration ($klk > 0)" \
				eval '[ "$klk" = $((ls + cs)) ] && [ "$klk" -gt 0 ]'
			check "sysbench threads under $m: kernel unlock_syscalls delta = the preload's count + its probe ($kul)" \
				test "$kul" = $((us + pr))
		fi
	fi
}

if [ "$where" = host ]; then
	suite off off
	suite emulate emulate
	if [ $have_ops = 1 ]; then
		suite lock lock
	else
		# the kernel lacks the ops: one line on stderr, glibc's mutexes
		LD_PRELOAD=$SO FUTEXLOCK_PRELOAD=lock "$TP" --expect-mode off \
			static-normal cond-queue fork-atfork >"$TMP/s.out" 2>"$TMP/s.err"
		rc=$?
		fold_tap "preload lock, kernel without the ops" "$TMP/s.out" $rc
		comment "$TMP/s.err"
		lines=0
		while IFS= read -r l; do lines=$((lines + 1)); done <"$TMP/s.err"
		check "lock on a kernel without the ops: exactly one line on stderr, saying so" \
			eval '[ $lines -eq 1 ] && grep -q "this kernel has no FUTEX_LOCK (probe FUTEX_UNLOCK -> ENOSYS): all mutexes pass through to glibc" "$TMP/s.err"'
	fi
	LD_PRELOAD=$SO FUTEXLOCK_PRELOAD=bogus "$TP" static-normal >/dev/null 2>"$TMP/b.err"
	rc=$?
	check "FUTEXLOCK_PRELOAD=bogus: exit 2 with a message" \
		eval '[ $rc -eq 2 ] && grep -q "expected lock, adaptive, off or emulate" "$TMP/b.err"'
	for v in FUTEXLOCK_PRELOAD_USER_SPIN FUTEXLOCK_PRELOAD_USER_SPIN_WOKEN \
		FUTEXLOCK_PRELOAD_USER_SPIN_BACKOFF; do
		env LD_PRELOAD=$SO FUTEXLOCK_PRELOAD=emulate $v=off "$TP" static-normal >/dev/null 2>"$TMP/b.err"
		rc=$?
		check "$v=off: exit 2 with a message (0 or 1 only)" \
			eval '[ $rc -eq 2 ] && grep -q "$v=off: expected 0 or 1" "$TMP/b.err"'
	done
	stats_run off 0
	stats_run emulate 1
	stats_run emulate 1 nospin
	in_process woken-mark "woken mark" emulate user-spins=1 user-spin-skipped=1 user-spin-backoff=0
	in_process woken-mark "woken mark" emulate user-spins=0 user-spin-skipped=0 user-spin-backoff=0 \
		-- FUTEXLOCK_PRELOAD_USER_SPIN=0
	in_process woken-mark "woken mark" emulate user-spins=2 user-spin-skipped=0 user-spin-backoff=0 \
		-- FUTEXLOCK_PRELOAD_USER_SPIN_WOKEN=0
	in_process backoff "back-off" emulate user-spins=6 user-spin-backoff=4
	in_process backoff "back-off" emulate user-spins=10 user-spin-backoff=0 \
		-- FUTEXLOCK_PRELOAD_USER_SPIN_BACKOFF=0
	in_process backoff "back-off" emulate user-spins=0 user-spin-backoff=0 \
		-- FUTEXLOCK_PRELOAD_USER_SPIN=0
	in_process live-thread "stats of a joined thread and a running one" emulate fast=12
	exits emulate
	smoke off 0
	smoke emulate 1
else
	check "kernel has FUTEX_LOCK (the preload can engage)" test $have_ops = 1
	suite lock lock
	suite adaptive adaptive
	stats_run lock 1
	stats_run adaptive 1
	stats_run adaptive 1 nospin
	in_process woken-mark "woken mark" adaptive user-spins=1 user-spin-skipped=1 user-spin-backoff=0
	in_process woken-mark "woken mark" lock user-spins=0 user-spin-skipped=0 user-spin-backoff=0
	in_process backoff "back-off" adaptive user-spins=6 user-spin-backoff=4
	in_process backoff "back-off" lock user-spins=0 user-spin-backoff=0
	in_process live-thread "stats of a joined thread and a running one" lock fast=12
	exits adaptive
	smoke lock 1
	smoke adaptive 1
fi

echo "1..$n"
echo "# $((SECONDS - t0)) s"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
