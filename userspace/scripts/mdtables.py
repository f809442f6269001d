#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Markdown tables for the docs from the results files, so that no verdict
in Documentation/ is set by hand: a ratio is **bold** exactly when the JSON
or CSV verdict of the engine (lib/compare.c) is faster or slower, plain
when it is indistinguishable or insufficient, and the A/A row says
"control".  A "†" marks a row whose ratio of means lies on the other side
of 1 (tail_disagrees); the mean ratio follows in parentheses.
Usage: mdtables.py FILE.json|FILE.csv ...   (seed JSON or matrix CSV)"""
import csv
import json
import sys


def ci(c):
    """one interval as the docs print it"""
    if c is None:
        return "(baseline)"
    v = c.get("verdict")
    if v == "failed":
        return "failed"
    s = "%.2f [%.2f, %.2f]" % (c["median"], c["lo"], c["hi"])
    if v in ("faster", "slower"):
        s = "**%s**" % s
    elif v == "insufficient data":
        s += " (insufficient)"
    if c.get("tail_disagrees"):
        s += " † (mean %.2f)" % c["mean_ratio"]
    return s


def name(r, key):
    return r[key] + (" A/A" if r.get("aa") else "")


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(out)


def aa_of(rows, key):
    for r in rows:
        if r.get("aa") and r.get(key):
            return r[key]
    return None


def emit(title, rows, key, cols, head, unavailable=False):
    """one table: cols are (fmt, field), fmt a callable for a figure or
    None for a ratio of the engine ("control" on the A/A row); then the
    A/A band of each ratio"""
    print("\n%s\n" % title)
    out = []
    for r in rows:
        if not r["available"]:
            if unavailable:
                out.append([name(r, key), "unavailable"] + [""] * (len(cols) - 1))
            continue
        out.append([name(r, key)] + [
            fmt(r[f]) if fmt else "control" if r["aa"] else ci(r[f]) for fmt, f in cols])
    print(table(head, out))
    band(rows, [f for fmt, f in cols if fmt is None])


def fixed(fmt):
    return lambda v: fmt % v


def lockbench(j):
    for t in j["tests"]:
        what = "idle gap" if t["test"] == "idle" else "wait"
        emit("%s, %s: %d threads, %d loops, %d repetitions, seed %s, commit %s" % (
            j["meta"]["command"], t["test"], t["threads"], t["loops"], t["reps"], j["seed"],
            j["git_commit"]), t["rows"], "type",
            [(fixed("%.2f"), "avg_ms"), (lambda v: ", ".join("%.3g" % x for x in v), "longest4_ms"),
             (None, "dur_ratio"), (None, "longest_ratio")],
            ["type", "mean test ms", "four longest %ss ms" % what, "test time / base",
             "longest %s / base" % what], unavailable=True)


def band(rows, keys):
    for k in keys:
        c = aa_of(rows, k)
        if c:
            print("\nA/A %s: %.2f [%.2f, %.2f]; band for verdicts [%.2f, %.2f]" % (
                k, c["median"], c["lo"], c["hi"], min(1, c["lo"], 1 / c["hi"]),
                max(1, c["hi"], 1 / c["lo"])))


def wakebench(j):
    for s in j["sweep"]:
        emit("%s, W = %d: %d repetitions x %d runs, seed %s, commit %s" % (
            j["meta"]["command"], s["workers"], s["reps"], s["runs"], j["seed"],
            j["git_commit"]), s["rows"], "method",
            [(fixed("%.1f"), "wake_mean_us"), (None, "wake_ratio"), (None, "last_ratio"),
             (fixed("%.1f"), "wake_p99_us")],
            ["method", "mean wake µs", "mean wake / base", "last woken / base", "p99 µs"])


def queuebench(j):
    emit("%s: %d repetitions, seed %s, commit %s" % (
        j["meta"]["command"], j["reps"], j["seed"], j["git_commit"]), j["rows"], "queue",
        [(fixed("%.1f"), "launch_us"), (None, "launch_ratio"), (fixed("%.3f"), "mjobs_s"),
         (None, "tput_ratio"), (fixed("%.1f"), "prequeued_us"), (None, "prequeued_ratio")],
        ["queue", "launch µs", "launch / base", "Mjobs/s", "throughput / base",
         "pre-queued µs", "pre-queued / base"])


def matrix(path):
    rows = list(csv.DictReader(open(path)))
    cells = {}
    for r in rows:
        cells.setdefault((int(r["outside_loops"]), int(r["hold_loops"]), int(r["threads"])),
                         []).append(r)
    print("\n%s: kernel %s, commit %s\n" % (path, rows[0]["kernel"], rows[0]["git_commit"]))
    out = []
    for (w, h, t), rs in sorted(cells.items()):
        aa = next((r for r in rs if r["control"] == "1"), None)
        for r in rs:
            if r["control"] == "1" or r["baseline"] == "1" or r["available"] != "1":
                continue
            if r["verdict"] == "failed" or not r["ratio"]:
                s = r["verdict"] or "-"
            else:
                s = "%.2f [%.2f, %.2f]" % (float(r["ratio"]), float(r["ratio_lo"]),
                                           float(r["ratio_hi"]))
                if r["verdict"] in ("faster", "slower"):
                    s = "**%s**" % s
            out.append([t, h, w, r["mode"], "%.1f" % float(r["median_kiter_s"]), s,
                        r["verdict"],
                        "%.2f [%.2f, %.2f]" % (float(aa["ratio"]), float(aa["ratio_lo"]),
                                               float(aa["ratio_hi"])) if aa and aa["ratio"] else "-"])
    print(table(["threads", "-d", "-w", "mode", "Kiter/s", "ratio to futex_lock", "verdict",
                 "cell A/A"], out))


def main():
    for p in sys.argv[1:]:
        if p.endswith(".csv"):
            matrix(p)
            continue
        j = json.load(open(p))
        {"lockbench": lockbench, "wakebench": wakebench, "queuebench": queuebench}[j["tool"]](j)


main()
