#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of the seed write-up benchmarks (lockbench, wakebench,
# queuebench), run by make -C userspace check after host-tests.sh.  TAP;
# last line "N passed, N failed".  About 15 s on 2 CPUs.
# Each correctness check has a negative control that runs a deliberately
# broken input through the same check and expects it to fail:
#   lockbench  FUTEXLOCK_TEST_BROKEN_LOCK=1 -m test-broken-spinlock
#              (test-and-set without its loop) -> "did not exclude", exit 1
#   wakebench  FUTEXLOCK_TEST_LOST_WAKEUP=1 (the trigger wakes W-1 of W)
#              -> "lost wake-up", exit 1, within the bounded wait
#   queuebench FUTEXLOCK_TEST_BROKEN_QUEUE=1 (ring-2sem without per-slot
#              sequence numbers: the design as the write-up's comment gives
#              it) -> "not exactly once", exit 1
set -u
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
PY=${PYTHON:-python3}
pass=0 fail=0 n=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# no test may hang: every run is bounded
T="timeout 120"

ok()  { n=$((n+1)); pass=$((pass+1)); echo "ok $n - $*"; }
nok() { n=$((n+1)); fail=$((fail+1)); echo "not ok $n - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }

echo "TAP version 13"
have_fl=0
if "$B/futex_lock" --probe >/dev/null 2>&1; then have_fl=1; fi
echo "# FUTEX_LOCK available: $have_fl"

# --- CLI: --help, bad arguments exit 2 with usage ---
for t in lockbench wakebench queuebench; do
	out=$("$B/$t" --help); rc=$?
	check "$t --help exits 0 with usage" test $rc -eq 0 -a -n "$(grep "^Usage: $t" <<<"$out")"
done
bad() {
	local t=$1 out rc; shift
	out=$($T "$B/$t" "$@" 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 2 ] && grep -q "^Usage: $t" <<<"$out"; then
		ok "$t bad args exit 2 with usage: $*"
	else
		nok "$t bad args exit 2 with usage: $* (rc=$rc)"
	fi
}
bad lockbench -t 0
bad lockbench -t 12x
bad lockbench -l -5
bad lockbench -r " 3"
bad lockbench -m nosuchlock
bad lockbench -T sleep
bad lockbench --sched idle
bad lockbench -b nosuchlock
bad lockbench extra
bad lockbench -t
bad wakebench -w 0
bad wakebench -w 3..1
bad wakebench -w 1..x
bad wakebench -M nosuch
bad wakebench -M lock:nosuch
bad wakebench -g 0
bad wakebench --timeout-ms 0
bad wakebench --sched batch
bad wakebench -n +5
bad queuebench -w 0
bad queuebench -Q nosuch
bad queuebench -Q sem+nosuch
bad queuebench -j 1e4
bad queuebench --ring 1
bad queuebench -p 2000
bad queuebench --bogus

# --- lockbench: every lock type excludes (counter == threads x loops) ---
$T "$B/lockbench" -t 3 -l 3000 -r 3 -T both --json \
	-m pthread -m pthread-adaptive -m waitwake -m waitwake-spin -m spin \
	-m terrible_spinlock -m spinlock_amd -m spinlock -m ticket_spinlock \
	-m futex_lock -m adaptive -m pi >"$TMP/lb.json" 2>"$TMP/lb.err"
rc=$?
lb_ok() { "$PY" tests/check_seed.py lockbench "$TMP/lb.json" "$have_fl"; }
check "lockbench: all 12 lock types exclude in wait and idle, 3 reps each, A/A row (rc=$rc)" \
	test $rc -eq 0 -a -s "$TMP/lb.json"
check "lockbench --json: rows, availability per probe, intervals with direction and verdict by the rule" lb_ok
out=$(FUTEXLOCK_TEST_BROKEN_LOCK=1 $T "$B/lockbench" -t 4 -l 200000 -r 3 -T wait \
	-m test-broken-spinlock 2>&1 >/dev/null); rc=$?
check "lockbench: negative control, a spin lock without its loop is caught (rc=$rc)" \
	test $rc -eq 1 -a -n "$(grep 'test-broken-spinlock: lock did not exclude' <<<"$out")"
# a row that failed gets no verdict, even from the pairs before it failed
# (the negative control's size: at -t 2 -l 20000 the two threads often ran
# one after the other, one hand-off per run, and there was nothing to catch)
FUTEXLOCK_TEST_BROKEN_LOCK=1 $T "$B/lockbench" -t 4 -l 200000 -r 6 -T wait \
	-m test-broken-spinlock --seed 7 --json >"$TMP/lbf.json" 2>/dev/null; rc=$?
check "lockbench: the failed row's ratios carry the verdict 'failed' and no ratio (rc=$rc)" \
	eval '[ $rc -eq 1 ] && "$PY" tests/check_seed.py failed "$TMP/lbf.json" "$have_fl"'
out=$($T "$B/lockbench" -m test-broken-spinlock 2>&1); rc=$?
check "lockbench: the broken lock needs FUTEXLOCK_TEST_BROKEN_LOCK=1" test $rc -eq 2
if [ $have_fl = 0 ]; then
	out=$($T "$B/lockbench" -t 2 -l 500 -r 1 -T wait 2>&1); rc=$?
	check "lockbench without FUTEX_LOCK: futex_lock/adaptive unavailable, the rest runs" \
		test $rc -eq 0 -a "$(grep -cE '^(futex_lock|adaptive) +unavailable$' <<<"$out")" = 2 \
		-a "$(grep -cE '^(terrible_spinlock|pi|waitwake) +[0-9]' <<<"$out")" = 3
fi

# --- wakebench: every method wakes every worker in every run ---
$T "$B/wakebench" -w 3 -r 2 -n 5 -g 2 --timeout-ms 60000 --json >"$TMP/wb.json" 2>"$TMP/wb.err"
rc=$?
wb_ok() { "$PY" tests/check_seed.py wakebench "$TMP/wb.json" "$have_fl"; }
check "wakebench: every method woke all 3 workers in all 10 runs (rc=$rc)" \
	test $rc -eq 0 -a -s "$TMP/wb.json"
check "wakebench --json: methods, wake order sorted, availability per probe, verdicts by the rule" wb_ok
s0=$SECONDS
out=$(FUTEXLOCK_TEST_LOST_WAKEUP=1 $T "$B/wakebench" -w 2 -r 1 -n 3 -M futex-all \
	--timeout-ms 300 2>&1 >/dev/null); rc=$?
check "wakebench: negative control, a lost wake-up fails the run, bounded, no hang (rc=$rc, $((SECONDS - s0)) s)" \
	test $rc -eq 1 -a -n "$(grep -E 'lost wake-up: [01] of 2 workers awake' <<<"$out")"

# --- queuebench: every job runs exactly once ---
$T "$B/queuebench" -w 3 -r 5 -n 5 -j 4000 -p 200 --json >"$TMP/qb.json" 2>"$TMP/qb.err"
rc=$?
qb_ok() { "$PY" tests/check_seed.py queuebench "$TMP/qb.json" "$have_fl"; }
check "queuebench: every queue ran every job exactly once in all phases (rc=$rc)" \
	test $rc -eq 0 -a -s "$TMP/qb.json"
check "queuebench --json: queues, availability per probe, verdicts by the rule" qb_ok
$T "$B/queuebench" -w 3 -r 2 -n 3 -j 5000 -p 4 --ring 8 -Q ring-2sem >/dev/null 2>"$TMP/ring.err"
rc=$?
check "queuebench: ring-2sem on an 8-slot ring, 3 readers, every job once (rc=$rc)" test $rc -eq 0
out=$(FUTEXLOCK_TEST_BROKEN_QUEUE=1 $T "$B/queuebench" -w 3 -r 2 -n 3 -j 5000 -p 4 \
	--ring 8 -Q ring-2sem 2>&1 >/dev/null); rc=$?
check "queuebench: negative control, the ring without slot sequence numbers loses jobs (rc=$rc)" \
	test $rc -eq 1 -a -n "$(grep -E 'not exactly once|job lost' <<<"$out")"

# --- the checker itself: a wrong verdict direction, a verdict from 2 pairs
# and an empty file are rejected, with PYTHONOPTIMIZE=1 too ---
# mutate IN OUT KEY REPS_KEY N VERDICT: the first row with KEY gets values
# 2.5x the baseline's in its first N repetitions (none in the others), a
# 2.5 [2.4,2.6] interval from N pairs, a tight A/A band, the verdict VERDICT
mutate() {
	"$PY" - "$@" <<'PYEOF'
import json, sys
src, dst, key, reps_key, n, verdict = sys.argv[1:]
n = int(n)
j = json.load(open(src))
base = [r for r in j["rows"] if r["queue"] == "cond-signal" and not r["aa"]][0]
for r in j["rows"]:
    if r.get(key):
        r[reps_key] = [2.5 * x if i < n else None for i, x in enumerate(base[reps_key])]
        r[key].update(median=2.5, lo=2.4, hi=2.6, n=n, verdict=verdict,
                      insufficient=False, aa={"n": 5, "median": 1, "lo": 0.9, "hi": 1.1},
                      aa_ok=True)
        break
json.dump(j, open(dst, "w"))
PYEOF
}
rejects() {	# TOOL FILE: check_seed.py must exit 1, with PYTHONOPTIMIZE=1
	PYTHONOPTIMIZE=1 "$PY" tests/check_seed.py "$1" "$2" "$have_fl" >/dev/null
	[ $? -eq 1 ]
}
neg_ok() {
	local f=$TMP/neg.json
	# a time 2.5x the baseline called "faster" (the old inverted verdict)
	mutate "$TMP/qb.json" "$f" launch_ratio launch_us_reps 5 faster && rejects queuebench "$f" || return 1
	# a verdict from 2 pairs
	mutate "$TMP/qb.json" "$f" tput_ratio mjobs_s_reps 2 faster && rejects queuebench "$f" || return 1
	# the control: the same 2.5x time called "slower" passes
	mutate "$TMP/qb.json" "$f" launch_ratio launch_us_reps 5 slower &&
		PYTHONOPTIMIZE=1 "$PY" tests/check_seed.py queuebench "$f" "$have_fl" >/dev/null || return 1
	echo '{"tests": []}' >"$f"
	rejects lockbench "$f"
}
check "check_seed.py rejects an inverted verdict, a 2-pair verdict and an empty file, with PYTHONOPTIMIZE=1" neg_ok
# published JSON has 4 decimals: an interval edge that ties the band's
# there (the v9us matrix, 1 thread, pthread: hi 0.9907, A/A lo 0.9907,
# "slower" from the unrounded values) allows both verdicts; one clear of
# it allows one
tie_ok() {
	"$PY" - "$PWD/tests" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
from verdict_rule import verdicts_at_precision as v
c = {"n": 10, "median": 0.9882, "lo": 0.9842, "hi": 0.9907,
     "aa": {"n": 10, "median": 0.9989, "lo": 0.9907, "hi": 1.0043}}
tie = v(c, "higher", 5)
c["hi"] = 0.9950
inside = v(c, "higher", 5)
c["hi"] = 0.9890
below = v(c, "higher", 5)
sys.exit(0 if (tie == {"slower", "indistinguishable"} and inside == {"indistinguishable"}
               and below == {"slower"}) else 1)
PYEOF
}
check "check_seed.py's verdict oracle: a tie at the JSON's 4 decimals allows both verdicts, an edge clear of the band one" tie_ok
# aa_ok is decided by the engine on the unrounded A/A interval: an edge
# printed as 1.0000 (a CI run: 3 idle pairs, A/A lo 1.0000, aa_ok false,
# the lo just above 1) allows both values; an edge clear of 1 allows one
aa_tie_ok() {
	"$PY" - "$PWD/tests" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import check_seed as cs
def problems(lo, ok, hi=1.2497):
    cs.bad.clear()
    c = {"n": 3, "median": 0.9123, "lo": 0.9123, "hi": 0.9181, "better": "lower",
         "aa": {"n": 3, "median": 1.0008, "lo": lo, "hi": hi}, "aa_ok": ok,
         "min_pairs": 5, "insufficient": True, "verdict": "insufficient data"}
    cs.check_ci("t", c, "lower", 5)
    return len(cs.bad)
sys.exit(0 if (problems(1.0, False) == 0 and problems(1.0, True) == 0
               and problems(1.0002, True) == 1 and problems(0.999, False) == 1
               and problems(0.98, False, 1.0) == 0 and problems(0.98, True, 0.9998) == 1) else 1)
PYEOF
}
check "check_seed.py: aa_ok at an A/A edge printed as 1.0000 allows both values, one clear of 1 one" aa_tie_ok

# --- none of the requested types can run: exit 1 (host without FUTEX_LOCK) ---
if [ $have_fl = 0 ]; then
	out=$($T "$B/lockbench" -m futex_lock -m adaptive -t 2 -l 200 -r 2 -T wait 2>&1); rc=$?
	check "lockbench -m futex_lock -m adaptive without FUTEX_LOCK: exit 1, says why (rc=$rc)" \
		test $rc -eq 1 -a -n "$(grep 'none of the requested types can run here' <<<"$out")"
	out=$($T "$B/wakebench" -M lock:futex_lock -w 1 -r 2 -n 2 2>&1); rc=$?
	check "wakebench -M lock:futex_lock without FUTEX_LOCK: exit 1, says why (rc=$rc)" \
		test $rc -eq 1 -a -n "$(grep 'none of the requested methods can run here' <<<"$out")"
	out=$($T "$B/queuebench" -Q sem+futex_lock -w 2 -r 2 -n 2 -j 100 -p 10 2>&1); rc=$?
	check "queuebench -Q sem+futex_lock without FUTEX_LOCK: exit 1, says why (rc=$rc)" \
		test $rc -eq 1 -a -n "$(grep 'none of the requested queues can run here' <<<"$out")"
fi
out=$($T "$B/lockbench" -m pthread -t 2 -l 200 -r 2 -T wait 2>&1); rc=$?
check "lockbench -m pthread (can run): exit 0 (rc=$rc)" test $rc -eq 0

# --- the published results: every JSON in Documentation/results is of the
# current schema, from a clean tree, carries its per-repetition values and
# has every verdict by the rule (a file the tools can no longer write is
# re-measured or removed, not left with old verdicts) ---
for f in ../Documentation/results/*.json; do
	[ -e "$f" ] || continue
	out=$("$PY" tests/check_seed.py published "$f" "$have_fl" 2>&1); rc=$?
	[ $rc -eq 0 ] || sed "s/^/# /" <<<"$out" | tail -4
	check "published $(basename "$f"): schema, clean commit, per-repetition values, verdicts by the rule" \
		test $rc -eq 0
done

echo "1..$n"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
