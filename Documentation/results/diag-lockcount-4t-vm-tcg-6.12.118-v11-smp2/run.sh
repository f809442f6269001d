#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Does the number of locks in a futex_lock --compare process move
# ADAPTIVE / FUTEX_LOCK, and does the queue rule off hold in processes
# like the matrix's?  Here at 4/1000/0 (diag-lockcount's run.sh with
# this cell and seeds 1010+k).  P rounds; in each, two processes:
#   L  the matrix's eight locks and adaptive@spin_check_queue=0 (nine);
#   S  futex_lock, adaptive and adaptive@spin_check_queue=0 (three);
# L first in odd rounds, S first in even ones;
# baseline futex_lock, the A/A row, R x D.  judge.py reads the files.
# QEMU TCG emulation figures: ratios within one process.
#   tools/testing/vm/vm-run --quiet --timeout 1800 \
#     --kernel build/kbuild-base/arch/x86/boot/bzImage -- \
#     Documentation/results/diag-lockcount-4t-vm-tcg-6.12.118-v11-smp2/run.sh
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
out=${OUT:-$(dirname "$0")}
FL=${FL:-$REPO/userspace/build/futex_lock}
P=${P:-8} R=${R:-20} D=${D:-0.4}
L_MODES="futex_lock adaptive pi waitwake waitwake-spin pthread pthread-adaptive spin
	adaptive@spin_check_queue=0"
S_MODES="futex_lock adaptive adaptive@spin_check_queue=0"
CELLS="4:1000:0"
echo "kernel: $(uname -r); cpus: $(nproc); P=$P R=$R D=$D; $(sha256sum "$FL")"
[ -e /sys/kernel/debug/futex_lock/spin_check_queue ] ||
	{ echo "run.sh: no spin_check_queue knob in this kernel"; exit 1; }
status=0
for k in $(seq 1 "$P"); do
	for c in $CELLS; do
		IFS=: read -r t h w <<<"$c"
		kinds="L S"
		[ $((k % 2)) = 0 ] && kinds="S L"
		for kind in $kinds; do
			modes=${kind}_MODES
			args=(-t "$t" -d "$h" -w "$w")
			for m in ${!modes}; do args+=(-m "$m"); done
			name=t$t-h$h-w$w
			mkdir -p "$out/$kind/$name"
			f=$out/$kind/$name/$name-p$k.json
			if [ -e "$f" ]; then
				echo "run.sh: $f exists: remove old results first"
				exit 1
			fi
			timeout 400 "$FL" --compare --duration "$D" \
				-r "$R" --seed $((1010 + k)) "${args[@]}" --json >"$f.tmp" 2>"$f.err"
			rc=$?
			if [ $rc = 0 ]; then
				mv "$f.tmp" "$f" && rm -f "$f.err"
			else
				mv "$f.tmp" "$f.failed"
				status=1
			fi
			echo "$(date +%T) $kind $t/$h/$w p$k rc=$rc"
		done
	done
done
exit $status
