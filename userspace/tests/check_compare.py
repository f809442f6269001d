#!/usr/bin/env python3
"""Check the --json output of futex_lock --compare (host-tests.sh).
Usage: check_compare.py JSON HAVE_FUTEX_LOCK(0|1) REPEAT ITER
Explicit checks (no `assert`, so PYTHONOPTIMIZE cannot switch them off);
exit 0 if all hold, 1 with the reasons."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdict_rule import want_verdict  # noqa: E402

bad = []


def need(cond, *why):
    if not cond:
        bad.append(" ".join(str(w) for w in why))


def main():
    j = json.load(open(sys.argv[1]))
    have, rep, it = sys.argv[2] == "1", int(sys.argv[3]), int(sys.argv[4])
    base = "futex_lock" if have else "pthread"
    need(j.get("baseline") == base, "baseline", j.get("baseline"), "!=", base)
    need(have or "FUTEX_LOCK unavailable" in j.get("baseline_note", ""),
         "no note on the pthread fallback")
    s = j["summary"]
    need(len(s) == 9, "summary rows", len(s), "!= 8 modes + A/A")
    ctl = [m for m in s if m["control"]]
    need(len(ctl) == 1 and ctl[0]["mode"] == base, "A/A control row", ctl)
    need(sum(1 for m in s if m["baseline"]) == 1, "exactly one baseline row")
    for m in s:
        name = m["instance"]
        if m["mode"] in ("futex_lock", "adaptive") and not m["control"]:
            need(m["available"] == have, name, "available", m["available"])
        if not m["available"]:
            continue
        need(m["runs"] == rep and m["median_kiter_s"] > 0, name, "runs/median")
        if m["baseline"]:
            need(m["ratio"] == 1, name, "baseline ratio")
            continue
        need(m["pairs"] == rep, name, "pairs", m["pairs"])
        need(m["ratio_lo"] <= m["ratio"] <= m["ratio_hi"], name, "ratio outside its CI")
        # Kiter/s: higher is better; the rule of lib/compare.c
        # (verdict_rule.py); the A/A row is the band: "control"
        c = m.get("comparison") or {}
        need(c.get("better") == "higher", name, "better", c.get("better"))
        aa = j.get("aa") or {}
        if not m["control"]:
            need(c.get("aa") == {k: aa.get(k) for k in ("n", "median", "lo", "hi")},
                 name, "A/A band", c.get("aa"), "!=", aa)
        want = want_verdict(c, "higher", 5, control=m["control"])
        need(m["verdict"] == want == c.get("verdict"), name, "verdict", m["verdict"],
             c.get("verdict"), "!=", want)
        need(c.get("insufficient") == (want == "insufficient data" or c["n"] < 5),
             name, "insufficient flag")
        # "vs" (make matrix): paired against every other measured mode by
        # the same engine; against the baseline it is the row's comparison
        vs = m.get("vs")
        others = {o["instance"] for o in s
                  if o["available"] and not o["control"] and o["instance"] != name}
        if m["control"]:
            need(vs == {}, name, "vs of the A/A row", vs)
        else:
            need(isinstance(vs, dict) and set(vs) == others, name, "vs keys",
                 sorted(vs or {}), "!=", sorted(others))
            b = (vs or {}).get(base) or {}
            need(all(b.get(k) == c.get(k) for k in ("n", "median", "lo", "hi", "verdict")),
                 name, "vs", base, b, "!= its comparison", c)
        for k in ("voluntary_ctxsw_per_kiter", "involuntary_ctxsw_per_kiter",
                  "cpu_s_per_kiter"):
            need(isinstance(m.get(k), (int, float)), name, k, "missing")
    need(j.get("schema_version") == 3 and isinstance(j.get("git_commit"), str)
         and j["git_commit"] and isinstance(j.get("seed"), int), "provenance",
         j.get("schema_version"), j.get("git_commit"), j.get("seed"))
    need(isinstance(j.get("aa_ok"), bool), "aa_ok flag", j.get("aa_ok"))
    runs = j["runs"]
    navail = sum(1 for m in s if m["available"])
    need(len(runs) == rep * navail, "runs", len(runs), "!=", rep * navail)
    need(all(r["lock_calls"] == it and r["mutex_ok"] and "handoffs" in r
             and r["exclusion_exercised"] == (r["handoffs"] >= 100) for r in runs),
         "a run with wrong calls, mutex_ok false or no hand-off count")
    # paired and shuffled: every repetition ran every instance once
    for k in range(1, rep + 1):
        inst = sorted(r["instance"] for r in runs if r["rep"] == k)
        need(len(inst) == navail and len(set(inst)) == navail, "rep", k, inst)
    orders = {tuple(r["instance"] for r in runs if r["rep"] == k) for k in range(1, rep + 1)}
    need(rep < 3 or len(orders) > 1, "the same order in every repetition")
    for b in bad:
        print("# check_compare:", b)
    print("# check_compare: %d problems" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        print("# check_compare: cannot check:", type(e).__name__, e)
        sys.exit(1)
