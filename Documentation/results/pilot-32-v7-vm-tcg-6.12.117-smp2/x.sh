#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pilot step 3 (x2/): the v7 kernel with the experiment switch
# x_behind_max of xp-knobs-kernel.diff (a woken waiter spins only while
# fewer than that many waiters are queued; 0 = v7) and the userspace
# allowlist extended by it.  Step 2 (x1/) ran the same loop over 32:0:0,
# 2:0:0 and 3:1000:0 with an earlier switch, x_woken_spin (0: woken
# waiters never spin; 1: only with nobody queued behind), and modes
# adaptive@x_woken_spin=1 and adaptive@x_woken_spin=0.
# In the guest: make vm CMD=$PWD/x.sh (patched base kernel, root).
set -u
here=$(cd "$(dirname "$0")" && pwd)
FL=$here/../../../userspace/build/futex_lock
out=$here/x2
mkdir -p "$out"
for c in ${CELLS:-32:0:0 3:1000:0 4:1000:0 8:0:0 4:0:0 32:100:0}; do
	IFS=: read -r t h w <<<"$c"
	"$FL" --compare --baseline futex_lock -m futex_lock -m adaptive \
		-m adaptive@x_behind_max=1 -m adaptive@x_behind_max=2 -m adaptive@x_behind_max=3 \
		-t "$t" -d "$h" -w "$w" --duration "${DUR:-0.4}" -r "${REP:-40}" \
		--json-file "$out/t$t-h$h-w$w.json" >"$out/t$t-h$h-w$w.txt" 2>&1 || exit 1
	sed -n 1,10p "$out/t$t-h$h-w$w.txt"
done
