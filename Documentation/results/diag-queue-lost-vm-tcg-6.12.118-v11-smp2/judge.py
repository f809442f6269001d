#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The queue rule waived after two losses (run.sh's files, one directory
per cell).  Per process one figure per contrast, futex_lock's own paired
median within that process; over the processes the one engine through
the trylock diagnostic's judge: the median, its 95 % interval and the
verdict against the band of the processes' A/A (FUTEX_LOCK against its
copy).  Then the kernel's counters per 1,000 iterations, medians over the
processes (a description, no verdict).  The plan's rule is in README.md,
fixed before the run.  QEMU TCG emulation figures: ratios within one
process."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# the trylock diagnostic's judge (a file also named judge.py) as tj
sys.path.insert(0, os.path.join(HERE, "../diag-trylock-vm-tcg-6.12.117-v11-smp2"))
import judge as tj  # noqa: E402

LOST2, NOQ = "adaptive@spin_queue_lost_max=2", "adaptive@spin_check_queue=0"
NAMES = ["ADAPTIVE / FUTEX_LOCK", "ADAPTIVE lost2 / FUTEX_LOCK",
         "ADAPTIVE lost2 / ADAPTIVE", "ADAPTIVE no queue rule / FUTEX_LOCK",
         "ADAPTIVE no queue rule / ADAPTIVE"]


def figures(path):
    j, _, vs = tj.instances(path)
    return {
        "aa": tj.num((j.get("aa") or {}).get("median")),
        "git": j.get("git_commit"),
        "ADAPTIVE / FUTEX_LOCK": vs("adaptive", "futex_lock"),
        "ADAPTIVE lost2 / FUTEX_LOCK": vs(LOST2, "futex_lock"),
        "ADAPTIVE lost2 / ADAPTIVE": vs(LOST2, "adaptive"),
        "ADAPTIVE no queue rule / FUTEX_LOCK": vs(NOQ, "futex_lock"),
        "ADAPTIVE no queue rule / ADAPTIVE": vs(NOQ, "adaptive"),
    }


CELLS = {"t32-h0": "32/0/0", "t32-h100": "32/100/0", "t256-h10000": "256/10000/0"}
COUNTERS = ["sleeps", "handoffs", "lost_after_wake", "acquired_after_sleep",
            "spin_attempts", "spin_acquired", "spin_skipped_queue",
            "spin_skipped_first_wake"]
SHORT = {"lost_after_wake": "lost_after", "acquired_after_sleep": "acq_after",
         "spin_acquired": "spin_acq", "spin_skipped_queue": "skip_queue",
         "spin_skipped_first_wake": "skip_first"}


def main():
    d0 = os.environ.get("DIR") or HERE
    rc = 0
    for sub, cell in CELLS.items():
        d = os.path.join(d0, sub)
        if not os.path.isdir(d):
            continue
        print("\n##### %s" % cell)
        rc |= tj.main(d, figures, {cell: NAMES},
                      "threads/hold/outside %s, in one process -- VM/TCG EMULATION FIGURES" % cell)
        tj.counter_table(d, COUNTERS, SHORT)
    return rc


if __name__ == "__main__":
    sys.exit(main())
