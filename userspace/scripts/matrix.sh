#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Result matrix of issue 17 (make matrix, in the guest; or on any machine):
# threads x hold loops x outside loops, every lock, futex_lock --compare
# with its A/A row per cell, resumable, one file per cell, each cell
# repeated/extended until its A/A interval lies within [0.95, 1.05] or
# recorded as unresolved.  The driver is matrix.py (its --help: the
# environment, FL_MATRIX_*); the verdict table is matrix-judge.py, the
# plots plot.sh (host).  Writes Documentation/results/matrix-cells-<label>/
# (one record per cell) and matrix-<label>.csv/.json gathered from them.
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
export REPO
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
"$PY" "$REPO/userspace/scripts/matrix.py" "$@"
