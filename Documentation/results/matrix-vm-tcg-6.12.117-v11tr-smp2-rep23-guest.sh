#!/bin/bash
# Host side of the run planned in futex-lock.md, "The 1-2-thread cells on
# the one-branch try: two boots": two boots of the v11 base kernel in turn,
# each the 16 cells at threads 1-2 under its own label.  Run from the repo
# root on the host; the host's load average is sampled by the caller.
cd "$(dirname "$0")/../.." || exit 1
rc=0
for rep in rep2 rep3; do
	echo "boot $rep start $(date -u +%T)"
	FLAVOUR=base tools/testing/vm/vm-run --quiet --timeout 2400 -- env \
		FL_MATRIX_LABEL=vm-tcg-6.12.117-v11tr-smp2-$rep \
		FL_MATRIX_THREADS="1 2" FL_MATRIX_HOLD="0 100 1000 10000" \
		FL_MATRIX_OUTSIDE="0 10000" FL_MATRIX_NO_AGGREGATE=1 \
		userspace/scripts/matrix.sh || rc=1
	echo "boot $rep end $(date -u +%T) rc=$rc"
done
exit $rc
