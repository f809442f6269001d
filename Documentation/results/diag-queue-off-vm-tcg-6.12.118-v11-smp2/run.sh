#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The queue rule (patch 11) off, at the ten cells of threads 4-256 where
# it decides a v12: does ADAPTIVE without it pass issue 17's test in all
# of them?  P rounds; in each one futex_lock --compare process per cell,
# in the order of CELLS (threads:hold:outside), baseline futex_lock, the
# A/A row, R x D, seed 970+k; locks: futex_lock, adaptive (v11) and
# adaptive@spin_check_queue=0 (the rule off).  judge.py reads the files.
# QEMU TCG emulation figures: ratios within one process.
#   tools/testing/vm/vm-run --quiet --timeout 4200 \
#     --kernel build/kbuild-base/arch/x86/boot/bzImage -- \
#     Documentation/results/diag-queue-off-vm-tcg-6.12.118-v11-smp2/run.sh
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
out=${OUT:-$(dirname "$0")}
FL=${FL:-$REPO/userspace/build/futex_lock}
P=${P:-8} R=${R:-20} D=${D:-0.4}
MODES="futex_lock adaptive adaptive@spin_check_queue=0"
CELLS="4:0:0 4:1000:0 8:0:10000 32:0:0 32:100:0 256:0:0 256:0:10000 256:100:0 256:1000:0 256:10000:0"
echo "kernel: $(uname -r); cpus: $(nproc); P=$P R=$R D=$D; $(sha256sum "$FL")"
[ -e /sys/kernel/debug/futex_lock/spin_check_queue ] ||
	{ echo "run.sh: no spin_check_queue knob in this kernel"; exit 1; }
status=0
for k in $(seq 1 "$P"); do
	for c in $CELLS; do
		IFS=: read -r t h w <<<"$c"
		args=(-t "$t" -d "$h" -w "$w")
		for m in $MODES; do args+=(-m "$m"); done
		cell=t$t-h$h-w$w
		mkdir -p "$out/$cell"
		f=$out/$cell/$cell-p$k.json
		if [ -e "$f" ]; then
			echo "run.sh: $f exists: remove old results first"
			exit 1
		fi
		timeout 400 "$FL" --compare --duration "$D" \
			-r "$R" --seed $((970 + k)) "${args[@]}" --json >"$f.tmp" 2>"$f.err"
		rc=$?
		if [ $rc = 0 ]; then
			mv "$f.tmp" "$f" && rm -f "$f.err"
		else
			mv "$f.tmp" "$f.failed"
			status=1
		fi
		echo "$(date +%T) $t/$h/$w p$k rc=$rc"
	done
done
exit $status
