#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pilot for the 32-thread cell of issue 17: where does FUTEX_LOCK_ADAPTIVE
# of the v7 series lose its ~6 % to FUTEX_LOCK at 32 threads, no hold, no
# outside work, when it hardly spins (0.02 spins per 1000 iterations)?
# Baseline FUTEX_LOCK; ADAPTIVE as shipped; without the wake-up time
# stamps (spin_calibrate=0: the unlock stamps no wake-up, the woken waiter
# samples nothing); and the same with a zero budget (every spin ends at
# once: ADAPTIVE's decisions without its spins).
# In the guest (make vm CMD=.../run.sh), patched base kernel, root.
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=${REPO:-$(cd "$here/../../.." && pwd)}/userspace/build/futex_lock
for c in ${CELLS:-32:0:0}; do
	IFS=: read -r t h w <<<"$c"
	"$FL" --compare --baseline futex_lock -m futex_lock -m adaptive \
		-m adaptive@spin_calibrate=0 \
		-m adaptive@spin_calibrate=0,spin_max_ns=0 \
		-t "$t" -d "$h" -w "$w" --duration "${DUR:-0.4}" -r "${REP:-60}" \
		--json-file "$here/t$t-h$h-w$w.json" >"$here/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,9p "$here/t$t-h$h-w$w.txt"
done
