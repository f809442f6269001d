#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 17's cells at 1-2 threads that decide its mainline rule and its
# wins, judged process by process: each cell runs as K separate futex_lock
# --compare processes (every lock, the A/A row, R x D each, seed 500+k),
# so that whatever a process draws (where its code and data lie, how
# QEMU translates it) is drawn K times; judge.py takes each process's
# median ratios as one observation.  Why: the 1-thread gap's runs
# (../onethread-gap-2026-11-30/) read the very code of FUTEX_LOCK
# (ADAPTIVE at one thread) 0.97-1.08 of it and identical instructions at
# other addresses (pi) 0.99-1.17, process by process, each with an
# in-process interval that did not show it.  QEMU TCG emulation figures.
#   tools/testing/vm/vm-run --quiet --timeout 3600 -- \
#     Documentation/results/proclevel-vm-tcg-6.12.117-v11-smp2/run.sh
set -u
out=${OUT:-$REPO/Documentation/results/proclevel-vm-tcg-6.12.117-v11-smp2}
fl=$REPO/userspace/build/futex_lock
K=${K:-8} R=${R:-10} D=${D:-0.2}
cells=${CELLS:-"1/0/0 1/0/10000 2/0/10000 2/0/0 2/100/0 2/1000/0 2/10000/0"}
echo "kernel: $(uname -r); cpus: $(nproc); K=$K R=$R D=$D; cells: $cells"
rc=0
for c in $cells; do
	IFS=/ read -r t h w <<<"$c"
	for k in $(seq 1 "$K"); do
		f=$out/t$t-h$h-w$w-p$k.json
		[ -s "$f" ] && continue
		"$fl" --compare --duration "$D" -r "$R" --seed $((500 + k)) \
			-t "$t" -d "$h" -w "$w" --json >"$f.tmp" 2>"$f.err" &&
			mv "$f.tmp" "$f" || { echo "cell $c process $k failed: $(tail -n 3 "$f.err")"; rc=1; }
		rm -f "$f.err"
		echo "$(date +%T) $c p$k done"
	done
done
exit $rc
