#!/bin/bash
# diagnostic, native on the host (its kernel has no FUTEX_LOCK: pi runs
# FUTEX_LOCK's fast path, the same inline code), one thread, no work
cd /work/main/build/exp3/userspace || exit 1
uname -r
for s in 51 52 53 54; do
build/futex_lock --compare -t 1 -d 0 -w 0 --duration 0.2 -r 100 -m waitwake -m x_wwcas -m x_wwld -m x_wwtls -m pi --baseline waitwake --seed $s --json-file /work/main/build/exp3/native-1t-$s.json > /work/main/build/exp3/native-1t-$s.txt 2>&1
grep -E "^(waitwake|x_ww|pi)" /work/main/build/exp3/native-1t-$s.txt | head -7
done
