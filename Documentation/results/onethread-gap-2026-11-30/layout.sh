#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The 1-thread gap, third run: does where the code lies decide it?  run2.sh
# showed, process after process of one binary, ADAPTIVE (at one thread the
# very code of FUTEX_LOCK) and pi within a few % of FUTEX_LOCK and wait/wake
# 1.01-1.07 at 1/0/0 and 1.00-1.07 at 1/0/10000, where 10,000 loops of
# outside work leave the fast paths' few instructions no room for 4 %.
# Here the same objects are linked behind a pad of N bytes of code (all
# code shifted by N: other page boundaries, other TCG jump-cache slots),
# and once with the library's objects in reverse order; each variant runs
# the two cells as one process.  TCG emulation figures, ratios within one
# run only.
#   layout.sh build      on the host (build/layout/futex_lock-*)
#   tools/testing/vm/vm-run --quiet --timeout 1800 -- \
#     Documentation/results/onethread-gap-2026-11-30/layout.sh run
set -eu
REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
out=${OUT:-$REPO/Documentation/results/onethread-gap-2026-11-30}
L=$REPO/build/layout
U=$REPO/userspace/build
pads=(16 784 1552 2576 3344)
if [ "${1:-}" = build ]; then
	mkdir -p "$L"
	for p in "${pads[@]}"; do
		# shellcheck disable=SC2016
		printf '__attribute__((used)) void fl_layout_pad(void)\n{\n\t__asm__ volatile(".skip %d, 0x90");\n}\n' "$p" >"$L/pad-$p.c"
		gcc -O2 -c -o "$L/pad-$p.o" "$L/pad-$p.c"
		gcc -pthread -o "$L/futex_lock-pad$p" "$L/pad-$p.o" "$U/obj/futex_lock.o" "$U/libfutexlock.a" -lm
	done
	objs=$(ls "$U"/obj/lib/*.o | sort -r)
	# shellcheck disable=SC2086
	gcc -pthread -o "$L/futex_lock-rev" "$U/obj/futex_lock.o" $objs -lm
	for f in "$L"/futex_lock-*; do
		echo "${f##*/}:" $(nm "$f" | awk '$3 ~ /^(worker|tid_trylock|futex_lock_unlock|ww_trylock|waitwake_unlock)$/ {print $3 "=" substr($1, 13)}')
	done
	exit 0
fi
set +e
modes=(-m futex_lock -m adaptive -m pi -m waitwake -m pthread)
echo "kernel: $(uname -r); cpus: $(nproc)"
for v in "${pads[@]/#/pad}" rev; do
	for w in 0 10000; do
		echo "== $v 1/0/$w =="
		"$L/futex_lock-$v" --compare --duration 0.2 -r 20 --seed 400 \
			"${modes[@]}" -t 1 -d 0 -w $w \
			--json-file "$out/layout-$v-w$w.json" 2>&1 | sed -n 4,9p
	done
done
