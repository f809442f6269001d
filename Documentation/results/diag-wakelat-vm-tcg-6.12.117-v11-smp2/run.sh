#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 256/10000/0 on the scratch kernel (build.sh: FUTEX_LOCK's wake-ups
# timed like ADAPTIVE's): P processes of futex_lock --compare, futex_lock
# (baseline), adaptive and the A/A row, R x D, seed 950+k.  judge.py
# reads the files.  QEMU TCG emulation figures: ratios within a process.
#   tools/testing/vm/vm-run --quiet --timeout 1500 \
#     --kernel build/kbuild-diagwake/arch/x86/boot/bzImage -- \
#     Documentation/results/diag-wakelat-vm-tcg-6.12.117-v11-smp2/run.sh
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
here=${OUT:-$(dirname "$0")}	# the second run: OUT=.../run2
FL=${FL:-$REPO/userspace/build/futex_lock}
P=${P:-8} R=${R:-20} D=${D:-0.4}
mkdir -p "$here"
echo "kernel: $(uname -r) $(uname -v); P=$P R=$R D=$D; $(sha256sum "$FL")"
status=0
for k in $(seq 1 "$P"); do
	f=$here/t256-h10000-w0-p$k.json
	[ -e "$f" ] && { echo "run.sh: $f exists"; exit 1; }
	timeout 300 "$FL" --compare -t 256 -d 10000 -w 0 -m futex_lock -m adaptive \
		--duration "$D" -r "$R" --seed $((950 + k)) --json >"$f.tmp" 2>"$f.err"
	rc=$?
	[ $rc = 0 ] && mv "$f.tmp" "$f" && rm -f "$f.err" || { mv "$f.tmp" "$f.failed"; status=1; }
	echo "$(date +%T) p$k rc=$rc"
done
exit $status
