#!/bin/bash
# diagnostic (build/exp3: userspace/ plus diagnostic-modes.diff): wait/wake's
# fast path step by step towards FUTEX_LOCK's, one thread, no work, under TCG
cd /work/main/build/exp3/userspace || exit 1
uname -r
for s in 31 32 33 34; do
build/futex_lock --compare -t 1 -d 0 -w 0 --duration 0.2 -r 100 -m waitwake -m x_wwcas -m x_wwtls -m futex_lock -m adaptive --baseline waitwake --seed $s --json-file /work/main/build/exp3/tcg-1t-$s.json > /work/main/build/exp3/tcg-1t-$s.txt 2>&1
tail -12 /work/main/build/exp3/tcg-1t-$s.txt
done
