#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What does a longer spin budget cost FUTEX_LOCK_ADAPTIVE's waiters?  Asked again with the engine's one-path sampler (c0a975c, validated in sampler-valid-...).  The
# budget sweep of 2026-11-29 (budget-sweep-v9-...) could not say: the
# sampler of its time read the clock just before every sampled lock()
# and was biased at outside 0.  This run, fixed beforehand in
# Documentation/futex-lock.md, repeats the sweep's three cells where
# waiters spun and a fixed budget read differently (2/0/0, 2/10000/0,
# 4/10000/0) with the try-first sampler and a sample every 16th acquire.
# In the guest (make vm FLAVOUR=base VM_TIMEOUT=1500
# CMD=Documentation/results/budget-latency2-.../run.sh), patched base
# kernel, root.  Writes t<T>-h<H>-w<W>.txt/.json beside itself;
# latency.py tables them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=${REPO:-$(cd "$here/../../.." && pwd)}/userspace/build/futex_lock
for c in 2:0:0 2:10000:0 4:10000:0; do
	IFS=: read -r t h w <<<"$c"
	"$FL" --compare --baseline adaptive -m adaptive \
		-m adaptive@spin_calibrate=0 \
		-m adaptive@spin_calibrate=0,spin_max_ns=200000 \
		-m adaptive@spin_calibrate=0,spin_max_ns=1000000 \
		-m futex_lock \
		-t "$t" -d "$h" -w "$w" --duration 0.2 -r 20 --ci-target 2 \
		--time-limit 120 --seed 291180 --latency-every 16 \
		--json-file "$here/t$t-h$h-w$w.json" >"$here/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,11p "$here/t$t-h$h-w$w.txt"
done
