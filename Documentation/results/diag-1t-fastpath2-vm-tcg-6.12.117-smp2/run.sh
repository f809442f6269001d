#!/bin/bash
# diagnostic (build/exp2: the new fast path plus x_old/x_oldad, the old one): one thread, no work, under TCG
# build/exp2/userspace: a copy of userspace/ with diagnostic-modes.diff applied
cd /work/main/build/exp2/userspace || exit 1
uname -r
for s in 21 22; do
build/futex_lock --compare -t 1 -d 0 -w 0 --duration 0.2 -r 50 -m waitwake -m futex_lock -m x_old -m adaptive -m x_oldad --baseline waitwake --seed $s --json-file /work/main/build/exp2/tcg-1t-$s.json
done
