#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The 1-thread gap's runs taken process by process: every futex_lock
--compare run here (run.sh, run2.sh, layout.sh) is one process, and each
gives one median ratio per lock to FUTEX_LOCK.  Prints them, then the
process-level comparison through the one engine (apps_table, as
matrix-judge.py's pool): per process one observation, a lock's median
ratio to FUTEX_LOCK or ADAPTIVE's paired median against a mainline lock
(futex_lock's own "vs"), the band from the processes' A/A ratios.  Diagnostic, not a
pre-registered verdict.  The pinned run (w10000-pin) is left out.
QEMU TCG emulation figures."""
import glob
import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.environ.get("REPO") or os.path.join(HERE, "../../..")
# the one engine's caller: matrix-judge.py's engine() (apps_table)
spec = importlib.util.spec_from_file_location(
    "mj", os.path.join(REPO, "userspace/scripts/matrix-judge.py"))
mj = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mj)


def procs(outside, lat):
    out = []
    for f in sorted(glob.glob(os.path.join(HERE, "*.json"))):
        if os.path.basename(f).startswith("aslr-"):
            continue	# aslr.sh's processes: their own section
        j = json.load(open(f))
        a = j["arguments"]
        if a["outside_loops"] != outside or a["latency_every"] != lat or a["pin"]:
            continue
        by = {(s.get("instance") or s.get("mode")): s for s in j["summary"]}
        r = {n: v.get("ratio") for n, v in by.items()}
        r["aa"] = j["aa"]["median"]
        # ADAPTIVE's paired median against each lock, futex_lock's "vs"
        r["vs"] = {n: v["median"] for n, v in (by["adaptive"].get("vs") or {}).items()}
        out.append((os.path.basename(f)[:-5], r))
    return out


def versus(ps, who, other):
    """per process: who / FUTEX_LOCK (its median ratio), or ADAPTIVE's
    paired median against another lock; the A/A band from the
    processes' A/A ratios"""
    rows = []
    for k, (_, r) in enumerate(ps, 1):
        v = r[who] if other == "futex_lock" else r["vs"][other]
        rows += [("glibc", k, 1.0), ("adaptive", k, v), ("glibc-aa", k, r["aa"])]
    v = mj.engine(rows)["adaptive"]
    return "%.3f [%.3f-%.3f] %s" % (v["median"], v["lo"], v["hi"], v["verdict"])


def main():
    for outside, lat, what in ((0, 1024, "1/0/0"), (10000, 1024, "1/0/10000"),
                               (0, 0, "1/0/0 --latency-every 0")):
        ps = procs(outside, lat)
        print("== %s: %d processes (ratios to FUTEX_LOCK, each the median of its run)" % (what, len(ps)))
        print("%-26s %6s %9s %6s %9s %8s" % ("process", "A/A", "adaptive", "pi", "wait/wake", "pthread"))
        for name, r in ps:
            print("%-26s %6.3f %9.3f %6.3f %9.3f %8.3f" % (name, r["aa"], r["adaptive"], r["pi"], r["waitwake"], r["pthread"]))
        if len(ps) >= 5:
            print("process level, through the engine (median over processes [95 %], verdict against the A/A band):")
            print("  ADAPTIVE / FUTEX_LOCK (the same code at one thread) %s" % versus(ps, "adaptive", "futex_lock"))
            print("  pi / FUTEX_LOCK (the same instructions, other addresses) %s" % versus(ps, "pi", "futex_lock"))
            print("  ADAPTIVE / wait/wake %s" % versus(ps, "adaptive", "waitwake"))
            print("  ADAPTIVE / pthread %s" % versus(ps, "adaptive", "pthread"))
        print()


def aslr():
    """aslr.sh: the spread over the processes, with and without ASLR"""
    import math
    groups = {}
    for f in sorted(glob.glob(os.path.join(HERE, "aslr-*.json"))):
        g = os.path.basename(f).split("-")[1]
        j = json.load(open(f))
        by = {(s.get("instance") or s.get("mode")): s for s in j["summary"]}
        groups.setdefault(g, []).append((os.path.basename(f)[:-5], j, by))
    if not groups:
        return
    print("== aslr.sh, 1/0/0: per process the median ratio to FUTEX_LOCK [its 95 % interval]")
    for g in ("aslr", "noaslr"):
        ps = groups.get(g, [])
        print("-- %s: %d processes" % ({"aslr": "with ASLR", "noaslr": "without (setarch -R)"}[g], len(ps)))
        for name, j, by in ps:
            print("  %-18s A/A %.3f  " % (name, j["aa"]["median"]) + "  ".join(
                "%s %.3f [%.3f-%.3f]" % (m, by[m]["ratio"], by[m]["ratio_lo"], by[m]["ratio_hi"])
                for m in ("adaptive", "pi", "waitwake")))
        for m in ("pi", "waitwake", "adaptive"):
            v = [by[m]["ratio"] for _, _, by in ps]
            lv = [math.log(x) for x in v]
            mu = sum(lv) / len(lv)
            sd = math.sqrt(sum((x - mu) ** 2 for x in lv) / (len(lv) - 1)) if len(lv) > 1 else 0.0
            hw = sorted((by[m]["ratio_hi"] - by[m]["ratio_lo"]) / 2 / by[m]["ratio"] for _, _, by in ps)
            print("  %-9s / FUTEX_LOCK: range %.3f-%.3f, sd of log %.3f, median in-process half-width %.3f" % (
                m, min(v), max(v), sd, hw[len(hw) // 2]))
    print()


if __name__ == "__main__":
    main()
    aslr()
