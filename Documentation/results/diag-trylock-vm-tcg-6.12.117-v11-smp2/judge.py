#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The one-branch try (new) against the try before 2026-11-30 (old), in
one process (run.sh's files: modes adaptive / futex_lock with the new
try, x_oldtry_ad / x_oldtry with the old).  Per process one figure per
contrast, each futex_lock's own paired median within that process:
  ADAPTIVE new / old      adaptive's "vs" x_oldtry_ad
  FUTEX_LOCK new / old    1 / x_oldtry's ratio to futex_lock (1/0/0)
  ADAPTIVE / wait/wake    new and old, for the gap (1/0/0)
  ADAPTIVE / FUTEX_LOCK   the 2-thread win (2/0/0)
The one engine (apps_table, through matrix-judge.py's engine()) gives the
median over the processes, its 95 % interval and the verdict against the
band of the processes' A/A (FUTEX_LOCK against its own copy, the same
code).  The plan's rule (README.md, fixed before the run): ADAPTIVE new /
old at 1/0/0 "faster" = shown to help, "slower" = shown to cost, else
indistinguishable; at 2/0/0 only "slower" counts against it.  No verdict
with fewer than MIN_K processes or a missing figure.
QEMU TCG emulation figures: ratios within one process."""
import glob
import importlib
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.environ.get("REPO") or os.path.join(HERE, "../../..")
sys.path.insert(0, os.path.join(REPO, "userspace/scripts"))
mj = importlib.import_module("matrix-judge")	# its engine() and rules
MIN_K = 6


def num(v):
    return v if isinstance(v, (int, float)) and v > 0 else None


def instances(path):
    """a process's JSON, its summary rows by instance, and vs(a, b):
    futex_lock's paired median of instance a over instance b in it (None
    where missing); also for the other in-process diagnostics' judges"""
    j = json.load(open(path))
    by = {(s.get("instance") or s.get("mode")): s for s in j["summary"]}

    def vs(a, b):
        return num((((by.get(a) or {}).get("vs") or {}).get(b) or {}).get("median"))
    return j, by, vs


def counters(d, names, control=False):
    """instance -> kernel counter -> its value per 1,000 iterations in each
    process of directory d (the process's runs of that instance summed);
    the A/A copy's runs only with control"""
    out = {}
    for p in sorted(glob.glob(os.path.join(d, "t*-h*-w*-p*.json"))):
        tot = {}
        for r in json.load(open(p))["runs"]:
            if (r.get("control") and not control) or not r.get("kernel_stats"):
                continue
            t = tot.setdefault(r["instance"], {"it": 0})
            t["it"] += r.get("iterations") or 0
            for c in names:
                t[c] = t.get(c, 0) + (r["kernel_stats"].get(c) or 0)
        for inst, t in tot.items():
            for c in names:
                if t["it"]:
                    out.setdefault(inst, {}).setdefault(c, []).append(1000.0 * t[c] / t["it"])
    return out


def counter_table(d, names, short=None):
    """print counters(d, names) as a table: per instance the median over
    the processes of each counter per 1,000 iterations (column heads cut
    to 10 characters, or short's names for them)"""
    short = short or {}
    print("  kernel counters per 1,000 iterations, median over the processes:")
    print("  %-36s " % "instance" + " ".join("%10.10s" % short.get(c, c) for c in names))
    for inst, cs in sorted(counters(d, names).items()):
        print("  %-36.36s " % inst + " ".join(
            "%10.2f" % statistics.median(cs[c]) if cs.get(c) else "%10s" % "-"
            for c in names))


def figures(path):
    j, by, vs = instances(path)
    xo = num((by.get("x_oldtry") or {}).get("ratio"))
    return {
        "aa": num((j.get("aa") or {}).get("median")),
        "git": j.get("git_commit"),
        "ADAPTIVE new / old": vs("adaptive", "x_oldtry_ad"),
        "FUTEX_LOCK new / old": 1.0 / xo if xo else None,
        "ADAPTIVE new / wait/wake": vs("adaptive", "waitwake"),
        "ADAPTIVE old / wait/wake": vs("x_oldtry_ad", "waitwake"),
        "ADAPTIVE new / FUTEX_LOCK": num((by.get("adaptive") or {}).get("ratio")),
        "ADAPTIVE old / FUTEX_LOCK": num((by.get("x_oldtry_ad") or {}).get("ratio")),
    }


CONTRASTS = {
    "1/0/0": ["ADAPTIVE new / old", "FUTEX_LOCK new / old", "ADAPTIVE new / wait/wake",
              "ADAPTIVE old / wait/wake"],
    "2/0/0": ["ADAPTIVE new / old", "ADAPTIVE new / FUTEX_LOCK", "ADAPTIVE old / FUTEX_LOCK",
              "ADAPTIVE new / wait/wake", "ADAPTIVE old / wait/wake"],
}


def fmt(v):
    if not v or v.get("median") is None:
        return "-"
    return "%.3f [%.3f-%.3f] %s" % (v["median"], v["lo"], v["hi"], v.get("verdict", ""))


TITLE = "one-branch try (new) against the old try, in one process -- VM/TCG EMULATION FIGURES"


def main(d=None, figs=figures, contrasts=CONTRASTS, title=TITLE, results=None):
    """also the judge of other in-process diagnostics (their judge.py
    imports this one with their own figures(), contrasts and title);
    with a dict as results, each contrast's engine figures go into
    results[cell][contrast], the A/A's into results[cell]["A/A"]"""
    d = d or os.environ.get("DIR") or HERE
    cells = {}
    for p in sorted(glob.glob(os.path.join(d, "t*-h*-w*-p*.json"))):
        m = re.search(r"t(\d+)-h(\d+)-w(\d+)-p(\d+)\.json$", p)
        f = figs(p)
        if f is not None:	# figs may drop a process (a pair without its partner)
            cells.setdefault("%s/%s/%s" % m.groups()[:3], {})[int(m.group(4))] = f
    print(title)
    print("per contrast: the median over the processes of each one's paired median [95 %],")
    print("the engine's verdict against the processes' A/A band (FUTEX_LOCK against its copy)")
    bad = 0
    for cell in contrasts:
        procs = cells.get(cell, {})
        print("\n== %s: %d processes (tools %s)" % (
            cell, len(procs), " ".join(sorted({f["git"] or "?" for f in procs.values()}))))
        if len(procs) < MIN_K:
            print("  NO VERDICT: fewer than %d processes" % MIN_K)
            bad += 1
            continue
        aa = [procs[k]["aa"] for k in sorted(procs)]
        print("  A/A per process: " + " ".join("%.3f" % a if a else "-" for a in aa))
        for n in contrasts[cell]:
            vals = [procs[k][n] for k in sorted(procs)]
            print("  %-26s per process: %s" % (n, " ".join("%.3f" % v if v else "-" for v in vals)))
            if None in vals or None in aa:
                print("  NO VERDICT: a process without this figure or its A/A")
                bad += 1
                continue
            rows = []
            for k in sorted(procs):
                rows += [("glibc", k, 1.0), ("adaptive", k, procs[k][n]),
                         ("glibc-aa", k, procs[k]["aa"])]
            vr = mj.engine(rows)
            if results is not None:
                results.setdefault(cell, {})[n] = vr.get("adaptive")
                results[cell]["A/A"] = vr.get("glibc-aa")
            print("  %-26s over processes: %s   (A/A %s)" % (n, fmt(vr.get("adaptive")),
                                                            fmt(vr.get("glibc-aa"))))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
