#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""apps_table's adaptive / lock line on synthetic runs (host-tests.sh).

  apps_table_cases.py APPS_TABLE TMPDIR CASE

CASE is one of the names in CASES (or "dressed", the checker's own test).
Each case writes a RUNS file, runs apps_table on it as text and as JSON,
and checks the line, the JSON fields and check_seed.py's judgement of the
JSON.  Exit 0 when all hold, 1 with the reasons otherwise.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from verdict_rule import want_verdict  # noqa: E402

# adaptive / lock per repetition, paired: the median is 0.95, but the two
# lowest ratios fall on the repetitions where lock's drifting value is at
# its median, so a ratio of medians would read about 0.935
SLOW = [0.95, 0.96, 0.95, 0.96, 0.93, 0.94, 0.95, 0.96, 0.95, 0.94]
NOISY = [0.85, 1.15] * 5              # glibc-aa / glibc: an A/A 30 % wide,
                                      # its two-sided band [0.85, 1/0.85]
NARROW = [0.997, 1.003] * 5           # and one 0.6 % wide
LNARROW = [0.992, 0.998] * 5          # lock-aa / lock: narrow, its median
                                      # (0.995) not glibc-aa's (1.00)


def runs(aa, ratio, reps=10, fail=None, modes=("glibc", "glibc-aa", "lock", "adaptive"),
         laa=None, stats=(), nous=None):
    """laa: lock-aa / lock per repetition (adds the lock-aa mode); stats:
    "@stats ..." lines (the untimed runs apps.sh records); nous:
    adaptive-nous / lock per repetition (adds the adaptive-nous mode)"""
    out = list(stats)
    if laa:
        modes = modes + ("lock-aa",)
    if nous:
        modes = modes + ("adaptive-nous",)
    for r in range(reps):
        lock = 1000.0 * (1 + 0.5 * r)                 # drift across repetitions
        v = {"glibc": 1000.0, "glibc-aa": 1000.0 * aa[r % len(aa)],
             "lock": lock, "adaptive": lock * ratio[r % len(ratio)],
             "lock-aa": lock * (laa or [1])[r % len(laa or [1])],
             "adaptive-nous": lock * (nous or [1])[r % len(nous or [1])]}
        for m in modes:
            val = "failed" if fail == (m, r) else "%.6f" % v[m]
            out.append("%s %d %s ops=1" % (m, r + 1, val))
    return "\n".join(out) + "\n"


# name: (runs, lower is better, text line wanted, JSON wanted)
CASES = {
    # noisy A/A: the engine cannot tell, issue 17's rule can
    "noisy": (runs(NOISY, SLOW), False,
              r"adaptive / lock per repetition: 0\.95 \[0\.9[34],0\.9[56]\], indistinguishable "
              r"\(A/A glibc-aa/glibc [0-9.]+ \[0\.8[0-9],1\.1[0-9]\], band \[0\.8[0-9],1\.1[7-9]\]\); "
              r"issue 17: unresolved, A/A not within \[0\.95,1\.05\] \(SHOWN SLOWER\)$",
              {"verdict": "indistinguishable", "median": 0.95, "slower": True, "resolved": False}),
    # narrow A/A: both say slower, and the band is resolved
    "narrow": (runs(NARROW, SLOW), False,
               r"0\.95 \[[0-9.,]+\], slower \(A/A glibc-aa/glibc 1\.00 \[[0-9.,]+\], "
               r"band \[(0\.99|1\.00),1\.0[01]\]\); "
               r"issue 17: SHOWN SLOWER$",
               {"verdict": "slower", "median": 0.95, "slower": True, "resolved": True}),
    # 2 % below: the engine says slower, the median rule does not
    "median-098": (runs(NARROW, [0.98, 0.975, 0.985, 0.98, 0.98]), False,
                   r"0\.98 \[[0-9.,]+\], slower \(A/A .*\); issue 17: not shown slower$",
                   {"verdict": "slower", "median": 0.98, "slower": False, "resolved": True}),
    # lower is better: 5 % higher is the worse side
    "lower": (runs(NARROW, [1.05, 1.06, 1.04, 1.05, 1.05]), True,
              r"1\.05 \[[0-9.,]+\], slower \(A/A .*\); issue 17: SHOWN SLOWER$",
              {"verdict": "slower", "median": 1.05, "slower": True, "resolved": True}),
    # four pairs: no verdict of either kind
    "few": (runs(NARROW, SLOW, reps=4), False,
            r"insufficient data \(A/A .*\); issue 17: no verdict$",
            {"verdict": "insufficient data", "slower": None}),
    # a failed lock run: no figure
    "lock-failed": (runs(NARROW, SLOW, fail=("lock", 1)), False,
                    r"adaptive / lock per repetition: failed; issue 17: no verdict$",
                    {"verdict": "failed", "slower": None}),
    # lock's own A/A (lock-aa) is the band, not glibc's: glibc's noisy A/A
    # would leave it unresolved, lock's narrow one resolves it
    "lock-band": (runs(NOISY, SLOW, laa=LNARROW), False,
                  r"0\.95 \[[0-9.,]+\], slower \(A/A lock-aa/lock 0\.99 \[[0-9.,]+\], "
                  r"band \[0\.99,1\.01\]\); issue 17: SHOWN SLOWER$",
                  {"verdict": "slower", "median": 0.95, "slower": True, "resolved": True,
                   "band": "lock-aa"}),
    # and the other way round: lock's noisy A/A leaves it unresolved
    "lock-band-noisy": (runs(NARROW, SLOW, laa=NOISY), False,
                        r"indistinguishable \(A/A lock-aa/lock [0-9.]+ \[0\.8[0-9],1\.1[0-9]\], "
                        r".*issue 17: unresolved, A/A not within \[0\.95,1\.05\] \(SHOWN SLOWER\)$",
                        {"verdict": "indistinguishable", "median": 0.95, "slower": True,
                         "resolved": False, "band": "lock-aa"}),
    # lower is better under lock's band: 5 % higher is the worse side
    "lock-band-lower": (runs(NOISY, [1.05, 1.06, 1.04, 1.05, 1.05], laa=LNARROW), True,
                        r"1\.05 \[[0-9.,]+\], slower \(A/A lock-aa/lock .*\); issue 17: SHOWN SLOWER$",
                        {"verdict": "slower", "median": 1.05, "slower": True, "resolved": True,
                         "band": "lock-aa"}),
    # four pairs: no verdict, lock's band or not
    "lock-band-few": (runs(NARROW, SLOW, reps=4, laa=LNARROW), False,
                      r"insufficient data \(A/A lock-aa/lock .*\); issue 17: no verdict$",
                      {"verdict": "insufficient data", "slower": None, "band": "lock-aa"}),
    # a failed glibc run fails the rows, not adaptive / lock under lock's band
    "lock-band-glibc-failed": (runs(NOISY, SLOW, laa=LNARROW, fail=("glibc", 3)), False,
                               r"0\.95 \[[0-9.,]+\], slower \(A/A lock-aa/lock .*\); "
                               r"issue 17: SHOWN SLOWER$",
                               {"verdict": "slower", "median": 0.95, "slower": True,
                                "resolved": True, "band": "lock-aa", "lock_aa_failed": True}),
    # a failed lock-aa run fails the line
    "lock-aa-failed": (runs(NARROW, SLOW, laa=NARROW, fail=("lock-aa", 2)), False,
                       r"adaptive / lock per repetition: failed; issue 17: no verdict$",
                       {"verdict": "failed", "slower": None, "band": "lock-aa",
                        "lock_aa_failed": True}),
    # lock's untimed @stats run failed (the preload did not engage): lock-aa
    # (lock again, no @stats run of its own) fails with it, and the line
    "lock-stats-failed": (runs(NARROW, SLOW, laa=LNARROW,
                               stats=["@stats lock failed converted=0",
                                      "@stats adaptive ok converted=1"]), False,
                          r"adaptive / lock per repetition: failed; issue 17: no verdict$",
                          {"verdict": "failed", "slower": None, "band": "lock-aa",
                           "lock_aa_failed": True}),
    # no adaptive mode: no line, both fields null
    "no-adaptive": (runs(NARROW, SLOW, modes=("glibc", "glibc-aa", "lock")), False, None, None),
}


# adaptive-nous (the preload's adaptive with its user spin off): two more
# lines, judged as adaptive / lock is.  name: (runs, {"NUM / DEN": (text
# line wanted, verdict, shown slower)})
NOUS_EVEN = [1.0, 1.0]
NOUS_CASES = {
    # the op alone costs nothing, the user spin 5 %
    "nous": (runs(NOISY, SLOW, laa=LNARROW, nous=NOUS_EVEN),
             {"adaptive / lock": (r"0\.95 \[[0-9.,]+\], slower \(A/A lock-aa/lock ", "slower", True),
              "adaptive-nous / lock": (r"1\.00 \[1\.00,1\.00\], indistinguishable \(A/A lock-aa/lock "
                                       r".*issue 17: not shown slower$", "indistinguishable", False),
              "adaptive / adaptive-nous": (r"0\.95 \[[0-9.,]+\], slower \(A/A lock-aa/lock "
                                           r".*issue 17: SHOWN SLOWER$", "slower", True)}),
    # a failed adaptive-nous run fails its two lines, not adaptive / lock
    "nous-failed": (runs(NOISY, SLOW, laa=LNARROW, nous=NOUS_EVEN, fail=("adaptive-nous", 4)),
                    {"adaptive / lock": (r"0\.95 .*SHOWN SLOWER$", "slower", True),
                     "adaptive-nous / lock": (r"per repetition: failed; issue 17: no verdict$",
                                              "failed", None),
                     "adaptive / adaptive-nous": (r"per repetition: failed; issue 17: no verdict$",
                                                  "failed", None)}),
    # a failed lock run fails lock's band, so every line judged by it
    "nous-lock-failed": (runs(NOISY, SLOW, laa=LNARROW, nous=NOUS_EVEN, fail=("lock", 6)),
                         {"adaptive / lock": (r"per repetition: failed; issue 17: no verdict$",
                                              "failed", None),
                          "adaptive-nous / lock": (r"per repetition: failed; issue 17: no verdict$",
                                                   "failed", None),
                          "adaptive / adaptive-nous": (r"per repetition: failed; issue 17: no verdict$",
                                                       "failed", None)}),
}


def nous_case(at, tmp, name):
    """the text lines, the JSON "pairs" and check_seed's judgement"""
    rfile, want = NOUS_CASES[name]
    bad = []
    path = os.path.join(tmp, "apps-%s.runs" % name)
    with open(path, "w") as f:
        f.write(rfile)
    rc, text = apps_table(at, [], path)
    for pair, (line_re, _, _) in want.items():
        lines = [l for l in text.splitlines() if l.startswith(pair + " per repetition")]
        if len(lines) != 1 or not re.search(line_re, lines[0]):
            bad.append("line %r does not match %r" % (lines, line_re))
    rc, js = apps_table(at, ["--json", "prog:ops/s:%s" % path])
    j = json.loads(js)
    t = j["tests"][0]
    got = {"%s / %s" % (q["num"], q["den"]): q for q in t.get("pairs", [])}
    got["adaptive / lock"] = {"ratio": t["adaptive_vs_lock"],
                              "issue17": t["adaptive_vs_lock_issue17"], "band": "lock-aa"}
    if sorted(got) != sorted(want):
        bad.append("JSON pairs %s, want %s" % (sorted(got), sorted(want)))
    for pair, (_, verdict, slower) in want.items():
        q = got.get(pair) or {}
        if (q.get("ratio") or {}).get("verdict") != verdict or q.get("band") != "lock-aa" or \
                (q.get("issue17") or {}).get("shown_slower") != slower:
            bad.append("JSON %s: %s, want %s, shown slower %s, band lock-aa"
                       % (pair, q, verdict, slower))
    j["git_commit"] = j["git_commit"].replace("-dirty", "")
    clean = os.path.join(tmp, "apps-%s.json" % name)
    json.dump(j, open(clean, "w"))
    rc, out = check_seed(clean)
    if rc != 0:
        return bad + ["check_seed refused it: %s" % out.strip()]
    if name != "nous":
        return bad

    def rejudged(q):            # its median moved, the words made to agree
        q["ratio"].update(median=0.9, lo=0.89, hi=0.91, verdict="slower")
        q["issue17"].update(shown_slower=True)

    edits = {
        "a pair left out": lambda t: t["pairs"].pop(),
        "pairs left out": lambda t: t.pop("pairs"),
        "the pairs swapped": lambda t: t["pairs"].reverse(),
        "a verdict": lambda t: t["pairs"][0]["ratio"].update(verdict="slower"),
        "its median, consistently": lambda t: rejudged(t["pairs"][0]),
        "issue 17's words": lambda t: t["pairs"][1]["issue17"].update(shown_slower=False),
        "its band's name": lambda t: t["pairs"][0].update(band="glibc-aa"),
        "glibc's band in lock-aa's place": lambda t: t["pairs"][1]["ratio"].update(
            aa={r["type"]: r for r in t["rows"]}["glibc-aa"]["value_ratio"]),
    }
    for what, edit in edits.items():
        d = json.loads(json.dumps(j))
        edit(d["tests"][0])
        dpath = os.path.join(tmp, "apps-nous-dressed.json")
        json.dump(d, open(dpath, "w"))
        if check_seed(dpath)[0] == 0:
            bad.append("check_seed accepted the pairs with %s changed" % what)
    return bad


def apps_table(at, args, path=None):
    """text: the RUNS file on stdin; --json: the specs are in args"""
    with open(path or os.devnull) as f:
        p = subprocess.run([at] + args, stdin=f, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def check_seed(path):
    p = subprocess.run([sys.executable, os.path.join(HERE, "check_seed.py"), "published",
                        path, "1"], capture_output=True, text=True)
    return p.returncode, p.stdout


def run_case(at, tmp, name):
    rfile, lower, line_re, want = CASES[name]
    bad = []
    path = os.path.join(tmp, "apps-%s.runs" % name)
    with open(path, "w") as f:
        f.write(rfile)
    flags = ["--lower-is-better"] if lower else []
    rc, text = apps_table(at, flags, path)
    lines = [l for l in text.splitlines() if l.startswith("adaptive / lock")]
    if rc != 0:
        bad.append("text exit %d" % rc)
    if line_re is None:
        if lines:
            bad.append("a line without both modes: %s" % lines)
    elif len(lines) != 1 or not re.search(line_re, lines[0]):
        bad.append("line %r does not match %r" % (lines, line_re))
    rc, js = apps_table(at, flags + ["--json", "prog:ops/s:%s" % path])
    try:
        t = json.loads(js)["tests"][0]
    except ValueError:
        return ["JSON exit %d: %s" % (rc, js[:200])]
    c, i17 = t.get("adaptive_vs_lock"), t.get("adaptive_vs_lock_issue17")
    if want is None:
        if c is not None or i17 is not None:
            bad.append("JSON fields without both modes: %s %s" % (c, i17))
    else:
        if c is None or c.get("verdict") != want["verdict"]:
            bad.append("verdict %s, want %s" % (c and c.get("verdict"), want["verdict"]))
        if "median" in want and (c or {}).get("median") != want["median"]:
            bad.append("median %s, want %s (paired)" % ((c or {}).get("median"), want["median"]))
        if want["slower"] is None:
            if i17 is not None:
                bad.append("issue 17 words without a figure: %s" % i17)
        elif not i17 or i17.get("shown_slower") != want["slower"] or \
                i17.get("aa_resolved") != want["resolved"]:
            bad.append("issue 17 %s, want shown_slower %s resolved %s"
                       % (i17, want["slower"], want["resolved"]))
        src = want.get("band", "glibc-aa")
        if t.get("adaptive_vs_lock_band") != src:
            bad.append("adaptive_vs_lock_band %s, want %s"
                       % (t.get("adaptive_vs_lock_band"), src))
        aa = {r["type"]: r for r in t["rows"]}["glibc-aa"]["value_ratio"]
        if src == "glibc-aa" and c and "aa" in c and c["aa"] is not None and \
                any(c["aa"][k] != aa[k] for k in ("n", "median", "lo", "hi")):
            bad.append("band %s is not the glibc-aa row's %s" % (c["aa"], aa))
        if src == "lock-aa" and c and c.get("aa") and \
                all(c["aa"][k] == aa[k] for k in ("n", "median", "lo", "hi")):
            bad.append("band %s is glibc's, not lock-aa / lock" % c["aa"])
        rows = {r["type"]: r for r in t["rows"]}
        if "lock-aa" in rows and (rows["lock-aa"]["failed"] != want.get("lock_aa_failed", False)
                                  or rows["lock-aa"]["aa"] is not True):
            bad.append("lock-aa row: failed %s, want %s; aa %s, want true (a control)"
                       % (rows["lock-aa"]["failed"], want.get("lock_aa_failed", False),
                          rows["lock-aa"]["aa"]))
    # and the published-file checker accepts it (the tree under test may be dirty)
    j = json.loads(js)
    j["git_commit"] = j["git_commit"].replace("-dirty", "")
    clean = os.path.join(tmp, "apps-%s.json" % name)
    json.dump(j, open(clean, "w"))
    rc, out = check_seed(clean)
    if rc != 0:
        bad.append("check_seed refused it: %s" % out.strip())
    return bad


def dressed(at, tmp):
    """the checker refuses a changed adaptive_vs_lock: verdict, median, a
    band of its own, issue 17's words, the field left out"""
    bad = run_case(at, tmp, "narrow")
    if bad:
        return ["the genuine file: %s" % bad]
    base = json.load(open(os.path.join(tmp, "apps-narrow.json")))

    def own_band(c, i):     # wide enough to excuse it, all else consistent
        c["aa"] = {"n": 10, "median": 1.0, "lo": 0.85, "hi": 1.15}
        c.update(verdict="indistinguishable", aa_ok=True)
        i.update(aa_resolved=False, aa_width=0.3)

    edits = {
        "verdict": lambda c, i: c.update(verdict="indistinguishable"),
        "median": lambda c, i: c.update(median=0.9, lo=0.9, hi=0.9),
        "band of its own": own_band,
        "shown_slower": lambda c, i: i.update(shown_slower=False),
        "aa_resolved": lambda c, i: i.update(aa_resolved=False),
    }
    bad += dress(base, edits, tmp)
    # with lock-aa: the band must be lock's own, and say so
    bad2 = run_case(at, tmp, "lock-band")
    if bad2:
        return bad + ["the genuine lock-aa file: %s" % bad2]
    base = json.load(open(os.path.join(tmp, "apps-lock-band.json")))

    def rejudge(c, i, band):
        """c judged against band (verdict_rule's oracle), everything else
        made to agree (so only the band check can refuse it)"""
        c["aa"] = {k: band[k] for k in ("n", "median", "lo", "hi")}
        c["verdict"] = want_verdict(c, "higher", 5)
        c["aa_ok"] = band["lo"] <= 1 <= band["hi"]
        i.update(aa_resolved=band["lo"] >= 0.95 and band["hi"] <= 1.05,
                 aa_width=round(band["hi"] - band["lo"], 4))

    def glibc_band(c, i, t):    # glibc's A/A in lock-aa's place (unresolved)
        rejudge(c, i, {r["type"]: r for r in t["rows"]}["glibc-aa"]["value_ratio"])

    def wide_band(c, i, t):     # both copies of lock's band widened alike
        t["lock_aa_vs_lock"].update(lo=0.85, hi=1.15)
        rejudge(c, i, t["lock_aa_vs_lock"])

    def own_interval(c, i, t):  # adaptive / lock's own interval moved up
        c.update(lo=0.96, hi=1.01)
        rejudge(c, i, c["aa"])
        i.update(shown_slower=False)

    edits = {
        "band named glibc-aa": lambda c, i, t: t.update(adaptive_vs_lock_band="glibc-aa"),
        "band field left out": lambda c, i, t: t.pop("adaptive_vs_lock_band"),
        "glibc's band in lock-aa's place": glibc_band,
        "lock-aa band widened, consistently": wide_band,
        "its own interval, consistently": own_interval,
        "lock_aa_vs_lock left out": lambda c, i, t: t.pop("lock_aa_vs_lock"),
    }
    return bad + dress(base, edits, tmp, with_test=True)


def dress(base, edits, tmp, with_test=False):
    """check_seed must refuse base with each edit applied"""
    bad = []
    for what, edit in list(edits.items()) + ([] if with_test else [("left out", None)]):
        j = json.loads(json.dumps(base))
        t = j["tests"][0]
        if edit is None:
            del t["adaptive_vs_lock"], t["adaptive_vs_lock_issue17"]
        elif with_test:
            edit(t["adaptive_vs_lock"], t["adaptive_vs_lock_issue17"], t)
        else:
            edit(t["adaptive_vs_lock"], t["adaptive_vs_lock_issue17"])
        path = os.path.join(tmp, "apps-dressed.json")
        json.dump(j, open(path, "w"))
        rc, out = check_seed(path)
        if rc == 0:
            bad.append("check_seed accepted the adaptive_vs_lock with its %s changed" % what)
    return bad


def main():
    names = list(CASES) + list(NOUS_CASES) + ["dressed"]
    if len(sys.argv) != 4 or sys.argv[3] not in names:
        print("usage: apps_table_cases.py APPS_TABLE TMPDIR CASE (%s)" % ", ".join(names),
              file=sys.stderr)
        return 2
    at, tmp, name = sys.argv[1:]
    if name == "dressed":
        bad = dressed(at, tmp)
    elif name in NOUS_CASES:
        bad = nous_case(at, tmp, name)
    else:
        bad = run_case(at, tmp, name)
    for b in bad:
        print("# %s: %s" % (name, b))
    return 1 if bad else 0


sys.exit(main())
