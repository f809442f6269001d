#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The TID locks' try (lib/locks.c, tid_trylock()) with one branch against
# the try before 2026-11-30, in one process: a scratch build of the
# project's code plus two diagnostic modes with the old try
# (diagnostic-modes.diff: x_oldtry = futex_lock, x_oldtry_ad = adaptive),
# so the engine pairs new and old repetition by repetition.  P1 processes
# at 1/0/0 (futex_lock, adaptive, x_oldtry, x_oldtry_ad, waitwake and the
# A/A row), then P2 at 2/0/0 (futex_lock, adaptive, x_oldtry_ad, waitwake
# and the A/A row), R x D each, seed 700+k; each process its own address
# draw.  judge.py reads the files.  QEMU TCG emulation figures: ratios
# within one process.
#   tools/testing/vm/vm-run --quiet --timeout 1800 -- \
#     Documentation/results/diag-trylock-vm-tcg-6.12.117-v11-smp2/run.sh
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
out=${OUT:-$REPO/Documentation/results/diag-trylock-vm-tcg-6.12.117-v11-smp2}
B=${B:-$REPO/build/trylock/src/build/futex_lock}
P1=${P1:-8} P2=${P2:-6} R=${R:-20} D=${D:-0.2}
[ -x "$B" ] || { echo "run.sh: $B missing (build the scratch copy: README.md)"; exit 1; }
"$B" --help 2>&1 | grep -qw x_oldtry_ad ||
	{ echo "run.sh: $B has no mode x_oldtry_ad: not the scratch build"; exit 1; }
echo "kernel: $(uname -r); cpus: $(nproc); P1=$P1 P2=$P2 R=$R D=$D; binary $(sha256sum "$B")"
rc=0
one() {	# cell k modes...
	local c=$1 k=$2 t h w f
	shift 2
	IFS=/ read -r t h w <<<"$c"
	f=$out/t$t-h$h-w$w-p$k.json
	[ -e "$f" ] && { echo "run.sh: $f exists: remove old results first"; exit 1; }
	if timeout 300 "$B" --compare --duration "$D" -r "$R" --seed $((700 + k)) \
		-t "$t" -d "$h" -w "$w" "$@" --json >"$f.tmp" 2>"$f.err"; then
		mv "$f.tmp" "$f"
		rm -f "$f.err"
		echo "$(date +%T) $c p$k done"
	else
		echo "$(date +%T) $c p$k FAILED: $(tail -n 3 "$f.err")"
		mv "$f.tmp" "$f.failed"
		rc=1
	fi
}
for k in $(seq 1 "$P1"); do
	one 1/0/0 "$k" -m futex_lock -m adaptive -m x_oldtry -m x_oldtry_ad -m waitwake
done
for k in $(seq 1 "$P2"); do
	one 2/0/0 "$k" -m futex_lock -m adaptive -m x_oldtry_ad -m waitwake
done
exit $rc
