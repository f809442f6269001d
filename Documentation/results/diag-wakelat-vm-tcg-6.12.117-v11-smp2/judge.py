#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Wake-up latency of FUTEX_LOCK and ADAPTIVE at 256/10000/0 (run.sh's
files, the scratch kernel of build.sh).  Per process and instance the
mean sleep-to-run latency of woken waiters (the kernel's wake_ns_sum /
wake_samples over the process's runs of that instance), and from them
per process:
  latency FUTEX_LOCK / ADAPTIVE   above 1: ADAPTIVE's waiters run sooner
      (A/A: FUTEX_LOCK / its A/A copy)
  ADAPTIVE / FUTEX_LOCK Kiter/s   futex_lock's own paired median
      (A/A: the usual A/A row)
Over the processes the one engine (through the trylock diagnostic's
judge): the median, its 95 % interval, the verdict against the band of
the processes' A/A.  The plan's rule is in README.md.  QEMU TCG
emulation figures."""
import glob
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# the trylock diagnostic's judge (a file also named judge.py) as tj
sys.path.insert(0, os.path.join(HERE, "../diag-trylock-vm-tcg-6.12.117-v11-smp2"))
import judge as tj  # noqa: E402
CELL = "256/10000/0"


def latencies(j):
    """instance -> mean wake latency (us) over its runs; None without samples"""
    acc = {}
    for r in j["runs"]:
        k = r.get("kernel_stats") or {}
        a = acc.setdefault(r["instance"], [0, 0])
        a[0] += k.get("wake_ns_sum") or 0
        a[1] += k.get("wake_samples") or 0
    return {i: (a[0] / a[1] / 1000.0 if a[1] else None) for i, a in acc.items()}


def lat_figures(path):
    j = json.load(open(path))
    lat = latencies(j)
    fl, ad, cp = lat.get("futex_lock"), lat.get("adaptive"), lat.get("futex_lock (A/A)")
    return {"aa": fl / cp if fl and cp else None, "git": j.get("git_commit"),
            "latency FUTEX_LOCK / ADAPTIVE": fl / ad if fl and ad else None,
            "latency us FUTEX_LOCK": fl, "latency us ADAPTIVE": ad}


def speed_figures(path):
    j, by, _ = tj.instances(path)
    return {"aa": tj.num((j.get("aa") or {}).get("median")), "git": j.get("git_commit"),
            "ADAPTIVE / FUTEX_LOCK": tj.num((by.get("adaptive") or {}).get("ratio"))}


def charges_as_planned(d):
    """the kernel did what the plan says: ADAPTIVE's wake-ups charged
    (wake_charges = wake_samples), FUTEX_LOCK's counted only (0 charges);
    added after the first run, whose kernel charged neither"""
    for p in glob.glob(os.path.join(d, "t*-p*.json")):
        for r in json.load(open(p))["runs"]:
            k = r.get("kernel_stats") or {}
            want = k.get("wake_samples") if r["instance"] == "adaptive" else 0
            if k.get("wake_charges") != want:
                return False
    return True


def main():
    d = os.environ.get("DIR") or HERE
    print("charges as planned (ADAPTIVE's charged, FUTEX_LOCK's not): %s"
          % ("yes" if charges_as_planned(d) else "NO"))
    rc = tj.main(d, lat_figures, {CELL: ["latency FUTEX_LOCK / ADAPTIVE"]},
                 "wake latency, FUTEX_LOCK over ADAPTIVE (A/A: FUTEX_LOCK over its copy) "
                 "-- VM/TCG EMULATION FIGURES")
    for p in sorted(glob.glob(os.path.join(d, "t*-p*.json"))):
        f = lat_figures(p)
        print("  %s: mean wake latency us FUTEX_LOCK %s, ADAPTIVE %s" % (
            os.path.basename(p), *("%.1f" % v if v else "-" for v in
                                   (f["latency us FUTEX_LOCK"], f["latency us ADAPTIVE"]))))
    # sleeps per 1,000 iterations (added after the first run, a description)
    for i, cs in sorted(tj.counters(d, ["sleeps"], control=True).items()):
        v = cs["sleeps"]
        print("  sleeps per 1,000 iterations, %-17s median %.1f (per process %s)" % (
            i, statistics.median(v), " ".join("%.1f" % x for x in v)))
    print()
    rc |= tj.main(d, speed_figures, {CELL: ["ADAPTIVE / FUTEX_LOCK"]},
                  "speed on the scratch kernel -- VM/TCG EMULATION FIGURES")
    return rc


if __name__ == "__main__":
    sys.exit(main())
