#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""256/10000/0 process by process (run.sh's files: M/ the matrix's
command, H/ the hand-off and ablation variants).  Per process one figure
per contrast, futex_lock's own paired median within that process; over
the processes the one engine through the trylock diagnostic's judge (its
main(), matrix-judge.py's engine()): the median, its 95 % interval and
the verdict against the band of the processes' A/A (FUTEX_LOCK against
its copy).  Then, to say why, the kernel's counters per 1,000 iterations
of each instance, the median over the processes (a description, no
verdict).  The plan's rule is in README.md, fixed before the run.
QEMU TCG emulation figures: ratios within one process."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# the trylock diagnostic's judge (a file also named judge.py) as tj
sys.path.insert(0, os.path.join(HERE, "../diag-trylock-vm-tcg-6.12.117-v11-smp2"))
import judge as tj  # noqa: E402

HT_A, HT_F = "adaptive@handoff_threshold=1000", "futex_lock@handoff_threshold=1000"
NOQ, NOCAL = "adaptive@spin_check_queue=0", "adaptive@spin_calibrate=0"


def figures(path):
    j, _, vs = tj.instances(path)
    return {
        "aa": tj.num((j.get("aa") or {}).get("median")),
        "git": j.get("git_commit"),
        "ADAPTIVE / FUTEX_LOCK": vs("adaptive", "futex_lock"),
        "ADAPTIVE / FUTEX_LOCK, no hand-off": vs(HT_A, HT_F),
        "FUTEX_LOCK no hand-off / FUTEX_LOCK": vs(HT_F, "futex_lock"),
        "ADAPTIVE no hand-off / ADAPTIVE": vs(HT_A, "adaptive"),
        "ADAPTIVE no queue rule / FUTEX_LOCK": vs(NOQ, "futex_lock"),
        "ADAPTIVE no queue rule / ADAPTIVE": vs(NOQ, "adaptive"),
        "ADAPTIVE no calibration / FUTEX_LOCK": vs(NOCAL, "futex_lock"),
    }


KINDS = {	# kind: (cell, what, contrasts); M's first 8 processes are the
    # first guest's, the rest the second's (README.md)
    "M": ("256/10000/0", "the matrix's command, process by process", ["ADAPTIVE / FUTEX_LOCK"]),
    "H": ("256/10000/0", "hand-offs off, the queue rule off, the calibration off",
          ["ADAPTIVE / FUTEX_LOCK", "ADAPTIVE / FUTEX_LOCK, no hand-off",
           "FUTEX_LOCK no hand-off / FUTEX_LOCK", "ADAPTIVE no hand-off / ADAPTIVE",
           "ADAPTIVE no queue rule / FUTEX_LOCK", "ADAPTIVE no calibration / FUTEX_LOCK"]),
    "Q": ("32/0/0", "the queue rule off where it was made for (second guest)",
          ["ADAPTIVE / FUTEX_LOCK", "ADAPTIVE no queue rule / FUTEX_LOCK",
           "ADAPTIVE no queue rule / ADAPTIVE"]),
}
COUNTERS = ["sleeps", "handoffs", "lost_after_wake", "acquired_after_sleep",
            "spin_attempts", "spin_skipped_queue", "spin_skipped_first_wake"]


def main():
    d0 = os.environ.get("DIR") or HERE
    rc = 0
    for kind, (cell, what, names) in KINDS.items():
        d = os.path.join(d0, kind)
        if not os.path.isdir(d):
            continue
        print("\n##### %s: %s" % (kind, what))
        rc |= tj.main(d, figures, {cell: names},
                      "threads/hold/outside %s, in one process -- VM/TCG EMULATION FIGURES" % cell)
        tj.counter_table(d, COUNTERS)
    return rc


if __name__ == "__main__":
    sys.exit(main())
