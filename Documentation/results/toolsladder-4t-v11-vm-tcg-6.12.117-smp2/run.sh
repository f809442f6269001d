#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A diagnostic ladder: which change of the benchmark binary since
# a0f5f1b slowed both locks at 4/1000/0 and took ADAPTIVE's lead?  The
# futex_lock binaries of eight commits (a0f5f1b, 40410e1, 58a317e,
# c09e1ae, f1844d8, c0a975c, 36aecf3 and the current tools; each built
# from its commit with make -C userspace into build/oldtools-<commit>/,
# sha256 printed), in commit order, each a futex_lock --compare of
# ADAPTIVE (baseline, A/A row) and FUTEX_LOCK at 4/1000/0 with its own
# defaults, 0.4 s runs, at least 30 repetitions, up to 90 s.  One boot,
# fixed beforehand in Documentation/futex-lock.md.
# In the guest (make vm FLAVOUR=base VM_TIMEOUT=1500
# CMD=Documentation/results/toolsladder-4t-.../run.sh), patched base
# kernel, root.  Writes <n>-<commit>.txt/.json beside itself.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=${REPO:-$(cd "$here/../../.." && pwd)}
n=0
for c in a0f5f1b 40410e1 58a317e c09e1ae f1844d8 c0a975c 36aecf3 current; do
	n=$((n + 1))
	if [ "$c" = current ]; then fl=$repo/userspace/build/futex_lock
	else fl=$repo/build/oldtools-$c/futex_lock; fi
	sha256sum "$fl"
	f=$here/$n-$c
	"$fl" --compare --baseline adaptive -m adaptive -m futex_lock \
		-t 4 -d 1000 -w 0 --duration 0.4 -r 30 --ci-target 1 \
		--time-limit 90 --seed $((301800 + n)) \
		--json-file "$f.json" >"$f.txt" 2>&1 || exit 1
	sed -n 3,6p "$f.txt"
done
