#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 17's cells at 1-2 threads judged process by process: each cell
# runs as K separate futex_lock --compare processes (every lock, the A/A
# row, R x D each, seed 500+k), the processes taking the project's seven
# link layouts in turn (the build's binary and layout.sh's six:
# ../onethread-gap-2026-11-30/layout.sh build), process k of every cell
# before process k+1 of any (a cut leaves every cell with fewer
# processes, not some cells with none); judge.py takes each process's
# figures as one observation.  Why: in the 1-thread gap's runs
# (../onethread-gap-2026-11-30/) two processes of 13 read every mainline
# lock 13-17 % faster against FUTEX_LOCK's code than the others, each
# with an in-process interval that did not show it.  Cause not known
# (where a process's code lies, how QEMU translates it, the boot).
# QEMU TCG emulation figures, ratios within one process.
#   tools/testing/vm/vm-run --quiet --timeout 3600 -- \
#     Documentation/results/proclevel-vm-tcg-6.12.117-v11-smp2/run.sh
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
out=${OUT:-$REPO/Documentation/results/proclevel-vm-tcg-6.12.117-v11-smp2}
L=$REPO/build/layout
bins=("$REPO/userspace/build/futex_lock" "$L/futex_lock-pad16" "$L/futex_lock-pad784"
      "$L/futex_lock-pad1552" "$L/futex_lock-pad2576" "$L/futex_lock-pad3344" "$L/futex_lock-rev")
K=${K:-12} R=${R:-7} D=${D:-0.2}
cells=${CELLS:-"1/0/0 1/0/10000 2/0/10000 2/0/0 2/100/0 2/1000/0 2/10000/0 1/100/0 2/100/10000 1/10000/10000 2/1000/10000"}
for b in "${bins[@]}"; do
	[ -x "$b" ] || { echo "run.sh: $b missing (layout.sh build)"; exit 1; }
done
[ "$(nproc)" = 2 ] || { echo "run.sh: judge.py assumes 2 CPUs, this has $(nproc)"; exit 1; }
echo "kernel: $(uname -r); cpus: $(nproc); K=$K R=$R D=$D; cells: $cells"
rc=0
for k in $(seq 1 "$K"); do
	b=${bins[$(((k - 1) % ${#bins[@]}))]}
	for c in $cells; do
		IFS=/ read -r t h w <<<"$c"
		f=$out/t$t-h$h-w$w-p$k.json
		[ -s "$f" ] && continue
		if timeout 300 "$b" --compare --duration "$D" -r "$R" --seed $((500 + k)) \
			-t "$t" -d "$h" -w "$w" --json >"$f.tmp" 2>"$f.err"; then
			mv "$f.tmp" "$f"
			rm -f "$f.err"
			echo "$(date +%T) $c p$k (${b##*/}) done"
		else
			echo "$(date +%T) $c p$k (${b##*/}) FAILED: $(tail -n 3 "$f.err")"
			mv "$f.tmp" "$f.failed"
			rc=1
		fi
	done
done
exit $rc
