#!/usr/bin/env python3
"""Check that futex_lock's --json-file output holds the same numbers as its
text output of the same runs.
Usage: json_vs_text.py TEXT JSON [NRUNS [ITER]] [TEXT JSON NRUNS ITER ...]
(NRUNS/ITER of "-" = do not check). Exit 0 if every figure matches, 1 (with
the reason) if not. Several groups of four in one call: python starts slowly
in the guest."""
import json
import re
import sys


def opt_int(v):
    return None if v in (None, "-") else int(v)


def main():
    a = sys.argv[1:]
    while a:
        grp, a = (a + [None, None])[:4], a[4:]
        check(grp[0], grp[1], opt_int(grp[2]), opt_int(grp[3]))


def check(txt_path, js_path, want_runs, want_iter):
    blocks = [b for b in open(txt_path).read().split("\n\n") if b.strip()]
    runs = json.load(open(js_path))["runs"]
    assert len(blocks) == len(runs), (len(blocks), len(runs))
    if want_runs is not None:
        assert len(runs) == want_runs, (len(runs), want_runs)
    for block, r in zip(blocks, runs):
        def g(pat):
            m = re.search(pat, block, re.M)
            assert m, (pat, block)
            return m.group(1)
        assert g(r"^mode: ([\w-]+);") == r["mode"]
        assert int(g(r"^Result: (\d+) Kiter/s$")) == r["result_kiter_s"]
        assert abs(float(g(r"^elapsed: [\d.]+ s \(([\d.]+) Kiter/s")) - r["kiter_s"]) < 0.01
        for k in ("lock", "unlock"):
            calls = int(g(r"^%s calls: (\d+)$" % k))
            assert calls == r[k + "_calls"], (k, calls, r[k + "_calls"])
            if want_iter is not None:
                assert calls == want_iter, (k, calls, want_iter)
            s = g(r"^%s syscalls: (.*)$" % k)
            if s == "n/a":
                assert r[k + "_syscalls"] is None
            else:
                n, pct = re.match(r"(\d+) \(([\d.]+)%\)$", s).groups()
                assert int(n) == r[k + "_syscalls"], (k, n, r[k + "_syscalls"])
                assert float(pct) == r[k + "_syscall_pct"], (k, pct)
        assert int(g(r"protected counter (\d+)")) == r["protected_counter"]
        assert r["mutex_ok"] is True
        if r.get("kernel_stats"):
            line = g(r"^kernel stats \([^)]*\): (.*)$")
            kv = dict(x.split("=") for x in line.split())
            assert {k: int(v) for k, v in kv.items()} == r["kernel_stats"]
    print("# json matches text for", [r["mode"] for r in runs])


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print("# mismatch:", e)
        sys.exit(1)
    except (OSError, ValueError, KeyError, AttributeError) as e:
        print("# cannot compare:", type(e).__name__, e)
        sys.exit(1)
