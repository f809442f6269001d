#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Latency tables of budget-latency-v9-...: per cell and mode, from the
futex_lock JSON beside this script (or the directory given):
- the sampler's check: per run, the mean sampled wait times the
  iterations over the threads' time (elapsed x threads), median over the
  runs.  The mean times the iterations estimates the total wait (every
  acquire is sampled with probability 1/N), which cannot exceed the
  threads' time: a necessary condition of an unbiased sample, and a
  loose one (while the lock is held, at most T - 1 threads wait);
- p50/p90/p99 of the pooled samples (futex_lock's summary; histogram
  bucket edges) and the samples behind them;
- per run, paired with the baseline's run of the same repetition: the
  median ratio of the mean sampled wait, and of p99 over the pairs where
  both p99 are above 0 (a p99 of 0 says 99 % did not wait; such pairs
  are dropped on either side, and counted), each with its 95 % bootstrap
  interval (2000 resamples of the pairs, seed 1); the A/A row's is the
  noise floor.
Descriptive: the registration in Documentation/futex-lock.md names what
is read from it."""
import json
import os
import random
import statistics
import sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
SHORT = {"adaptive": "calibrated", "adaptive@spin_calibrate=0": "100 us",
         "adaptive@spin_calibrate=0,spin_max_ns=200000": "200 us",
         "adaptive@spin_calibrate=0,spin_max_ns=1000000": "1 ms",
         "futex_lock": "FUTEX_LOCK", "adaptive (A/A)": "A/A"}


def inst(r):
    return r.get("instance") or r["mode"]


def boot(pairs, rng, n=2000):
    if len(pairs) < 5:
        return "-"
    med = statistics.median(pairs)
    bs = sorted(statistics.median(rng.choices(pairs, k=len(pairs))) for _ in range(n))
    return "%.2f [%.2f-%.2f]" % (med, bs[int(0.025 * n)], bs[int(0.975 * n) - 1])


def med(xs):
    return "%.2f" % statistics.median(xs) if xs else "-"


for cell in ("t2-h0-w0", "t2-h10000-w0", "t4-h10000-w0"):
    f = os.path.join(d, cell + ".json")
    if not os.path.exists(f):
        continue
    j = json.load(open(f))
    thr = int(cell.split("-")[0][1:])
    runs = [r for r in j["runs"] if r.get("ok", True) and r.get("latency")]
    base = {r["rep"]: r for r in runs if inst(r) == "adaptive"}
    every = runs[0]["latency"]["every"] if runs else "?"
    print("== %s: %d repetitions; sampled every %s acquires" % (cell, len(base), every))
    print("%-11s %8s %9s %9s %9s %8s  %-22s %s" % (
        "budget", "waits/t", "p50-us", "p90-us", "p99-us", "samples",
        "mean wait / calibrated", "p99 / calibrated (pairs, dropped)"))
    for s in j["summary"]:
        name = inst(s)
        rs = [r for r in runs if inst(r) == name]
        ratio = [r["latency"]["mean_us"] * 1e-6 * r["iterations"] / (r["elapsed_s"] * thr)
                 for r in rs]
        mw, p99, dropped = [], [], 0
        for r in rs:
            b = base.get(r["rep"])
            if not b or b is r:
                continue
            if b["latency"]["mean_us"] > 0:
                mw.append(r["latency"]["mean_us"] / b["latency"]["mean_us"])
            if r["latency"]["p99_us"] > 0 and b["latency"]["p99_us"] > 0:
                p99.append(r["latency"]["p99_us"] / b["latency"]["p99_us"])
            else:
                dropped += 1
        rng = random.Random(1)
        if name == "adaptive":
            c1, c2 = "baseline", ""
        else:
            c1 = boot(mw, rng)
            c2 = "%s (%d, %d)" % (boot(p99, rng), len(p99), dropped)
        print("%-11s %8s %9s %9s %9s %8s  %-22s %s" % (
            SHORT.get(name, name), med(ratio),
            s.get("latency_p50_us"), s.get("latency_p90_us"), s.get("latency_p99_us"),
            s.get("latency_samples"), c1, c2))
