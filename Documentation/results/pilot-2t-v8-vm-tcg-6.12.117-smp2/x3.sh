#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Step 3 (x3/): a quiet start (the first budget/x_quiet_div of a spin
# polls every 16 cpu_relax(), then every one) against polling every 4.
here=$(cd "$(dirname "$0")" && pwd)
OUT=x3 REP=${REP:-20} CELLS=${CELLS:-"2:0:0 2:100:0 4:1000:0 3:1000:0"} \
	MODES="-m adaptive@x_quiet_div=8 -m adaptive@x_quiet_div=16 -m adaptive@x_quiet_div=32 -m adaptive@x_relax=4" \
	exec "$here/x.sh"
