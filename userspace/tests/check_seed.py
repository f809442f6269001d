#!/usr/bin/env python3
"""Check the --json output of the seed tools (bench-tests.sh).
Usage: check_seed.py lockbench|wakebench|queuebench|failed|published JSON HAVE_FUTEX_LOCK(0|1)
Explicit checks (no `assert`, so PYTHONOPTIMIZE cannot switch them off);
exit 0 if all hold, 1 with the reasons.  Besides the rows, every interval
is checked against the rule of lib/compare.c: its direction (times lower is
better, rates higher), a verdict only with >= min_pairs pairs and an
interval clear of 1 and of the table's two-sided A/A band, "faster" on
the better side, "control" for the A/A row, "failed" (no ratio) for a row
with a failed run (tests/verdict_rule.py)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdict_rule import aa_ok_at_precision, verdicts_at_precision, want_verdict  # noqa: E402

bad = []


def need(cond, *why):
    if not cond:
        bad.append(" ".join(str(w) for w in why))


def check_ci(name, c, better, min_pairs, control=False, failed=False):
    """one interval: fields, direction, verdict by the rule"""
    if c is None:
        need(not failed, name, "a failed row without its 'failed' verdict")
        return
    need(c.get("better") == better, name, "better", c.get("better"), "!=", better)
    want = want_verdict(c, better, min_pairs, control, failed)
    # published JSON is rounded: a tie at its precision allows both sides
    ok = verdicts_at_precision(c, better, min_pairs, control, failed)
    need(c["verdict"] in ok, name, "verdict", c["verdict"], "not in", sorted(ok), c)
    if failed:
        need("median" not in c and "lo" not in c, name, "a failed row with a ratio", c)
        return
    need(c["lo"] <= c["median"] <= c["hi"], name, "median outside its interval", c)
    need(c.get("insufficient") == (want == "insufficient data" or c["n"] < min_pairs),
         name, "insufficient flag", c)
    aa = c.get("aa")
    if aa is not None:
        need(c.get("aa_ok") in aa_ok_at_precision(aa), name, "aa_ok", c)


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def check_paired_median(c, v, b, *what):
    """interval c's pairs and median are those of the per-repetition
    values v over b (pairs where both are there)"""
    ratios = [x / y for x, y in zip(v, b) if x and y]
    m = median(ratios) if ratios else 0
    need(len(ratios) == c["n"] and abs(m - c["median"]) <= 2e-3 * max(1, abs(m)),
         *what, "median from the per-repetition values", m, "!=", c["median"])


def boot_ci(v, b):
    """lib/compare.c's interval of the paired ratios v/b, recomputed: the
    median of the pairs and the 2.5 %/97.5 % quantiles (linear between
    order statistics) of the medians of 10000 resamples drawn with
    xorshift64* from the fixed seed (fl_median_ci()); (n, median, lo, hi)"""
    mask = (1 << 64) - 1
    r = [x / y for x, y in zip(v, b) if x and y]
    n, s, meds = len(r), 0x9e3779b97f4a7c15, []
    if n < 2:
        return n, None, None, None
    for _ in range(10000):
        res = []
        for _ in range(n):
            s ^= s >> 12
            s ^= (s << 25) & mask
            s ^= s >> 27
            res.append(r[((s * 2685821657736338717) & mask) % n])
        meds.append(median(res))
    meds.sort()

    def q(p):
        pos = p * (len(meds) - 1)
        i = int(pos)
        return meds[i] + (pos - i) * (meds[i + 1] - meds[i]) if i + 1 < len(meds) else meds[i]
    return n, median(r), q(0.025), q(0.975)


def check_boot(c, v, b, *what):
    """interval c (n, median, lo, hi) is boot_ci(v, b) at the JSON's
    precision (values %.6g, intervals %.4f)"""
    n, m, lo, hi = boot_ci(v, b)
    need(c is not None and c.get("n") == n and m is not None and
         all(abs(c.get(k, -1) - x) <= 1e-3 for k, x in (("median", m), ("lo", lo), ("hi", hi))),
         *what, "interval", c, "!= the engine's, recomputed:", (n, m, lo, hi))


def check_reps(name, rows, base, key, reps_key, nreps):
    """the per-repetition values are stored and give the interval's median"""
    b = base.get(reps_key) or []
    for q, r in rows.items():
        v = r.get(reps_key)
        need(isinstance(v, list) and len(v) == nreps, name, q, reps_key, "length", v)
        c = r.get(key)
        if not c or not isinstance(v, list) or len(b) != len(v):
            continue
        check_paired_median(c, v, b, name, q, key, reps_key)


def provenance(j):
    need(j.get("schema_version") == 3, "schema_version", j.get("schema_version"))
    need(isinstance(j.get("git_commit"), str) and j.get("git_commit"), "git_commit",
         j.get("git_commit"))
    need(isinstance(j.get("seed"), int), "seed", j.get("seed"))
    need(j.get("min_pairs") == 5, "min_pairs", j.get("min_pairs"))
    return j.get("min_pairs", 5)


def lockbench(j, have):
    mp = provenance(j)
    need([t["test"] for t in j.get("tests", [])] == ["wait", "idle"], "tests wait, idle")
    for t in j.get("tests", []):
        rows = {r["type"] + ("/aa" if r["aa"] else ""): r for r in t["rows"]}
        need(len(rows) == 13, t["test"], "rows", len(rows), "!= 12 types + A/A")
        for name in ("futex_lock", "adaptive"):
            need(name in rows and rows[name]["available"] == have, name, "available")
        for name, r in rows.items():
            if r["available"]:
                need(r["runs"] == 3 and not r["error"], name, "runs/error", r["runs"], r["error"])
                need(r["samples"] > 0 and r["max_us"] >= r["p50_us"], name, "samples/max")
            for key in ("dur_ratio", "longest_ratio"):
                check_ci("%s %s %s" % (t["test"], name, key), r.get(key), "lower", mp,
                         r["aa"], bool(r["error"]))
        aa = rows.get("pthread/aa", {}).get("dur_ratio") or {}
        need(aa.get("n") == 3, "pthread A/A pairs", aa.get("n"))
        check_reps(t["test"], rows, rows.get("pthread", {}), "dur_ratio", "dur_ms_reps",
                   t["reps"])


def wakebench(j, have):
    mp = provenance(j)
    sw = j.get("sweep", [])
    need(len(sw) == 1 and sw[0]["workers"] == 3, "one sweep of 3 workers")
    if not sw:
        return
    rows = {r["method"] + ("/aa" if r["aa"] else ""): r for r in sw[0]["rows"]}
    want = ["sem", "futex-all", "futex-each", "cond-bcast", "cond-each", "eventfd-one",
            "eventfd-each", "barrier", "spin", "spin-pause", "spin-yield", "spin-nanosleep",
            "lock:pthread", "lock:waitwake", "lock:pi", "hybrid-k2", "futex-all/aa"]
    for m in want:
        r = rows.get(m)
        need(r is not None, m, "missing")
        if r is None:
            continue
        need(r["available"] and r["runs"] == 10 and not r["error"], m, "available/runs/error", r)
        bo = r["by_order_us"]
        need(len(bo) == 3 and bo == sorted(bo), m, "by_order_us sorted", bo)
    if "futex-waitv" in rows and rows["futex-waitv"]["available"]:
        need(rows["futex-waitv"]["runs"] == 10, "futex-waitv runs")
    for m in ("lock:futex_lock", "lock:adaptive"):
        need(m in rows and rows[m]["available"] == have, m, "available")
        if have and m in rows:
            need(rows[m]["runs"] == 10, m, "runs")
    for name, r in rows.items():
        for key in ("wake_ratio", "last_ratio", "trigger_ratio"):
            check_ci("%s %s" % (name, key), r.get(key), "lower", mp, r["aa"],
                     bool(r["error"]))
    check_reps("wake", rows, rows.get("futex-all", {}), "wake_ratio", "wake_mean_us_reps",
               sw[0]["reps"])


def queuebench(j, have):
    mp = provenance(j)
    rows = {r["queue"] + ("/aa" if r["aa"] else ""): r for r in j.get("rows", [])}
    need(len(rows) == 10, "rows", sorted(rows))
    for q, r in rows.items():
        if q in ("sem+futex_lock", "sem+adaptive"):
            need(r["available"] == have, q, "available")
        if r["available"]:
            need(not r["failed"] and r["launch_us"] > 0 and r["mjobs_s"] > 0
                 and r["prequeued_us"] > 0, q, "failed or empty", r)
        for key, better in (("launch_ratio", "lower"), ("tput_ratio", "higher"),
                            ("prequeued_ratio", "lower")):
            check_ci("%s %s" % (q, key), r.get(key), better, mp, r["aa"], r["failed"])
    for key, reps_key in (("launch_ratio", "launch_us_reps"), ("tput_ratio", "mjobs_s_reps"),
                          ("prequeued_ratio", "prequeued_us_reps")):
        check_reps("queue", {q: r for q, r in rows.items() if r["available"]},
                   rows.get("cond-signal", {}), key, reps_key, j["reps"])


def all_rows(j):
    """the rows of any seed tool's JSON"""
    for t in j.get("tests", []) + j.get("sweep", []):
        yield from t.get("rows", [])
    yield from j.get("rows", [])


def failed(j, have):
    """a run that failed: every row with an error has the verdict "failed"
    and no ratio in each of its intervals (review 19, M3)"""
    provenance(j)
    rows = [r for r in all_rows(j) if r.get("error")]
    need(rows, "no row with an error: nothing checked")
    for r in rows:
        for key, c in r.items():
            if key.endswith("_ratio"):
                check_ci("%s %s" % (r.get("type") or r.get("method") or r.get("queue"), key),
                         c, (c or {}).get("better", "lower"), 5, r["aa"], True)


def own_failure(rows, m):
    """a run or the @stats run of mode m failed (lock-aa's @stats run is
    lock's); glibc's runs not counted"""
    r = rows.get(m) or {}
    st = (rows.get("lock" if m == "lock-aa" else m) or {}).get("stats_run") or {}
    return bool(r.get("failed_runs")) or st.get("status") == "failed"


def adaptive_vs_lock(t, mp):
    """make apps' adaptive / lock line (apps_table): present whenever both
    modes ran; judged against lock-aa / lock per repetition when the lock-aa
    mode ran ("adaptive_vs_lock_band": "lock-aa", the band also published
    as lock_aa_vs_lock; failed by a failure of adaptive, lock or lock-aa
    only), else against the glibc-aa row's interval (failed when either
    mode's row failed); both intervals recomputed from the per-repetition
    values (boot_ci), and issue 17's words (shown slower, A/A resolved)
    recomputed from its figures"""
    name = t.get("test")
    c, i17 = t.get("adaptive_vs_lock"), t.get("adaptive_vs_lock_issue17")
    rows = {r["type"]: r for r in t.get("rows", [])}
    if "lock-aa" in rows:
        # lock-aa is a control, failed with lock's @stats run
        need(rows["lock-aa"].get("aa") is True, name, "lock-aa row not a control")
        need(rows["lock-aa"]["failed"] or not own_failure(rows, "lock-aa"), name,
             "lock-aa row not failed though lock's @stats run or its own run failed")
    if "lock" not in rows or "adaptive" not in rows:
        need(c is None and i17 is None, name, "adaptive_vs_lock without both modes")
        pairs(t, mp, rows, False, None)
        return
    need("adaptive_vs_lock" in t and "adaptive_vs_lock_issue17" in t, name,
         "both modes ran but no adaptive_vs_lock (an older schema)")
    src = t.get("adaptive_vs_lock_band", "glibc-aa")
    need(src == ("lock-aa" if "lock-aa" in rows else "glibc-aa"), name,
         "adaptive_vs_lock_band", src, "with modes", sorted(rows))
    lock_band, lb = "lock-aa" in rows, None
    if lock_band:
        failed = any(own_failure(rows, m) for m in ("adaptive", "lock", "lock-aa"))
        lb = t.get("lock_aa_vs_lock")
        lb_failed = own_failure(rows, "lock") or own_failure(rows, "lock-aa")
        need(lb is not None and (lb.get("verdict") == "failed") == lb_failed, name,
             "lock_aa_vs_lock missing, or failed/not failed against its runs", lb)
        if lb and not lb_failed:
            check_boot(lb, rows["lock-aa"]["value_reps"], rows["lock"]["value_reps"],
                       name, "lock_aa_vs_lock (lock-aa / lock)")
    else:
        failed = rows["lock"]["failed"] or rows["adaptive"]["failed"]
    judge_pair(t, mp, "adaptive_vs_lock", c, i17, "adaptive", "lock", failed, lock_band, lb)
    pairs(t, mp, rows, lock_band, lb)


def judge_pair(t, mp, what, c, i17, num, den, failed, lock_band, lb):
    """one paired line (NUM / DEN per repetition): its interval by the rule,
    judged against the lock band (lb) or the glibc-aa row's, recomputed from
    the per-repetition values, and issue 17's words from its figures"""
    name = t.get("test")
    rows = {r["type"]: r for r in t.get("rows", [])}
    check_ci("%s %s" % (name, what), c, t.get("better"), mp, False, failed)
    if failed or c is None or c.get("verdict") == "insufficient data":
        need(i17 is None, name, what, "issue 17's words without a figure to judge", i17)
        if failed or c is None:
            return
    band = c.get("aa")
    if lock_band:
        need(band is not None and lb is not None and band["n"] == c["n"] and
             all(abs(band[k] - lb.get(k, -1)) <= 1e-4 for k in ("n", "median", "lo", "hi")),
             name, what, "not judged against lock_aa_vs_lock on the same pairs", band, lb)
    else:
        aa = (rows.get("glibc-aa") or {}).get("value_ratio")
        need(band is not None and aa is not None and band["n"] == aa["n"] and
             all(abs(band[k] - aa[k]) <= 1e-4 for k in ("median", "lo", "hi")),
             name, what, "not judged against the glibc-aa row's band", band, aa)
    check_boot(c, rows[num]["value_reps"], rows[den]["value_reps"], name, what)
    if c.get("verdict") == "insufficient data" or band is None:
        return
    if t.get("better") == "higher":
        slower = c["hi"] < 1.0 and c["median"] < 0.97
    else:
        slower = c["lo"] > 1.0 and c["median"] > 1 / 0.97
    need(i17 is not None and i17.get("shown_slower") == slower, name, what,
         "issue 17 shown_slower", i17, "!=", slower)
    need(i17 is not None and
         i17.get("aa_resolved") == (band["lo"] >= 0.95 and band["hi"] <= 1.05) and
         abs(i17.get("aa_width", -1) - (band["hi"] - band["lo"])) <= 2e-4,
         name, what, "issue 17 aa_resolved/aa_width", i17, band)


PAIRS = (("adaptive-nous", "lock"), ("adaptive", "adaptive-nous"))


def pairs(t, mp, rows, lock_band, lb):
    """the lines of the adaptive-nous mode (the preload's adaptive with its
    user spin off): adaptive-nous / lock and adaptive / adaptive-nous, each
    present exactly when both its modes ran, judged as adaptive / lock is;
    files older than the mode have no "pairs" and no adaptive-nous row"""
    name = t.get("test")
    got = t.get("pairs")
    if got is None:
        need("adaptive-nous" not in rows, name, "an adaptive-nous row but no pairs")
        return
    want = [(n, d) for n, d in PAIRS if n in rows and d in rows]
    need([(q.get("num"), q.get("den")) for q in got] == want, name, "pairs",
         [(q.get("num"), q.get("den")) for q in got], "want", want)
    for q in got:
        num, den = q.get("num"), q.get("den")
        if (num, den) not in want:
            continue
        need(q.get("band") == ("lock-aa" if lock_band else "glibc-aa"), name,
             "%s/%s band" % (num, den), q.get("band"))
        if lock_band:
            # lock's failure fails the band, and every line judged by it
            failed = any(own_failure(rows, m) for m in (num, den, "lock", "lock-aa"))
        else:
            failed = rows[num]["failed"] or rows[den]["failed"]
        judge_pair(t, mp, "%s / %s" % (num, den), q.get("ratio"), q.get("issue17"),
                   num, den, failed, lock_band, lb)


def published(j, have):
    """a results file of Documentation/results (seed tool or matrix): the
    current schema, a clean commit, the per-repetition values, and every
    verdict by the rule (review 19, H2 and M6)"""
    need(not str(j.get("git_commit", "")).endswith("-dirty"), "built from a dirty tree",
         j.get("git_commit"))
    if "cells" in j:            # make matrix: futex_lock --compare per cell
        for c in j["cells"]:
            r = c["result"]
            provenance(r)
            for m in r.get("summary", []):
                if m.get("baseline") or not m.get("available"):
                    continue
                check_ci("cell %s/%s/%s %s" % (c["threads"], c["hold_loops"],
                                               c["outside_loops"], m["instance"]),
                         m.get("comparison"), "higher", 5, m["control"],
                         m.get("verdict") == "failed")
                need(m.get("verdict") == (m.get("comparison") or {}).get("verdict"),
                     m["instance"], "row verdict != its comparison's")
            need(any(x.get("kiter_s") for x in r.get("runs", [])), "cell without its runs")
        return
    mp = provenance(j)
    rows = list(all_rows(j))
    need(rows, "no rows")
    for t in j.get("tests", []):
        adaptive_vs_lock(t, mp)
    for r in rows:
        name = r.get("type") or r.get("method") or r.get("queue")
        need(any(k.endswith("_reps") and isinstance(v, list) for k, v in r.items()),
             name, "no per-repetition values")
        for key, c in r.items():
            if key.endswith("_ratio") and c is not None:
                check_ci("%s %s" % (name, key), c, c.get("better"), mp, r["aa"],
                         bool(r.get("error") or r.get("failed")))


CHECKS = {"lockbench": lockbench, "wakebench": wakebench, "queuebench": queuebench,
          "failed": failed, "published": published}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in CHECKS or sys.argv[3] not in ("0", "1"):
        print("usage: check_seed.py %s JSON HAVE_FUTEX_LOCK(0|1)" % "|".join(CHECKS), file=sys.stderr)
        return 2
    tool, path, have = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
    try:
        j = json.load(open(path))
    except (OSError, ValueError) as e:
        print("check_seed: %s: %s" % (path, e))
        return 1
    try:
        CHECKS[tool](j, have)
    except (KeyError, TypeError, IndexError) as e:
        bad.append("malformed: %r" % (e,))
    for b in bad:
        print("# check_seed %s: %s" % (tool, b))
    print("# check_seed %s: %d problems" % (tool, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
