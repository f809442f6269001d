#!/bin/bash
# Host tests of the userspace part (make -C userspace check). TAP output,
# last line "N passed, N failed". Modes that need FUTEX_LOCK are skipped when
# the running kernel lacks it (probe: ENOSYS); they are never faked.
# Env: FL_REQUIRE_FUTEX_LOCK=1 turns those skips into failures;
# FUTEXLOCK_TEST_BROKEN_LOCK=1 makes test_locks test a lock that does not
# lock as if it were real: the suite must then fail.
set -u
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
FL=$B/futex_lock
PY=${PYTHON:-python3}
pass=0 fail=0 skip=0 n=0 t0=$SECONDS
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok()   { n=$((n+1)); pass=$((pass+1)); echo "ok $n - $*"; }
nok()  { n=$((n+1)); fail=$((fail+1)); echo "not ok $n - $*"; }
skp()  { n=$((n+1)); skip=$((skip+1)); echo "ok $n - $* # SKIP"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
# shellcheck source=tap.sh
. tests/tap.sh

echo "TAP version 13"
have_fl=0
"$FL" --probe >/dev/null && have_fl=1	# test_locks prints the probe line

# --- lock implementations (C test program, its TAP folded in, plan checked) ---
req=
[ "${FL_REQUIRE_FUTEX_LOCK:-0}" = 1 ] && req=--require-futex-lock
"$B/test_locks" $req >"$TMP/tl.out" 2>&1
fold_tap test_locks "$TMP/tl.out" $?

# --- the comparison engine on synthetic data (direction, A/A band, pairs) ---
"$B/test_compare" >"$TMP/tc.out" 2>&1
fold_tap test_compare "$TMP/tc.out" $?

# --- CLI: bad arguments exit 2 with the usage text ---
bad() {
	local out rc
	out=$("$FL" "$@" 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 2 ] && grep -q '^Usage: futex_lock' <<<"$out"; then
		ok "bad args exit 2 with usage: $*"
	else
		nok "bad args exit 2 with usage: $* (rc=$rc)"
	fi
}
bad -t 0
bad -t -1
bad -t abc
bad -t 4097
bad -n 0
bad -i 0
bad -i -5
bad -i 12x
bad -i " 12"
bad -i +12
bad -i 99999999999999999999999
bad -d -1
bad -w 1e3
bad -m nosuchlock
bad -m test-broken
bad --compare -r 1
bad -r 5
bad --compare --ci-target 0
bad --baseline pthread
bad -s --json
bad --latency-every x
bad --sched idle
bad --duration 0
bad --duration -1
bad --duration nan
bad --duration 0x10
bad --duration 1e1
bad --bogus
bad -a -m pthread
bad -i 10 --duration 1
bad extra-arg
bad -t

# --- overhead (the engine against a bare loop): a benchmark that reports,
# so only its interface is tested here, never its figures ---
out=$("$B/overhead" --help); rc=$?
check "overhead --help exits 0 with usage" test $rc -eq 0 -a -n "$(grep '^Usage: overhead' <<<"$out")"
for a in "-r 1" "-i 0" "-m nosuchlock" "extra"; do
	out=$("$B/overhead" $a 2>&1 >/dev/null); rc=$?
	check "overhead bad args exit 2 with usage: $a" \
		test $rc -eq 2 -a -n "$(grep '^Usage: overhead' <<<"$out")"
done
out=$("$B/overhead" -m spin -m waitwake -r 2 -i 1000 2>&1); rc=$?
ovh_ok() {
	[ $rc -eq 0 ] &&
	grep -qE '^(spin|waitwake) +[0-9.]+ +[0-9.]+ +[0-9.]+ \[[0-9.]+-[0-9.]+\] +[0-9.]+ \[[0-9.]+-[0-9.]+\] +(within the A/A band|engine costs (more|less)|insufficient data)$' <<<"$out" &&
	[ "$(grep -cE '^(spin|waitwake) ' <<<"$out")" = 2 ]
}
check "overhead -r 2: one row per mode, ratio and A/A with intervals, a reading" ovh_ok

out=$("$FL" --help); rc=$?
check "--help exits 0 and states the RFC default of 256 threads" \
	test $rc -eq 0 -a -n "$(grep -- '-t N, -n N .*default 256' <<<"$out")"

# --- kernel without the new ops ---
if [ $have_fl = 0 ]; then
	for a in "" "-a"; do
		out=$("$FL" $a -i 100 -t 2 2>&1); rc=$?
		check "futex_lock $a without FUTEX_LOCK: one clear line, exit 1" \
			test $rc -eq 1 -a "$out" = "futex_lock: this kernel has no FUTEX_LOCK: boot the patched kernel, see README"
	done
	out=$("$FL" --compare -m futex_lock -m adaptive -r 2 -i 400 -t 2 2>&1); rc=$?
	check "--compare with nothing measurable exits 1 and says why" \
		test $rc -eq 1 -a -n "$(grep 'none of the requested modes can run here' <<<"$out")"
	out=$("$FL" --compare -r 3 -i 400 -t 2 -d 10 -w 10 2>&1); rc=$?
	printf '%s\n' "$out" >"$TMP/nofl.txt"
	check "--compare without FUTEX_LOCK: baseline pthread, said so; futex_lock/adaptive unavailable; 6 modes + A/A measured" \
		test $rc -eq 0 -a -n "$(grep -x 'baseline: pthread (FUTEX_LOCK unavailable on this kernel: probe ENOSYS; ratios refer to pthread)' <<<"$out")" \
		-a "$(grep -cE '^(futex_lock|adaptive) +unavailable$' <<<"$out")" = 2 \
		-a "$(grep -cE '^(pi|waitwake|waitwake-spin|pthread|pthread-adaptive|spin|pthread \(A/A\)) +[0-9]' <<<"$out")" = 7
else
	skp "no-FUTEX_LOCK behaviour (this kernel has FUTEX_LOCK)"
fi

# --- exact iteration split: N runs exactly, remainder distributed ---
m=waitwake
[ $have_fl = 1 ] && m=futex_lock
out=$("$FL" -m $m -i 1001 -t 7 -d 10 -w 10 2>&1); rc=$?
check "-i 1001 -t 7 runs exactly 1001 lock/unlock calls ($m)" \
	test $rc -eq 0 -a -n "$(grep -x 'lock calls: 1001' <<<"$out")" \
	-a -n "$(grep -x 'unlock calls: 1001' <<<"$out")" \
	-a -n "$(grep 'exactly 1001 = 7 threads x 143, first 0 threads +1' <<<"$out")"
out=$("$FL" -m $m -i 1000 -t 7 -d 10 -w 10 2>&1)
check "-i 1000 -t 7: remainder 6 goes to the first threads" \
	grep -q 'exactly 1000 = 7 threads x 142, first 6 threads +1' <<<"$out"

# --- RFC block format (first 7 lines) ---
out=$("$FL" -m $m -i 5000 -t 4 -d 10 -w 100 2>&1)
fmt_ok() {
	local -a L
	mapfile -t L <<<"$(head -7 <<<"$out")"
	[[ ${L[0]} =~ ^futex_lock:\ Measure\ [a-zA-Z_-]+\ operations\ per\ second$ ]] &&
	[[ ${L[1]} =~ ^Arguments:\ iterations=5000\ threads=4\ adaptive=0 ]] &&
	[[ ${L[2]} =~ ^Result:\ [0-9]+\ Kiter/s$ ]] &&
	[[ ${L[3]} == "lock calls: 5000" ]] &&
	[[ ${L[4]} =~ ^lock\ syscalls:\ [0-9]+\ \([0-9]+\.[0-9]{2}%\)$ ]] &&
	[[ ${L[5]} == "unlock calls: 5000" ]] &&
	[[ ${L[6]} =~ ^unlock\ syscalls:\ [0-9]+\ \([0-9]+\.[0-9]{2}%\)$ ]]
}
check "text output starts with the RFC block" fmt_ok

# --- counters for every mode, pthread included; sampled latency ---
out=$("$FL" -m pthread -i 20000 -t 2 -d 10 -w 10 --latency 2>&1); rc=$?
check "pthread: context switches and CPU-s per Kiter reported; --latency samples every acquire" \
	test $rc -eq 0 \
	-a -n "$(grep -E '^context switches: voluntary [0-9]+ \([0-9.]+ per 1000 iterations\), involuntary [0-9]+ \([0-9.]+ per 1000 iterations\)$' <<<"$out")" \
	-a -n "$(grep -E 'CPU-s per Kiter: [0-9.]+$' <<<"$out")" \
	-a -n "$(grep -E '^acquire latency \(every 1st acquire, 20000 samples\): p50 [0-9.]+ us, p90 [0-9.]+ us, p99 [0-9.]+ us, p99.9 [0-9.]+ us, max [0-9.]+ us$' <<<"$out")"
# threads with fewer acquires than --latency-every are sampled too (random
# phase per thread): 16 threads x 500 acquires, every 1000th: each thread is
# sampled with probability 1/2, none at all with 2^-16 (a fixed phase of
# 999 never sampled any of them)
out=$("$FL" -m pthread -i 8000 -t 16 -d 0 -w 0 --latency-every 1000 2>&1); rc=$?
lat_n=$(sed -nE 's/^acquire latency \(every 1000th acquire, ([0-9]+) samples\).*/\1/p' <<<"$out")
check "--latency-every 1000 with 500 acquires per thread: sampled anyway (${lat_n:-0} samples), per-thread worst waits" \
	eval '[ $rc -eq 0 ] && [ "${lat_n:-0}" -ge 1 ] &&
	      grep -qE "^per-thread worst sampled wait: min [0-9.]+ us, median [0-9.]+ us, max [0-9.]+ us \([0-9]+ of 16 threads sampled" <<<"$out"'
# the try-first sampler: one thread never waits, so every sample is 0 (the
# old sampler read the clock around every sampled lock(): never 0)
out=$("$FL" -m waitwake -m pthread -m spin -i 20000 -t 1 -d 0 -w 0 --latency 2>&1); rc=$?
check "--latency at 1 thread: every acquire tried first, none waited, every sample 0" \
	eval '[ $rc -eq 0 ] && [ "$(grep -cE "^acquire latency \(every 1st acquire, 20000 samples\): p50 0\.000 us, p90 0\.000 us, p99 0\.000 us, p99\.9 0\.000 us, max 0\.000 us$" <<<"$out")" = 3 ]'
# the sampling rate is exact: one thread, every 16th of 16000 acquires is
# 1000 samples, all 0 (no wait); a time-bounded run samples as well
out=$("$FL" -m spin -i 16000 -t 1 -d 0 -w 0 --latency-every 16 2>&1); rc=$?
check "--latency-every 16 of 16000 acquires at 1 thread: exactly 1000 samples, all 0" \
	eval '[ $rc -eq 0 ] && grep -qx "acquire latency (every 16th acquire, 1000 samples): p50 0.000 us, p90 0.000 us, p99 0.000 us, p99.9 0.000 us, max 0.000 us" <<<"$out"'
out=$("$FL" -m waitwake -t 1 -d 0 -w 0 --duration 0.05 --latency-every 16 2>&1); rc=$?
check "--duration with --latency-every 16 at 1 thread: sampled, all 0" \
	eval '[ $rc -eq 0 ] && grep -qE "^acquire latency \(every 16th acquire, [1-9][0-9]* samples\): p50 0\.000 us, .*max 0\.000 us" <<<"$out"'
# ... and two threads with no work outside the lock wait (a spin lock
# spins while the other holds, on one CPU while the holder is
# preempted), so some samples are not 0; every acquire is sampled.  A
# loaded host may run the threads one after the other, with nothing to
# wait for: then futex_lock says its exclusion check was not exercised
out=$("$FL" -m spin -i 20000 -t 2 -d 1000 -w 0 --latency 2>&1); rc=$?
check "--latency at 2 threads, no outside work: 20000 samples, the longest not 0 (or the threads never met)" \
	eval '[ $rc -eq 0 ] && grep -q "^acquire latency (every 1st acquire, 20000 samples): " <<<"$out" &&
	      { grep -qE "^acquire latency .*, max [0-9.]*[1-9][0-9.]* us$" <<<"$out" ||
		grep -q "^mutual exclusion: not exercised" <<<"$out"; }'
out=$("$FL" -m spin -i 20000 -t 1 -d 0 -w 0 --latency-every 0 2>&1)
check "--latency-every 0: no timestamps, latency not sampled" \
	grep -qx 'acquire latency: not sampled (--latency-every 0)' <<<"$out"

# --- JSON: parses, and holds the same numbers as the text of the same run ---
"$FL" -m waitwake -m spin -m pthread -i 4000 -t 3 -d 50 -w 200 --latency-every 7 \
	--json-file "$TMP/run.json" >"$TMP/run.txt" 2>&1
check "--json-file output parses with python3 -m json.tool" \
	"$PY" -m json.tool "$TMP/run.json" /dev/null
cmp_json() { "$PY" tests/json_vs_text.py "$TMP/run.txt" "$TMP/run.json" 3 4000 >/dev/null; }
check "--json numbers equal the text numbers of the same runs" cmp_json
# the checker can fail, also with asserts compiled out: text of -i 500, JSON of -i 700
"$FL" -m waitwake -i 500 -t 2 -d 10 -w 10 >"$TMP/i500.txt" 2>&1
"$FL" -m waitwake -i 700 -t 2 -d 10 -w 10 --json-file "$TMP/i700.json" >/dev/null 2>&1
PYTHONOPTIMIZE=1 "$PY" tests/json_vs_text.py "$TMP/i500.txt" "$TMP/i700.json" >/dev/null; rc=$?
check "json_vs_text.py rejects text and JSON of different runs, even with PYTHONOPTIMIZE=1" \
	test $rc -eq 1
# the user-space spin (it needs the patched kernel: the guest checks real
# runs).  Here a wait/wake run dressed as an adaptive one: its "user
# spin" text line and JSON object must agree, and what holds of any run
# is checked (off: no spin; on: a lock syscall implies a spin; each spin
# that failed made a syscall; reads <= spins x limit).  The run has
# LSC lock syscalls (JSON).
# uspin_case on|off LIMIT SPINS ACQUIRED ITERATIONS TEXT-SPINS LSC [SKIPPED [yes|no [TEXT-SKIPPED [BACKED-OFF [on|off [TEXT-BACKED-OFF]]]]]]
# (SKIPPED: slow locks that skipped the spin, the woken mark honoured or not;
# BACKED-OFF: those the back-off skipped, the knob on or off)
uspin_case() {
	"$PY" - "$TMP/i500.txt" "$TMP/i500.json" "$TMP/us.txt" "$TMP/us.json" "$@" <<'PYEOF'
import json, sys
t, j, ot, oj, on, lim, sp, acq, it, tsp, lsc = sys.argv[1:12]
skp, wm = (sys.argv[12:] + ["0", "yes" if on == "on" else "no"][len(sys.argv[12:]):])[:2]
tskp = sys.argv[14] if len(sys.argv) > 14 else skp
bo = sys.argv[15] if len(sys.argv) > 15 else "0"
bon = sys.argv[16] if len(sys.argv) > 16 else "off"
tbo = sys.argv[17] if len(sys.argv) > 17 else bo
txt = open(t).read().replace("mode: waitwake;", "mode: adaptive;")
line = ("user spin: %s, limit %s iterations (futex(2) round trip 81 ns / 11.7 ns per iteration); "
        "%s spins, %s took the lock (0.00%%), 0 left it to the kernel, 1.0 reads per spin; "
        "%s skipped (woken mark, honoured: %s); %s backed off (back-off: %s)\n"
        % (on, lim, tsp, acq, tskp, wm, tbo, bon))
d = json.load(open(j))
for r in d["runs"]:
    txt = txt.replace("lock syscalls: %d (" % r["lock_syscalls"], "lock syscalls: %s (" % lsc, 1)
    r["mode"] = "adaptive"
    r["lock_syscalls"] = int(lsc)
    r["user_spin"] = {"on": on == "on", "limit": int(lim), "syscall_ns": 81.2, "iter_ns": 11.71,
                      "spins": int(sp), "acquired": int(acq), "to_kernel": 0, "iterations": int(it),
                      "skipped": int(skp), "woken_mark_honoured": wm == "yes",
                      "backed_off": int(bo), "backoff": bon == "on"}
txt = txt.replace("mode: adaptive;", line + "mode: adaptive;", 1)
open(ot, "w").write(txt)
json.dump(d, open(oj, "w"))
PYEOF
	PYTHONOPTIMIZE=1 "$PY" tests/json_vs_text.py "$TMP/us.txt" "$TMP/us.json" >/dev/null
}
"$FL" -m waitwake -i 500 -t 2 -d 10 -w 10 --json-file "$TMP/i500.json" >"$TMP/i500.txt" 2>&1
uspin_rc() { uspin_case "$@"; echo $?; }
# a value exactly halfway between two printed ones (135.75 ns, printed
# 135.8) is the text of that JSON value; 135.9 is not (seen failing:
# the debug kernel's calibration hit it in a fresh make check)
check "json_vs_text.py: a JSON value halfway between two printed digits matches its rounded text, one digit off does not" \
	"$PY" -c 'import importlib.util as u; s = u.spec_from_file_location("j", "tests/json_vs_text.py"); m = u.module_from_spec(s); s.loader.exec_module(m); assert m.close(135.8, 135.75, 0.05) and m.close(11267, 11266.5, 0.5) and not m.close(135.9, 135.75, 0.05)'
check "json_vs_text.py: the user spin line equals its JSON; it rejects a spin while off, more taken than spun, more reads than the limit allows, a text count that differs, syscalls without a spin, failed spins without a syscall, a skip while off or while the mark is ignored, skips without a syscall, a text skip count that differs, the mark honoured while off" \
	eval '[ "$(uspin_rc on 7 10 4 30 10 6)" = 0 ] && [ "$(uspin_rc off 7 10 0 30 10 10)" = 1 ] &&
	      [ "$(uspin_rc on 7 10 11 30 10 6)" = 1 ] && [ "$(uspin_rc on 7 10 4 71 10 6)" = 1 ] &&
	      [ "$(uspin_rc on 7 10 4 30 9 6)" = 1 ] && [ "$(uspin_rc off 7 0 0 0 0 5)" = 0 ] &&
	      [ "$(uspin_rc on 7 0 0 0 0 5)" = 1 ] && [ "$(uspin_rc on 7 10 4 30 10 5)" = 1 ] &&
	      [ "$(uspin_rc on 7 10 4 30 10 9 3)" = 0 ] && [ "$(uspin_rc on 7 0 0 0 0 5 5)" = 0 ] &&
	      [ "$(uspin_rc off 7 0 0 0 0 5 2)" = 1 ] && [ "$(uspin_rc on 7 10 4 30 10 9 3 no)" = 1 ] &&
	      [ "$(uspin_rc on 7 10 4 30 10 8 3)" = 1 ] && [ "$(uspin_rc on 7 10 4 30 10 9 3 yes 2)" = 1 ] &&
	      [ "$(uspin_rc off 7 0 0 0 0 5 0 yes)" = 1 ]'
check "json_vs_text.py: the user spin's back-off count equals its JSON; it rejects a text count that differs, a back-off while off or while the spin is off, back-offs without a syscall, back-offs before 4 spins ran out" \
	eval '[ "$(uspin_rc on 7 10 4 30 10 9 0 yes 0 3 on)" = 0 ] && [ "$(uspin_rc on 7 10 4 30 10 9 0 yes 0 3 off)" = 1 ] &&
	      [ "$(uspin_rc on 7 10 4 30 10 8 0 yes 0 3 on)" = 1 ] && [ "$(uspin_rc off 7 0 0 0 0 5 0 no 0 0 on)" = 1 ] &&
	      [ "$(uspin_rc on 7 10 4 30 10 9 0 yes 0 3 on 2)" = 1 ] &&
	      [ "$(uspin_rc on 7 0 0 0 0 5 0 yes 0 5 on)" = 1 ] && [ "$(uspin_rc on 7 7 4 21 7 8 0 yes 0 5 on)" = 1 ] &&
	      [ "$(uspin_rc on 7 8 4 24 8 9 0 yes 0 5 on)" = 0 ]'

# --- kernel stats: a fake debugfs file whose values change during the run.
# The file is a FIFO, so each of the run's two readings (before and after)
# waits for our write: the first gets the "before" values, the second the
# changed ones, whatever the machine's speed (no sleep has to be long
# enough).  Between the two writes we wait for the event itself: the run
# has closed the FIFO after its first reading (/proc/PID/fd).
fd_open() {	# PID PATH: PID has PATH open
	local f
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "$2" ] && return 0
	done
	return 1
}
mkfifo "$TMP/kstats"
FUTEXLOCK_KSTATS=$TMP/kstats timeout 120 "$FL" -m spin -i 20000 -t 2 -d 10 -w 10 \
	--json-file "$TMP/ks.json" >"$TMP/ks.txt" 2>&1 &
flpid=$!
printf 'lock_slow: 3\nspin_acquired: 40\n' | timeout 60 tee "$TMP/kstats" >/dev/null
for _ in $(seq 6000); do	# up to ~60 s, only so that a hang fails
	fd_open $flpid "$TMP/kstats" || break
	sleep 0.01
done
printf 'lock_slow: 10\nspin_acquired: 40\nsleeps: 5\n' | timeout 60 tee "$TMP/kstats" >/dev/null
wait $flpid
check "kernel stats: deltas of changing values (7, 0, new counter 5) in text" \
	grep -qx "kernel stats ($TMP/kstats, delta): lock_slow=7 spin_acquired=0 sleeps=5" "$TMP/ks.txt"
check "kernel stats: JSON equals text" \
	"$PY" tests/json_vs_text.py "$TMP/ks.txt" "$TMP/ks.json" 1 -
# --compare's per-lock table: counters per 1000 iterations, a gauge
# (spin_budget_ns) as its value, not divided by the iterations
printf 'sleeps: 5\nspin_budget_ns: 12345\n' >"$TMP/kgauge"
FUTEXLOCK_KSTATS=$TMP/kgauge timeout 120 "$FL" --compare -m pthread -r 2 -i 20000 -t 2 \
	-d 0 -w 0 >"$TMP/kg.txt" 2>&1
check "kernel stats table of --compare: a gauge is shown as its value (12345.00), a counter per 1000 iterations (0.00)" \
	grep -Eq '^pthread +0\.00 +12345\.00$' "$TMP/kg.txt"
# kstats_delta (apps.sh, cpython-suites.sh): counters as deltas, the
# values that are not counts as they are in AFTER, a new line as itself
printf 'sleeps: 5\nlost_max: 4\nspin_budget_ns: 300\nspin_attempts: 1\n' >"$TMP/kd0"
printf 'sleeps: 9\nlost_max: 2\nspin_budget_ns: 70\nspin_attempts: 1\nnew_counter: 3\n' >"$TMP/kd1"
out=$("$B/kstats_delta" "$TMP/kd0" "$TMP/kd1" 2>&1); rc=$?
want=$(printf 'sleeps: 4\nlost_max: 2\nspin_budget_ns: 70\nspin_attempts: 0\nnew_counter: 3')
check "kstats_delta: deltas 4 and 0, lost_max and spin_budget_ns as at the end, a new line as itself (rc=$rc)" \
	eval '[ $rc -eq 0 ] && [ "$out" = "$want" ]'
"$B/kstats_delta" "$TMP/kd0" >/dev/null 2>&1; rc=$?
"$B/kstats_delta" "$TMP/kd0" "$TMP/nosuch" >/dev/null 2>&1; rc2=$?
check "kstats_delta: exit 2 with one file, 1 with an unreadable one ($rc, $rc2)" \
	eval '[ $rc -eq 2 ] && [ $rc2 -eq 1 ]'

# --- knob variants (-m MODE@KNOB=VALUE,...) on fake knob files in
# $FUTEXLOCK_KNOB_DIR, with pthread (it runs on every kernel).  A plain
# file reads back what was written: a boolean written 0 reads "0" where
# debugfs says "N"; futex_lock accepts both ---
bad -m pthread@nosuch=1
bad -m pthread@spin_backoff=2
bad -m pthread@spin_max_ns=abc
bad -m pthread@spin_max_ns=-1
bad -m pthread@handoff_threshold=4294967296
bad -m pthread@
bad -m pthread@spin_backoff
bad -m pthread@spin_backoff=1,
bad -m pthread@spin_backoff=1,,spin_calibrate=1
bad -m pthread@spin_backoff=1,spin_backoff=0
bad -m adaptive@user_spin=2
bad -m adaptive@user_spin=0,user_spin=1
bad -m pthread@user_spin=0
bad -m waitwake@user_spin=1
bad -m pthread@user_spin_woken=0
bad -m adaptive@user_spin_woken=2
bad -m futex_lock@user_spin_woken=0
bad -m adaptive@user_spin=0,user_spin_woken=0
bad -m pthread@user_spin_backoff=1
bad -m adaptive@user_spin_backoff=2
bad -m futex_lock@user_spin_backoff=1
bad -m adaptive@user_spin=0,user_spin_backoff=1
bad -m nosuchlock@spin_backoff=1
bad --compare --baseline pthread@spin_backoff=0
KD=$TMP/knobs
knobs_reset() {	# the fake debugfs directory, its files at their "defaults"
	rm -rf "$KD" && mkdir "$KD" &&
	printf 'Y\n' >"$KD/spin_backoff" && printf 'Y\n' >"$KD/spin_calibrate" &&
	printf '100000\n' >"$KD/spin_max_ns"
}
knobs_same() {	# every file as knobs_reset left it, byte for byte
	printf 'Y\n' | cmp -s - "$KD/spin_backoff" &&
	printf 'Y\n' | cmp -s - "$KD/spin_calibrate" &&
	printf '100000\n' | cmp -s - "$KD/spin_max_ns"
}
knobs_reset
out=$(FUTEXLOCK_KNOB_DIR=$KD "$FL" --compare -m pthread@spin_max_ns=5000 \
	-m pthread@spin_backoff=0,spin_calibrate=0 -m pthread@spin_max_ns=5000 \
	-r 2 -t 2 -i 2000 -d 0 -w 0 --json-file "$TMP/kv.json" 2>&1); rc=$?
check "--compare -m pthread@spin_max_ns=5000 (twice: one instance) -m pthread@spin_backoff=0,spin_calibrate=0: exit 0, a row each, the knobs restored after (rc=$rc)" \
	eval '[ $rc -eq 0 ] && knobs_same &&
	      [ "$(grep -cE "^pthread@spin_max_ns=5000 +[0-9.]+ " <<<"$out")" = 1 ] &&
	      grep -qE "^pthread@spin_backoff=0,spin_calibrate=0 +[0-9.]+ " <<<"$out"'
kv_json_ok() {
	"$PY" - "$TMP/kv.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
want = {"pthread@spin_max_ns=5000": {"spin_max_ns": 5000},
        "pthread@spin_backoff=0,spin_calibrate=0": {"spin_backoff": 0, "spin_calibrate": 0}}
ok = j["arguments"]["modes"] == list(want)
for r in j["summary"] + j["runs"]:	# variants: mode pthread; plain: no "knobs"
    ok = ok and r.get("knobs") == want.get(r["instance"])
    ok = ok and (r["mode"] == "pthread" or r["instance"] not in want)
ok = ok and sorted(r["instance"] for r in j["runs"] if r["instance"] in want) == sorted(list(want) * 2)
ok = ok and set(want) <= {r["instance"] for r in j["summary"]}
sys.exit(0 if ok else 1)
EOF
}
check "--compare --json-file: a variant's instance is the whole -m string, mode pthread, \"knobs\" object; plain instances have none" kv_json_ok
# Set during the run, not only around it: the run reads its kernel-stats
# file, a FIFO here, before and after its threads run, so between our two
# writes to it the run is under way and its knobs must hold the values.
knobs_reset
mkfifo "$TMP/kvfifo"
FUTEXLOCK_KNOB_DIR=$KD FUTEXLOCK_KSTATS=$TMP/kvfifo timeout 120 "$FL" \
	-m pthread@spin_max_ns=5000,spin_backoff=0 -i 2000 -t 2 -d 10 -w 10 \
	--json-file "$TMP/kv1.json" >"$TMP/kv1.txt" 2>&1 &
flpid=$!
printf 'lock_slow: 1\n' | timeout 60 tee "$TMP/kvfifo" >/dev/null
during=$(cat "$KD/spin_max_ns" "$KD/spin_backoff" | tr '\n' ' ')
printf 'lock_slow: 2\n' | timeout 60 tee "$TMP/kvfifo" >/dev/null
wait $flpid; rc=$?
check "-m pthread@spin_max_ns=5000,spin_backoff=0: the values in the files during the run (${during% }), restored after it, named in the text (rc=$rc)" \
	eval '[ $rc -eq 0 ] && [ "$during" = "5000 0 " ] && knobs_same &&
	      grep -qxF "knobs ($KD, set for this run, restored after it): spin_max_ns=5000 spin_backoff=0" "$TMP/kv1.txt" &&
	      "$PY" tests/json_vs_text.py "$TMP/kv1.txt" "$TMP/kv1.json" 1 2000 >/dev/null'
# SIGTERM while the knobs are set (the run waits for the FIFO's second
# write, which never comes): restored, then the signal ends the process
knobs_reset
FUTEXLOCK_KNOB_DIR=$KD FUTEXLOCK_KSTATS=$TMP/kvfifo "$FL" -m pthread@spin_max_ns=5000 \
	-i 2000 -t 2 -d 10 -w 10 >/dev/null 2>&1 &
flpid=$!
printf 'lock_slow: 1\n' | timeout 60 tee "$TMP/kvfifo" >/dev/null
during=$(cat "$KD/spin_max_ns")
kill -TERM $flpid
wait $flpid; rc=$?
check "SIGTERM during a variant's run (spin_max_ns $during): the knob restored, then the signal ends it (rc=$rc)" \
	eval '[ "$during" = 5000 ] && [ $rc -eq 143 ] && knobs_same'
# a knob that cannot be set: found before any run (no table), exit 1, the
# file and the errno named, nothing left changed (spin_max_ns, set before
# the missing spin_check_runnable is tried, is restored)
knobs_reset
out=$(FUTEXLOCK_KNOB_DIR=$KD "$FL" --compare -m pthread \
	-m pthread@spin_max_ns=5000,spin_check_runnable=0 -r 2 -t 2 -i 2000 2>&1); rc=$?
check "a missing knob file: exit 1 before any run, the file and ENOENT named, the other knob restored (rc=$rc)" \
	eval '[ $rc -eq 1 ] && knobs_same && [ ! -e "$KD/spin_check_runnable" ] && ! grep -q "^baseline:" <<<"$out" &&
	      grep -qF "$KD/spin_check_runnable: cannot read: No such file or directory (ENOENT)" <<<"$out"'
# one that refuses the write, to root as well: a read-only sysctl (0444)
knobs_reset
ln -s /proc/sys/kernel/ngroups_max "$KD/handoff_threshold"
out=$(FUTEXLOCK_KNOB_DIR=$KD "$FL" -m pthread@spin_backoff=0,handoff_threshold=3 -t 2 -i 2000 2>&1); rc=$?
check "a knob file that cannot be written: exit 1, the file and the errno named, the other knob restored (rc=$rc)" \
	eval '[ $rc -eq 1 ] && knobs_same && [ -z "$(grep "^Result:" <<<"$out")" ] &&
	      grep -qE "$KD/handoff_threshold: cannot write: .* \((EACCES|EPERM|EROFS)\)" <<<"$out"'
out=$(FUTEXLOCK_KNOB_DIR=$TMP/no-debugfs "$FL" -m pthread@spin_backoff=0 -t 2 -i 2000 2>&1); rc=$?
check "no knob directory (no patched kernel, no debugfs): exit 1, says what a variant needs (rc=$rc)" \
	eval '[ $rc -eq 1 ] && grep -qF "$TMP/no-debugfs/spin_backoff: cannot read: No such file or directory (ENOENT) (knob variants need root and the patched kernel" <<<"$out"'
out=$("$FL" --help)
check "--help documents -m MODE@KNOB=VALUE, the knobs, and that it needs root and the patched kernel" \
	eval 'grep -qF -- "-m MODE@KNOB=VALUE[,KNOB=VALUE...]" <<<"$out" &&
	      grep -q "spin_check_runnable" <<<"$out" && grep -q "Needs root and the patched" <<<"$out" &&
	      grep -q "user_spin (0 or 1)" <<<"$out" &&
	      grep -q "user_spin_woken (0 or 1, default 1)" <<<"$out" &&
	      grep -q "user_spin_backoff (0 or 1, default 0)" <<<"$out" && grep -q "modes refuse all three" <<<"$out"'

# --- negative control: the engine's exclusion check catches a lock that
# excludes nobody at -d 0 (the owner word, struct fl_owner).  Time-bounded, so
# the two threads certainly run at the same time; exit 3 = VIOLATED ---
out=$(FUTEXLOCK_TEST_BROKEN_LOCK=1 "$FL" -m test-broken -t 2 --duration 0.2 -d 0 -w 0 2>&1); rc=$?
check "futex_lock -m test-broken -d 0 -w 0 (a lock that excludes nobody): VIOLATED, exit 3 (rc=$rc)" \
	eval '[ $rc -eq 3 ] && grep -q "^mutual exclusion: VIOLATED" <<<"$out" &&
	      grep -q "critical sections overlapped another" <<<"$out"'
# Iteration-bounded too (each thread runs its share and stops, so the two
# overlap only while both run), pinned and not, 10 runs each: no run may
# pass as "ok".  Each is caught (exit 3), or, when the loaded host let the
# two threads take turns fewer than FL_MIN_HANDOFFS times, says "not
# exercised".  The old 3-instruction window let 9 of 20 pass as "ok".
caught=0 unex=0 runs=0 seen=
for pin in "" --pin; do
	for _ in $(seq 10); do
		FUTEXLOCK_TEST_BROKEN_LOCK=1 "$FL" -m test-broken -t 2 -i 2000000 \
			-d 0 -w 0 $pin >"$TMP/brk.out" 2>&1; rc=$?
		runs=$((runs + 1))
		seen="$seen $rc"
		if [ $rc -eq 3 ] && grep -q "^mutual exclusion: VIOLATED" "$TMP/brk.out"; then
			caught=$((caught + 1))
		elif [ $rc -eq 0 ] && grep -q "^mutual exclusion: not exercised" "$TMP/brk.out"; then
			unex=$((unex + 1))
		fi
	done
done
check "futex_lock -m test-broken -i 2000000 -d 0 -w 0 [--pin]: never 'ok': caught in $caught, not exercised in $unex of $runs runs (exit codes:$seen)" \
	test $((caught + unex)) -eq $runs -a $caught -gt 0

# --- --compare: paired, shuffled, A/A control, interval and verdict ---
"$FL" --compare -r 5 -i 400 -t 2 -d 10 -w 10 --seed 7 --json >"$TMP/cmp.json" 2>"$TMP/cmp.err"
"$PY" tests/check_compare.py "$TMP/cmp.json" "$have_fl" 5 400 >"$TMP/cmp.out"; rc=$?
cat "$TMP/cmp.out"
check "--compare --json: every mode, A/A control, baseline, paired ratios with interval and verdict" \
	test $rc -eq 0
# 4 pairs (< FL_MIN_VERDICT_PAIRS): every row says "insufficient data"
out=$("$FL" --compare -m waitwake -m spin -r 4 -i 2000 -t 2 -d 10 -w 10 2>&1); rc=$?
cmp_text_ok() {
	local base=pthread
	[ $have_fl = 1 ] && base=futex_lock
	[ $rc -eq 0 ] &&
	grep -qE "^$base \(A/A\) +[0-9.]+ +[0-9.]+ [0-9.]+-[0-9.]+ +control " <<<"$out" &&
	[ "$(grep -cE '^(waitwake|spin) +[0-9.]+ +[0-9.]+ [0-9.]+-[0-9.]+ +insufficient data ' <<<"$out")" = 2 ] &&
	grep -qE "^$base +[0-9.]+ +1 \(baseline\)" <<<"$out" &&
	grep -q '^ratio = median over 4 repetitions' <<<"$out"
}
check "--compare table, 4 pairs: baseline row, ratio + 95% CI per mode and A/A, verdict 'insufficient data' ('control' for A/A)" cmp_text_ok
# the time limit stops adding repetitions (at least 2 run)
out=$("$FL" --compare -m spin -r 50 --time-limit 0.2 --duration 0.05 -t 2 -d 10 -w 10 2>&1); rc=$?
reps=$(sed -n 's/^ratio = median over \([0-9]*\) repetitions.*/\1/p' <<<"$out")
check "--compare --time-limit 0.2 stops early (${reps:-?} of 50 repetitions)" \
	test $rc -eq 0 -a "${reps:-0}" -ge 2 -a "${reps:-99}" -lt 50

# --- a set-up error is reported as one, not as a mutual-exclusion violation ---
if [ "$(id -u)" = 0 ]; then
	unpriv=(setpriv --reuid 65534 --regid 65534 --clear-groups)
else
	unpriv=()
fi
out=$("${unpriv[@]}" "$FL" -m spin -t 2 -i 100 --sched fifo 2>&1); rc=$?
check "--sched fifo unprivileged: exit 1, 'setup error', no RFC block, no VIOLATED" \
	test $rc -eq 1 -a -n "$(grep -x 'futex_lock: spin: setup error: set scheduling policy: Operation not permitted' <<<"$out")" \
	-a -z "$(grep -e VIOLATED -e '^Result:' <<<"$out")"

# --- perf bench futex style: -S, -M, -s ---
out=$("$FL" -m waitwake -S -i 20000 -t 4 -d 10 -w 10 2>&1); rc=$?
# (on a loaded host 4 threads x 5000 may take turns fewer than 100 times:
# "not exercised" is then the honest answer, never "VIOLATED")
excl=no; excl_ok "$out" 20000 && excl=yes
check "-S (shared futexes): exact calls, mutual exclusion ok or not exercised" \
	test $rc -eq 0 -a -n "$(grep -x 'lock calls: 20000' <<<"$out")" \
	-a -n "$(grep 'futex: shared; locks: one$' <<<"$out")" -a $excl = yes
out=$("$FL" -m waitwake -M -i 20000 -t 4 -d 10 -w 10 2>&1); rc=$?
check "-M (one lock per thread): exact, no contention so no syscalls, exclusion not exercised" \
	test $rc -eq 0 -a -n "$(grep -x 'lock syscalls: 0 (0.00%)' <<<"$out")" \
	-a -n "$(grep 'locks: one per thread$' <<<"$out")" \
	-a -n "$(grep -x 'mutual exclusion: not exercised (protected counter 20000; 0 hand-offs, fewer than 100)' <<<"$out")"
out=$("$FL" -m pthread -s -S -M --duration 0.1 -t 2 -d 10 -w 10 2>&1); rc=$?
check "-s: one line, perf bench futex format" \
	test $rc -eq 0 -a "$(wc -l <<<"$out")" = 1 \
	-a -n "$(grep -xE 'Averaged [0-9]+ operations/sec \(\+- [0-9.]+%\), total secs = [0-9.]+' <<<"$out")"

# --- --perf-loop: perf bench futex lock's loop and its ops/s (lock; -d
# loops; unlock; count), for make perfagree.  Arguments first: each bad
# combination exits 2 with the usage and a first line that says why ---
bad_why() {	# ERE ARGS...
	local re=$1 out rc
	shift
	out=$("$FL" "$@" 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 2 ] && grep -q '^Usage: futex_lock' <<<"$out" &&
	   head -1 <<<"$out" | grep -qE -- "$re"; then
		ok "bad args exit 2, usage, says why: $*"
	else
		nok "bad args exit 2, usage, says why: $* (rc=$rc: $(head -1 <<<"$out"))"
	fi
}
bad_why '^futex_lock: --perf-loop.*--duration' --perf-loop
bad_why '^futex_lock: --perf-loop.*--duration' --perf-loop -i 100 -m pi
bad_why '^futex_lock: --perf-loop.*whole seconds' --perf-loop --duration 1.5 -m pi
bad_why '^futex_lock: --perf-loop.*whole seconds' --perf-loop --duration 0.5 -m pi
bad_why '^futex_lock: --perf-loop.*-w' --perf-loop --duration 1 -m pi -w 10
bad_why '^futex_lock: --perf-loop.*futex_lock, adaptive or pi' --perf-loop --duration 1 -m waitwake
bad_why '^futex_lock: --perf-loop.*futex_lock, adaptive or pi' --perf-loop --duration 1 -m pi -m spin
bad_why '^futex_lock: --perf-loop.*--compare' --perf-loop --duration 1 --compare
bad_why '^futex_lock: --perf-loop.*--json' --perf-loop --duration 1 -m pi --json
bad_why '^futex_lock: --perf-loop.*--json' --perf-loop --duration 1 -m pi --json-file "$TMP/x.json"
bad_why '^futex_lock: --perf-loop.*latency' --perf-loop --duration 1 -m pi --latency
bad_why '^futex_lock: --perf-loop.*latency' --perf-loop --duration 1 -m pi --latency-every 0
out=$("$FL" --help)
check "--help documents --perf-loop" \
	test -n "$(grep -- '--perf-loop' <<<"$out")"
# then that it runs: pi (every kernel has it) with -s, perf's line exactly
out=$("$FL" -m pi --perf-loop -s -t 2 -d 0 -w 0 --duration 1 2>&1); rc=$?
check "-m pi --perf-loop -s --duration 1: one line as perf bench prints it, total secs = 1" \
	test $rc -eq 0 -a "$(wc -l <<<"$out")" = 1 \
	-a -n "$(grep -xE 'Averaged [1-9][0-9]* operations/sec \(\+- [0-9]+\.[0-9]{2}%\), total secs = 1' <<<"$out")"
# the text: calls = iterations, pinned, nothing checked or timed, and
# perf's figure is the per-thread iterations over the whole seconds:
# mean(floor(iters_i / S)) lies in (iters / T / S - 1, iters / T / S]
out=$("$FL" -m pi --perf-loop -t 3 -d 10 --duration 1 2>&1); rc=$?
printf '%s\n' "$out" >"$TMP/pl.txt"
perf_loop_text_ok() {
	local calls ucalls iters avg secs
	calls=$(sed -n 's/^lock calls: //p' <<<"$out")
	ucalls=$(sed -n 's/^unlock calls: //p' <<<"$out")
	iters=$(sed -nE 's/^iterations: ([0-9]+) in .*/\1/p' <<<"$out")
	avg=$(sed -nE 's/^perf bench style: Averaged ([0-9]+) operations\/sec.*/\1/p' <<<"$out")
	secs=$(sed -nE 's/^perf bench style: .*, total secs = ([0-9]+) .*/\1/p' <<<"$out")
	[ $rc -eq 0 ] && [ -n "$calls" ] && [ "$calls" -gt 0 ] &&
	[ "$calls" = "$ucalls" ] && [ "$calls" = "$iters" ] &&
	grep -q '; pin: yes;.*; loop: perf$' <<<"$out" &&
	grep -qx 'mutual exclusion: not checked (--perf-loop: perf'"'"'s loop has no check)' <<<"$out" &&
	grep -qx 'acquire latency: not sampled (--perf-loop)' <<<"$out" &&
	[ "$secs" = 1 ] && [ -n "$avg" ] &&
	awk -v a="$avg" -v i="$iters" 'BEGIN { x = i / 3; exit !(a <= x && a > x - 1) }'
}
check "-m pi --perf-loop -t 3 -d 10: calls = iterations, pinned, unchecked, untimed; perf's Averaged = per-thread iterations / whole seconds" \
	perf_loop_text_ok
if [ $have_fl = 1 ]; then
	for a in "" "-a"; do
		out=$("$FL" $a --perf-loop -s -t 2 -d 0 --duration 1 2>&1); rc=$?
		check "futex_lock $a --perf-loop -s: perf's line" \
			test $rc -eq 0 -a -n "$(grep -xE 'Averaged [1-9][0-9]* operations/sec \(\+- [0-9]+\.[0-9]{2}%\), total secs = 1' <<<"$out")"
	done
else
	out=$("$FL" --perf-loop --duration 1 -t 2 2>&1); rc=$?
	check "futex_lock --perf-loop without FUTEX_LOCK: one clear line, exit 1" \
		test $rc -eq 1 -a "$out" = "futex_lock: this kernel has no FUTEX_LOCK: boot the patched kernel, see README"
fi

# --- time-bounded run, pin, sched ---
out=$("$FL" -m waitwake-spin --duration 0.3 -t 4 -d 10 -w 100 --pin --sched other 2>&1); rc=$?
check "--duration 0.3 --pin --sched other: fairness line and time-bounded" \
	test $rc -eq 0 -a -n "$(grep -E '^per-thread iterations: min [0-9]+ max [0-9]+' <<<"$out")" \
	-a -n "$(grep -E '^Arguments: duration=0.3s threads=4' <<<"$out")"

# --- make apps' tools (userspace/scripts/apps.sh): apps_table on synthetic
# runs (the engine's verdicts, a failed run is "failed" and never a
# number), apps_run (status, rusage line, SIGTERM passed on) ---
AT=$B/apps_table
for r in 1 2 3 4 5 6; do
	for m in glibc glibc-aa lock adaptive; do
		v=$((1000 + r)) x=
		[ $m = lock ] && v=$((2000 + 3 * r))
		[ $m = adaptive ] && [ $r = 4 ] && v=failed x="# adaptive 4 failed: exit status 1"
		[ -n "$x" ] && echo "$x"
		echo "$m $r $v ops=100 lock_sys/op=0.$r"
	done
done >"$TMP/apps.runs"
out=$("$AT" <"$TMP/apps.runs" 2>&1); rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
apps_text_ok() {
	[ $rc -eq 0 ] &&
	grep -qE '^glibc +1003\.50 +1 \(baseline\) +- +100 +0\.35$' <<<"$out" &&
	grep -qE '^glibc-aa +[0-9.]+ +1\.00 \[[0-9.]+,[0-9.]+\] +control ' <<<"$out" &&
	grep -qE '^lock +2010\.50 +2\.00 \[[0-9.]+,[0-9.]+\] +faster ' <<<"$out" &&
	grep -qE '^adaptive +failed +failed +failed ' <<<"$out" &&
	grep -qx 'adaptive: 1 of 6 runs FAILED (no figure; see the .runs file)' <<<"$out" &&
	grep -qx "adaptive / lock per repetition: failed; issue 17: no verdict" <<<"$out"
}
check "apps_table: baseline, A/A control, a faster row, a failed run gives 'failed' and no figure" apps_text_ok
"$AT" --json --seed 3 --env "host test" "prog:ops/s:$TMP/apps.runs" >"$TMP/apps.json"; rc=$?
# judged as a published file (verdicts by the rule), the dirty-tree check
# aside: the tree under test may well be dirty
"$PY" - "$TMP/apps.json" "$TMP/apps-clean.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
j["git_commit"] = j["git_commit"].replace("-dirty", "")
json.dump(j, open(sys.argv[2], "w"))
EOF
check "check_seed.py: no arguments, an unknown check or a bad HAVE_FUTEX_LOCK exit 2 with usage" \
	eval '{ "$PY" tests/check_seed.py 2>/dev/null; [ $? -eq 2 ]; } &&
	      { "$PY" tests/check_seed.py nosuch x.json 1 2>/dev/null; [ $? -eq 2 ]; } &&
	      { "$PY" tests/check_seed.py published x.json 2 2>"$TMP/cs-usage"; [ $? -eq 2 ]; } &&
	      grep -q "^usage: check_seed.py" "$TMP/cs-usage"'
apps_json_ok() {
	[ $rc -eq 0 ] && "$PY" tests/check_seed.py published "$TMP/apps-clean.json" 1 >"$TMP/cs.out" &&
	"$PY" - "$TMP/apps.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
rows = {r["type"]: r for r in j["tests"][0]["rows"]}
ok = (j["seed"] == 3 and j["environment"] == "host test" and j["tests"][0]["test"] == "prog"
      and rows["adaptive"]["failed"] and rows["adaptive"]["value_median"] is None
      and rows["adaptive"]["value_ratio"]["verdict"] == "failed"
      and "median" not in rows["adaptive"]["value_ratio"]
      and rows["adaptive"]["value_reps"][3] is None
      and rows["lock"]["value_ratio"]["verdict"] == "faster"
      and rows["glibc-aa"]["value_ratio"]["verdict"] == "control"
      and rows["glibc"]["value_ratio"] is None and rows["glibc"]["counters"]["ops"] == 100
      and j["tests"][0]["adaptive_vs_lock"]["verdict"] == "failed"
      and "median" not in j["tests"][0]["adaptive_vs_lock"])
sys.exit(0 if ok else 1)
EOF
}
check "apps_table --json: published schema, verdicts by the rule, failed row without a ratio" apps_json_ok
# issue 17's question for real programs: adaptive over lock, paired per
# repetition, by the engine against the program's A/A band and by the
# issue's own rule (tests/apps_table_cases.py has the cases and why)
for c in noisy narrow median-098 lower few lock-failed lock-band lock-band-noisy \
	lock-band-lower lock-band-few lock-band-glibc-failed lock-aa-failed lock-stats-failed \
	no-adaptive nous nous-failed nous-lock-failed; do
	check "apps_table: adaptive / lock, case $c (text, JSON, check_seed)" \
		"$PY" tests/apps_table_cases.py "$AT" "$TMP" "$c"
done
check "check_seed: a changed adaptive_vs_lock (verdict, median, its own band, issue 17's words, left out; with lock-aa: the band's name, glibc's band, a widened band, a moved interval, each made consistent) is refused" \
	"$PY" tests/apps_table_cases.py "$AT" "$TMP" dressed
# aa-odds.py (the sizing projections of make apps runs): an A/A whose
# ratios are all 1 resolves in every draw, one spread +-30 % in none;
# bad usage exits 2
"$PY" - "$TMP/odds.json" <<'EOF'
import json, sys
rows = [{"type": "lock", "value_reps": [100.0] * 8},
        {"type": "same", "value_reps": [100.0] * 8},
        {"type": "wide", "value_reps": [70.0, 130.0] * 4}]
json.dump({"tests": [{"test": "p", "rows": rows}]}, open(sys.argv[1], "w"))
EOF
AO=../userspace/scripts/aa-odds.py
odds=$("$AO" --draws 3 "$TMP/odds.json" p same lock 6 2>&1)$'\n'$("$AO" --draws 3 "$TMP/odds.json" p wide lock 6 2>&1)
printf '%s\n' "$odds" | sed 's/^/# /'
check "aa-odds.py: an A/A of exact 1s resolves in 3 of 3 draws, one spread +-30 % in 0 of 3" \
	eval '[[ $odds == *"N=6: resolved in 3 of 3 draws"*"N=6: resolved in 0 of 3 draws"* ]]'
odds_rcs() {	# exit statuses: no N, an unknown mode, N < 2, --draws 0
	local a
	for a in "p same lock" "p nope lock 6" "p same lock 1"; do
		"$AO" "$TMP/odds.json" $a >/dev/null 2>&1
		echo -n "$? "
	done
	"$AO" --draws 0 "$TMP/odds.json" p same lock 6 >/dev/null 2>&1
	echo "$?"
}
check "aa-odds.py: no N, an unknown mode, N < 2, --draws 0 exit 2" test "$(odds_rcs)" = "2 2 2 2"
# the untimed FUTEXLOCK_PRELOAD_STATS=1 run (issue 18 review M2/M3): a
# failed "@stats" record fails its mode; the ratio table; k_* (every kernel
# counter, raw) in the JSON only
{
	echo "@stats lock ok procs=1 converted=3 acq=600 agree=1 acq/op=6 lock_sys/acq=0.0125 unlock_sys/unlock=0.0025"
	echo "@stats adaptive failed procs=1 converted=0 acq=0 agree=0 pl_lock_sys=5 k_lock_sys=9 acq/op=0 lock_sys/acq=0 unlock_sys/unlock=0"
	echo "# adaptive stats run failed: the preload converted no mutex: the program ran on glibc"
	grep -v '^#' "$TMP/apps.runs" | sed -e 's/^adaptive 4 failed/adaptive 4 1000/' -e 's/$/ k_lost_after_wake=4 lost\/op=0.04/'
} >"$TMP/apps-st.runs"
out=$("$AT" <"$TMP/apps-st.runs" 2>&1); rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
apps_stats_text_ok() {
	[ $rc -eq 0 ] &&
	grep -qE '^lock +2010\.50 +2\.00 \[[0-9.]+,[0-9.]+\] +faster ' <<<"$out" &&
	grep -qE '^adaptive +failed +failed +failed ' <<<"$out" &&
	grep -q '^adaptive: its FUTEXLOCK_PRELOAD_STATS=1 run FAILED' <<<"$out" &&
	grep -qE '^lock +ok +3 +6 +0\.0125 +0\.0025 yes$' <<<"$out" &&
	grep -qE '^adaptive +FAILED +0 +- +- +- NO: the preload counted 5 lock syscalls, the kernel 9; no ratio$' <<<"$out" &&
	grep -qE '^mode .* lost/op$' <<<"$out" && ! grep -q 'k_lost' <<<"$out"
}
check "apps_table: a failed @stats run fails its mode (no figure), the syscall-ratio table, k_* not in the text" apps_stats_text_ok
"$AT" --json --seed 3 --env "host test" "prog:ops/s:$TMP/apps-st.runs" >"$TMP/apps-st.json"; rc=$?
apps_stats_json_ok() {
	[ $rc -eq 0 ] && "$PY" - "$TMP/apps-st.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
rows = {r["type"]: r for r in j["tests"][0]["rows"]}
ok = (rows["adaptive"]["failed"] and rows["adaptive"]["value_median"] is None
      and rows["adaptive"]["value_ratio"]["verdict"] == "failed"
      and rows["adaptive"]["stats_run"]["status"] == "failed"
      and rows["lock"]["stats_run"] == {"status": "ok", "procs": 1, "converted": 3, "acq": 600,
          "agree": 1, "acq/op": 6, "lock_sys/acq": 0.0125, "unlock_sys/unlock": 0.0025}
      and rows["glibc"]["stats_run"] is None
      and rows["lock"]["counters"]["k_lost_after_wake"] == 4
      and rows["lock"]["counters_per_run"]["k_lost_after_wake"] == [4] * 6)
sys.exit(0 if ok else 1)
EOF
}
check "apps_table --json: stats_run per row, a failed one fails the row, k_* counters per run" apps_stats_json_ok
printf '@stats lock maybe converted=1\n' >"$TMP/bad.runs"
"$AT" "p:u:$TMP/bad.runs" >/dev/null 2>&1; rc=$?
check "apps_table: an @stats line with a bad status exits 2" test $rc -eq 2

# apps.sh's bad input, on the host (before its kernel check): the default
# modes pass (it stops at the unknown program), a wrong order or an unknown
# mode exits 2 with its reason
# apps.sh on the host with the assignment $1 and no real program (APPS=none)
apps_num() { env "$1" APPS=none APPS_OUT="$TMP/apps-out" ../userspace/scripts/apps.sh 2>&1; echo "rc=$?"; }
apps_args() { apps_num "APPS_MODES=$1"; }
check "apps.sh: the default modes pass its check (make apps ran nothing while they did not)" \
	grep -q "no program none.*rc=2" <<<"$(apps_args "" | tr '\n' ' ')"
check "apps.sh: glibc-aa before glibc, or glibc-aa missing, exits 2" \
	grep -q "must include glibc, then glibc-aa rc=2 .*must include glibc, then glibc-aa rc=2" \
	<<<"$(apps_args "glibc-aa glibc" | tr '\n' ' ') $(apps_args "glibc lock" | tr '\n' ' ')"
check "apps.sh: lock-aa without lock, or without adaptive, exits 2; with both, the modes pass" \
	grep -q "but not lock and adaptive rc=2 .*but not lock and adaptive rc=2 .*no program none.*rc=2" \
	<<<"$(apps_args "glibc glibc-aa lock-aa adaptive" | tr '\n' ' ') $(apps_args "glibc glibc-aa lock lock-aa" | tr '\n' ' ') $(apps_args "glibc glibc-aa lock lock-aa adaptive" | tr '\n' ' ')"
# make apps passes APPS (the programs) into the guest with the APPS_*
# variables, and not the host's APPS_TIMEOUT (seen: APPS was dropped, and
# a run asked for two programs started on all five)
# (make -n with kernel and userspace taken as made: prints the recipe only)
apps_recipe() { make -n -s -C .. --no-print-directory -o kernel -o userspace apps \
	APPS="memcached stress-ng" APPS_REPS=3 2>&1; }
check "Makefile: make apps hands APPS and APPS_* to the guest, not APPS_TIMEOUT, and its guard scales" \
	grep -q -- "--timeout \$(( 900 + 3 \* 25 \* (4 + 6) )) -- env APPS='memcached stress-ng' APPS_REPS='3' userspace/scripts/apps.sh" \
	<<<"$(apps_recipe)"
check "apps.sh: adaptive-nous without lock, or without adaptive, exits 2; with both, the modes pass" \
	grep -q "adaptive-nous .* but not lock and adaptive rc=2 .*but not lock and adaptive rc=2 .*no program none.*rc=2" \
	<<<"$(apps_args "glibc glibc-aa adaptive adaptive-nous" | tr '\n' ' ') $(apps_args "glibc glibc-aa lock adaptive-nous" | tr '\n' ' ') $(apps_args "glibc glibc-aa lock lock-aa adaptive adaptive-nous" | tr '\n' ' ')"
# the environment each mode's runs get (the smoke runs lock and adaptive
# in the guest; lock-aa and adaptive-nous are the same preload under
# another environment, checked here)
env_of() { ../userspace/scripts/apps.sh --env "$1" 2>&1 | grep -v '^LD_PRELOAD=.*/libfutexlock-preload\.so$' | tr '\n' ' '; echo "rc=${PIPESTATUS[0]}"; }
apps_env_ok() {
	[ "$(env_of lock-aa)" = "FUTEXLOCK_PRELOAD=lock FUTEXLOCK_PRELOAD_STATS=0 rc=0" ] &&
	[ "$(env_of adaptive-nous)" = "FUTEXLOCK_PRELOAD=adaptive FUTEXLOCK_PRELOAD_STATS=0 FUTEXLOCK_PRELOAD_USER_SPIN=0 rc=0" ] &&
	[ "$(env_of adaptive)" = "FUTEXLOCK_PRELOAD=adaptive FUTEXLOCK_PRELOAD_STATS=0 rc=0" ] &&
	[ "$(env_of glibc-aa)" = "rc=0" ] &&
	[ "$(../userspace/scripts/apps.sh --env lock-aa | grep -c '^LD_PRELOAD=.*/libfutexlock-preload\.so$')" = 1 ] &&
	[[ $(env_of bogus) == "apps.sh: no mode bogus "*"rc=2" ]] &&
	[[ $(env_of "lock adaptive") == "apps.sh: no mode lock adaptive "*"rc=2" ]]
}
for m in lock-aa adaptive-nous glibc-aa bogus; do echo "# apps.sh --env $m: $(env_of $m)"; done
check "apps.sh --env: lock-aa is the preload as lock, adaptive-nous as adaptive with FUTEXLOCK_PRELOAD_USER_SPIN=0, glibc-aa none; an unknown mode exits 2" \
	apps_env_ok
check "apps.sh: an unknown mode exits 2" \
	grep -q "no mode bogus.*rc=2" <<<"$(apps_args "glibc glibc-aa bogus" | tr '\n' ' ')"
check "apps.sh --smoke with an unknown program exits 2 (before the kernel check)" \
	grep -q "no program bogus.*rc=2" <<<"$(APPS_OUT=$TMP/apps-out ../userspace/scripts/apps.sh --smoke bogus 2>&1 | tr '\n' ' '; echo "rc=${PIPESTATUS[0]}")"
check "apps.sh: a mode named twice exits 2" \
	grep -q "names a mode twice.*rc=2" <<<"$(apps_args "glibc glibc-aa lock lock" | tr '\n' ' ')"
check "apps.sh: APPS_REPS, APPS_SECS, APPS_SEED must be whole numbers in range (exit 2), good ones pass" \
	test "$(for a in APPS_REPS=abc APPS_REPS=1 APPS_REPS=201 APPS_SECS=1.5 APPS_SECS=0 APPS_SEED=x APPS_SEED=08; do
		apps_num "$a" | tr "\n" " " | grep -c "must be a whole number.*rc=2"; done | sort -u)$(apps_num APPS_REPS=200 | tr "\n" " " | grep -c "no program none.*rc=2")" = "11"
# make apps hands its APPS_* settings to the guest (before, the guest ran
# the defaults whatever was set); -o: the kernel and userspace as they are
check "make apps: APPS_REPS and APPS_MODES reach the guest's apps.sh" \
	grep -q "env APPS_MODES='glibc glibc-aa lock' APPS_REPS='3' userspace/scripts/apps.sh" \
	<<<"$(make -s -C .. -n -o kernel -o userspace apps APPS_REPS=3 APPS_MODES='glibc glibc-aa lock' 2>&1)"
# apps.sh --judge-stats: the preload's FUTEXLOCK_PRELOAD_STATS=1 lines
# against the kernel's counters (no guest needed)
printf 'lock_syscalls: 10\nlock_adaptive_syscalls: 5\nunlock_syscalls: 20\nlost_max: 3\n' >"$TMP/k0"
printf 'lock_syscalls: 17\nlock_adaptive_syscalls: 5\nunlock_syscalls: 26\nlost_max: 3\n' >"$TMP/k1"
cat >"$TMP/pl.good" <<'EOF'
Complete in 1.2 s; Rough parallel ops/sec = 1000
futexlock-preload: stats: pid 41 mode lock (FUTEX_LOCK)
futexlock-preload: stats: converted mutexes: normal 2+1 recursive 0+0 errorcheck 0+0 adaptive 0+0 (pthread_mutex_init+static initialiser)
futexlock-preload: stats: passed-through mutexes: robust 0 pi 0 pp 0 pshared 0 mode-off 0 (pthread_mutex_init)
futexlock-preload: stats: lock fast 100 slow 5 lock-syscalls 4 trylock-busy 0 unlock fast 100 unlock-syscalls 2 probe-syscalls 1
partial stdout linefutexlock-preload: stats: pid 42 mode lock (FUTEX_LOCK)
futexlock-preload: stats: converted mutexes: normal 0+0 recursive 1+0 errorcheck 0+0 adaptive 0+0 (pthread_mutex_init+static initialiser)
futexlock-preload: stats: lock fast 50 slow 3 lock-syscalls 3 trylock-busy 2 unlock fast 51 unlock-syscalls 2 probe-syscalls 1
EOF
judge() {	# MODE OUTPUT [K1]: sets out, rc
	out=$(../userspace/scripts/apps.sh --judge-stats "$1" 50 "$TMP/k0" "${3:-$TMP/k1}" "$2" 2>&1); rc=$?
	printf '%s\n' "$out" | sed 's/^/# /'
}
judge lock "$TMP/pl.good"
check "apps.sh --judge-stats: two processes summed, the ratio, the preload agrees with the kernel" \
	test $rc -eq 0 -a "$out" = "@stats lock ok procs=2 converted=4 converted_normal=3 acq=158 lock_slow=8 unlocks=155 pl_lock_sys=7 calibration=0 k_lock_sys=7 k_other_lock_sys=0 pl_unlock_sys=4 probes=2 k_unlock_sys=6 agree=1 ops=50 acq/op=3.160000 lock_sys/acq=0.044303 unlock_sys/unlock=0.025806 user_spins=0 user_spin_acquired=0 user_spin_backoff=0"
sed -e 's/normal 2+1/normal 0+0/' -e 's/recursive 1+0/recursive 0+0/' "$TMP/pl.good" >"$TMP/pl.noconv"
judge lock "$TMP/pl.noconv"
check "apps.sh --judge-stats: no mutex converted is failed (exit 1, why)" \
	eval '[ $rc -eq 1 ] && [ "${out#@stats lock failed procs=2 converted=0 }" != "$out" ] && grep -qx "# lock stats run failed: the preload converted no mutex: the program ran on glibc" <<<"$out"'
grep -v 'futexlock-preload: stats:' "$TMP/pl.good" >"$TMP/pl.none"
judge lock "$TMP/pl.none"
check "apps.sh --judge-stats: no stats lines is failed" \
	eval '[ $rc -eq 1 ] && [ "${out#@stats lock failed procs=0 }" != "$out" ] && grep -q "^# lock stats run failed: no FUTEXLOCK_PRELOAD_STATS lines" <<<"$out"'
judge adaptive "$TMP/pl.good"
check "apps.sh --judge-stats: a process in another mode is failed" \
	eval '[ $rc -eq 1 ] && grep -q "^# adaptive stats run failed: 2 of 2 processes ran in another mode" <<<"$out"'
sed -E 's/lock fast [0-9]+ slow [0-9]+/lock fast 0 slow 0/' "$TMP/pl.good" >"$TMP/pl.nolock"
judge lock "$TMP/pl.nolock"
check "apps.sh --judge-stats: no lock taken through the preload is failed" \
	eval '[ $rc -eq 1 ] && grep -qx "# lock stats run failed: no mutex was locked through the preload" <<<"$out"'
# adaptive: the kernel's delta also holds the user spin's calibration,
# which the preload reports (one process here calibrated: 248)
sed -e 's/ mode lock (FUTEX_LOCK)/ mode adaptive (FUTEX_LOCK_ADAPTIVE)/' "$TMP/pl.good" >"$TMP/pl.ad"
# (the preload's own stats line, as an emulate run prints it now, with
# the numbers set: a fixture in an older format once hid a parser that
# broke when the line grew)
LD_PRELOAD=$PWD/$B/libfutexlock-preload.so FUTEXLOCK_PRELOAD=emulate FUTEXLOCK_PRELOAD_STATS=1 \
	"$B/test_preload" --in-process woken-mark 2>&1 >/dev/null | grep "stats: user-spins " >"$TMP/us.line"
sed -E 's/user-spins [0-9]+ /user-spins 5 /; s/user-spin-acquired [0-9]+/user-spin-acquired 2/;
	s/calibration-syscalls [0-9]+/calibration-syscalls 248/; s/user-spin-backoff [0-9]+/user-spin-backoff 7/' \
	"$TMP/us.line" >>"$TMP/pl.ad"
sed -E 's/user-spins [0-9]+ /user-spins 0 /; s/calibration-syscalls [0-9]+/calibration-syscalls 0/' "$TMP/us.line" >>"$TMP/pl.ad"
printf 'lock_syscalls: 10\nlock_adaptive_syscalls: 260\nunlock_syscalls: 26\nlost_max: 3\n' >"$TMP/k1.ad"
printf 'lock_syscalls: 10\nlock_adaptive_syscalls: 12\nunlock_syscalls: 26\nlost_max: 3\n' >"$TMP/k1.adnocal"
judge adaptive "$TMP/pl.ad" "$TMP/k1.ad"; rc1=$rc o1=$out
judge adaptive "$TMP/pl.ad" "$TMP/k1.adnocal"
check "apps.sh --judge-stats: adaptive agrees when the kernel's delta is the preload's count plus its calibration (7 + 248), not without; the user spin's counts summed" \
	eval '[ $rc1 -eq 0 ] && [[ $o1 == *" pl_lock_sys=7 calibration=248 k_lock_sys=255 "*" agree=1 "*" user_spins=5 user_spin_acquired=2 user_spin_backoff=7" ]] &&
		[[ $out == *" k_lock_sys=7 "*" agree=0 "* ]]'
# adaptive-nous: the processes say adaptive; failed when the user spin ran
# (FUTEXLOCK_PRELOAD_USER_SPIN=0 did not reach the preload)
judge adaptive-nous "$TMP/pl.ad" "$TMP/k1.ad"; rc1=$rc o1=$out
sed -E 's/user-spins [0-9]+ /user-spins 0 /' "$TMP/pl.ad" >"$TMP/pl.nous"
judge adaptive-nous "$TMP/pl.nous" "$TMP/k1.ad"
check "apps.sh --judge-stats: adaptive-nous is failed when the user spin ran (5 times), ok when it did not" \
	eval '[ $rc1 -eq 1 ] && head -n 1 <<<"$o1" | grep -q "^@stats adaptive-nous failed .* user_spins=5 user_spin_acquired=[0-9]* user_spin_backoff=[0-9]*$" &&
		grep -qx "# adaptive-nous stats run failed: the user spin ran 5 times: FUTEXLOCK_PRELOAD_USER_SPIN=0 did not reach the preload" <<<"$o1" &&
		[ $rc -eq 0 ] && [[ $out == "@stats adaptive-nous ok "*" k_lock_sys=255 "*" agree=1 "*" user_spins=0 "* ]]'
sed 's/^lock_syscalls: 17/lock_syscalls: 18/' "$TMP/k1" >"$TMP/k1.more"
judge lock "$TMP/pl.good" "$TMP/k1.more"
check "apps.sh --judge-stats: one kernel FUTEX_LOCK the preload did not count: ok, agree=0" \
	eval '[ $rc -eq 0 ] && [ "${out#@stats lock ok }" != "$out" ] && [[ $out == *" k_lock_sys=8 "*" agree=0 "* ]]'
sed 's/^lock_adaptive_syscalls: 5/lock_adaptive_syscalls: 6/' "$TMP/k1" >"$TMP/k1.other"
judge lock "$TMP/pl.good" "$TMP/k1.other"
check "apps.sh --judge-stats: a syscall of the other lock op: agree=0" \
	eval '[ $rc -eq 0 ] && [[ $out == *" k_other_lock_sys=1 "*" agree=0 "* ]]'
sed 's/^unlock_syscalls: 26/unlock_syscalls: 25/' "$TMP/k1" >"$TMP/k1.unl"
judge lock "$TMP/pl.good" "$TMP/k1.unl"
check "apps.sh --judge-stats: FUTEX_UNLOCK counts that differ: agree=0" \
	eval '[ $rc -eq 0 ] && [[ $out == *" k_unlock_sys=5 agree=0 "* ]]'
sed -e 's/ mode lock (FUTEX_LOCK)/ mode off (glibc)/' -e 's/normal 2+1/normal 0+0/' -e 's/recursive 1+0/recursive 0+0/' \
	-e 's/lock fast [0-9]* slow [0-9]* lock-syscalls [0-9]*/lock fast 0 slow 0 lock-syscalls 0/' \
	-e 's/unlock fast [0-9]* unlock-syscalls [0-9]* probe-syscalls 1/unlock fast 0 unlock-syscalls 0 probe-syscalls 0/' \
	"$TMP/pl.good" >"$TMP/pl.off"
judge off "$TMP/pl.off" "$TMP/k0"
check "apps.sh --judge-stats off: loaded in mode off, nothing converted: ok" \
	eval '[ $rc -eq 0 ] && [[ $out == "@stats off ok procs=2 converted=0 "*" agree=1 "* ]]'
sed -e 's/ mode lock (FUTEX_LOCK)/ mode off (glibc)/' "$TMP/pl.good" >"$TMP/pl.offconv"
judge off "$TMP/pl.offconv"
check "apps.sh --judge-stats off: a mutex converted in mode off is failed" \
	eval '[ $rc -eq 1 ] && grep -qx "# off stats run failed: mode off converted 4 mutexes, took 158 locks" <<<"$out"'
out=$("$AT" --bogus 2>&1); rc=$?
check "apps_table bad args exit 2 with usage" test $rc -eq 2 -a -n "$(grep '^Usage: apps_table' <<<"$out")"
printf 'lock x\n' >"$TMP/bad.runs"
"$AT" "p:u:$TMP/bad.runs" >/dev/null 2>&1; rc=$?
check "apps_table: a malformed runs line exits 2" test $rc -eq 2
"$B/apps_run" -o "$TMP/ru" -- sh -c 'exit 3'; rc=$?
check "apps_run: exit status passed on, rusage line written" \
	eval '[ $rc -eq 3 ] && grep -qE "^status=3 csw_vol=[0-9]+ csw_invol=[0-9]+ utime=[0-9.]+ stime=[0-9.]+ maxrss_kb=[0-9]+ wall=[0-9.]+$" "$TMP/ru"'
rm -f "$TMP/ru"
"$B/apps_run" -o "$TMP/ru" -- sleep 60 &
arpid=$!
for _ in $(seq 3000); do	# until sleep runs under it (a hang fails)
	[ -n "$(ps -o pid= --ppid $arpid)" ] && break
	sleep 0.01
done
kill -TERM $arpid
wait $arpid; rc=$?
check "apps_run: SIGTERM reaches the command, the line is still written (status 143)" \
	eval '[ $rc -eq 143 ] && grep -q "^status=143 " "$TMP/ru"'
out=$("$B/apps_run" 2>&1); rc=$?
check "apps_run without a command: exit 2 with usage" \
	test $rc -eq 2 -a -n "$(grep '^Usage: apps_run' <<<"$out")"
out=$(../userspace/scripts/apps.sh --bogus 2>&1); rc=$?
check "apps.sh --bogus: exit 2 with usage" test $rc -eq 2 -a -n "$(grep '^usage: apps.sh' <<<"$out")"
out=$(../userspace/scripts/apps.sh --help 2>&1); rc=$?
check "apps.sh --help: exit 0, names the five programs" \
	eval '[ $rc -eq 0 ] && [ $(grep -cE "^  (cache_bench|db_bench|sysbench-threads|memcached|stress-ng) " <<<"$out") = 5 ]'

# --- the LD_PRELOAD library (its own runner: modes off, emulate, lock) ---
tests/preload-tests.sh host >"$TMP/pl.out" 2>&1
fold_tap preload "$TMP/pl.out" $?

# --- make ablation's instances are all valid -m strings: its all-rules-off
# instance once outgrew futex_lock's mode label and every cell failed.
# ablation.sh runs here with pthread for ADAPTIVE, wait/wake for FUTEX_LOCK
# (a wrapper swaps the names) on fake knob files, one tiny cell ---
abl_check() {
	local d=$TMP/abl kd=$TMP/abl-knobs k
	rm -rf "$d" "$kd" && mkdir -p "$d" "$kd"
	for k in spin_check_runnable spin_calibrate spin_check_waiters spin_check_overload \
		 spin_check_first_wake spin_check_queue spin_quiet_start; do
		printf 'Y\n' >"$kd/$k"
	done
	printf 'N\n' >"$kd/spin_backoff"
	printf 'N\n' >"$kd/spin_charge_call"
	printf 'Y\n' >"$kd/spin_charge_check_overload"
	printf '100000\n' >"$kd/spin_max_ns"
	printf '4\n' >"$kd/handoff_threshold"
	cat >"$d/fl" <<EOF
#!/bin/bash
a=()
for x in "\$@"; do x=\${x//user_spin_woken=0/spin_max_ns=100000}; x=\${x//user_spin_backoff=1/spin_check_queue=1}; x=\${x//user_spin=0/handoff_threshold=4}; x=\${x//adaptive/pthread}; a+=("\${x/#futex_lock/waitwake}"); done
exec "$PWD/$FL" "\${a[@]}"
EOF
	chmod +x "$d/fl"
	FUTEXLOCK_KNOB_DIR=$kd FL_ABL_FL=$d/fl FL_ABL_OUT=$d/out FL_ABL_CELLS=1:0:0 \
		FL_ABL_REPEAT=2 FL_ABL_DURATION=0.01 FL_ABL_TIME=1 \
		scripts/ablation.sh >"$d/log" 2>&1 || { sed 's/^/# /' "$d/log" | head -5; return 1; }
	[ "$(grep -c '^pthread@' "$d/out/t1-h0-w0.txt")" -ge 14 ]
}
check "make ablation's modes: every instance accepted, one row each (ablation.sh on pthread, fake knobs)" abl_check

echo "1..$n"
echo "# $skip skipped, $((SECONDS - t0)) s"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
