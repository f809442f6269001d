#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pilot for the spin budget (issue 17): FUTEX_LOCK_ADAPTIVE of the v7
# series as shipped (budget = the measured wake-up latency) against the
# same lock with fixed budgets (spin_calibrate=0, spin_max_ns=50-400 us),
# FUTEX_LOCK and glibc's adaptive mutex; baseline ADAPTIVE as shipped.
# In the guest (make vm CMD=Documentation/results/pilot-budget-.../run.sh),
# patched base kernel, root.  Writes t<T>-h<H>-w<W>.txt/.json beside itself.
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=${REPO:-$(cd "$here/../../.." && pwd)}/userspace/build/futex_lock
for c in 2:0:0 2:100:0 4:0:0 8:0:0 4:1000:0; do
	IFS=: read -r t h w <<<"$c"
	"$FL" --compare --baseline adaptive -m adaptive \
		-m adaptive@spin_calibrate=0,spin_max_ns=50000 \
		-m adaptive@spin_calibrate=0,spin_max_ns=100000 \
		-m adaptive@spin_calibrate=0,spin_max_ns=200000 \
		-m adaptive@spin_calibrate=0,spin_max_ns=400000 \
		-m futex_lock -m pthread-adaptive \
		-t "$t" -d "$h" -w "$w" --duration 0.2 -r 20 \
		--json-file "$here/t$t-h$h-w$w.json" >"$here/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,14p "$here/t$t-h$h-w$w.txt"
done
