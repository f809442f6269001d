#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The result matrix of issue 17, resumable, one file per cell.

For every cell (threads x hold loops x outside loops) run
`futex_lock --compare --duration D -r R --json` (every lock, the A/A row)
until the cell is *resolved*: the A/A interval lies within
[1 - FL_MATRIX_AA_BAND, 1 + FL_MATRIX_AA_BAND].  If it does not, R and D
are doubled in turn (R first) up to FL_MATRIX_MAX_REPEAT and
FL_MATRIX_MAX_DURATION; a cell that is still not resolved there is recorded
as unresolved, with its A/A interval and width.  Every statistic (ratios,
intervals, verdicts, "vs") is futex_lock's, from lib/compare.c; this script
only compares the A/A interval with the band and sums kernel counters.

Each cell is written, as soon as it is done, to
  CELLS/t<T>-h<H>-w<W>.json            the record (schema fl-matrix-cell/1)
  CELLS/t<T>-h<H>-w<W>.futex_lock.json futex_lock's JSON of the last attempt
(atomically: a half-written cell does not exist).  A rerun skips the cells
that have a record, so an interrupted run resumes; FL_MATRIX_REDO=1 redoes
every cell, FL_MATRIX_REDO=unresolved the unresolved ones (after raising
the caps).  At the end the cells of the grid are gathered into
OUT/matrix-<label>.csv and .json as before (plot.sh reads them).

Usage: matrix.py            (environment below; userspace/scripts/matrix.sh)
Env:  FL_MATRIX_THREADS ("1 2 3 4 8 32 256"), FL_MATRIX_HOLD ("0 100 1000
      10000"), FL_MATRIX_OUTSIDE ("0 10000"), FL_MATRIX_MODES (all),
      FL_MATRIX_REPEAT (first R, 10), FL_MATRIX_DURATION (first D, 0.2 s),
      FL_MATRIX_MAX_REPEAT (40), FL_MATRIX_MAX_DURATION (0.8 s),
      FL_MATRIX_AA_BAND (0.05), FL_MATRIX_REDO (0, 1, unresolved),
      FL_MATRIX_OUT (Documentation/results), FL_MATRIX_CELLS
      (OUT/matrix-cells-<label>), FL_MATRIX_LABEL, FL_MATRIX_ENV,
      FL_MATRIX_FL (the futex_lock binary), FL_MATRIX_NO_AGGREGATE=1,
      FL_MATRIX_MUTANT (tests only, a deliberately broken driver: no-resume,
      no-extend, resolve-always).
Exit: 0 every cell has a record (resolved or not), 1 a cell failed.
"""
import csv
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.environ.get("REPO") or os.path.abspath(os.path.join(HERE, "..", ".."))
SCHEMA = "fl-matrix-cell/1"
MUTANT = os.environ.get("FL_MATRIX_MUTANT", "")


def env_list(name, default):
    return [int(x) for x in os.environ.get(name, default).split()]


def env_num(name, default, conv=float):
    v = os.environ.get(name, "")
    return conv(v) if v else default


def where():
    """(description, cpu model): QEMU TCG, some VM or bare metal"""
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        flags = open("/proc/cpuinfo").read()
    except OSError:
        flags = ""
    if os.environ.get("FL_MATRIX_ENV"):
        return os.environ["FL_MATRIX_ENV"], cpu
    if "qemu" in cpu.lower() or "tcg" in cpu.lower():
        return "QEMU TCG emulation (timings are emulated; compare ratios only)", cpu
    if " hypervisor" in flags:
        return "virtual machine (hypervisor flag set)", cpu
    return "bare metal", cpu


def cell_name(t, h, w):
    return "t%d-h%d-w%d" % (t, h, w)


def write_atomic(path, text):
    d = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)


def load_cell(path):
    """the record, or None when missing, unreadable or not complete"""
    try:
        c = json.load(open(path))
    except (OSError, ValueError):
        return None
    if not isinstance(c, dict) or c.get("schema") != SCHEMA or not c.get("complete"):
        return None
    return c


def resolved(aa, band):
    """the A/A interval within [1 - band, 1 + band] (futex_lock's interval)"""
    if not aa or aa.get("lo") is None or aa.get("hi") is None:
        return False
    if MUTANT == "resolve-always":
        return True
    return aa["lo"] >= 1.0 - band and aa["hi"] <= 1.0 + band


def next_step(rep, dur, max_rep, max_dur, turn):
    """double R or D (alternately, R first); None when both are at the cap"""
    can_r, can_d = rep * 2 <= max_rep, dur * 2 <= max_dur + 1e-9
    if MUTANT == "no-extend":
        return None
    if can_r and (turn % 2 == 0 or not can_d):
        return rep * 2, dur
    if can_d:
        return rep, dur * 2
    return None


def kstats_snapshot():
    path = os.environ.get("FUTEXLOCK_KSTATS") or "/sys/kernel/debug/futex_lock/stats"
    out = {}
    try:
        for line in open(path):
            k, _, v = line.partition(":")
            try:
                out[k.strip()] = int(v)
            except ValueError:
                pass
    except OSError:
        return None
    return out


def counters(j):
    """per instance: kernel counter deltas summed over its runs, and per 1000
    iterations (whatever names the stats file has)"""
    out = {}
    for r in j.get("runs", []):
        ks = r.get("kernel_stats")
        if not isinstance(ks, dict) or not r.get("ok", True):
            continue
        o = out.setdefault(r["instance"], {"iterations": 0, "runs": 0, "total": {}})
        o["iterations"] += r.get("iterations", 0)
        o["runs"] += 1
        for k, v in ks.items():
            o["total"][k] = o["total"].get(k, 0) + v
    for o in out.values():
        it = o["iterations"]
        o["per_kiter"] = {k: round(1000.0 * v / it, 4) if it else None
                          for k, v in o["total"].items()}
    return out


def record(t, h, w, j, attempts, band, meta, fl_json_name, kbefore):
    aa = j.get("aa") or {}
    ks = counters(j)
    modes = {}
    for m in j.get("summary", []):
        e = {k: m.get(k) for k in (
            "mode", "baseline", "control", "available", "runs", "median_kiter_s",
            "ratio", "ratio_lo", "ratio_hi", "pairs", "verdict",
            "lock_syscall_pct", "unlock_syscall_pct", "voluntary_ctxsw_per_kiter",
            "involuntary_ctxsw_per_kiter", "cpu_s_per_kiter")}
        e["vs"] = {k: ({x: v.get(x) for x in ("n", "median", "lo", "hi", "verdict")}
                       if v else None) for k, v in (m.get("vs") or {}).items()}
        e["kernel_counters"] = ks.get(m["instance"])
        modes[m["instance"]] = e
    last = attempts[-1]
    ok = resolved(aa, band)
    return {
        "schema": SCHEMA, "complete": True,
        "threads": t, "hold_loops": h, "outside_loops": w,
        "label": meta["label"], "environment": meta["environment"],
        "cpu": meta["cpu"], "ncpus": meta["ncpus"], "kernel": meta["kernel"],
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "resolved": ok, "aa_band": [1.0 - band, 1.0 + band],
        "n": last["repeat"], "duration_s": last["duration_s"],
        "aa": {x: aa.get(x) for x in ("n", "median", "lo", "hi")},
        "aa_width": (round(aa["hi"] - aa["lo"], 4)
                     if aa.get("lo") is not None and aa.get("hi") is not None else None),
        "attempts": attempts, "baseline": j.get("baseline"),
        "modes": modes, "winner": j.get("winner"),
        "kernel_stats_before": kbefore,
        "git_commit": j.get("git_commit"), "seed": j.get("seed"),
        "futex_lock_json": fl_json_name,
    }


def run_cell(fl, t, h, w, modes, cfg, meta, cells):
    """the resolution loop of one cell; the record, or None if it failed"""
    rep, dur = cfg["repeat"], cfg["duration"]
    attempts, turn, j = [], 0, None
    kbefore = kstats_snapshot()
    while True:
        cmd = [fl, "--compare", "--duration", "%g" % dur, "-r", str(rep),
               "-t", str(t), "-d", str(h), "-w", str(w), "--json"]
        for m in modes:
            cmd += ["-m", m]
        t0 = time.time()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        try:
            j = json.loads(p.stdout)
        except ValueError:
            j = None
        if p.returncode != 0 or j is None:
            sys.stderr.write("matrix: cell %s failed (status %d): %s\n" % (
                cell_name(t, h, w), p.returncode, p.stderr.strip()[-2000:]))
            return None
        aa = j.get("aa") or {}
        ok = resolved(aa, cfg["band"])
        attempts.append({"repeat": rep, "duration_s": dur, "resolved": ok,
                         "aa": {x: aa.get(x) for x in ("n", "median", "lo", "hi")},
                         "seconds": round(time.time() - t0, 1), "seed": j.get("seed")})
        print("matrix:   %s R=%d D=%gs A/A %s [%s-%s] %s" % (
            cell_name(t, h, w), rep, dur, aa.get("median"), aa.get("lo"),
            aa.get("hi"), "resolved" if ok else "not resolved"), flush=True)
        if ok:
            break
        nxt = next_step(rep, dur, cfg["max_repeat"], cfg["max_duration"], turn)
        turn += 1
        if nxt is None:
            break
        rep, dur = nxt
    name = cell_name(t, h, w)
    write_atomic(os.path.join(cells, name + ".futex_lock.json"), json.dumps(j, indent=1))
    rec = record(t, h, w, j, attempts, cfg["band"], meta, name + ".futex_lock.json", kbefore)
    write_atomic(os.path.join(cells, name + ".json"), json.dumps(rec, indent=1))
    return rec


CSV_COLS = ["label", "kernel", "threads", "hold_loops", "outside_loops", "mode",
            "instance", "control", "baseline", "available", "runs",
            "median_kiter_s", "min_kiter_s", "max_kiter_s", "spread_pct",
            "ratio", "ratio_lo", "ratio_hi", "pairs", "verdict",
            "lock_syscall_pct", "unlock_syscall_pct", "kiter_per_cpu_s",
            "cpu_s_per_kiter", "voluntary_ctxsw_per_kiter",
            "involuntary_ctxsw_per_kiter", "latency_p50_us", "latency_p99_us",
            "thread_cv_pct", "winner", "runner_up", "win_ratio", "win_lo", "win_hi",
            "win_verdict", "better", "aa_ratio", "aa_lo", "aa_hi", "aa_ok",
            "insufficient", "min_pairs", "schema_version", "git_commit", "seed",
            "resolved", "aa_width", "cell_repeat", "cell_duration_s"]


def aggregate(cells_dir, grid, base, meta):
    """matrix-<label>.csv/.json from the cell files of the grid (plot.sh)"""
    cells = []
    for (t, h, w) in grid:
        name = cell_name(t, h, w)
        rec = load_cell(os.path.join(cells_dir, name + ".json"))
        if not rec:
            continue
        try:
            j = json.load(open(os.path.join(cells_dir, rec["futex_lock_json"])))
        except (OSError, ValueError):
            continue
        cells.append({"threads": t, "hold_loops": h, "outside_loops": w,
                      "resolved": rec["resolved"], "aa_width": rec["aa_width"],
                      "cell_repeat": rec["n"], "cell_duration_s": rec["duration_s"],
                      "result": j})
    json.dump({"meta": meta, "cells": cells}, open(base + ".json", "w"), indent=1)
    with open(base + ".csv", "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(CSV_COLS)
        for c in cells:
            r = c["result"]
            wn = r.get("winner") or {}
            wc = wn.get("comparison")
            sep = bool(wc) and wc.get("verdict") == "faster"
            aa = r.get("aa") or {}
            for m in r.get("summary", []):
                is_best = m["instance"] == wn.get("best")
                row = {"label": meta["label"], "kernel": meta["kernel"],
                       "threads": c["threads"], "hold_loops": c["hold_loops"],
                       "outside_loops": c["outside_loops"],
                       "control": int(m["control"]), "baseline": int(m["baseline"]),
                       "available": int(m["available"]), "runs": m["runs"],
                       "winner": (1 if sep else "tie") if is_best else 0,
                       "runner_up": wn.get("runner_up", "") if is_best else "",
                       "win_ratio": "", "win_lo": "", "win_hi": "", "win_verdict": "",
                       "better": "higher", "aa_ratio": aa.get("median", ""),
                       "aa_lo": aa.get("lo", ""), "aa_hi": aa.get("hi", ""),
                       "aa_ok": "" if r.get("aa_ok") is None else int(r["aa_ok"]),
                       "insufficient": int(bool((m.get("comparison") or {}).get("insufficient"))),
                       "min_pairs": r.get("min_pairs", ""),
                       "schema_version": r.get("schema_version", ""),
                       "git_commit": r.get("git_commit", ""), "seed": r.get("seed", ""),
                       "resolved": int(bool(c["resolved"])),
                       "aa_width": "" if c["aa_width"] is None else c["aa_width"],
                       "cell_repeat": c["cell_repeat"],
                       "cell_duration_s": c["cell_duration_s"]}
                if is_best and wc:
                    row["win_ratio"], row["win_lo"], row["win_hi"], row["win_verdict"] = (
                        wc["median"], wc["lo"], wc["hi"], wc["verdict"])
                for k in CSV_COLS:
                    if k not in row:
                        v = m.get(k)
                        row[k] = "" if v is None else (round(v, 4) if isinstance(v, float) else v)
                wr.writerow([row[k] for k in CSV_COLS])
    print("matrix: wrote %s.csv and %s.json (%d cells)" % (base, base, len(cells)))


def main():
    if len(sys.argv) > 1:
        print(__doc__)
        return 0 if sys.argv[1] in ("-h", "--help") else 2
    fl = os.environ.get("FL_MATRIX_FL") or os.path.join(REPO, "userspace/build/futex_lock")
    threads = env_list("FL_MATRIX_THREADS", "1 2 3 4 8 32 256")
    holds = env_list("FL_MATRIX_HOLD", "0 100 1000 10000")
    outs = env_list("FL_MATRIX_OUTSIDE", "0 10000")
    modes = os.environ.get("FL_MATRIX_MODES", "").split()
    cfg = {"repeat": env_num("FL_MATRIX_REPEAT", 10, int),
           "duration": env_num("FL_MATRIX_DURATION", 0.2),
           "band": env_num("FL_MATRIX_AA_BAND", 0.05)}
    cfg["max_repeat"] = max(cfg["repeat"], env_num("FL_MATRIX_MAX_REPEAT", 40, int))
    cfg["max_duration"] = max(cfg["duration"], env_num("FL_MATRIX_MAX_DURATION", 0.8))
    redo = os.environ.get("FL_MATRIX_REDO", "0")
    if not os.access(fl, os.X_OK):
        sys.stderr.write("matrix: %s missing: make -C userspace\n" % fl)
        return 1
    envd, cpu = where()
    label = os.environ.get("FL_MATRIX_LABEL") or (
        ("vm-tcg-%s-smp%d" if envd.startswith("QEMU") else "host-%s-cpu%d")
        % (platform.release(), os.cpu_count()))
    out = os.environ.get("FL_MATRIX_OUT") or os.path.join(REPO, "Documentation/results")
    cells = os.environ.get("FL_MATRIX_CELLS") or os.path.join(out, "matrix-cells-" + label)
    os.makedirs(cells, exist_ok=True)
    meta = {"label": label, "environment": envd, "cpu": cpu, "ncpus": os.cpu_count(),
            "kernel": platform.release(), "duration_s": cfg["duration"],
            "repeat": cfg["repeat"], "max_repeat": cfg["max_repeat"],
            "max_duration_s": cfg["max_duration"], "aa_band": cfg["band"],
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    grid = [(t, h, w) for w in outs for h in holds for t in threads]
    print("matrix: %s; %s; %d cells x %s; R %d..%d, D %g..%g s; resolved: A/A within [%g, %g]; cells in %s"
          % (label, envd, len(grid), " ".join(modes) or "every lock", cfg["repeat"],
             cfg["max_repeat"], cfg["duration"], cfg["max_duration"],
             1 - cfg["band"], 1 + cfg["band"], cells), flush=True)
    subprocess.run([fl, "--probe"])
    t0, failed, done, skipped = time.time(), 0, 0, 0
    for i, (t, h, w) in enumerate(grid, 1):
        path = os.path.join(cells, cell_name(t, h, w) + ".json")
        rec = load_cell(path)
        if MUTANT == "no-resume":
            rec = None
        if rec and (redo == "0" or (redo == "unresolved" and rec["resolved"])):
            skipped += 1
            print("[%3d/%d %5ds] threads=%-3d hold=%-5d outside=%-5d done before (%s)"
                  % (i, len(grid), time.time() - t0, t, h, w,
                     "resolved" if rec["resolved"] else "unresolved"), flush=True)
            continue
        rec = run_cell(fl, t, h, w, modes, cfg, meta, cells)
        if rec is None:
            failed += 1
            continue
        done += 1
        print("[%3d/%d %5ds] threads=%-3d hold=%-5d outside=%-5d %s (R=%d D=%gs A/A width %s)"
              % (i, len(grid), time.time() - t0, t, h, w,
                 "resolved" if rec["resolved"] else "UNRESOLVED", rec["n"],
                 rec["duration_s"], rec["aa_width"]), flush=True)
    if os.environ.get("FL_MATRIX_NO_AGGREGATE") != "1":
        aggregate(cells, grid, os.path.join(out, "matrix-" + label), meta)
    print("matrix: %d cells run, %d done before, %d failed, in %d s"
          % (done, skipped, failed, time.time() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
