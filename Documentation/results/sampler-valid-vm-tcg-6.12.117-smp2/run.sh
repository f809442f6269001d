#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Does the engine's sampler, with one path to every try, pass its own
# check in the latency run's three cells?  The validation run fixed
# beforehand in Documentation/futex-lock.md ("The sampler with one path
# to every try"): ADAPTIVE as shipped and with a fixed 1-ms budget,
# 2/0/0, 2/10000/0 and 4/10000/0, a sample every 16th acquire, 60 s per
# cell.  In the guest (make vm FLAVOUR=base VM_TIMEOUT=900
# CMD=Documentation/results/sampler-valid-.../run.sh).  Writes
# t<T>-h<H>-w<W>.txt/.json beside itself; latency.py of
# budget-latency-v9-... tables them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=${REPO:-$(cd "$here/../../.." && pwd)}/userspace/build/futex_lock
for c in 2:0:0 2:10000:0 4:10000:0; do
	IFS=: read -r t h w <<<"$c"
	"$FL" --compare --baseline adaptive -m adaptive \
		-m adaptive@spin_calibrate=0,spin_max_ns=1000000 \
		-t "$t" -d "$h" -w "$w" --duration 0.2 -r 20 --ci-target 2 \
		--time-limit 60 --seed 291170 --latency-every 16 \
		--json-file "$here/t$t-h$h-w$w.json" >"$here/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,7p "$here/t$t-h$h-w$w.txt"
done
