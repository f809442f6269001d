#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where does a longer spin budget cost FUTEX_LOCK_ADAPTIVE?  The
# replication of 2026-11-29 (calib-rep-v9-...) found fixed budgets of
# 100 and 200 us 13-20 % faster than the calibrated one (about 32 us) at
# 2 threads, at two to three times the p99 latency.  A new budget rule
# must not lose where spinning can cost.  This sweep, fixed beforehand in
# Documentation/futex-lock.md, runs ADAPTIVE as shipped against fixed
# budgets of 100, 200 and 1000 us (the cap) and FUTEX_LOCK in seven
# cells, 2 to 256 threads, baseline ADAPTIVE as shipped, in a boot of
# its own.  In the guest (make vm FLAVOUR=base
# CMD=Documentation/results/budget-sweep-.../run.sh), patched base
# kernel, root.  Writes t<T>-h<H>-w<W>.txt/.json beside itself.
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=${REPO:-$(cd "$here/../../.." && pwd)}/userspace/build/futex_lock
for c in 2:0:0 2:10000:0 3:1000:0 4:10000:0 8:10000:10000 32:10000:0 256:10000:0; do
	IFS=: read -r t h w <<<"$c"
	"$FL" --compare --baseline adaptive -m adaptive \
		-m adaptive@spin_calibrate=0 \
		-m adaptive@spin_calibrate=0,spin_max_ns=200000 \
		-m adaptive@spin_calibrate=0,spin_max_ns=1000000 \
		-m futex_lock \
		-t "$t" -d "$h" -w "$w" --duration 0.2 -r 20 --ci-target 2 \
		--time-limit 240 --seed 291140 \
		--json-file "$here/t$t-h$h-w$w.json" >"$here/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,11p "$here/t$t-h$h-w$w.txt"
done
