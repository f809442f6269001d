#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scratch kernel of this diagnostic: the project's base kernel source
# (build/linux-source-6.12, patches/ applied by `make FLAVOUR=base kernel`)
# with diagnostic-kernel.diff applied for the build and reverted after it,
# built into build/kbuild-diagwake with the base flavour's .config.
set -eu
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
KSRC=$REPO/build/linux-source-6.12 KOUT=$REPO/build/kbuild-diagwake
DIFF=$REPO/Documentation/results/diag-wakelat-vm-tcg-6.12.117-v11-smp2/diagnostic-kernel.diff
[ -f "$REPO/build/kbuild-base/.config" ] || { echo "build.sh: make FLAVOUR=base kernel first"; exit 1; }
git -C "$KSRC" diff --quiet || { echo "build.sh: $KSRC has changes"; exit 1; }
mkdir -p "$KOUT"
cp "$REPO/build/kbuild-base/.config" "$KOUT/.config"
git -C "$KSRC" apply "$DIFF"
trap 'git -C "$KSRC" apply -R "$DIFF"' EXIT
make -s -C "$KSRC" O="$KOUT" ARCH=x86_64 CC="ccache gcc" LOCALVERSION= -j3 olddefconfig bzImage
echo "build.sh: $KOUT/arch/x86/boot/bzImage"
