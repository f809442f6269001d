#!/bin/bash
# Host side of the run planned in futex-lock.md, "The cells at 3 threads
# and more on the one-branch try: two boots": one boot of the v11 base
# kernel running the 40 cells at threads 3-256 under the label
# vm-tcg-6.12.117-v11tr-smp2-<rep> ($1: rep4 or rep5).  The matrix resumes
# cell by cell, so a boot stopped by its timeout is continued by running
# this again with the same argument.  Run from the repo root on the host;
# the host's load average is sampled by the caller.
cd "$(dirname "$0")/../.." || exit 1
case "${1:-}" in
rep4|rep5) rep=$1 ;;
*) echo "usage: $0 rep4|rep5 [timeout-seconds]" >&2; exit 2 ;;
esac
timeout=${2:-8400}
echo "boot $rep start $(date -u +%T)"
FLAVOUR=base tools/testing/vm/vm-run --quiet --timeout "$timeout" -- env \
	FL_MATRIX_LABEL=vm-tcg-6.12.117-v11tr-smp2-$rep \
	FL_MATRIX_THREADS="3 4 8 32 256" FL_MATRIX_HOLD="0 100 1000 10000" \
	FL_MATRIX_OUTSIDE="0 10000" FL_MATRIX_NO_AGGREGATE=1 \
	userspace/scripts/matrix.sh
rc=$?
echo "boot $rep end $(date -u +%T) rc=$rc"
exit $rc
