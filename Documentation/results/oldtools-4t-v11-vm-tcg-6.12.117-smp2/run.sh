#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Did the tools take ADAPTIVE's lead at 4/1000/0?  The v9 matrices of
# 2026-11-27 (tools a0f5f1b) read ADAPTIVE 1.22-1.23 of FUTEX_LOCK
# there; every run since 2026-11-29 0.97-1.01, with the kernel's
# default path unchanged.  Here the futex_lock binary of a0f5f1b (built
# from that commit, make -C userspace, into
# build/oldtools-a0f5f1b/futex_lock; its sha256 is printed) and the
# current one take turns in one boot: old, new, old, new, each a
# futex_lock --compare of ADAPTIVE (baseline, A/A row) and FUTEX_LOCK
# at 4/1000/0 with its own defaults.  The rule, fixed beforehand, is in
# Documentation/futex-lock.md.
# In the guest (make vm FLAVOUR=base VM_TIMEOUT=1500
# CMD=Documentation/results/oldtools-4t-.../run.sh), patched base
# kernel, root.  Writes <n>-<old|new>.txt/.json beside itself.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=${REPO:-$(cd "$here/../../.." && pwd)}
OLD=$repo/build/oldtools-a0f5f1b/futex_lock
NEW=$repo/userspace/build/futex_lock
sha256sum "$OLD" "$NEW"
n=0
for which in old new old new; do
	n=$((n + 1))
	if [ "$which" = old ]; then fl=$OLD; else fl=$NEW; fi
	f=$here/$n-$which
	"$fl" --compare --baseline adaptive -m adaptive -m futex_lock \
		-t 4 -d 1000 -w 0 --duration 0.4 -r 40 --ci-target 1 \
		--time-limit 180 --seed $((301700 + n)) \
		--json-file "$f.json" >"$f.txt" 2>&1 || exit 1
	sed -n 1,7p "$f.txt"
done
