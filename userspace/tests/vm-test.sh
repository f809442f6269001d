#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest tests of userspace/ (run by `make check` in the VM on the patched
# kernel; env REPO, BUILD; cwd=$REPO). TAP; exit 0 only if all passed.
# Asserts: FUTEX_LOCK is present; the RFC invocations (futex_lock -i N -t 8,
# with and without -a) complete with exactly N lock/unlock calls and an
# intact protected counter; JSON equals the text; every lock implementation,
# the FUTEX_LOCK ones included, keeps mutual exclusion and counts syscalls.
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
n=0 pass=0 fail=0
ok()  { n=$((n+1)); pass=$((pass+1)); echo "ok $n - $* [$((SECONDS - t0))s]"; }
nok() { n=$((n+1)); fail=$((fail+1)); echo "not ok $n - $* [$((SECONDS - t0))s]"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
t0=$SECONDS

echo "TAP version 13"
echo "# kernel $(uname -r), $(nproc) CPUs"
if [ ! -x "$FL" ] || [ ! -x "$TL" ]; then
	nok "binaries built ($FL, $TL): run make -C userspace first"
	echo "1..$n"; echo "$pass passed, $fail failed"; exit 1
fi
probe=$("$FL" --probe); rc=$?
echo "# $probe"
check "kernel has FUTEX_LOCK (probe FUTEX_UNLOCK -> EPERM)" test $rc -eq 0

rfc_run() {	# $1 = "" or "-a"
	local a=$1 adaptive=0 out rc
	[ -n "$a" ] && adaptive=1
	out=$(timeout 120 "$FL" $a -i "$N" -t 8 --json-file "$TMP/rfc$adaptive.json" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/# /'
	printf '%s\n' "$out" >"$TMP/rfc$adaptive.txt"
	check "futex_lock $a -i $N -t 8 exits 0" test $rc -eq 0
	check "futex_lock $a: RFC header lines" \
		test "$(sed -n 1,2p <<<"$out")" = "futex_lock: Measure FUTEX_LOCK operations per second
Arguments: iterations=$N threads=8 adaptive=$adaptive"
	check "futex_lock $a: exactly $N lock and unlock calls" \
		test -n "$(grep -x "lock calls: $N" <<<"$out")" -a \
		     -n "$(grep -x "unlock calls: $N" <<<"$out")"
	check "futex_lock $a: syscall lines in RFC format" \
		test "$(grep -cE '^(un)?lock syscalls: [0-9]+ \([0-9]+\.[0-9]{2}%\)$' <<<"$out")" = 2
	check "futex_lock $a: mutual exclusion (protected counter = $N)" \
		grep -qx "mutual exclusion: ok (protected counter $N)" <<<"$out"
	check "futex_lock $a: --json-file parses and equals the text" \
		"$PY" "$U/tests/json_vs_text.py" "$TMP/rfc$adaptive.txt" "$TMP/rfc$adaptive.json" 1 "$N"
}
rfc_run ""
rfc_run "-a"

if [ -r /sys/kernel/debug/futex_lock/stats ]; then
	check "kernel stats deltas reported (debugfs readable)" \
		grep -q '^kernel stats (/sys/kernel/debug/futex_lock/stats, delta): [a-z_]*=' "$TMP/rfc0.txt"
else
	echo "# /sys/kernel/debug/futex_lock/stats not readable: no kernel stats"
fi

# every lock, FUTEX_LOCK modes required now (no process substitution:
# the guest has no /dev/fd)
timeout 180 "$TL" --require-futex-lock -t 4 -i 5000 >"$TMP/tl.out" 2>&1
echo "# test_locks exit $?" >>"$TMP/tl.out"
while IFS= read -r line; do
	case "$line" in
	"ok "*)     ok "test_locks: ${line#ok * - }" ;;
	"not ok "*) nok "test_locks: ${line#not ok * - }" ;;
	"#"*)       echo "$line" ;;
	esac
done < "$TMP/tl.out"

# RFC thread count, short: 256 threads on a plain lock();unlock() loop
out=$(timeout 120 "$FL" -i 25600 -d 0 -w 0 2>&1); rc=$?
check "futex_lock -i 25600 (256 threads, no delays) exact and mutually exclusive" \
	test $rc -eq 0 -a -n "$(grep -x 'lock calls: 25600' <<<"$out")" \
	-a -n "$(grep -x 'mutual exclusion: ok (protected counter 25600)' <<<"$out")"
out=$(timeout 120 "$FL" -a -i 25600 -d 0 -w 0 2>&1); rc=$?
check "futex_lock -a -i 25600 (256 threads, no delays) exact and mutually exclusive" \
	test $rc -eq 0 -a -n "$(grep -x 'lock calls: 25600' <<<"$out")" \
	-a -n "$(grep -x 'mutual exclusion: ok (protected counter 25600)' <<<"$out")"

# --compare: no mode unavailable on the patched kernel
out=$(timeout 120 "$FL" --compare -r 1 --duration 0.5 -t 4 -d 100 -w 1000 2>&1); rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
check "--compare runs all 8 modes on the patched kernel" \
	test $rc -eq 0 -a "$(grep -cE '^(futex_lock|adaptive|pi|waitwake|waitwake-spin|pthread|pthread-adaptive|spin) +[0-9]' <<<"$out")" = 8

echo "1..$n"
echo "# $((SECONDS - t0)) s"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
