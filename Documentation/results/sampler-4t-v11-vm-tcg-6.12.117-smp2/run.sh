#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Why does FUTEX_LOCK_ADAPTIVE no longer beat FUTEX_LOCK at 4/1000/0?
# The v9 matrices read 1.22-1.23 there (2026-11-27, tools a0f5f1b), the
# runs since the latency sampler's change (2026-11-29, c0a975c: every
# acquire tries the lock first) 0.97-1.01, with the same kernel code on
# that path and as few kernel spins.  Per cell two futex_lock --compare
# of the same modes, one with the sampler's default (--latency-every
# 1024: try first) and one without it (--latency-every 0: plain lock()
# calls): ADAPTIVE (baseline, A/A row), ADAPTIVE without its user-space
# spin (user_spin=0), FUTEX_LOCK.  The rule, fixed beforehand, is in
# Documentation/futex-lock.md.
# In the guest (make vm FLAVOUR=base VM_TIMEOUT=1800
# CMD=Documentation/results/sampler-4t-.../run.sh), patched base kernel,
# root.  Writes t<T>-h<H>-w<W>-le<N>.txt/.json beside itself.
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=${REPO:-$(cd "$here/../../.." && pwd)}/userspace/build/futex_lock
for c in 4:1000:0 4:10000:0; do
	IFS=: read -r t h w <<<"$c"
	for le in 0 1024; do
		f=$here/t$t-h$h-w$w-le$le
		"$FL" --compare --baseline adaptive -m adaptive \
			-m adaptive@user_spin=0 -m futex_lock \
			-t "$t" -d "$h" -w "$w" --duration 0.4 -r 60 --ci-target 1 \
			--time-limit 240 --latency-every "$le" --seed 301600 \
			--json-file "$f.json" >"$f.txt" 2>&1 || exit 1
		sed -n 1,9p "$f.txt"
	done
done
