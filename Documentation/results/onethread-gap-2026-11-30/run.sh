#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The 1-thread gap (issue 17): in the v11 matrix, 1/0/10000 read
# ADAPTIVE / wait/wake 0.938 [0.901-0.962] pooled, and every lock without
# a TID ran 3-8 % faster than FUTEX_LOCK there, far more than the few
# instructions the TID locks' fast paths differ by against 10,000 loops of
# outside work.  One guest, each variant a paired --compare run of the
# same six instances (FUTEX_LOCK, its A/A copy, adaptive, pi, waitwake,
# pthread), 30 x 0.2 s, fixed seed; QEMU TCG emulation figures, ratios
# within one run only.  Run in the guest by:
#   tools/testing/vm/vm-run --quiet --timeout 1500 -- \
#     Documentation/results/onethread-gap-2026-11-30/run.sh
set -u
out=${OUT:-$REPO/Documentation/results/onethread-gap-2026-11-30}
fl=$REPO/userspace/build/futex_lock
modes=(-m futex_lock -m adaptive -m pi -m waitwake -m pthread)
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "kernel: $(uname -r); cpus: $(nproc)"
run() {
	local name=$1; shift
	echo "== $name: $* =="
	"$fl" --compare --duration 0.2 -r 30 --seed 17 "${modes[@]}" "$@" \
		--json-file "$out/$name.json" 2>&1 | head -n 9
}
run w10000-default -t 1 -d 0 -w 10000
run w10000-nolat -t 1 -d 0 -w 10000 --latency-every 0
run w10000-pin -t 1 -d 0 -w 10000 --pin
run w0-default -t 1 -d 0 -w 0
run w0-nolat -t 1 -d 0 -w 0 --latency-every 0
run w10000-default-again -t 1 -d 0 -w 10000
