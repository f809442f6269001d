#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The number of locks in a process (run.sh's files: L/ nine locks, S/
three, one directory per cell in each).  Per process one figure per
contrast, futex_lock's own paired median within that process; over the
processes the one engine through the trylock diagnostic's judge: the
median, its 95 % interval and the verdict against the band of the
processes' A/A (FUTEX_LOCK against its copy).  "L over S" pairs the two
processes of one round and seed: its figure is the contrast in L divided
by the same in S, its A/A L's A/A divided by S's (the same code on both
sides: the noise of a ratio of two processes' ratios).  Counters per
1,000 iterations as description.  Last, issue 17's test for the rule off
in L and S (passes: the interval reaches 1.0 or the median is at least
0.97) and the plan's rule (README.md, fixed before the run).
QEMU TCG emulation figures: ratios within one process."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# the trylock diagnostic's judge (a file also named judge.py) as tj
sys.path.insert(0, os.path.join(HERE, "../diag-trylock-vm-tcg-6.12.117-v11-smp2"))
import judge as tj  # noqa: E402

NOQ = "adaptive@spin_check_queue=0"
V11, OFF = "ADAPTIVE / FUTEX_LOCK", "ADAPTIVE no queue rule / FUTEX_LOCK"
NAMES = [V11, OFF, "ADAPTIVE no queue rule / ADAPTIVE"]
LS = [V11 + ", L over S", OFF + ", L over S"]
CELLS = ["256/10000/0", "32/0/0"]
COUNTERS = ["sleeps", "handoffs", "lost_after_wake", "acquired_after_sleep",
            "spin_attempts", "spin_acquired", "spin_skipped_queue"]
SHORT = {"lost_after_wake": "lost_after", "acquired_after_sleep": "acq_after",
         "spin_acquired": "spin_acq", "spin_skipped_queue": "skip_queue"}


def figures(path):
    j, _, vs = tj.instances(path)
    return {
        "aa": tj.num((j.get("aa") or {}).get("median")),
        "git": j.get("git_commit"),
        V11: vs("adaptive", "futex_lock"),
        OFF: vs(NOQ, "futex_lock"),
        "ADAPTIVE no queue rule / ADAPTIVE": vs(NOQ, "adaptive"),
    }


def over(a, b):
    return a / b if a and b else None


def figures_ls(path):
    """an S process's file: its round's L over it (None, the round
    dropped, where L's process has no file: it failed or is missing)"""
    lp = os.path.join(os.path.dirname(path), "../../L", os.path.basename(os.path.dirname(path)),
                      os.path.basename(path))
    if not os.path.exists(lp):
        return None
    s = figures(path)
    lf = figures(lp)
    return {"aa": over(lf.get("aa"), s["aa"]), "git": s["git"],
            LS[0]: over(lf.get(V11), s[V11]), LS[1]: over(lf.get(OFF), s[OFF])}


def passes(v):
    """issue 17's test: never shown slower than FUTEX_LOCK"""
    return v["hi"] >= 1.0 or v["median"] >= 0.97


def main():
    d0 = os.environ.get("DIR") or HERE
    rc, res = 0, {"L": {}, "S": {}, "LS": {}}
    for cell in CELLS:
        sub = "t%s-h%s-w%s" % tuple(cell.split("/"))
        for kind, what in (("L", "nine locks"), ("S", "three locks")):
            d = os.path.join(d0, kind, sub)
            print("\n##### %s, %s (%s)" % (cell, kind, what))
            rc |= tj.main(d, figures, {cell: NAMES},
                          "threads/hold/outside %s, in one process -- VM/TCG EMULATION FIGURES" % cell,
                          res[kind])
            if os.path.isdir(d):
                tj.counter_table(d, COUNTERS, SHORT)
        print("\n##### %s, L over S (the two processes of a round)" % cell)
        rc |= tj.main(os.path.join(d0, "S", sub), figures_ls, {cell: LS},
                      "threads/hold/outside %s, L over S -- VM/TCG EMULATION FIGURES" % cell,
                      res["LS"])
    print("\n##### the plan's rule")
    for cell in CELLS:
        ls = res["LS"].get(cell, {}).get(LS[0])
        print("  %s: lock count and ADAPTIVE / FUTEX_LOCK: %s" % (cell, (
            "no figures" if not ls else
            "SHOWN to move it (L over S %s)" % ls["verdict"] if ls["verdict"] != "indistinguishable"
            else "not shown to move it")))
        for kind in ("L", "S"):
            o = res[kind].get(cell, {}).get(OFF)
            print("  %s: the rule off in %s: %s" % (cell, kind, (
                "no figures" if not o else "%.3f [%.3f-%.3f] %s" % (
                    o["median"], o["lo"], o["hi"], "passes" if passes(o) else "FAILS"))))
    return rc


if __name__ == "__main__":
    sys.exit(main())
