#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""judge.py on constructed input (8 processes per cell with the copy /
original set to 1.08, 0.92 and 1.00, +- 1 %, and 4 processes): it must
say faster, slower, indistinguishable and "no verdict" (exit 1)."""
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def make(d, ww, n):
    rnd = random.Random(1)
    for cell in ("t1-h0-w10000", "t1-h10000-w0"):
        for k in range(1, n + 1):
            def e(x):
                return {"median": x * (1 + rnd.uniform(-0.01, 0.01))}
            summ = [{"instance": "x_ww_copy", "vs": {"waitwake": e(ww)}},
                    {"instance": "x_fl_copy", "vs": {"futex_lock": e(1.0)}},
                    {"instance": "waitwake", "vs": {"futex_lock": e(1.05)}},
                    {"instance": "pthread-adaptive", "vs": {"futex_lock": e(1.08)}}]
            json.dump({"summary": summ, "aa": {"median": 1 + rnd.uniform(-0.01, 0.01)},
                       "git_commit": "test"}, open("%s/%s-p%d.json" % (d, cell, k), "w"))


bad = 0
for want, ww, n, rc in (("faster", 1.08, 8, 0), ("slower", 0.92, 8, 0),
                        ("indistinguishable", 1.0, 8, 0), ("NO VERDICT", 1.0, 4, 1)):
    with tempfile.TemporaryDirectory() as d:
        make(d, ww, n)
        r = subprocess.run([sys.executable, os.path.join(HERE, "judge.py")],
                           env=dict(os.environ, DIR=d), capture_output=True, text=True)
        line = [x for x in r.stdout.splitlines()
                if ("wait/wake copy / wait/wake" in x and "over" in x) or "NO VERDICT" in x][0]
        ok = want in line and r.returncode == rc
        bad += not ok
        print("%s %s: %s (exit %d)" % ("ok" if ok else "NOT OK", want, line.strip(), r.returncode))
sys.exit(1 if bad else 0)
