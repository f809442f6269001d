#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The 1-thread gap, second run: is a lock's speed under TCG fixed by the
# binary (guest code addresses) or drawn anew by each process (where QEMU
# puts the translated code)?  run.sh's 1/0/0 read pi / FUTEX_LOCK 1.17
# [1.05-1.25] although at one thread both run the same trylock and an
# unlock 0x30 bytes away; the matrix (binary 0a2299a) read 1.00 there.
# Same binary, same six instances, one guest; every variant run as
# several processes (20 x 0.2 s each, a new seed each).  TCG emulation
# figures, ratios within one run only.
#   tools/testing/vm/vm-run --quiet --timeout 1800 -- \
#     Documentation/results/onethread-gap-2026-11-30/run2.sh
set -u
out=${OUT:-$REPO/Documentation/results/onethread-gap-2026-11-30}
fl=$REPO/userspace/build/futex_lock
modes=(-m futex_lock -m adaptive -m pi -m waitwake -m pthread)
echo "kernel: $(uname -r); cpus: $(nproc); clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
run() {
	local name=$1 seed=$2; shift 2
	echo "== $name: $* =="
	"$fl" --compare --duration 0.2 -r 20 --seed "$seed" "${modes[@]}" "$@" \
		--json-file "$out/$name.json" 2>&1 | sed -n 4,9p
}
for k in 1 2 3 4 5 6; do
	run "p$k-w0-default" $((100 + k)) -t 1 -d 0 -w 0
done
for k in 1 2 3; do
	run "p$k-w0-nolat" $((200 + k)) -t 1 -d 0 -w 0 --latency-every 0
done
for k in 1 2 3 4; do
	run "p$k-w10000-default" $((300 + k)) -t 1 -d 0 -w 10000
done
