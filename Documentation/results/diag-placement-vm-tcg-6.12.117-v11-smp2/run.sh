#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The same code at other addresses: wait/wake's and FUTEX_LOCK's try and
# unlock compiled a second time, each at the start of a page of its own
# (diagnostic-modes.diff: x_ww_copy, x_fl_copy), against the originals in
# one process, at the two 1-thread cells whose mainline losses are not the
# locks' instruction cost (1/0/10000, 1/10000/0).  P processes per cell,
# modes futex_lock (baseline), waitwake, x_ww_copy, x_fl_copy,
# pthread-adaptive and the A/A row, R x D each, seed 900+k.  judge.py
# reads the files.  QEMU TCG emulation figures: ratios within one process.
#   tools/testing/vm/vm-run --quiet --timeout 1800 -- \
#     Documentation/results/diag-placement-vm-tcg-6.12.117-v11-smp2/run.sh
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
out=${OUT:-$REPO/Documentation/results/diag-placement-vm-tcg-6.12.117-v11-smp2}
B=${B:-$REPO/build/placement/src/build/futex_lock}
P=${P:-8} R=${R:-20} D=${D:-0.2}
[ -x "$B" ] || { echo "run.sh: $B missing (build the scratch copy: README.md)"; exit 1; }
"$B" --help 2>&1 | grep -qw x_fl_copy ||
	{ echo "run.sh: $B has no mode x_fl_copy: not the scratch build"; exit 1; }
echo "kernel: $(uname -r); cpus: $(nproc); P=$P R=$R D=$D; binary $(sha256sum "$B")"
rc=0
one() {	# cell k
	local c=$1 k=$2 t h w f
	IFS=/ read -r t h w <<<"$c"
	f=$out/t$t-h$h-w$w-p$k.json
	[ -e "$f" ] && { echo "run.sh: $f exists: remove old results first"; exit 1; }
	if timeout 300 "$B" --compare --duration "$D" -r "$R" --seed $((900 + k)) \
		-t "$t" -d "$h" -w "$w" -m futex_lock -m waitwake -m x_ww_copy \
		-m x_fl_copy -m pthread-adaptive --json >"$f.tmp" 2>"$f.err"; then
		mv "$f.tmp" "$f"
		rm -f "$f.err"
		echo "$(date +%T) $c p$k done"
	else
		echo "$(date +%T) $c p$k FAILED: $(tail -n 3 "$f.err")"
		mv "$f.tmp" "$f.failed"
		rc=1
	fi
}
for k in $(seq 1 "$P"); do
	one 1/0/10000 "$k"
	one 1/10000/0 "$k"
done
exit $rc
