#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The issue-17 verdict table from make matrix's per-cell records.

Usage: matrix-judge.py [--counters] [--strict] CELLS_DIR_OR_FILE...
  (default: every Documentation/results/matrix-cells-*/)

Per cell (threads x hold x outside): R x D of the last attempt, the A/A
interval and its width, resolved (A/A within the band the run used),
FUTEX_LOCK_ADAPTIVE / FUTEX_LOCK median [95% interval] and the engine's
verdict, "shown slower" in the issue's words (the interval entirely below 1
and a median below 0.97: "YES" when the engine's verdict is slower as
well, i.e. the interval is also clear of the A/A band; "rule" when it is
not, which the issue's rule does not excuse; a median within 0.005 of
0.97 is printed with three decimals), and where threads <= CPUs
the best mainline lock (pthread, pthread-adaptive, waitwake: best median)
with ADAPTIVE's paired ratio to it ("vs", lib/compare.c) and whether
ADAPTIVE loses to it beyond the A/A band (verdict slower).  Every number is
futex_lock's (lib/compare.c); this script only reads and applies the rules
of issue 17.  --counters: the kernel counters per 1000 iterations of
futex_lock and adaptive per cell (every counter the stats file has,
nonzero ones), and the settings (counters that did not move).
Goal (issue 17): every cell resolved, none shown slower, the 2-thread
no-outside-work cells at >= 1.25, no loss to the best mainline lock.
Exit: 0 (report), 2 no readable cell; --strict: 1 when the goal is not met.
"""
import glob
import json
import os
import sys

SCHEMA = "fl-matrix-cell/1"
MAINLINE = ("pthread", "pthread-adaptive", "waitwake")
SLOWER_MEDIAN = 0.97
WIN = 1.25
MUTANT = os.environ.get("FL_JUDGE_MUTANT", "")


def load(paths):
    cells, bad = [], []
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(f for f in glob.glob(os.path.join(p, "*.json"))
                            if not f.endswith(".futex_lock.json"))
        else:
            files.append(p)
    for f in files:
        try:
            c = json.load(open(f))
        except (OSError, ValueError):
            bad.append(f)
            continue
        if c.get("schema") != SCHEMA or not c.get("complete"):
            bad.append(f)
            continue
        cells.append(c)
    cells.sort(key=lambda c: (c["label"], c["outside_loops"], c["hold_loops"], c["threads"]))
    return cells, bad


def iv(m, lo, hi, fmt="%.2f"):
    if m is None or lo is None or hi is None:
        return "-"
    mfmt = fmt
    if fmt == "%.2f" and abs(m - SLOWER_MEDIAN) < 0.005:
        mfmt = "%.3f"	# 0.969 fails the rule, 0.970 passes: say which
    return (mfmt + " [" + fmt + "-" + fmt + "]") % (m, lo, hi)


def judge(c):
    """the issue-17 reading of one cell record"""
    modes = c["modes"]
    ad = modes.get("adaptive") or {}
    r = {"ad": ad}
    r["ratio"] = (ad.get("ratio"), ad.get("ratio_lo"), ad.get("ratio_hi"))
    r["verdict"] = ad.get("verdict") or "-"
    med = ad.get("ratio")
    hi = ad.get("ratio_hi")
    # the rule: not shown slower = the interval reaches 1.0 or the
    # median is at least 0.97; the A/A band plays no part in it
    under_1 = hi is not None and hi < 1.0
    if MUTANT == "median-le":
        under_median = med is not None and med <= SLOWER_MEDIAN
    else:
        under_median = med is not None and med < SLOWER_MEDIAN
    r["below"] = ((under_1 or MUTANT == "no-interval-rule") and
                  (under_median or MUTANT == "no-median-rule"))
    if MUTANT == "aa-allowance":
        r["below"] = r["below"] and r["verdict"] == "slower"
    # and beyond the A/A band as well (the engine's verdict)
    r["slower"] = r["below"] and r["verdict"] == "slower"
    r["best"] = r["vs"] = None
    r["mainline_loss"] = False
    r["mainline_applies"] = c["threads"] <= c["ncpus"]
    if r["mainline_applies"] and ad:
        cand = [(modes[m].get("median_kiter_s") or 0, m) for m in MAINLINE
                if m in modes and modes[m].get("available") and modes[m].get("median_kiter_s")]
        if cand:
            best = max(cand)[1]
            r["best"] = best
            r["vs"] = (ad.get("vs") or {}).get(best)
            r["mainline_loss"] = bool(r["vs"]) and r["vs"].get("verdict") == "slower"
    r["win_cell"] = c["threads"] == 2 and c["outside_loops"] == 0
    r["win_ok"] = med is not None and med >= WIN and r["verdict"] == "faster"
    return r


def counters_block(c):
    out = []
    moved = set()
    for m in ("futex_lock", "adaptive"):
        kc = (c["modes"].get(m) or {}).get("kernel_counters")
        if not kc:
            continue
        nz = [(k, v) for k, v in sorted(kc["per_kiter"].items()) if v]
        moved.update(k for k, _ in nz)
        out.append("    %-10s per 1000 iterations (%d runs): %s" % (
            m, kc["runs"], ", ".join("%s %g" % (k, v) for k, v in nz) or "no counter moved"))
    snap = c.get("kernel_stats_before") or {}
    st = [(k, v) for k, v in sorted(snap.items()) if k not in moved and v]
    if st:
        out.append("    did not move here; their values in the stats file at cell start (settings, counts since boot): " + ", ".join("%s %d" % kv for kv in st))
    if not out:
        out.append("    no kernel counters (no stats file in this kernel)")
    return out


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = [a for a in argv if a.startswith("--")]
    if "--help" in opts or "-h" in args:
        print(__doc__)
        return 0
    for o in opts:
        if o not in ("--counters", "--strict"):
            sys.stderr.write("matrix-judge: unknown option %s\n%s" % (o, __doc__))
            return 2
    if not args:
        repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
        args = sorted(glob.glob(os.path.join(repo, "Documentation/results/matrix-cells-*")))
    cells, bad = load(args)
    for f in bad:
        print("matrix-judge: not a complete cell record (ignored): %s" % f)
    if not cells:
        sys.stderr.write("matrix-judge: no cell record in %s (run make matrix)\n" % (
            " ".join(args) or "Documentation/results/matrix-cells-*/"))
        return 2
    labels = sorted({c["label"] for c in cells})
    goal = True
    for label in labels:
        cs = [c for c in cells if c["label"] == label]
        c0 = cs[0]
        tcg = c0["environment"].startswith("QEMU")
        print("== issue 17 matrix: %s%s" % (label, " -- VM/TCG EMULATION FIGURES (compare ratios only)" if tcg else ""))
        print("   %s; %s x %d CPUs; kernel %s; A/A band [%g, %g]" % (
            c0["environment"], c0["cpu"], c0["ncpus"], c0["kernel"], c0["aa_band"][0], c0["aa_band"][1]))
        print("%-5s %-6s %-6s %-10s %-23s %-6s %-5s %-20s %-18s %-7s %-17s %-20s %s" % (
            "thr", "hold", "out", "R x D", "A/A [95% CI]", "width", "res", "ADAPTIVE/FUTEX_LOCK",
            "verdict", "slower", "best mainline", "ADAPTIVE/best", "verdict"))
        nres = nslow = nloss = 0
        unres, slow, loss, wins = [], [], [], []
        for c in cs:
            j = judge(c)
            aa = c["aa"] or {}
            nres += bool(c["resolved"])
            if not c["resolved"]:
                unres.append(c)
            if j["below"]:
                slow.append((c, j))
            if j["mainline_loss"]:
                loss.append((c, j))
            if j["win_cell"]:
                wins.append((c, j))
            vs = j["vs"] or {}
            print("%-5d %-6d %-6d %-10s %-23s %-6s %-5s %-20s %-18s %-7s %-17s %-20s %s" % (
                c["threads"], c["hold_loops"], c["outside_loops"],
                "%dx%gs" % (c["n"], c["duration_s"]),
                # three decimals: 0.9497 is outside [0.95, 1.05]
                iv(aa.get("median"), aa.get("lo"), aa.get("hi"), "%.3f"),
                "-" if c["aa_width"] is None else "%.3f" % c["aa_width"],
                "yes" if c["resolved"] else "NO", iv(*j["ratio"]), j["verdict"],
                "YES" if j["slower"] else "rule" if j["below"] else "no",
                (j["best"] or "-") if j["mainline_applies"] else "(thr>CPUs)",
                iv(vs.get("median"), vs.get("lo"), vs.get("hi")) if j["mainline_applies"] else "-",
                (vs.get("verdict") or "-") if j["mainline_applies"] else "-"))
            if "--counters" in opts:
                for line in counters_block(c):
                    print(line)
        nslow, nloss = len(slow), len(loss)
        print()
        print("resolved: %d of %d cells%s" % (nres, len(cs), "" if not unres else "; unresolved (A/A width): " + ", ".join(
            "t%d/h%d/w%d (%s)" % (c["threads"], c["hold_loops"], c["outside_loops"], c["aa_width"]) for c in unres)))
        print("ADAPTIVE shown slower than FUTEX_LOCK (interval below 1, median below %.2f): %d%s" % (
            SLOWER_MEDIAN, nslow, "" if not slow else ": " + ", ".join(
                "t%d/h%d/w%d %s%s" % (c["threads"], c["hold_loops"], c["outside_loops"], iv(*j["ratio"]),
                                     "" if j["slower"] else " (engine: %s)" % j["verdict"]) for c, j in slow)))
        print("ADAPTIVE slower than the best mainline lock beyond the A/A band (threads <= CPUs): %d%s" % (
            nloss, "" if not loss else ": " + ", ".join("t%d/h%d/w%d vs %s %s" % (
                c["threads"], c["hold_loops"], c["outside_loops"], j["best"],
                iv(j["vs"]["median"], j["vs"]["lo"], j["vs"]["hi"])) for c, j in loss)))
        if wins:
            print("2-thread wins (outside 0, need >= %.2f and faster): %s" % (WIN, ", ".join(
                "h%d %s %s" % (c["hold_loops"], iv(*j["ratio"]), "held" if j["win_ok"] else "NOT held")
                for c, j in wins)))
        else:
            print("2-thread wins: no 2-thread, outside-0 cell in this grid")
        met = not unres and not slow and not loss and all(j["win_ok"] for _, j in wins)
        goal = goal and met
        print("issue 17 goal on these %d cells: %s" % (len(cs), "MET" if met else "NOT MET"))
        print()
    return 1 if "--strict" in opts and not goal else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
