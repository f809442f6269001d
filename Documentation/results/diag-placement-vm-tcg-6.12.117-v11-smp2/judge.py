#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The same code at other addresses (run.sh's files): per process, each
copy against its original, futex_lock's own paired median within that
process ("vs"), and for scale the gaps the matrix judged (wait/wake and
glibc's adaptive mutex over FUTEX_LOCK).  Over the processes, the one
engine through the trylock diagnostic's judge (its main(), matrix-judge.py's
engine()): the median, its 95 % interval and the verdict against the
band of the processes' A/A (FUTEX_LOCK against its copy: the same code at
the same address).  The plan's rule (README.md): a copy "faster" or
"slower" than its original in either cell = where the code lies is shown
to move the cell's emulated speed; both indistinguishable = not shown.
No verdict with fewer than MIN_K processes or a missing figure.
QEMU TCG emulation figures: ratios within one process."""
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "trylock_judge", os.path.join(HERE, "../diag-trylock-vm-tcg-6.12.117-v11-smp2/judge.py"))
tj = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tj)


def figures(path):
    j, _, vs = tj.instances(path)
    return {
        "aa": tj.num((j.get("aa") or {}).get("median")),
        "git": j.get("git_commit"),
        "wait/wake copy / wait/wake": vs("x_ww_copy", "waitwake"),
        "FUTEX_LOCK copy / FUTEX_LOCK": vs("x_fl_copy", "futex_lock"),
        "wait/wake / FUTEX_LOCK": vs("waitwake", "futex_lock"),
        "glibc adaptive / FUTEX_LOCK": vs("pthread-adaptive", "futex_lock"),
    }


NAMES = ["wait/wake copy / wait/wake", "FUTEX_LOCK copy / FUTEX_LOCK",
         "wait/wake / FUTEX_LOCK", "glibc adaptive / FUTEX_LOCK"]
CONTRASTS = {"1/0/10000": NAMES, "1/10000/0": NAMES}

if __name__ == "__main__":
    sys.exit(tj.main(os.environ.get("DIR") or HERE, figures, CONTRASTS,
                     "the same code at other addresses, in one process -- VM/TCG EMULATION FIGURES"))
