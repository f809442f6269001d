#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 256 threads, hold 10000, nothing outside: ADAPTIVE read 0.95 of
# FUTEX_LOCK in both matrix boots (rep4, rep5) and 0.989 in the
# ablation's one process.  P processes of each of two kinds, in turn:
#   M  the matrix's own command for the cell (its eight locks, baseline
#      futex_lock), to see whether the loss holds process by process;
#   H  futex_lock and adaptive, each also with hand-offs switched off
#      (handoff_threshold=1000) and adaptive without the queue rule and
#      without the calibration, to see whether the hand-off waves carry it.
#   Q  (second guest) 32/0/0, futex_lock, adaptive and adaptive without
#      the queue rule: what the rule buys on v11 where it was made for.
# Rounds FIRST..P, KINDS in each (default: 1..8, M and H, the first
# guest; the second guest: FIRST=9 P=16 KINDS="M Q"), R x D each, seed
# 900+k.  judge.py reads the files.  QEMU TCG emulation figures: ratios
# within one process.
#   tools/testing/vm/vm-run --quiet --timeout 2700 -- \
#     Documentation/results/diag-256h10000-vm-tcg-6.12.117-v11-smp2/run.sh
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
out=${OUT:-$(dirname "$0")}
FL=${FL:-$REPO/userspace/build/futex_lock}
P=${P:-8} R=${R:-20} D=${D:-0.4} FIRST=${FIRST:-1} KINDS=${KINDS:-M H}
M_MODES="futex_lock adaptive pi waitwake waitwake-spin pthread pthread-adaptive spin"
H_MODES="futex_lock adaptive futex_lock@handoff_threshold=1000 adaptive@handoff_threshold=1000
	adaptive@spin_check_queue=0 adaptive@spin_calibrate=0"
Q_MODES="futex_lock adaptive adaptive@spin_check_queue=0"
echo "kernel: $(uname -r); cpus: $(nproc); P=$P R=$R D=$D FIRST=$FIRST KINDS=$KINDS; $(sha256sum "$FL")"
status=0
for k in $(seq "$FIRST" "$P"); do
	for kind in $KINDS; do
		modes=${kind}_MODES cell="-t 256 -d 10000 -w 0" name=t256-h10000-w0
		[ $kind = Q ] && cell="-t 32 -d 0 -w 0" name=t32-h0-w0
		args=($cell)
		for m in ${!modes}; do args+=(-m "$m"); done
		mkdir -p "$out/$kind"
		f=$out/$kind/$name-p$k.json
		if [ -e "$f" ]; then
			echo "run.sh: $f exists: remove old results first"
			exit 1
		fi
		timeout 400 "$FL" --compare --duration "$D" \
			-r "$R" --seed $((900 + k)) "${args[@]}" --json >"$f.tmp" 2>"$f.err"
		rc=$?
		if [ $rc = 0 ]; then
			mv "$f.tmp" "$f" && rm -f "$f.err"
		else
			mv "$f.tmp" "$f.failed"
			status=1
		fi
		echo "$(date +%T) $kind p$k rc=$rc"
	done
done
exit $status
