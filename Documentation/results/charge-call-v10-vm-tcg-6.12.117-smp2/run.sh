#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Charging a blocking FUTEX_LOCK_ADAPTIVE call with all its wake-ups
# (v10's patch 13, debugfs switch spin_charge_call, off by default): the
# first measurement.  Per cell one futex_lock --compare: ADAPTIVE as
# shipped (baseline, with its A/A row), ADAPTIVE with the switch on, and
# FUTEX_LOCK, in the cells where longer fixed budgets won (2 and 3
# threads, nothing outside the lock), where they lost (4 threads) and
# two controls.  The rule, fixed beforehand, is in
# Documentation/futex-lock.md.
# In the guest (make vm FLAVOUR=base VM_TIMEOUT=3000
# CMD=Documentation/results/charge-call-.../run.sh), patched base
# kernel, root.  Writes t<T>-h<H>-w<W>.txt/.json beside itself.
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=${REPO:-$(cd "$here/../../.." && pwd)}/userspace/build/futex_lock
for c in 2:10000:0 2:1000:0 2:100:0 2:0:0 3:10000:0 3:1000:0 3:100:0 \
	 3:0:0 4:10000:0 4:1000:0 8:0:0 2:10000:10000; do
	IFS=: read -r t h w <<<"$c"
	"$FL" --compare --baseline adaptive -m adaptive \
		-m adaptive@spin_charge_call=1 -m futex_lock \
		-t "$t" -d "$h" -w "$w" --duration 0.4 -r 30 --ci-target 1 \
		--time-limit 180 --seed 301300 \
		--json-file "$here/t$t-h$h-w$w.json" >"$here/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,10p "$here/t$t-h$h-w$w.txt"
done
