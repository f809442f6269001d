#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Step 2 (x2/): polling every 4, 8 cpu_relax() and doubling up to 16,
# at the 2-thread cells and the cells where slower polling could cost.
here=$(cd "$(dirname "$0")" && pwd)
OUT=x2 REP=${REP:-20} CELLS=${CELLS:-"2:0:0 2:100:0 3:0:0 4:0:0 4:1000:0 8:0:0"} \
	MODES="-m adaptive@x_relax=4 -m adaptive@x_relax=8 -m adaptive@x_relax=16,x_relax_exp=1" \
	exec "$here/x.sh"
