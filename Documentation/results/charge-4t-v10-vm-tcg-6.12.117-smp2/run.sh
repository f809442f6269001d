#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Does charging a blocking call with all its wake-ups (v10's patch 13,
# spin_charge_call) lose at 4 threads on 2 CPUs?  Its first measurement
# (charge-call-v10-...) read 0.906 [0.874-0.964] of FUTEX_LOCK at
# 4/10000/0 in a cell that did not resolve (78 pairs).  This run, fixed
# beforehand in Documentation/futex-lock.md, gives the two 4-thread
# cells about twice the pairs: ADAPTIVE as shipped (baseline, A/A row),
# ADAPTIVE with the switch on, FUTEX_LOCK.
# In the guest (make vm FLAVOUR=base VM_TIMEOUT=1800
# CMD=Documentation/results/charge-4t-.../run.sh), patched base kernel,
# root.  Writes t<T>-h<H>-w<W>.txt/.json beside itself.
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=${REPO:-$(cd "$here/../../.." && pwd)}/userspace/build/futex_lock
for c in 4:10000:0 4:1000:0; do
	IFS=: read -r t h w <<<"$c"
	"$FL" --compare --baseline adaptive -m adaptive \
		-m adaptive@spin_charge_call=1 -m futex_lock \
		-t "$t" -d "$h" -w "$w" --duration 0.4 -r 60 --ci-target 1 \
		--time-limit 540 --seed 301400 \
		--json-file "$here/t$t-h$h-w$w.json" >"$here/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,10p "$here/t$t-h$h-w$w.txt"
done
