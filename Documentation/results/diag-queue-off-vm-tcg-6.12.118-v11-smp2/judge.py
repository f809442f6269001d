#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The queue rule off at ten cells of threads 4-256 (run.sh's files, one
directory per cell).  Per process one figure per contrast, futex_lock's
own paired median within that process; over the processes the one engine
through the trylock diagnostic's judge: the median, its 95 % interval
and the verdict against the band of the processes' A/A (FUTEX_LOCK
against its copy); then the kernel's counters per 1,000 iterations,
medians over the processes (a description, no verdict).  Last, issue
17's test per cell (passes: the interval reaches 1.0 or the median is at
least 0.97) and the plan's rule (README.md, fixed before the run).
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
CELLS = ["4/0/0", "4/1000/0", "8/0/10000", "32/0/0", "32/100/0", "256/0/0",
         "256/0/10000", "256/100/0", "256/1000/0", "256/10000/0"]
COUNTERS = ["sleeps", "handoffs", "lost_after_wake", "acquired_after_sleep",
            "spin_attempts", "spin_acquired", "spin_skipped_queue",
            "spin_skipped_first_wake"]
SHORT = {"lost_after_wake": "lost_after", "acquired_after_sleep": "acq_after",
         "spin_acquired": "spin_acq", "spin_skipped_queue": "skip_queue",
         "spin_skipped_first_wake": "skip_first"}


def figures(path):
    j, _, vs = tj.instances(path)
    return {
        "aa": tj.num((j.get("aa") or {}).get("median")),
        "git": j.get("git_commit"),
        V11: vs("adaptive", "futex_lock"),
        OFF: vs(NOQ, "futex_lock"),
        "ADAPTIVE no queue rule / ADAPTIVE": vs(NOQ, "adaptive"),
    }


def passes(v):
    """issue 17's test: never shown slower than FUTEX_LOCK"""
    return v["hi"] >= 1.0 or v["median"] >= 0.97


def main():
    d0 = os.environ.get("DIR") or HERE
    rc, res = 0, {}
    for cell in CELLS:
        d = os.path.join(d0, "t%s-h%s-w%s" % tuple(cell.split("/")))
        print("\n##### %s" % cell)
        rc |= tj.main(d, figures, {cell: NAMES},
                      "threads/hold/outside %s, in one process -- VM/TCG EMULATION FIGURES" % cell,
                      res)
        if os.path.isdir(d):
            tj.counter_table(d, COUNTERS, SHORT)
    print("\n##### issue 17's test per cell (passes: interval reaches 1.0 or median >= 0.97)")
    print("  %-12s %-22s %-24s %-24s" % ("cell", "A/A", "v11 ADAPTIVE", "rule off"))
    lead, fail_alone, judged = True, [], 0
    for cell in CELLS:
        r = res.get(cell, {})
        if not (r.get(V11) and r.get(OFF) and r.get("A/A")):
            print("  %-12s no figures" % cell)
            lead = False
            continue
        judged += 1
        a, v, o = r["A/A"], r[V11], r[OFF]
        print("  %-12s %.3f [%.3f-%.3f]%s  %.3f [%.3f-%.3f] %-4s  %.3f [%.3f-%.3f] %-4s" % (
            cell, a["median"], a["lo"], a["hi"],
            "" if a["lo"] >= 0.95 and a["hi"] <= 1.05 else "*",
            v["median"], v["lo"], v["hi"], "pass" if passes(v) else "FAIL",
            o["median"], o["lo"], o["hi"], "pass" if passes(o) else "FAIL"))
        if not passes(o):
            lead = False
            if passes(v):
                fail_alone.append(cell)
    print("  (* the A/A interval is not within [0.95, 1.05]: not resolved by the matrix's standard)")
    if fail_alone:
        verdict = "NOT A LEAD: the rule off fails where v11 passes, at " + ", ".join(fail_alone)
    elif lead and judged == len(CELLS):
        verdict = "A LEAD FOR v12: the rule off passes issue 17's test in all %d cells" % judged
    else:
        verdict = "INCONCLUSIVE: the rule off fails only where v11 fails too, or cells are missing"
    print("\nplan's rule: " + verdict)
    return rc


if __name__ == "__main__":
    sys.exit(main())
