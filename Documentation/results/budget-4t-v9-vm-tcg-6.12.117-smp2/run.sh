#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Do longer spin budgets lose at 4 threads?  In the fixed-budget matrix
# of 2026-11-30 (matrix-cells-...-v9bud-smp2) 4/10000/0 was the cell
# closest to losing for every budget (calibrated 0.971, 100 us 0.983
# [0.933-0.996], 200 us 0.940 [0.899-1.014] of FUTEX_LOCK) and 4/1000/0
# was not resolved; the budget sweep's 1-ms budget read 0.960 there and
# the split run of the same night did not resolve 4/10000/0.  This run,
# fixed beforehand in Documentation/futex-lock.md, gives the two cells
# more repetitions: ADAPTIVE as shipped (the baseline, with its A/A
# row) against fixed budgets of 100 and 200 us and FUTEX_LOCK.
# In the guest (make vm FLAVOUR=base VM_TIMEOUT=1800
# CMD=Documentation/results/budget-4t-.../run.sh), patched base kernel,
# root.  Writes t<T>-h<H>-w<W>.txt/.json beside itself.
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=${REPO:-$(cd "$here/../../.." && pwd)}/userspace/build/futex_lock
for c in 4:10000:0 4:1000:0; do
	IFS=: read -r t h w <<<"$c"
	"$FL" --compare --baseline adaptive -m adaptive \
		-m adaptive@spin_calibrate=0 \
		-m adaptive@spin_calibrate=0,spin_max_ns=200000 \
		-m futex_lock \
		-t "$t" -d "$h" -w "$w" --duration 0.4 -r 40 --ci-target 1 \
		--time-limit 600 --seed 301160 \
		--json-file "$here/t$t-h$h-w$w.json" >"$here/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,11p "$here/t$t-h$h-w$w.txt"
done
