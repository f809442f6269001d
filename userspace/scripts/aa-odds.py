#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The odds that a make apps run of N repetitions resolves an A/A.

Usage: aa-odds.py [--recentre] [--draws D] [--seed S] JSON PROGRAM NUM DEN N...

From a make apps results file (apps_table --json), the per-repetition
ratios NUM / DEN of PROGRAM (e.g. lock-aa / lock, FUTEX_LOCK's own A/A)
are resampled: D draws of N ratios with replacement (Python's random,
seed S), each judged by the engine's own interval (check_seed.boot_ci():
lib/compare.c's percentile bootstrap of the median, 10000 resamples).
Prints, per N, the share of draws whose interval lies within [0.95, 1.05]
(issue 17's "resolved") and the median interval width.  --recentre
divides the ratios by their median first (an A/A has no true offset).
A projection from one run's spread, not a promise: the next run's spread
may differ (the stress-ng runs' did).  About a second of CPU per draw.
Bad usage: exit 2.
"""
import json
import os
import random
import sys
from statistics import median

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from check_seed import boot_ci  # noqa: E402


def usage(msg):
    print("aa-odds.py: %s\n%s" % (msg, __doc__.split("\n\n")[1]), file=sys.stderr)
    sys.exit(2)


def main(argv):
    recentre, draws, seed, args = False, 100, 5, []
    it = iter(argv)
    for a in it:
        if a == "--recentre":
            recentre = True
        elif a in ("--draws", "--seed"):
            v = next(it, "")
            if not v.isdigit() or (a == "--draws" and int(v) < 1):
                usage("%s needs a whole number%s" % (a, " >= 1" if a == "--draws" else ""))
            draws, seed = (int(v), seed) if a == "--draws" else (draws, int(v))
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            args.append(a)
    if len(args) < 5:
        usage("JSON PROGRAM NUM DEN N... expected")
    path, prog, num, den, ns = args[0], args[1], args[2], args[3], args[4:]
    if not all(n.isdigit() and int(n) >= 2 for n in ns):
        usage("N must be whole numbers >= 2")
    try:
        j = json.load(open(path))
    except (OSError, ValueError) as e:
        usage("%s: %s" % (path, e))
    tests = [t for t in j.get("tests", []) if t.get("test") == prog]
    if not tests:
        usage("%s: no program %s" % (path, prog))
    rows = {r["type"]: r for r in tests[0]["rows"]}
    if num not in rows or den not in rows:
        usage("%s: %s has no mode %s or %s" % (path, prog, num, den))
    r = [a / b for a, b in zip(rows[num]["value_reps"], rows[den]["value_reps"]) if a and b]
    if len(r) < 2:
        usage("%s: fewer than 2 pairs of %s / %s" % (path, num, den))
    if recentre:
        m = median(r)
        r = [x / m for x in r]
    rng = random.Random(seed)
    print("%s %s / %s: %d pairs, median %.4f%s; %d draws per N, seed %d" %
          (prog, num, den, len(r), median(r), " (recentred)" if recentre else "", draws, seed))
    for n in map(int, ns):
        hit, widths = 0, []
        for _ in range(draws):
            s = [rng.choice(r) for _ in range(n)]
            _, _, lo, hi = boot_ci(s, [1.0] * n)
            hit += lo >= 0.95 and hi <= 1.05
            widths.append(hi - lo)
        print("N=%d: resolved in %d of %d draws (%.0f %%), median width %.3f" %
              (n, hit, draws, 100.0 * hit / draws, median(widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
