#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Does a lower hand-off threshold buy what a longer spin budget buys?
# In the fixed-budget matrix of 2026-11-30 (matrix-cells-...-v9bud-smp2)
# nearly every FUTEX_LOCK_ADAPTIVE waiter that blocked at 2-4 threads
# with no work outside was woken, lost the lock four times
# (lost_after_wake / handoffs 4.01-4.03, handoff_threshold 4) and was
# then handed it, while spins almost never took the lock; longer budgets
# won by cutting those sleep/wake-up cycles.  A lower threshold cuts the
# futile wake-ups instead (and leaves the word to a waiter that is not
# yet running).  This run, fixed beforehand in Documentation/futex-lock.md,
# sets the existing debugfs knob per instance: ADAPTIVE as shipped
# (threshold 4; the baseline, with its A/A row) against thresholds 0
# (every wake-up a hand-off), 1 and 2, the fixed 100-us budget as the
# known gain, and FUTEX_LOCK.
# In the guest (make vm FLAVOUR=base VM_TIMEOUT=1200
# CMD=Documentation/results/handoff-.../run.sh), patched base kernel,
# root.  Writes t<T>-h<H>-w<W>.txt/.json beside itself.
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=${REPO:-$(cd "$here/../../.." && pwd)}/userspace/build/futex_lock
for c in 2:1000:0 2:10000:0 3:1000:0 3:10000:0; do
	IFS=: read -r t h w <<<"$c"
	"$FL" --compare --baseline adaptive -m adaptive \
		-m adaptive@handoff_threshold=0 \
		-m adaptive@handoff_threshold=1 \
		-m adaptive@handoff_threshold=2 \
		-m adaptive@spin_calibrate=0 \
		-m futex_lock \
		-t "$t" -d "$h" -w "$w" --duration 0.2 -r 20 --ci-target 2 \
		--time-limit 150 --seed 301170 \
		--json-file "$here/t$t-h$h-w$w.json" >"$here/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,12p "$here/t$t-h$h-w$w.txt"
done
