#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pilot for the 2-thread cells of issue 17 (v8): what limits
# FUTEX_LOCK_ADAPTIVE at 2 threads, no outside work?  Step 1: the spin
# loop's polling rate (experiment switch x_relax of xp-knobs-kernel.diff:
# cpu_relax() calls per round, v8 = 1) and counters x_spin_rounds,
# x_spin_ns, x_spin_acq_ns.
# In the guest: make vm CMD=$PWD/x.sh (patched base kernel, root).
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=$here/../../../userspace/build/futex_lock
out=$here/${OUT:-x1}
mkdir -p "$out"
for c in ${CELLS:-2:0:0 2:100:0}; do
	IFS=: read -r t h w <<<"$c"
	"$FL" --compare --baseline futex_lock -m futex_lock -m adaptive \
		${MODES:--m adaptive@x_relax=0 -m adaptive@x_relax=4 -m adaptive@x_relax=16} \
		-t "$t" -d "$h" -w "$w" --duration "${DUR:-0.4}" -r "${REP:-30}" \
		--json-file "$out/t$t-h$h-w$w.json" >"$out/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,10p "$out/t$t-h$h-w$w.txt"
done
