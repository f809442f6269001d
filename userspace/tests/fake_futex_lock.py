#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A stand-in for futex_lock --compare --json in matrix-tests.sh: no lock,
no timing.  It prints JSON of futex_lock's shape with figures that are a
function of the arguments only:
  A/A interval 1 +- FAKE_AA_K / sqrt(R * D)  (narrows as R and D grow)
  adaptive: ratio 1.30 [1.20-1.40] "faster"; vs pthread 1.10 [1.05-1.15]
  kernel_stats per run: spin_attempts 10, sleeps 5 per 1000 iterations
    (adaptive), sleeps 7 (futex_lock), absent with FAKE_NO_KSTATS=1
Env: FAKE_LOG (one line "t h w R D" per --compare call), FAKE_FAIL (a cell
"tT-hH-wW" that exits 1), FAKE_AA_K (0.06)."""
import json
import math
import os
import sys

a = sys.argv[1:]
if "--probe" in a:
    print("FUTEX_LOCK: available (fake)")
    sys.exit(0)


def arg(o, d=None):
    return a[a.index(o) + 1] if o in a else d


t, h, w = int(arg("-t")), int(arg("-d")), int(arg("-w"))
R, D = int(arg("-r")), float(arg("--duration"))
if os.environ.get("FAKE_LOG"):
    with open(os.environ["FAKE_LOG"], "a") as f:
        f.write("%d %d %d %d %g\n" % (t, h, w, R, D))
if os.environ.get("FAKE_FAIL") == "t%d-h%d-w%d" % (t, h, w):
    sys.stderr.write("fake: this cell fails\n")
    sys.exit(1)
half = float(os.environ.get("FAKE_AA_K", "0.06")) / math.sqrt(R * D)
aa = {"n": R, "median": 1.0, "lo": round(1 - half, 4), "hi": round(1 + half, 4),
      "verdict": "control"}
ks = os.environ.get("FAKE_NO_KSTATS") != "1"
runs = []
for inst, it in (("futex_lock", 1000), ("adaptive", 1000), ("pthread", 1000),
                 ("futex_lock (A/A)", 1000)):
    for rep in range(R):
        k = None
        if ks:
            k = {"spin_attempts": 10 if inst == "adaptive" else 0,
                 "sleeps": 5 if inst == "adaptive" else 7, "spin_max_ns": 0}
        runs.append({"mode": inst.split()[0], "instance": inst, "rep": rep + 1,
                     "ok": True, "iterations": it, "kernel_stats": k})


def row(inst, base=False, ctl=False, ratio=None, vs=None, med=100.0):
    r = {"mode": inst.split()[0], "instance": inst, "baseline": base, "control": ctl,
         "available": True, "runs": R, "median_kiter_s": med}
    if ratio:
        r.update({"ratio": ratio[0], "ratio_lo": ratio[1], "ratio_hi": ratio[2],
                  "pairs": R, "verdict": ratio[3]})
    r["vs"] = vs or {}
    return r


ci = lambda m, lo, hi, v: {"n": R, "median": m, "lo": lo, "hi": hi, "verdict": v}
j = {"tool": "futex_lock", "seed": 1, "git_commit": "fake", "schema_version": 0,
     "baseline": "futex_lock", "runs": runs,
     "summary": [row("futex_lock", base=True),
                 row("adaptive", ratio=(1.30, 1.20, 1.40, "faster"), med=130.0,
                     vs={"futex_lock": ci(1.30, 1.20, 1.40, "faster"),
                         "pthread": ci(1.10, 1.05, 1.15, "faster")}),
                 row("pthread", ratio=(1.18, 1.1, 1.2, "faster"), med=118.0),
                 row("futex_lock (A/A)", ctl=True, ratio=(1.0, aa["lo"], aa["hi"], "control"))],
     "aa": aa, "aa_ok": True, "winner": None}
print(json.dumps(j))
