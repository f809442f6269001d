#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Step 4 (x4/): quiet starts of a half, a quarter and an eighth of the
# budget.
here=$(cd "$(dirname "$0")" && pwd)
OUT=x4 REP=${REP:-20} CELLS=${CELLS:-"2:0:0 2:100:0 4:1000:0 2:1000:0 4:0:0"} \
	MODES="-m adaptive@x_quiet_div=2 -m adaptive@x_quiet_div=4 -m adaptive@x_quiet_div=8" \
	exec "$here/x.sh"
