#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Issue 17's rules, process by process (run.sh's files).  Per cell and
process, one observation each: ADAPTIVE / FUTEX_LOCK (the process's
median ratio), ADAPTIVE / best mainline lock (the process's paired
median, futex_lock's own "vs", as matrix-judge.py reads one boot) and
FUTEX_LOCK's A/A ratio.  The one engine (apps_table, through
matrix-judge.py's engine()) gives the median over the processes, its
95 % interval and the verdict against the processes' A/A band, and the
plan's rule (Documentation/futex-lock.md, fixed before the run) reads
them:
  - no verdict: fewer than MIN_K processes, or a figure missing/failed;
  - unresolved: the A/A interval not within [0.95, 1.05] (no other
    reading of the cell counts);
  - mainline (threads <= CPUs; best = the highest median ratio to
    FUTEX_LOCK over the processes among pthread, pthread-adaptive,
    wait/wake): "loss" if the engine says slower, "no loss" if the
    interval's lower end is at or above the A/A band's lower edge,
    else "open";
  - shown slower than FUTEX_LOCK: matrix-judge.py's shown_below();
  - a 2-thread, no-outside-work win: "held" by win_held(), "not held"
    if the interval lies below 1.25, else "open".
QEMU TCG emulation figures: ratios within one process."""
import glob
import importlib.util
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.environ.get("REPO") or os.path.join(HERE, "../../..")
spec = importlib.util.spec_from_file_location(
    "mj", os.path.join(REPO, "userspace/scripts/matrix-judge.py"))
mj = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mj)
BAND = (0.95, 1.05)
NCPUS = 2	# run.sh refuses another count
K = int(os.environ.get("K") or 12)	# the report's "of K" and MISSING list only
MIN_K = 8
CELLS = [(1, 0, 0), (1, 0, 10000), (2, 0, 10000), (2, 0, 0), (2, 100, 0), (2, 1000, 0),
         (2, 10000, 0), (1, 100, 0), (2, 100, 10000), (1, 10000, 10000), (2, 1000, 10000)]
LAYOUTS = ["build", "pad16", "pad784", "pad1552", "pad2576", "pad3344", "rev"]


def load(d):
    out = {}
    for f in sorted(glob.glob(os.path.join(d, "t*-h*-w*-p*.json"))):
        m = re.search(r"t(\d+)-h(\d+)-w(\d+)-p(\d+)\.json$", f)
        t, h, w, k = map(int, m.groups())
        j = json.load(open(f))
        by = {(s.get("instance") or s.get("mode")): s for s in j["summary"]}
        out.setdefault((t, h, w), {})[k] = (j, by)
    return out


def num(v):
    return v if isinstance(v, (int, float)) else None


def fmt(v):
    if not v or v.get("median") is None:
        return "-"
    return "%.3f [%.3f-%.3f] %s" % (v["median"], v["lo"], v["hi"], v.get("verdict", ""))


def usable(v):
    return bool(v) and v.get("median") is not None and v.get("lo") is not None and \
        v.get("verdict") not in (None, "failed", "insufficient data")


def judge(cell, procs):
    t, h, w = cell
    r = {"cell": "%d/%d/%d" % cell, "k": len(procs), "problems": []}
    if len(procs) < MIN_K:
        r["problems"].append("%d processes, fewer than %d" % (len(procs), MIN_K))
    rows = []
    for k, (j, by) in sorted(procs.items()):
        ad = by.get("adaptive") or {}
        rows += [("glibc", k, 1.0), ("glibc-aa", k, num((j.get("aa") or {}).get("median"))),
                 ("adaptive", k, num(ad.get("ratio")))]
        rows += [(m, k, num((by.get(m) or {}).get("ratio"))) for m in mj.MAINLINE]
    vr = mj.engine(rows)
    r["aa"], r["ad"] = vr.get("glibc-aa") or {}, vr.get("adaptive") or {}
    for name, v in (("A/A", r["aa"]), ("ADAPTIVE", r["ad"])):
        if (name == "ADAPTIVE" and not usable(v)) or v.get("lo") is None:
            r["problems"].append("no figure of " + name)
    r["resolved"] = r["aa"].get("lo") is not None and \
        r["aa"]["lo"] >= BAND[0] and r["aa"]["hi"] <= BAND[1]
    ad = r["ad"]
    r["shown_slower"] = mj.shown_below(ad.get("median"), ad.get("hi"), ad.get("verdict"))
    r["best"] = r["vs"] = r["mainline"] = None
    if t <= NCPUS:
        cand = [(vr[m]["median"], m) for m in mj.MAINLINE if usable(vr.get(m))]
        if len(cand) < len(mj.MAINLINE):
            r["problems"].append("a mainline lock without a figure")
        if cand:
            best = max(cand)[1]
            vrows = []
            for k, (j, by) in sorted(procs.items()):
                vs = ((by.get("adaptive") or {}).get("vs") or {}).get(best) or {}
                vrows += [("glibc", k, 1.0), ("adaptive", k, num(vs.get("median"))),
                          ("glibc-aa", k, num((j.get("aa") or {}).get("median")))]
            v = mj.engine(vrows).get("adaptive") or {}
            r["best"], r["vs"] = best, v
            if not usable(v):
                r["problems"].append("no figure of ADAPTIVE / " + best)
            else:
                edge = min(r["aa"]["lo"], 1.0 / r["aa"]["hi"])
                r["mainline"] = ("loss" if v["verdict"] == "slower" else
                                 "no loss" if v["lo"] >= edge else "open")
    r["win"] = None
    if t == 2 and w == 0:
        r["win"] = ("held" if mj.win_held(ad.get("median"), ad.get("verdict")) else
                    "not held" if ad.get("hi") is not None and ad["hi"] < mj.WIN else "open")
    return r


def main():
    d = os.environ.get("DIR") or HERE
    cs = load(d)
    print("issue 17's rules process by process -- VM/TCG EMULATION FIGURES (ratios within a process)")
    print("per cell: median over the processes of each process's figure [95 %] and the engine's verdict")
    print("against the processes' A/A band; the plan's rule in Documentation/futex-lock.md:")
    print("'no loss' = the interval's lower end at or above the band's lower edge (not beyond the")
    print("band, which is not 'not slower'); 'open' = neither that nor the engine's 'slower'")
    bad = 0
    # run.sh's CELLS (T/H/W ...), when it ran others than these
    cells = [tuple(int(x) for x in c.split("/")) for c in os.environ["CELLS"].split()] \
        if os.environ.get("CELLS") else CELLS
    for cell in cells:
        procs = cs.get(cell, {})
        print("\n== %d/%d/%d: %d of %d processes" % (cell[0], cell[1], cell[2], len(procs), K))
        missing = [k for k in range(1, K + 1) if k not in procs]
        if missing:
            print("  MISSING processes: " + " ".join("p%d" % k for k in missing))
        if not procs:
            bad += 1
            continue
        r = judge(cell, procs)
        print("  per process (layout: A/A, ADAPTIVE, then each mainline lock, ratios to FUTEX_LOCK):")
        for k, (j, by) in sorted(procs.items()):
            vals = [num((j.get("aa") or {}).get("median"))] + \
                [num((by.get(m) or {}).get("ratio")) for m in ("adaptive",) + mj.MAINLINE]
            print("    p%-2d %-8s %s" % (k, LAYOUTS[(k - 1) % len(LAYOUTS)],
                                       " ".join("%.3f" % x if x is not None else "-" for x in vals)))
        aa = r["aa"]
        edge = min(aa["lo"], 1.0 / aa["hi"]) if aa.get("lo") is not None else None
        print("  A/A %s -> %s; the band's lower edge min(lo, 1/hi) %s" % (
            fmt(aa), "resolved" if r["resolved"] else "UNRESOLVED",
            "%.3f" % edge if edge is not None else "-"))
        nc = "" if r["resolved"] else " (cell unresolved: not counted)"
        print("  ADAPTIVE / FUTEX_LOCK %s; shown slower by the rule: %s%s" % (
            fmt(r["ad"]), "YES" if r["shown_slower"] else "no", nc))
        if r["best"]:
            print("  ADAPTIVE / best mainline (%s) %s -> %s%s" % (
                r["best"], fmt(r["vs"]), r["mainline"], nc))
        if r["win"]:
            print("  2-thread win (>= %.2f, faster): %s%s" % (mj.WIN, r["win"], nc))
        if r["problems"]:
            bad += 1
            print("  NO VERDICT: " + "; ".join(r["problems"]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
