#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scratch kernel of this diagnostic: the project's base kernel source
# (build/linux-source-6.12, patches/ applied by `make FLAVOUR=base kernel`)
# with a diagnostic diff applied for the build and reverted after it,
# built with the base flavour's .config.  Holds prepare-kernel's lock
# the whole time, so no `make kernel` of this checkout sees the diff.
#   build.sh [DIFF [KOUT [LOCALVERSION]]]
# (the first run, 83cc37b: diagnostic-kernel.diff into
# build/kbuild-diagwake, no lock, LOCALVERSION empty; the second:
# diagnostic-kernel-2.diff build/kbuild-diagwake2 -diagwake2)
set -eu
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=$REPO/Documentation/results/diag-wakelat-vm-tcg-6.12.117-v11-smp2
DIFF=${1:-$HERE/diagnostic-kernel-2.diff}
KOUT=${2:-$REPO/build/kbuild-diagwake2}
LV=${3:--diagwake2}
KSRC=$REPO/build/linux-source-6.12
[ -f "$REPO/build/kbuild-base/.config" ] || { echo "build.sh: make FLAVOUR=base kernel first"; exit 1; }
exec 9>"$KSRC.lock"
flock 9
git -C "$KSRC" diff --quiet HEAD || { echo "build.sh: $KSRC has changes"; exit 1; }
mkdir -p "$KOUT"
cp "$REPO/build/kbuild-base/.config" "$KOUT/.config"
git -C "$KSRC" apply "$DIFF"
trap 'git -C "$KSRC" apply -R "$DIFF" && git -C "$KSRC" diff --quiet HEAD ||
	{ echo "build.sh: $KSRC NOT restored" >&2; exit 1; }' EXIT
make -s -C "$KSRC" O="$KOUT" ARCH=x86_64 CC="ccache gcc" LOCALVERSION="$LV" -j3 olddefconfig bzImage
echo "build.sh: $KOUT/arch/x86/boot/bzImage ($(git -C "$KSRC" rev-parse --short HEAD) + $(basename "$DIFF"))"
