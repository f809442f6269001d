#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CPython's threading test suites with and without the preload (issue 18
# part 2), in the guest (patched kernel):
#   vm-run -- userspace/scripts/cpython-suites.sh [MODE...]   (default: none lock adaptive)
# Needs Debian's libpython3.11-testsuite.  Per mode: python3 -m test with
# --junit-xml, the per-test-case result list (pass/fail/error/skip) in
# $OUT/MODE.txt, the log in $OUT/MODE.log and the debugfs counter deltas in
# $OUT/MODE.kstats (they show the ops were used).  No FUTEXLOCK_PRELOAD_STATS:
# CPython's tests assert empty stderr of their subprocesses.  Compare:
#   diff $OUT/none.txt $OUT/lock.txt
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${CPY_OUT:-${BUILD:-$REPO/build}/cpython}
TESTS=${CPY_TESTS:-test_threading test_thread test_queue test_concurrent_futures}
KS=/sys/kernel/debug/futex_lock/stats
mkdir -p "$OUT"
# a snapshot: the build directory may be rebuilt while this runs
SO=$OUT/libfutexlock-preload.so
cp "$REPO/userspace/build/libfutexlock-preload.so" "$SO" || exit 1
PY=/usr/bin/python3
modes=("$@")
[ ${#modes[@]} -eq 0 ] && modes=(none lock adaptive)
cd /tmp || exit 1
echo "kernel $(uname -r); $($PY --version); tests: $TESTS"
for m in "${modes[@]}"; do
	[ -r $KS ] && cp $KS "$OUT/$m.k0"
	start=$SECONDS
	if [ "$m" = none ]; then
		$PY -m test ${CPY_ARGS_EXTRA:-} --junit-xml "$OUT/$m.xml" $TESTS >"$OUT/$m.log" 2>&1
	else
		LD_PRELOAD=$SO FUTEXLOCK_PRELOAD=$m \
			$PY -m test ${CPY_ARGS_EXTRA:-} --junit-xml "$OUT/$m.xml" $TESTS >"$OUT/$m.log" 2>&1
	fi
	rc=$?
	[ -r $KS ] && cp $KS "$OUT/$m.k1"
	echo "== $m: exit $rc, $((SECONDS - start)) s"
	tail -n 12 "$OUT/$m.log"
	$PY - "$OUT/$m.xml" "$OUT/$m.txt" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
rows = []
for tc in ET.parse(sys.argv[1]).getroot().iter('testcase'):
    st = 'pass'
    for c in tc:
        if c.tag in ('failure', 'error'):
            st = c.tag
        elif c.tag == 'skipped':
            st = 'skip'
    rows.append(f"{tc.get('classname', '')}.{tc.get('name', '')} {st}")
rows.sort()
open(sys.argv[2], 'w').write('\n'.join(rows) + '\n')
from collections import Counter
print('test cases:', len(rows), dict(Counter(r.rsplit(' ', 1)[1] for r in rows)))
PYEOF
	if [ -f "$OUT/$m.k1" ]; then
		"$REPO/userspace/build/kstats_delta" "$OUT/$m.k0" "$OUT/$m.k1" >"$OUT/$m.kstats"
		grep -E "^(lock_syscalls|lock_adaptive_syscalls|unlock_syscalls|sleeps|spin_attempts):" "$OUT/$m.kstats"
	fi
done
