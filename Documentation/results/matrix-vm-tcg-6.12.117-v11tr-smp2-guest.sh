#!/bin/bash
# The guest's commands of 2026-11-30's last run (plan: futex-lock.md,
# "The 1-2-thread loss cells on the one-branch try: one boot").
export FL_MATRIX_LABEL=vm-tcg-6.12.117-v11tr-smp2 FL_MATRIX_THREADS="1 2" FL_MATRIX_HOLD=0 \
	FL_MATRIX_OUTSIDE="0 10000" FL_MATRIX_NO_AGGREGATE=1
userspace/scripts/matrix.sh
