#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The queue rule (patch 11) waived for a woken waiter that has lost the
# lock twice (scratch knob spin_queue_lost_max=2, diagnostic-kernel.diff):
# does that keep what the rule buys at 32 threads and free 256/10000/0?
# P rounds; in each one futex_lock --compare process per cell, in turn
# 32/0/0, 32/100/0, 256/10000/0 (nothing outside), baseline futex_lock,
# the A/A row, R x D, seed 950+k; locks: futex_lock, adaptive (v11: the
# knob 0), adaptive@spin_queue_lost_max=2, adaptive@spin_check_queue=0.
# judge.py reads the files.  QEMU TCG emulation figures: ratios within
# one process.
#   tools/testing/vm/vm-run --quiet --timeout 3000 \
#     --kernel build/kbuild-diagqlost/arch/x86/boot/bzImage -- \
#     Documentation/results/diag-queue-lost-vm-tcg-6.12.118-v11-smp2/run.sh
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
out=${OUT:-$(dirname "$0")}
FL=${FL:-$REPO/build/diagqlost-wt/userspace/build/futex_lock}
P=${P:-8} R=${R:-20} D=${D:-0.4}
MODES="futex_lock adaptive adaptive@spin_queue_lost_max=2 adaptive@spin_check_queue=0"
CELLS="32:0 32:100 256:10000"
echo "kernel: $(uname -r); cpus: $(nproc); P=$P R=$R D=$D; $(sha256sum "$FL")"
[ -e /sys/kernel/debug/futex_lock/spin_queue_lost_max ] ||
	{ echo "run.sh: not the diagnostic kernel (no spin_queue_lost_max)"; exit 1; }
status=0
for k in $(seq 1 "$P"); do
	for c in $CELLS; do
		t=${c%:*} h=${c#*:}
		args=(-t "$t" -d "$h" -w 0)
		for m in $MODES; do args+=(-m "$m"); done
		mkdir -p "$out/t$t-h$h"
		f=$out/t$t-h$h/t$t-h$h-w0-p$k.json
		if [ -e "$f" ]; then
			echo "run.sh: $f exists: remove old results first"
			exit 1
		fi
		timeout 400 "$FL" --compare --duration "$D" \
			-r "$R" --seed $((950 + k)) "${args[@]}" --json >"$f.tmp" 2>"$f.err"
		rc=$?
		if [ $rc = 0 ]; then
			mv "$f.tmp" "$f" && rm -f "$f.err"
		else
			mv "$f.tmp" "$f.failed"
			status=1
		fi
		echo "$(date +%T) $t/$h p$k rc=$rc"
	done
done
exit $status
