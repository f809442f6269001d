#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Does v11's guard (patch 14, spin_charge_check_overload: a call that
# met an overcommitted machine is charged the mean of its wake-ups, not
# their sum) keep spin_charge_call from losing at 4 threads on 2 CPUs,
# and does it keep the switch's gains at 2 and 3 threads?  Per cell one
# futex_lock --compare: ADAPTIVE as shipped (baseline, A/A row), the
# switch on with its guard (the guard's default), the switch on without
# it (v10's switch), FUTEX_LOCK.  The rule, fixed beforehand, is in
# Documentation/futex-lock.md.
# In the guest (make vm FLAVOUR=base VM_TIMEOUT=2700
# CMD=Documentation/results/guard-v11-.../run.sh), patched base kernel,
# root.  Writes t<T>-h<H>-w<W>.txt/.json beside itself.
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=${REPO:-$(cd "$here/../../.." && pwd)}/userspace/build/futex_lock
for c in 4:10000:0 4:1000:0 2:10000:0 2:1000:0 3:10000:0; do
	IFS=: read -r t h w <<<"$c"
	case $t in 4) r=60 lim=540 ;; *) r=30 lim=240 ;; esac
	"$FL" --compare --baseline adaptive -m adaptive \
		-m adaptive@spin_charge_call=1 \
		-m adaptive@spin_charge_call=1,spin_charge_check_overload=0 \
		-m futex_lock \
		-t "$t" -d "$h" -w "$w" --duration 0.4 -r "$r" --ci-target 1 \
		--time-limit "$lim" --seed 301500 \
		--json-file "$here/t$t-h$h-w$w.json" >"$here/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,10p "$here/t$t-h$h-w$w.txt"
done
