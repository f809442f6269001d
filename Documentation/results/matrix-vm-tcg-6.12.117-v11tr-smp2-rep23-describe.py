#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A description beside the pooled verdicts, no verdict of its own (plan:
futex-lock.md, "The 1-2-thread cells on the one-branch try: two boots").
For each cell of CELLS_DIRs (boots of one matrix, pooled) in which ADAPTIVE
loses to the best mainline lock by matrix-judge.py --pool, every lock's
ratio to that best mainline lock, pair by pair over the pooled
repetitions, through the project's one engine as matrix-judge.py's
versus() does it (FUTEX_LOCK's A/A band): does the best mainline lock's
edge belong to ADAPTIVE alone, or do locks with other fast paths (the
plain spinlock, glibc's other mutex type) stand as far behind it?
QEMU TCG emulation figures: ratios within one cell only.
Usage: describe.py CELLS_DIR..."""
import importlib
import os
import sys

REPO = os.environ.get("REPO") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "../..")
sys.path.insert(0, os.path.join(REPO, "userspace/scripts"))
mj = importlib.import_module("matrix-judge")	# load(), boot_reps(), engine_name(), pooled(), versus()


def main(dirs):
    cells, _ = mj.load(dirs)
    by = {}
    for c in cells:
        by.setdefault((c["threads"], c["hold_loops"], c["outside_loops"]), []).append(c)
    print("every lock / the best mainline lock where ADAPTIVE loses to it (pooled over %d dirs); "
          "QEMU TCG: ratios within one cell" % len(dirs))
    for key, boots in sorted(by.items()):
        r = mj.pooled(boots)
        if not r["mainline_loss"]:
            continue
        best, k, rows = r["best"], 0, {}
        for c in boots:
            for rep, d in sorted(mj.boot_reps(c).items()):
                k += 1
                rows[k] = {mj.engine_name(i): v for i, v in d.items()}
        print("%d/%d/%d: best mainline %s, ADAPTIVE %s" % (key + (best, mj.iv(*mj.triple(r["vs"])))))
        insts = sorted({i for d in rows.values() for i in d} - {"glibc-aa", best})
        for inst in insts:
            # versus() puts "adaptive" against OTHER: name the lock so
            pairs = {kk: dict(d, adaptive=d.get(inst)) for kk, d in rows.items()}
            v = mj.versus(pairs, best)
            print("   %-18s %s  %s" % ("futex_lock" if inst == "glibc" else inst,
                                       mj.iv(*mj.triple(v)), v.get("verdict")))


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    main(sys.argv[1:])
