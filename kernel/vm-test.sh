#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-test.sh - in-guest test of the lockcmp module (run by "make check"
# through tools/testing/vm/vm-run; env REPO, KOUT, BUILD; cwd=$REPO).
#
# Asserts only what must hold on any machine, never a speed ratio:
# every thread made progress, the counters add up (per-thread sum == total ==
# the count kept under the lock), utilisation is within 0..100%, the results
# parse, bad parameters give EINVAL with one error line and start nothing,
# runs repeat without reload, "stop" and rmmod end a run in flight, and the
# kernel log has no WARNING/BUG/lockdep report.  TAP output; exit 1 on failure.
#
# Kept short for TCG at -smp 2: every process start is slow there, python's
# most of all (seconds), so python runs exactly twice: the driver once, and
# one checker for everything that needs parsing.

set -u

REPO=${REPO:-$(pwd)}
KO=${LOCKCMP_KO:-$REPO/kernel/lockcmp.ko}
DRIVER=$REPO/tools/testing/lockcmp/lockcmp
D=/sys/kernel/debug/lockcmp
TMP=$(mktemp -d /tmp/lockcmp-test.XXXXXX) || exit 1
T0=$SECONDS
PLAN=26

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { # check DESCRIPTION CMD... : ok if CMD succeeds
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
diag() { echo "# $*"; }
section() { echo "# --- $* (t=$((SECONDS - T0)) s)"; }

cleanup() {
	[ -d /sys/module/lockcmp ] && timeout 600 rmmod lockcmp 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# ctl KEY: the value of one "key: value" line of the control file
ctl() {
	local k v
	while IFS=': ' read -r k v; do
		[ "$k" = "$1" ] && { echo "$v"; return; }
	done <"$D/control"
}
# wait_idle SECONDS: poll until no run is in flight (SECONDS: a hang guard)
# wait_idle SECONDS: poll until no run is in flight
wait_idle() {
	local end=$((SECONDS + $1))
	while [ "$(ctl state)" != idle ]; do
		((SECONDS > end)) && return 1
		sleep 0.2
	done
}

# write_ctl CMD: write CMD to control, print the error text (if any)
write_ctl() { { printf '%s' "$1" >"$D/control"; } 2>&1; }

# lockcmp_log_lines: number of "lockcmp: " lines in the kernel log
lockcmp_log_lines() { dmesg | grep -c 'lockcmp: '; }

echo "TAP version 13"
echo "1..$PLAN"
diag "kernel $(uname -r), $(nproc) CPUs, module $KO"

[ -d /sys/module/lockcmp ] && rmmod lockcmp
if [ ! -r "$KO" ]; then
	not_ok "module $KO exists (build: make -C kernel KOUT=...)"
	exit 1
fi
ok "module $KO exists"
dmesg_start=$(dmesg | wc -l)

# --- the driver: every type, same parameters ------------------------------
section "driver: every lock type, same parameters, default threads"
# python3 -S: stdlib only, skip site.py.
if timeout 1800 python3 -S "$DRIVER" --module "$KO" --json --duration-ms 400 \
	--hold 20 --delay 20 >"$TMP/all.json" 2>"$TMP/all.err"; then
	ok "driver --json runs all five lock types"
else
	not_ok "driver --json runs all five lock types"
	sed 's/^/# /' "$TMP/all.err"
fi
check "driver unloaded the module" test ! -d /sys/module/lockcmp

# --- the module directly ----------------------------------------------------
section "module: parameters, repeated runs"
check "insmod with type=bogus fails" bash -c "! insmod '$KO' type=bogus 2>/dev/null"
check "insmod with threads=0 fails" bash -c "! insmod '$KO' threads=0 2>/dev/null"
check "insmod with defaults" insmod "$KO" duration_ms=300 threads=3
check "control reads idle, last_run 0" \
	test "$(ctl state) $(ctl last_run) $(ctl default_threads)" = "idle 0 3"

# Bad parameters: EINVAL, one lockcmp error line each, nothing started.
badok=1
nbad=0
before=$(lockcmp_log_lines)
for cmd in "threads=0" "type=bogus" "duration_ms=0" "duration_ms=99999999" \
	"threads=100000" "hold=1000000" "lines=0" "foo=1" "hold=abc" "mutex"; do
	err=$(write_ctl "$cmd")
	nbad=$((nbad + 1))
	if [[ $err != *"Invalid argument"* ]]; then
		diag "'$cmd': error '$err', expected EINVAL"
		badok=0
	fi
done
after=$(lockcmp_log_lines)
((after == before + nbad)) ||
	{ diag "$nbad bad writes, $((after - before)) lockcmp log lines"; badok=0; }
check "bad parameters: EINVAL and one pr_err line each" test $badok = 1
check "nothing started by bad parameters" \
	test "$(ctl state) $(ctl last_run)" = "idle 0"

# Repeated runs without reload, each type once more at module defaults.
: >"$D/results"
runs_ok=1
for t in mutex semaphore rwsem rt_mutex spinlock; do
	err=$(write_ctl "type=$t hold=10 delay=10")
	[ -z "$err" ] && wait_idle 600 || { diag "run $t: '$err'"; runs_ok=0; }
done
check "five runs back to back without reload" test $runs_ok = 1
check "control says last_run 5" test "$(ctl last_run)" = 5
cp "$D/results" "$TMP/results.txt"
check "results: blocks separated by one blank line" \
	test "$(grep -c '^$' "$TMP/results.txt")" = 5

section "busy, stop, rmmod during a run"
err=$(write_ctl "type=semaphore duration_ms=20000")
check "long run started" test -z "$err"
check "control says running" test "$(ctl state)" = running
err=$(write_ctl "type=mutex")
check "second start while running gives EBUSY" test "${err#*Device or resource busy}" != "$err"
write_ctl stop >/dev/null
check "stop ends the run (seen aborted below)" wait_idle 600
check "stopped run reported as aborted" \
	test "$(sed -n 's/^status: //p' "$D/results" | tail -n1)" = aborted

err=$(write_ctl "type=mutex duration_ms=60000")
check "run in flight before rmmod" test "$(ctl state)" = running
t=$SECONDS
check "rmmod during a run succeeds" timeout 600 rmmod lockcmp
diag "rmmod took $((SECONDS - t)) s"
check "module and its kthreads are gone" \
	bash -c "! test -d /sys/module/lockcmp && ! grep -qs '^lockcmp' /proc/*/comm"

# --- one python start checks everything that needs parsing -----------------
section "results checks"
cat >"$TMP/check.py" <<'EOF'
# usage: check.py DRIVER JSON RESULTS TYPES NCPUS
# Prints "PASS desc" / "FAIL desc" / "# diag" lines.
import io, json, sys
from importlib.machinery import SourceFileLoader
from importlib.util import module_from_spec, spec_from_loader

driver, json_path, text_path, types, ncpus = sys.argv[1:6]
loader = SourceFileLoader("lockcmp_driver", driver)
lc = module_from_spec(spec_from_loader("lockcmp_driver", loader))
loader.exec_module(lc)

def result(ok, desc, why=()):
    for w in why:
        print("# " + w)
    print(("PASS " if ok else "FAIL ") + desc)

# 1. The parse + consistency of every results block.
bad = []
def need(cond, what, b):
    if not cond:
        bad.append("run %s (%s): %s" % (b.get("run"), b.get("type"), what))

blocks = []
doc = None
try:
    doc = json.load(open(json_path))
    got = [doc["runs"][t] for t in doc["types"]]
    if doc["types"] != lc.TYPES:
        bad.append("driver ran %s, expected %s" % (doc["types"], lc.TYPES))
    blocks += got
except Exception as e:
    bad.append("%s: %r" % (json_path, e))
try:
    got = lc.parse_blocks(open(text_path).read())
    if [b.get("type") for b in got] != types.split(","):
        bad.append("results file types %s, expected %s"
                   % ([b.get("type") for b in got], types))
    blocks += got
except Exception as e:
    bad.append("%s: %r" % (text_path, e))

keys = ("run status type threads online_cpus duration_ms hold delay lines wall_ns "
        "overrun_ns reap_ns "
        "loops min_thread_loops protected_count loops_per_sec runtime_ns "
        "cpu_util_ppm cpu_util_pct loops_per_sec_per_pct_cpu nvcsw nivcsw "
        "max_wait_ns avg_wait_ns").split() + list(lc.LIST_KEYS)
for b in blocks:
    missing = [k for k in keys if k not in b]
    need(not missing, "missing keys %s" % missing, b)
    if missing:
        continue
    need(b["status"] == "ok", "status %s" % b["status"], b)
    for k in lc.LIST_KEYS:
        need(len(b[k]) == b["threads"], "%s has %d entries for %d threads"
             % (k, len(b[k]), b["threads"]), b)
    need(all(x > 0 for x in b["thread_loops"]), "a thread made no loop: %s"
         % b["thread_loops"], b)
    need(sum(b["thread_loops"]) == b["loops"], "per-thread sum %d != loops %d"
         % (sum(b["thread_loops"]), b["loops"]), b)
    need(b["protected_count"] == b["loops"], "protected_count %d != loops %d: "
         "mutual exclusion broken?" % (b["protected_count"], b["loops"]), b)
    need(min(b["thread_loops"]) == b["min_thread_loops"], "min_thread_loops", b)
    need(sum(b["thread_runtime_ns"]) == b["runtime_ns"], "runtime sum", b)
    need(sum(b["thread_nvcsw"]) == b["nvcsw"], "nvcsw sum", b)
    need(sum(b["thread_nivcsw"]) == b["nivcsw"], "nivcsw sum", b)
    need(max(b["thread_max_wait_ns"]) == b["max_wait_ns"], "max wait", b)
    need(b["runtime_ns"] > 0, "runtime 0", b)
    need(0 <= b["cpu_util_pct"] <= 100, "cpu_util_pct %d" % b["cpu_util_pct"], b)
    need(b["wall_ns"] >= b["duration_ms"] * 1000000, "wall %d ns < duration"
         % b["wall_ns"], b)
    need(b["runtime_ns"] <= b["wall_ns"] * b["online_cpus"] * 1.01,
         "runtime exceeds wall x cpus", b)
    need(b["avg_wait_ns"] <= b["max_wait_ns"], "avg wait > max wait", b)
result(not bad and len(blocks) == 10,
       "10 results blocks parse, every thread looped, counters add up, util 0..100%",
       bad + ["%d block(s) checked" % len(blocks)])

# 2. The default thread count and the table the driver prints.
if doc:
    first = doc["runs"][doc["types"][0]]
    result(doc["threads"] == 2 * int(ncpus) and first["online_cpus"] == int(ncpus),
           "driver default: 2 x online CPUs threads",
           ["threads %s, online_cpus %s" % (doc["threads"], first["online_cpus"])])
    out = io.StringIO()
    try:
        lc.print_table(doc["runs"], doc["types"], None, out=out)
        table = out.getvalue()
    except Exception as e:
        table = "print_table: %r" % e
    for line in table.splitlines():
        print("# " + line)
    lines = table.splitlines()
    result(lines and lines[0] == "%s CPUs, running %d tasks." % (ncpus, 2 * int(ncpus)),
           "table header: N CPUs, running M tasks.")
    result(all(any(l.startswith(r) for l in lines) for r in
               ("avg loops/sec", "CPU utilization", "loops/sec per 1% CPU",
                "longest acquire wait")),
           "table rows: loops/sec, utilization, per 1% CPU, longest wait")
else:
    for d in ("driver default threads", "table header", "table rows"):
        result(False, d, ["no JSON from the driver"])

# 3. Bad driver arguments exit 2 (argparse) without touching the module.
codes = []
for argv in (["--threads", "0"], ["--types", "bogus"], ["--no-such-option"]):
    try:
        sys.stderr = io.StringIO()
        rc = lc.main(argv)
    except SystemExit as e:
        rc = e.code
    finally:
        sys.stderr = sys.__stderr__
    codes.append(rc)
result(codes == [2, 2, 2], "driver exits 2 on bad arguments", ["exit codes %s" % codes])
EOF
# (No process substitution: the guest has no /dev/fd.)
timeout 600 python3 -S "$TMP/check.py" "$DRIVER" "$TMP/all.json" "$TMP/results.txt" \
	mutex,semaphore,rwsem,rt_mutex,spinlock "$(nproc)" >"$TMP/check.out" 2>&1
while IFS= read -r line; do
	case $line in
	"PASS "*) ok "${line#PASS }" ;;
	"FAIL "*) not_ok "${line#FAIL }" ;;
	*) echo "$line" ;;
	esac
done <"$TMP/check.out"

# The kernel log since the start: no WARNING, BUG or lockdep report.
dmesg | tail -n +"$((dmesg_start + 1))" >"$TMP/dmesg"
pat='WARNING:|BUG:|lockdep|possible (recursive|circular)|INFO: |Call Trace|Oops'
if grep -qE "$pat" "$TMP/dmesg"; then
	not_ok "no WARNING/BUG/lockdep lines in dmesg"
	grep -E "$pat" "$TMP/dmesg" | head -n 20 | sed 's/^/# /'
else
	ok "no WARNING/BUG/lockdep lines in dmesg"
fi

diag "lockcmp vm-test: $((n - failed))/$n passed in $((SECONDS - T0)) s"
((n == PLAN)) || diag "plan was $PLAN tests, ran $n"
((failed == 0 && n == PLAN))
