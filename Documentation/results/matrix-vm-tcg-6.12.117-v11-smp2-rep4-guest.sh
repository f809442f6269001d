#!/bin/bash
# The guest's commands of 2026-11-30's evening run (plan: futex-lock.md,
# "32/100/0 once more, and two programs on v11"; real-programs.md, "v11").
rc=0
FL_MATRIX_LABEL=vm-tcg-6.12.117-v11-smp2-rep4 FL_MATRIX_REPEAT=80 FL_MATRIX_DURATION=0.8 \
FL_MATRIX_MAX_REPEAT=80 FL_MATRIX_MAX_DURATION=0.8 FL_MATRIX_NO_AGGREGATE=1 \
FL_MATRIX_THREADS=32 FL_MATRIX_HOLD=100 FL_MATRIX_OUTSIDE=0 \
	userspace/scripts/matrix.sh || rc=1
echo "guest: matrix part done $(date -u +%T) rc=$rc"
APPS=cache_bench APPS_REPS=80 APPS_SEED=113001 \
APPS_OUT=$REPO/build/apps-v11-cachebench-r80 APPS_RESULTS=$REPO/build/apps-v11-cachebench-r80 \
	userspace/scripts/apps.sh || rc=1
echo "guest: cache_bench done $(date -u +%T) rc=$rc"
APPS=stress-ng APPS_REPS=120 APPS_SECS=4 APPS_SEED=113002 \
APPS_OUT=$REPO/build/apps-v11-stressng-r120 APPS_RESULTS=$REPO/build/apps-v11-stressng-r120 \
	userspace/scripts/apps.sh || rc=1
echo "guest: stress-ng done $(date -u +%T) rc=$rc"
exit $rc
