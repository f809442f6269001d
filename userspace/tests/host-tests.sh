#!/bin/bash
# Host tests of the userspace part (make -C userspace check). TAP output,
# last line "N passed, N failed". Modes that need FUTEX_LOCK are skipped when
# the running kernel lacks it (probe: ENOSYS); they are never faked.
# Env: FL_REQUIRE_FUTEX_LOCK=1 turns those skips into failures.
set -u
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
FL=$B/futex_lock
PY=${PYTHON:-python3}
pass=0 fail=0 skip=0 n=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok()   { n=$((n+1)); pass=$((pass+1)); echo "ok $n - $*"; }
nok()  { n=$((n+1)); fail=$((fail+1)); echo "not ok $n - $*"; }
skp()  { n=$((n+1)); skip=$((skip+1)); echo "ok $n - $* # SKIP"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }

echo "TAP version 13"
have_fl=0
if "$FL" --probe >/dev/null; then have_fl=1; fi
echo "# $("$FL" --probe)"

# --- lock implementations (C test program, its TAP lines folded in) ---
req=
[ "${FL_REQUIRE_FUTEX_LOCK:-0}" = 1 ] && req=--require-futex-lock
"$B/test_locks" $req >"$TMP/tl.out" 2>&1
echo "# test_locks exit $?" >>"$TMP/tl.out"
while IFS= read -r line; do
	case "$line" in
	"ok "*"# SKIP"*) skp "test_locks: ${line#ok * - }" ;;
	"ok "*)          ok "test_locks: ${line#ok * - }" ;;
	"not ok "*)      nok "test_locks: ${line#not ok * - }" ;;
	"#"*)            echo "$line" ;;
	esac
done < "$TMP/tl.out"

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
bad -r 0
bad --sched idle
bad --duration 0
bad --duration -1
bad --duration nan
bad --bogus
bad -a -m pthread
bad -i 10 --duration 1
bad extra-arg
bad -t

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
	out=$("$FL" --compare -r 1 -i 400 -t 2 -d 10 -w 10 2>&1); rc=$?
	check "--compare without FUTEX_LOCK marks futex_lock/adaptive unavailable, runs the rest" \
		test $rc -eq 0 -a "$(grep -cE '^(futex_lock|adaptive) +unavailable$' <<<"$out")" = 2 \
		-a "$(grep -cE '^(pi|waitwake|waitwake-spin|pthread|pthread-adaptive|spin) +[0-9]' <<<"$out")" = 6
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

# --- JSON: parses, and holds the same numbers as the text of the same run ---
"$FL" -m waitwake -m spin -m pthread -i 4000 -t 3 -d 50 -w 200 \
	--json-file "$TMP/run.json" >"$TMP/run.txt" 2>&1
check "--json-file output parses with python3 -m json.tool" \
	"$PY" -m json.tool "$TMP/run.json" /dev/null
cmp_json() { "$PY" tests/json_vs_text.py "$TMP/run.txt" "$TMP/run.json" 3 4000; }
check "--json numbers equal the text numbers of the same runs" cmp_json

# kernel stats: a fake debugfs file stands in for the patched kernel's
printf 'lock_slow: 3\nspin_success: 4\n' >"$TMP/kstats"
FUTEXLOCK_KSTATS=$TMP/kstats "$FL" -m spin -i 500 -t 2 -d 10 -w 10 \
	--json-file "$TMP/ks.json" >"$TMP/ks.txt" 2>&1
check "kernel stats deltas printed and in JSON (fake stats file)" \
	grep -q "^kernel stats ($TMP/kstats, delta): lock_slow=0 spin_success=0$" "$TMP/ks.txt"
check "kernel stats: JSON equals text" \
	"$PY" tests/json_vs_text.py "$TMP/ks.txt" "$TMP/ks.json" 1 500

"$FL" --compare -r 2 -i 400 -t 2 -d 10 -w 10 --json >"$TMP/cmp.json" 2>"$TMP/cmp.err"
cmp_ok() {
	"$PY" - "$TMP/cmp.json" "$have_fl" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1])); have = sys.argv[2] == "1"
s = {m["mode"]: m for m in j["summary"]}
assert len(s) == 8
for name in ("futex_lock", "adaptive"):
    assert s[name]["available"] == have
for name, m in s.items():
    if m["available"]:
        assert m["runs"] == 2 and m["median_kiter_s"] > 0, name
assert all(r["lock_calls"] == 400 and r["mutex_ok"] for r in j["runs"])
PYEOF
}
check "--compare --json: 8 modes, availability per probe, 2 runs each" cmp_ok

# --- time-bounded run, pin, sched ---
out=$("$FL" -m waitwake-spin --duration 0.3 -t 4 -d 10 -w 100 --pin --sched other 2>&1); rc=$?
check "--duration 0.3 --pin --sched other: fairness line and time-bounded" \
	test $rc -eq 0 -a -n "$(grep -E '^per-thread iterations: min [0-9]+ max [0-9]+' <<<"$out")" \
	-a -n "$(grep -E '^Arguments: duration=0.3s threads=4' <<<"$out")"

echo "1..$n"
echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
