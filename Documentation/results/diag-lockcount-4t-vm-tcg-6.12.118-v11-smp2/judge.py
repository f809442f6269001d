#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The number of locks in a process at 4/1000/0 (run.sh's files: L/ nine
locks, S/ three): diag-lockcount's judge, its one cell this one.  QEMU
TCG emulation figures: ratios within one process."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "lockcount_judge", os.path.join(HERE, "../diag-lockcount-vm-tcg-6.12.118-v11-smp2/judge.py"))
lc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lc)
lc.CELLS = ["4/1000/0"]

if __name__ == "__main__":
    os.environ.setdefault("DIR", HERE)
    sys.exit(lc.main())
