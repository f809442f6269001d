#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Does the calibrated spin budget cost FUTEX_LOCK_ADAPTIVE at 2 threads?
# The 2026-11-29 ablation (ablation-v9bo-...) read spin_calibrate=0 as
# 1.113 [1.059-1.124], faster, at 2/0/0: one row of about 52.  This is
# the replication fixed beforehand in Documentation/futex-lock.md: the
# lock as shipped (budget = the measured wake-up cost) against fixed
# budgets of 100 and 200 us and FUTEX_LOCK, baseline ADAPTIVE as shipped,
# in a boot of its own.  In the guest (make vm FLAVOUR=base
# CMD=Documentation/results/calib-rep-.../run.sh), patched base kernel,
# root.  Writes t<T>-h<H>-w<W>.txt/.json beside itself.
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=${REPO:-$(cd "$here/../../.." && pwd)}/userspace/build/futex_lock
for c in 2:0:0 2:100:0; do
	IFS=: read -r t h w <<<"$c"
	"$FL" --compare --baseline adaptive -m adaptive \
		-m adaptive@spin_calibrate=0 \
		-m adaptive@spin_calibrate=0,spin_max_ns=200000 \
		-m futex_lock \
		-t "$t" -d "$h" -w "$w" --duration 0.2 -r 20 --ci-target 2 \
		--time-limit 240 --seed 291130 \
		--json-file "$here/t$t-h$h-w$w.json" >"$here/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,10p "$here/t$t-h$h-w$w.txt"
done
