#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The 1-thread gap, fourth run: is what a process draws where ASLR puts
# it?  In the first three runs 2 of 13 processes at 1/0/0 ran FUTEX_LOCK's
# own code 13-17 % slow (every other lock read that much higher against
# it).  Here one binary (the build's) runs 1/0/0 as 24 processes,
# alternately with address-space randomisation (as always) and without
# it (setarch -R: every process at the same addresses), five locks and
# the A/A row, 15 x 0.2 s each, seed 600+k.  If the spread of wait/wake
# and pi against FUTEX_LOCK over the processes shrinks to the in-process
# noise without ASLR, the draw is where the code lies; if not, it lies in
# QEMU or the boot.  Diagnostic; QEMU TCG emulation figures, ratios
# within one process only.
#   tools/testing/vm/vm-run --quiet --timeout 1800 -- \
#     Documentation/results/onethread-gap-2026-11-30/aslr.sh
set -u
out=${OUT:-$REPO/Documentation/results/onethread-gap-2026-11-30}
fl=$REPO/userspace/build/futex_lock
modes=(-m futex_lock -m adaptive -m pi -m waitwake -m pthread)
echo "kernel: $(uname -r); cpus: $(nproc); randomize_va_space $(cat /proc/sys/kernel/randomize_va_space)"
for k in $(seq 1 24); do
	if ((k % 2)); then pre=(); v=aslr; else pre=(setarch "$(uname -m)" -R); v=noaslr; fi
	"${pre[@]}" "$fl" --compare --duration 0.2 -r 15 --seed $((600 + k)) "${modes[@]}" \
		-t 1 -d 0 -w 0 --json-file "$out/aslr-$v-p$k.json" >/dev/null 2>&1 ||
		echo "process $k ($v) failed"
	echo "$(date +%T) p$k $v done"
done
