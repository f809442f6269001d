#!/bin/bash
# diagnostic, second boot (build/exp3 with x_wwld added to diagnostic-modes.diff):
# the first boot's contrasts again plus a plain load from the lock's line
cd /work/main/build/exp3/userspace || exit 1
uname -r
for s in 41 42 43 44; do
build/futex_lock --compare -t 1 -d 0 -w 0 --duration 0.2 -r 100 -m waitwake -m x_wwcas -m x_wwld -m x_wwtls -m futex_lock -m adaptive --baseline waitwake --seed $s --json-file /work/main/build/exp3/tcg2-1t-$s.json > /work/main/build/exp3/tcg2-1t-$s.txt 2>&1
grep -E "^(waitwake|x_ww|futex_lock|adaptive)" /work/main/build/exp3/tcg2-1t-$s.txt | head -7
done
