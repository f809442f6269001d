#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scratch kernel and futex_lock of this diagnostic.  Kernel: the
# project's source tree (build/linux-source-6.12, patches/ applied) with
# diagnostic-kernel.diff applied for the build and reverted after it,
# built with the base flavour's .config (make FLAVOUR=base kernel-config)
# into build/kbuild-diagqlost; holds prepare-kernel's lock the whole
# time, so no `make kernel` of this checkout sees the diff.  futex_lock:
# userspace/ of this commit in a worktree (build/diagqlost-wt) with
# diagnostic-userspace.diff (the knob spin_queue_lost_max allowed in -m).
set -eu
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
KSRC=$REPO/build/linux-source-6.12
KOUT=$REPO/build/kbuild-diagqlost
WT=$REPO/build/diagqlost-wt
[ -f "$REPO/build/kbuild-base/.config" ] || { echo "build.sh: make FLAVOUR=base kernel-config first" >&2; exit 1; }
(
	exec 9>"$KSRC.lock"
	flock 9
	git -C "$KSRC" diff --quiet HEAD || { echo "build.sh: $KSRC has changes" >&2; exit 1; }
	mkdir -p "$KOUT"
	cp "$REPO/build/kbuild-base/.config" "$KOUT/.config"
	git -C "$KSRC" apply "$HERE/diagnostic-kernel.diff"
	trap 'git -C "$KSRC" apply -R "$HERE/diagnostic-kernel.diff" && git -C "$KSRC" diff --quiet HEAD ||
		{ echo "build.sh: $KSRC NOT restored" >&2; exit 1; }' EXIT
	make -s -C "$KSRC" O="$KOUT" ARCH=x86_64 CC="ccache gcc" LOCALVERSION=-diagqlost -j3 olddefconfig bzImage
)
echo "build.sh: $KOUT/arch/x86/boot/bzImage ($(git -C "$KSRC" rev-parse --short HEAD) + diagnostic-kernel.diff)"
rm -rf "$WT"
git -C "$REPO" worktree prune
git -C "$REPO" worktree add -q --detach "$WT" HEAD
git -C "$WT" apply "$HERE/diagnostic-userspace.diff"
make -s -C "$WT/userspace" >/dev/null
echo "build.sh: $WT/userspace/build/futex_lock ($(git -C "$REPO" rev-parse --short HEAD) + diagnostic-userspace.diff)"
