#!/bin/bash
# diagnostic (the scratch build of diagnostic-modes.diff): which part of FUTEX_LOCK's fast path costs at 1 thread under TCG
cd /work/main/build/exp/userspace || exit 1
uname -r
build/futex_lock --compare -t 1 -d 0 -w 0 --duration 0.2 -r 40 -m waitwake -m futex_lock -m x_ctid -m x_const -m x_sub --baseline waitwake --seed 12 --json-file /work/main/build/exp/tcg-1t-b.json
