#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Step 5 (x5/; step 6 runs it again with OUT=x6 on the final code):
# v9's patch 12, no experiment switches (the v9 series, base flavour):
# reads at most once per 1/64 of the budget in its first quarter,
# against the same kernel with spin_quiet_start=0 (v8's spin loop).
here=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-x5} REP=${REP:-20} CELLS=${CELLS:-"2:0:0 2:100:0 2:1000:0 4:1000:0 3:1000:0 3:100:10000"} \
	MODES="-m adaptive@spin_quiet_start=0" \
	exec "$here/x.sh"
