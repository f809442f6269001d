#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The issue-17 verdict table from make matrix's per-cell records.

Usage: matrix-judge.py [--counters] [--strict] CELLS_DIR_OR_FILE...
       matrix-judge.py --pool [--strict] CELLS_DIR...
       matrix-judge.py --lever=INSTANCE CELLS_DIR_OR_FILE...
       matrix-judge.py --adaptive=INSTANCE [--pool | --counters] [--strict] CELLS_DIR...
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
futex_lock and adaptive (or INSTANCE, below) per cell (every counter the stats file has,
nonzero ones), and the settings (counters that did not move).
Goal (issue 17): every cell resolved, none shown slower, the 2-thread
no-outside-work cells at >= 1.25, no loss to the best mainline lock.
--pool: the CELLS_DIRs are boots of one matrix (make matrix run again
under another label, the same kernel and modes).  Per cell the paired
repetitions of every boot's last attempt (its .futex_lock.json) are taken
together, as one run with more repetitions, and handed to the project's
one engine (apps_table, lib/compare.c: median ratio, 95% bootstrap
interval of the pairs, verdict against the pooled A/A band); the same
rules as above are applied to that, and each boot's own ADAPTIVE median is
printed beside it, with the cells any single boot shows slower.  The best
mainline lock is the one with the highest pooled median ratio to
FUTEX_LOCK; ADAPTIVE's ratio to it is judged against FUTEX_LOCK's A/A band,
as futex_lock's "vs" columns are.  Pairs are resampled as exchangeable:
what differs between boots is in the interval only as far as it shows in
the spread of the pairs.  So where the boots' own 95% intervals of a
comparison (ADAPTIVE/FUTEX_LOCK, the A/A, ADAPTIVE/best) do not overlap,
the boots disagree and that comparison gets no pooled verdict: each boot
on its own must pass it.  A failed run or a missing figure in a cell
gives no pooled verdict and the goal is not met.  Boots weigh by their
repetitions (a noisy boot-cell ran more); their run lengths may differ.
--lever=INSTANCE: a lever's table from the matrix.  Per cell, ADAPTIVE
over INSTANCE (a knob variant the matrix ran beside it, e.g.
adaptive@user_spin=0: what the lever buys; futex_lock@user_spin=1: what
the kernel spin adds to the user spin), pair by pair through the same
engine, with FUTEX_LOCK's A/A band as for the best mainline lock; and
INSTANCE/FUTEX_LOCK as futex_lock printed it.  Exit 1 if a cell lacks it.
--adaptive=INSTANCE (alone or with --pool, --counters, --strict): the same
judge with INSTANCE (a knob variant of ADAPTIVE the matrix ran, e.g. a fixed
spin budget, adaptive@spin_calibrate=0) in the shipped ADAPTIVE's place:
would the issue's goal hold with that setting?  INSTANCE must be an
instance of adaptive.  A cell (or, pooled, any boot of it) without a
figure of INSTANCE fails the goal.
Exit: 0 (report), 2 no readable cell; --strict: 1 when the goal is not met.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

SCHEMA = "fl-matrix-cell/1"
MAINLINE = ("pthread", "pthread-adaptive", "waitwake")
SLOWER_MEDIAN = 0.97
WIN = 1.25
MUTANT = os.environ.get("FL_JUDGE_MUTANT", "")
# the instance judged as ADAPTIVE (--adaptive=INSTANCE: a knob variant in
# its place, e.g. a fixed spin budget, by the same rules)
AD = "adaptive"


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
        c["_dir"] = os.path.dirname(os.path.abspath(f))
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


def shown_below(med, hi, verdict):
    """the issue's rule: not shown slower = the interval reaches 1.0 or the
    median is at least 0.97; the A/A band plays no part in it"""
    under_1 = hi is not None and hi < 1.0
    if MUTANT == "median-le":
        under_median = med is not None and med <= SLOWER_MEDIAN
    else:
        under_median = med is not None and med < SLOWER_MEDIAN
    below = ((under_1 or MUTANT == "no-interval-rule") and
             (under_median or MUTANT == "no-median-rule"))
    if MUTANT == "aa-allowance":
        below = below and verdict == "slower"
    return below


def win_held(med, verdict):
    """a 2-thread, no-outside-work cell keeps its win"""
    return med is not None and med >= WIN and verdict == "faster"


def unusable(ad):
    """ADAPTIVE's (or INSTANCE's) record gives no figure: missing, not
    available, or a failed comparison"""
    return (not ad or not ad.get("available", True) or ad.get("ratio") is None or
            ad.get("verdict") in (None, "failed"))


def judge(c):
    """the issue-17 reading of one cell record"""
    modes = c["modes"]
    ad = modes.get(AD if MUTANT != "adaptive-ignored" else "adaptive") or {}
    r = {"ad": ad}
    r["ratio"] = (ad.get("ratio"), ad.get("ratio_lo"), ad.get("ratio_hi"))
    r["verdict"] = ad.get("verdict") or "-"
    r["below"] = shown_below(ad.get("ratio"), ad.get("ratio_hi"), r["verdict"])
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
    r["win_ok"] = win_held(ad.get("ratio"), r["verdict"])
    return r


def user_spin_block(c):
    """the user-space spin per instance from the cell's futex_lock JSON
    (its last attempt): spins, taken, left to the kernel, reads per 1000
    iterations, and the calibrated limit"""
    try:
        runs = json.load(open(os.path.join(c["_dir"], c["futex_lock_json"]))).get("runs", [])
    except (OSError, ValueError, KeyError):
        return []
    by = {}
    for r in runs:
        u = r.get("user_spin")
        if not u or not r.get("ok"):
            continue
        e = by.setdefault(r["instance"], {"it": 0, "on": set(), "limit": set(), "woken": set(),
                                          "backoff": set(), "spins": 0, "acquired": 0, "to_kernel": 0,
                                          "iterations": 0, "skipped": 0, "backed_off": 0})
        e["it"] += r.get("iterations") or 0
        e["on"].add(u.get("on"))
        e["limit"].add(u.get("limit"))
        e["woken"].add(u.get("woken_mark_honoured"))
        e["backoff"].add(u.get("backoff"))
        for k in ("spins", "acquired", "to_kernel", "iterations", "skipped", "backed_off"):
            e[k] += u.get(k) or 0
    out = []
    for inst in sorted(by):
        e = by[inst]
        pk = lambda x: 1000.0 * x / e["it"] if e["it"] else 0.0
        # the woken mark (older runs have no such key: None, not shown)
        wm = ("" if e["woken"] == {None} or e["on"] == {False} else
              ", skipped (woken mark) %.4g%s" % (pk(e["skipped"]), "" if e["woken"] == {True}
                                                 else " (mark ignored)" if e["woken"] == {False}
                                                 else " (mark mixed)"))
        # the back-off (older runs have no such key): shown where it was on
        if True in e["backoff"]:
            wm += ", backed off %.4g%s" % (pk(e["backed_off"]), "" if e["backoff"] == {True}
                                            else " (back-off mixed)")
        out.append("    %-28s user spin %s, limit %s; per 1000 iterations: spins %.4g, took the lock %.4g,"
                   " left to the kernel %.4g, reads %.4g%s" % (
                       inst, "on" if e["on"] == {True} else "off" if e["on"] == {False} else "mixed",
                       "/".join(str(x) for x in sorted(e["limit"])), pk(e["spins"]), pk(e["acquired"]),
                       pk(e["to_kernel"]), pk(e["iterations"]), wm))
    return out


def counters_block(c):
    out = user_spin_block(c)
    moved = set()
    for m in ("futex_lock", AD):
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

APPS_TABLE = os.environ.get("FL_APPS_TABLE") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "build", "apps_table")
BASE, CONTROL = "futex_lock", "futex_lock (A/A)"


def engine_name(inst):
    """an instance's name for the engine: FUTEX_LOCK is its baseline
    "glibc", the A/A copy its control "glibc-aa" (apps_table's names)"""
    if MUTANT == "adaptive-ignored":
        return {BASE: "glibc", CONTROL: "glibc-aa"}.get(inst, inst)
    if inst == AD:
        return "adaptive"
    if inst == "adaptive":
        return "adaptive (shipped)"	# --adaptive=INSTANCE: not judged
    return {BASE: "glibc", CONTROL: "glibc-aa"}.get(inst, inst)

POOL_MAX_PAIRS = 200	# apps_table's MAXR


def boot_reps(c):
    """{rep: {instance: kiter/s or None (a failed run)}} of a cell's last attempt"""
    j = json.load(open(os.path.join(c["_dir"], c["futex_lock_json"])))
    reps = {}
    for r in j.get("runs", []):
        if not r.get("available", True):
            continue
        v = r.get("kiter_s") if r.get("ok") else None
        reps.setdefault(r["rep"], {})[r["instance"]] = v
    return reps


def engine(rows):
    """the engine on lines (mode, rep, value): {mode: value_ratio}; the
    baseline is "glibc", the A/A control "glibc-aa" (apps_table's names)"""
    with tempfile.NamedTemporaryFile("w", suffix=".runs") as f:
        for m, k, v in rows:
            f.write("%s %d %s\n" % (m, k, "failed" if v is None else repr(v)))
        f.flush()
        out = subprocess.run([APPS_TABLE, "--json", "pool:kiter/s:" + f.name],
                             capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError("apps_table: " + out.stderr.strip())
    return {r["type"]: r["value_ratio"] for r in json.loads(out.stdout)["tests"][0]["rows"]}


def versus(by, other):
    """ADAPTIVE over another instance, pair by pair ({rep: {name: value}},
    FUTEX_LOCK named "glibc", its A/A copy "glibc-aa"), with FUTEX_LOCK's
    A/A band: the control is the other instance scaled by the A/A pair's
    ratio.  The engine's comparison (median, lo, hi, verdict)."""
    vs_rows = []
    for kk, d in sorted(by.items()):
        b, f, a = d.get(other), d.get("glibc"), d.get("glibc-aa")
        ctl = b * a / f if b and a and f else None
        if MUTANT == "pool-raw-aa":
            ctl = a		# FUTEX_LOCK's control against the other lock
        elif MUTANT == "pool-zero-band":
            ctl = b		# no noise floor at all
        vs_rows += [("glibc", kk, b), ("adaptive", kk, d.get("adaptive")), ("glibc-aa", kk, ctl)]
    return engine(vs_rows).get("adaptive")


def lever_main(cells, other):
    """--lever=INSTANCE: per cell, ADAPTIVE against INSTANCE of the same runs"""
    if other in (BASE, CONTROL, "adaptive"):
        raise ValueError("%s is the baseline, its control or ADAPTIVE itself, not a lever" % other)
    rc = 0
    for label in sorted({c["label"] for c in cells}):
        cs = [c for c in cells if c["label"] == label]
        tcg = cs[0]["environment"].startswith("QEMU")
        print("== issue 17 matrix: %s: ADAPTIVE against OTHER = %s, pair by pair, FUTEX_LOCK's A/A band%s" % (
            label, other, " -- VM/TCG EMULATION FIGURES (compare ratios only)" if tcg else ""))
        print("%-5s %-6s %-6s %-6s %-23s %-4s %-23s %-23s %-18s %s" % (
            "thr", "hold", "out", "pairs", "A/A [95% CI]", "res", "OTHER/FUTEX_LOCK",
            "ADAPTIVE/OTHER", "verdict (A/A band)", "interval vs 1"))
        tally = {}
        for c in cs:
            m = c["modes"].get(other)
            if not m:
                print("%-5d %-6d %-6d no %s in this cell" % (
                    c["threads"], c["hold_loops"], c["outside_loops"], other))
                tally["missing"] = tally.get("missing", 0) + 1
                rc = 1
                continue
            by = {}
            for rep, d in boot_reps(c).items():
                by[rep] = {engine_name(i): v for i, v in d.items()}
            vs = versus(by, other) or {}
            aa = c["aa"] or {}
            verdict = vs.get("verdict") or "failed"
            if not c["resolved"]:
                verdict += " (unresolved)"
            lo, hi = vs.get("lo"), vs.get("hi")
            raw = "-" if lo is None else "above 1" if lo > 1 else "below 1" if hi < 1 else "spans 1"
            tally[verdict] = tally.get(verdict, 0) + 1
            tally["interval " + raw] = tally.get("interval " + raw, 0) + 1
            print("%-5d %-6d %-6d %-6d %-23s %-4s %-23s %-23s %-18s %s" % (
                c["threads"], c["hold_loops"], c["outside_loops"], len(by),
                iv(aa.get("median"), aa.get("lo"), aa.get("hi"), "%.3f"),
                "yes" if c["resolved"] else "NO",
                iv(m.get("ratio"), m.get("ratio_lo"), m.get("ratio_hi"), "%.3f"),
                iv(*triple(vs), fmt="%.3f"), verdict, raw))
        print()
        print("ADAPTIVE against %s in %d cells: %s" % (other, len(cs), ", ".join(
            "%s %d" % kv for kv in sorted(tally.items()))))
        print("(verdict: the engine's, against FUTEX_LOCK's A/A band; \"interval vs 1\": the raw 95%% interval."
              " With %d cells about %.1f intervals miss by chance alone.)" % (len(cs), 0.05 * len(cs)))
        print()
    return rc


def boot_vs(c, best):
    """a boot's own ADAPTIVE/best comparison (futex_lock's vs column)"""
    return ((c["modes"].get(AD) or {}).get("vs") or {}).get(best) or {}


def triple(v):
    """median, lo, hi of a comparison"""
    return v.get("median"), v.get("lo"), v.get("hi")


def disjoint(ivs):
    """two boots' intervals that do not overlap: the boots disagree"""
    ivs = [(lo, hi) for _, lo, hi in ivs if lo is not None and hi is not None]
    return len(ivs) > 1 and max(lo for lo, _ in ivs) > min(hi for _, hi in ivs)


def pooled(boots):
    """one cell over its boots: the pooled comparison, judged as judge() does"""
    rows, k = [], 0
    js = [judge(c) for c in boots]	# each boot on its own
    for c in boots:
        reps = boot_reps(c)
        if MUTANT == "pool-restart":
            k = 0	# every boot's repetitions over the first one's
        for rep in sorted(reps):
            k += 1
            for inst, v in reps[rep].items():
                name = engine_name(inst)
                if name in ("glibc", "glibc-aa", "adaptive") + MAINLINE:
                    rows.append((name, k, v))
    c0 = boots[0]
    if k > POOL_MAX_PAIRS:
        raise RuntimeError("%d pairs in cell t%d/h%d/w%d: the engine takes at most %d" % (
            k, c0["threads"], c0["hold_loops"], c0["outside_loops"], POOL_MAX_PAIRS))
    if any(c["aa_band"] != c0["aa_band"] for c in boots):
        raise RuntimeError("cell t%d/h%d/w%d: the boots used different A/A bands" % (
            c0["threads"], c0["hold_loops"], c0["outside_loops"]))
    vr = engine(rows)
    aa = vr.get("glibc-aa") or {}
    ad = vr.get("adaptive") or {}
    band = c0["aa_band"]
    r = {"n": k, "per_boot": [iv(*j["ratio"]).split(" ")[0] for j in js], "aa": aa, "ad": ad,
         "aa_width": (aa["hi"] - aa["lo"]) if aa.get("hi") is not None else None}
    r["resolved"] = aa.get("lo") is not None and aa["lo"] >= band[0] and aa["hi"] <= band[1]
    r["ratio"] = (ad.get("median"), ad.get("lo"), ad.get("hi"))
    r["verdict"] = ad.get("verdict") or "-"
    r["below"] = shown_below(ad.get("median"), ad.get("hi"), r["verdict"])
    r["slower"] = r["below"] and r["verdict"] == "slower"
    r["boot_below"] = [c["label"] for c, j in zip(boots, js) if j["below"]]
    # no pooled verdict from a failed run or a missing figure: judged NOT MET
    r["no_verdict"] = [m for m, v in (("ADAPTIVE", ad), ("A/A", aa))
                       if not v or v.get("verdict") in (None, "failed") or v.get("median") is None]
    # a boot without a figure of ADAPTIVE (INSTANCE) would drop out of the
    # pool unseen: the cell gets no pooled verdict
    r["no_verdict"] += ["%s in %s" % (AD, c["label"]) for c, j in zip(boots, js)
                        if unusable(j["ad"]) and MUTANT != "missing-ok"]
    # boots whose own intervals do not overlap measured different things:
    # a pooled interval would hide that, so the cell gets no pooled verdict
    r["disagree"] = []
    if disjoint([j["ratio"] for j in js]):
        r["disagree"].append("ADAPTIVE")
    if disjoint([triple(c.get("aa") or {}) for c in boots]):
        r["disagree"].append("A/A")
    r["mainline_applies"] = c0["threads"] <= c0["ncpus"]
    r["best"] = r["vs"] = None
    r["vs_per_boot"] = []
    r["mainline_loss"] = False
    if r["mainline_applies"]:
        r["no_verdict"] += [m for m in MAINLINE if (vr.get(m) or {}).get("verdict") == "failed"]
    cand = [(vr[m]["median"], m) for m in MAINLINE if (vr.get(m) or {}).get("median")]
    if r["mainline_applies"] and ad and cand:
        best = max(cand)[1]
        by = {}
        for m, kk, v in rows:
            by.setdefault(kk, {})[m] = v
        r["best"] = best
        r["vs"] = versus(by, best)
        r["vs_per_boot"] = [triple(boot_vs(c, best)) for c in boots]
        if disjoint(r["vs_per_boot"]):
            r["disagree"].append("vs " + best)
        if not r["vs"] or r["vs"].get("verdict") in (None, "failed"):
            r["no_verdict"].append("ADAPTIVE/" + best)
        r["mainline_loss"] = bool(r["vs"]) and r["vs"].get("verdict") == "slower"
        if "vs " + best in r["disagree"] and MUTANT != "pool-trust-disagree":
            # no pooled verdict: a loss in any boot on its own is a loss
            r["mainline_loss"] = r["mainline_loss"] or any(
                boot_vs(c, best).get("verdict") == "slower" for c in boots)
    r["win_cell"] = c0["threads"] == 2 and c0["outside_loops"] == 0
    r["win_ok"] = win_held(ad.get("median"), r["verdict"])
    if "ADAPTIVE" in r["disagree"] and MUTANT != "pool-trust-disagree":
        # no pooled verdict: each boot on its own must pass
        r["below"] = r["below"] or bool(r["boot_below"])
        r["win_ok"] = r["win_ok"] and all(j["win_ok"] for j in js)
    if "A/A" in r["disagree"] and MUTANT != "pool-trust-disagree":
        r["resolved"] = r["resolved"] and all(c["resolved"] for c in boots)
    return r


def pool_main(cells, opts):
    """--pool: every cell over the boots it was run in"""
    labels = sorted({c["label"] for c in cells})
    by = {}
    for c in cells:
        by.setdefault((c["outside_loops"], c["hold_loops"], c["threads"]), []).append(c)
    envs = {(c["environment"], c["kernel"], c["ncpus"]) for c in cells}
    c0 = cells[0]
    tcg = c0["environment"].startswith("QEMU")
    print("== issue 17 matrix, pooled over %d boots: %s%s" % (
        len(labels), ", ".join(labels), " -- VM/TCG EMULATION FIGURES (compare ratios only)" if tcg else ""))
    for e in sorted(envs):
        print("   %s; %d CPUs; kernel %s" % (e[0], e[2], e[1]))
    if len(envs) > 1:
        print("   WARNING: the boots differ in machine or kernel; pooling them mixes two experiments")
    if AD != "adaptive":
        print("   ADAPTIVE below is the instance %s, judged in the shipped ADAPTIVE's place" % AD)
    print("   pairs: repetitions of all boots (each boot's last attempt; a pair with a failed or missing run is dropped by the engine)")
    print("%-5s %-6s %-6s %-5s %-5s %-23s %-6s %-4s %-22s %-18s %-6s %-18s %-17s %-22s %-18s %s" % (
        "thr", "hold", "out", "boots", "pairs", "A/A pooled [95% CI]", "width", "res",
        "ADAPTIVE/FUTEX_LOCK", "verdict", "slower", "per boot", "best mainline", "ADAPTIVE/best",
        "verdict", "per boot"))
    unres, slow, loss, wins, boot_slow, nov, dis = [], [], [], [], [], [], []
    for key in sorted(by):
        boots = sorted(by[key], key=lambda c: labels.index(c["label"]))
        j = pooled(boots)
        t = (key[2], key[1], key[0])
        for cond, lst in ((not j["resolved"], unres), (j["below"], slow), (j["mainline_loss"], loss),
                          (j["win_cell"], wins), (j["boot_below"], boot_slow),
                          (j["no_verdict"], nov), (j["disagree"], dis)):
            if cond:
                lst.append((t, j))
        aa, vs = j["aa"], j["vs"] or {}
        print("%-5d %-6d %-6d %-5d %-5d %-23s %-6s %-4s %-22s %-18s %-6s %-18s %-17s %-22s %-18s %s" % (
            t[0], t[1], t[2], len(j["per_boot"]), j["n"],
            iv(*triple(aa), fmt="%.3f"),
            "-" if j["aa_width"] is None else "%.3f" % j["aa_width"],
            "yes" if j["resolved"] else "NO", iv(*j["ratio"], fmt="%.3f"), j["verdict"],
            "YES" if j["slower"] else "rule" if j["below"] else "no", " ".join(j["per_boot"]),
            (j["best"] or "-") if j["mainline_applies"] else "(thr>CPUs)",
            iv(*triple(vs), fmt="%.3f") if j["mainline_applies"] else "-",
            (vs.get("verdict") or "-") if j["mainline_applies"] else "-",
            " ".join("-" if m is None else "%.2f" % m for m, _, _ in j["vs_per_boot"]) or "-"))
    name = lambda t: "t%d/h%d/w%d" % t
    print()
    print("resolved (pooled A/A within [%g, %g]): %d of %d cells%s" % (
        c0["aa_band"][0], c0["aa_band"][1], len(by) - len(unres), len(by), "" if not unres else
        "; unresolved (A/A width): " + ", ".join("%s (%s)" % (
            name(t), "-" if j["aa_width"] is None else "%.3f" % j["aa_width"]) for t, j in unres)))
    print("no pooled verdict (a failed run or a missing figure): %d%s" % (len(nov), "" if not nov else ": " + ", ".join(
        "%s (%s)" % (name(t), ", ".join(j["no_verdict"])) for t, j in nov)))
    print("boots disagree (their own 95%% intervals do not overlap): judged boot by boot, each must pass: %d%s" % (
        len(dis), "" if not dis else ": " + ", ".join("%s (%s)" % (name(t), ", ".join(j["disagree"])) for t, j in dis)))
    print("ADAPTIVE shown slower than FUTEX_LOCK, pooled (interval below 1, median below %.2f): %d%s" % (
        SLOWER_MEDIAN, len(slow), "" if not slow else ": " + ", ".join(
            "%s %s" % (name(t), iv(*j["ratio"], fmt="%.3f")) for t, j in slow)))
    print("shown slower in one boot on its own: %d%s" % (len(boot_slow), "" if not boot_slow else ": " + ", ".join(
        "%s in %s" % (name(t), ", ".join(j["boot_below"])) for t, j in boot_slow)))
    print("ADAPTIVE slower than the best mainline lock beyond the A/A band, pooled (threads <= CPUs): %d%s" % (
        len(loss), "" if not loss else ": " + ", ".join("%s vs %s %s" % (
            name(t), j["best"], iv(*triple(j["vs"]), fmt="%.3f")) for t, j in loss)))
    print("2-thread wins, pooled (outside 0, need >= %.2f and faster): %s" % (WIN, ", ".join(
        "h%d %s %s" % (t[1], iv(*j["ratio"], fmt="%.3f"), "held" if j["win_ok"] else "NOT held")
        for t, j in wins) or "none in this grid"))
    met = not unres and not slow and not loss and not nov and all(j["win_ok"] for _, j in wins)
    print("issue 17 goal on these %d cells, pooled over the boots: %s" % (len(by), "MET" if met else "NOT MET"))
    return 1 if "--strict" in opts and not met else 0


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = [a for a in argv if a.startswith("--")]
    if "--help" in opts or "-h" in args:
        print(__doc__)
        return 0
    lever = [o[len("--lever="):] for o in opts if o.startswith("--lever=")]
    opts = [o for o in opts if not o.startswith("--lever=")]
    instead = [o[len("--adaptive="):] for o in opts if o.startswith("--adaptive=")]
    opts = [o for o in opts if not o.startswith("--adaptive=")]
    if len(instead) > 1 or (instead and (lever or instead[0].split("@")[0] != "adaptive"
                                         or instead[0].startswith("adaptive (A/A)"))):
        sys.stderr.write("matrix-judge: --adaptive=INSTANCE once, not with --lever, and INSTANCE an"
                         " instance of adaptive (adaptive@KNOB=V,...)\n%s" % __doc__)
        return 2
    if instead:
        global AD
        AD = instead[0]
    for o in opts:
        if o not in ("--counters", "--strict", "--pool"):
            sys.stderr.write("matrix-judge: unknown option %s\n%s" % (o, __doc__))
            return 2
    if len(lever) > 1 or (lever and (not lever[0] or opts)):
        sys.stderr.write("matrix-judge: --lever=INSTANCE once, alone\n%s" % __doc__)
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
    if lever:
        try:
            return lever_main(cells, lever[0])
        except (OSError, RuntimeError, ValueError, KeyError, TypeError) as e:
            sys.stderr.write("matrix-judge: --lever: %s\n" % e)
            return 2
    if "--pool" in opts:
        try:
            return pool_main(cells, opts)
        except (OSError, RuntimeError, ValueError, KeyError, TypeError) as e:
            sys.stderr.write("matrix-judge: --pool: %s\n" % e)
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
        if AD != "adaptive":
            print("   ADAPTIVE below is the instance %s, judged in the shipped ADAPTIVE's place" % AD)
        print("%-5s %-6s %-6s %-10s %-23s %-6s %-5s %-20s %-18s %-7s %-17s %-20s %s" % (
            "thr", "hold", "out", "R x D", "A/A [95% CI]", "width", "res", "ADAPTIVE/FUTEX_LOCK",
            "verdict", "slower", "best mainline", "ADAPTIVE/best", "verdict"))
        nres = nslow = nloss = 0
        unres, slow, loss, wins, missing = [], [], [], [], []
        for c in cs:
            j = judge(c)
            if unusable(j["ad"]) and MUTANT != "missing-ok":
                missing.append(c)
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
        if missing:
            print("no figure of %s (missing, unavailable or failed) in %d cell(s): %s" % (AD, len(missing), ", ".join(
                "t%d/h%d/w%d" % (c["threads"], c["hold_loops"], c["outside_loops"]) for c in missing)))
        met = (not unres and not slow and not loss and not missing and
               all(j["win_ok"] for _, j in wins))
        goal = goal and met
        print("issue 17 goal on these %d cells: %s" % (len(cs), "MET" if met else "NOT MET"))
        print()
    return 1 if "--strict" in opts and not goal else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
