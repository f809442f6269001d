#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Issue 17's rules, process by process (run.sh's files): per cell, every
process's median ratios to FUTEX_LOCK are one observation each; the one
engine (apps_table, through matrix-judge.py's engine() and versus())
gives the median over the processes, its 95 % interval and the verdict
against the processes' A/A band, and matrix-judge.py's rules read them:
resolved (the A/A interval within [0.95, 1.05]), shown slower
(shown_below()), a loss to the best mainline lock at threads <= CPUs
(the engine's verdict "slower" against it), a 2-thread win held
(win_held()).  QEMU TCG emulation figures: ratios within one process."""
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
NCPUS = 2


def cells():
    out = {}
    for f in sorted(glob.glob(os.path.join(os.environ.get("DIR") or HERE, "t*-h*-w*-p*.json"))):
        m = re.search(r"t(\d+)-h(\d+)-w(\d+)-p(\d+)\.json$", f)
        t, h, w, k = map(int, m.groups())
        j = json.load(open(f))
        r = {(s.get("instance") or s.get("mode")): s.get("ratio") for s in j["summary"]}
        r["aa"] = j["aa"]["median"]
        out.setdefault((t, h, w), []).append((k, r))
    return out


def fmt(v):
    if not v or v.get("median") is None:
        return "-"
    return "%.3f [%.3f-%.3f] %s" % (v["median"], v["lo"], v["hi"], v.get("verdict", ""))


def judge(t, h, w, ps):
    rows, by = [], {}
    for k, r in ps:
        d = {"glibc": 1.0, "glibc-aa": r["aa"], "adaptive": r["adaptive"]}
        for m in mj.MAINLINE:
            if r.get(m) is not None:
                d[m] = r[m]
        by[k] = d
        rows += [(n, k, v) for n, v in d.items()]
    vr = mj.engine(rows)
    aa, ad = vr["glibc-aa"], vr["adaptive"]
    res = {"cell": "%d/%d/%d" % (t, h, w), "processes": len(ps), "aa": aa, "ad": ad}
    res["resolved"] = aa["lo"] >= BAND[0] and aa["hi"] <= BAND[1]
    res["shown_slower"] = mj.shown_below(ad["median"], ad["hi"], ad["verdict"])
    res["best"] = res["vs"] = None
    res["loss"] = False
    if t <= NCPUS:
        best = max((vr[m]["median"], m) for m in mj.MAINLINE if m in vr)[1]
        res["best"], res["vs"] = best, mj.versus(by, best)
        res["loss"] = res["vs"]["verdict"] == "slower"
    res["win_cell"] = t == 2 and w == 0
    res["win_held"] = mj.win_held(ad["median"], ad["verdict"])
    return res


def main():
    cs = cells()
    if not cs:
        sys.exit("judge.py: no process files here")
    print("issue 17's rules process by process -- VM/TCG EMULATION FIGURES (ratios within a process)")
    print("per cell: median over the processes of each process's median ratio, 95 % interval, verdict")
    print("(the engine's verdict of ADAPTIVE / best mainline: against the A/A band scaled to that lock)")
    for (t, h, w), ps in sorted(cs.items()):
        r = judge(t, h, w, sorted(ps))
        print("\n== %s: %d processes" % (r["cell"], r["processes"]))
        print("  per process (A/A, ADAPTIVE, wait/wake, pthread, pthread-adaptive):")
        for k, p in sorted(ps):
            print("    p%-2d " % k + " ".join("%.3f" % p[m] if p.get(m) is not None else "-" for m in
                                           ("aa", "adaptive", "waitwake", "pthread", "pthread-adaptive")))
        print("  A/A %s -> %s" % (fmt(r["aa"]), "resolved" if r["resolved"] else "NOT resolved"))
        print("  ADAPTIVE / FUTEX_LOCK %s; shown slower by the rule: %s" % (
            fmt(r["ad"]), "YES" if r["shown_slower"] else "no"))
        if r["best"]:
            print("  ADAPTIVE / best mainline (%s) %s; loss: %s" % (
                r["best"], fmt(r["vs"]), "YES" if r["loss"] else "no"))
        if r["win_cell"]:
            print("  2-thread win (>= %.2f, faster): %s" % (mj.WIN, "held" if r["win_held"] else "NOT held"))


if __name__ == "__main__":
    main()
