#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The power of this diagnostic's "L over S" figure, tried on altered
copies of diag-queue-lost's files (not this run's): each cell's 8
processes copied as both L and S, every paired median and A/A multiplied
by Gaussian noise (sd 2 %, seeded by file and kind), and ADAPTIVE's
ratio in L by a planted effect; then judge.py on the copies.  Run after
the plan was fixed, before this run's files were read; the run's verdict
is the plan's rule, not this."""
import glob
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "../diag-queue-lost-vm-tcg-6.12.118-v11-smp2")


def copies(out, effect):
    for cell, sub in (("t256-h10000-w0", "t256-h10000"), ("t32-h0-w0", "t32-h0")):
        for kind in ("L", "S"):
            os.makedirs(os.path.join(out, kind, cell))
            for p in sorted(glob.glob(os.path.join(SRC, sub, "*.json"))):
                j = json.load(open(p))
                random.seed(os.path.basename(p) + cell + kind)
                for s in j["summary"]:
                    plant = effect if kind == "L" and (s.get("instance") or s.get("mode")) == "adaptive" else 1
                    for v in (s.get("vs") or {}).values():
                        v["median"] *= random.gauss(1, 0.02) * plant
                j["aa"]["median"] *= random.gauss(1, 0.02)
                json.dump(j, open(os.path.join(out, kind, cell, os.path.basename(p)), "w"))


def main():
    for effect in (1.0, 0.97, 0.95, 0.90):
        with tempfile.TemporaryDirectory() as d:
            copies(d, effect)
            r = subprocess.run([sys.executable, os.path.join(HERE, "judge.py")],
                               env=dict(os.environ, DIR=d), capture_output=True, text=True)
            print("planted %.2f:" % effect)
            for line in r.stdout.splitlines():
                if line.startswith("#####") and "L over S" in line:
                    cell = line.split()[1].rstrip(",")
                if "ADAPTIVE / FUTEX_LOCK, L over S over processes" in line:
                    print("  %-12s %s" % (cell, line.split("over processes:")[1].strip()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
