#!/usr/bin/env python3
"""Check that futex_lock's --json-file output holds the same numbers as its
text output of the same runs.
Usage: json_vs_text.py TEXT JSON [NRUNS [ITER]] [TEXT JSON NRUNS ITER ...]
(NRUNS/ITER of "-" = do not check). Exit 0 if every figure matches, 1 (with
the reason) if not. Several groups of four in one call: python starts slowly
in the guest. No `assert`: every check is explicit, so PYTHONOPTIMIZE cannot
switch it off."""
import json
import re
import sys


class Mismatch(Exception):
    pass


def need(cond, *why):
    if not cond:
        raise Mismatch(" ".join(str(w) for w in why))


def opt_int(v):
    return None if v in (None, "-") else int(v)


def close(a, b, tol):
    # tol is half a unit of the text's last digit: a value exactly halfway
    # (135.75 printed as 135.8) differs by tol give or take the binary
    # representation, so a relative hair more is allowed
    return abs(a - b) <= tol * (1 + 1e-9) + 1e-12


def main():
    a = sys.argv[1:]
    if not a:
        raise Mismatch("usage: json_vs_text.py TEXT JSON [NRUNS [ITER]] ...")
    while a:
        grp, a = (a + [None, None])[:4], a[4:]
        check(grp[0], grp[1], opt_int(grp[2]), opt_int(grp[3]))


def check(txt_path, js_path, want_runs, want_iter):
    blocks = [b for b in open(txt_path).read().split("\n\n") if b.strip()]
    runs = json.load(open(js_path))["runs"]
    need(len(blocks) == len(runs), "text blocks", len(blocks), "!= JSON runs", len(runs))
    if want_runs is not None:
        need(len(runs) == want_runs, "runs", len(runs), "!= expected", want_runs)
    for block, r in zip(blocks, runs):
        def g(pat):
            m = re.search(pat, block, re.M)
            need(m is not None, "no line", repr(pat), "in", block[:200])
            return m.group(1)
        need(g(r"^mode: ([\w-]+);") == r["mode"], "mode", r["mode"])
        need(int(g(r"^Result: (\d+) Kiter/s$")) == r["result_kiter_s"], "Result")
        need(close(float(g(r"^elapsed: [\d.]+ s \(([\d.]+) Kiter/s")), r["kiter_s"], 0.01),
             "Kiter/s", r["kiter_s"])
        for k in ("lock", "unlock"):
            calls = int(g(r"^%s calls: (\d+)$" % k))
            need(calls == r[k + "_calls"], k, "calls", calls, r[k + "_calls"])
            if want_iter is not None:
                need(calls == want_iter, k, "calls", calls, "!= -i", want_iter)
            s = g(r"^%s syscalls: (.*)$" % k)
            if s == "n/a":
                need(r[k + "_syscalls"] is None, k, "syscalls n/a vs", r[k + "_syscalls"])
            else:
                m = re.match(r"(\d+) \(([\d.]+)%\)$", s)
                need(m is not None, k, "syscalls line", s)
                n, pct = m.groups()
                need(int(n) == r[k + "_syscalls"], k, "syscalls", n, r[k + "_syscalls"])
                need(float(pct) == r[k + "_syscall_pct"], k, "syscall %", pct)
        vol = g(r"^context switches: voluntary (\d+) ")
        inv = g(r"involuntary (\d+) \(")
        need(int(vol) == r["voluntary_ctxsw"], "voluntary ctxsw", vol, r["voluntary_ctxsw"])
        need(int(inv) == r["involuntary_ctxsw"], "involuntary ctxsw", inv, r["involuntary_ctxsw"])
        cpk = float(g(r"CPU-s per Kiter: ([\d.]+)$"))
        need(close(cpk, r["cpu_s_per_kiter"], 1e-6), "CPU-s per Kiter", cpk, r["cpu_s_per_kiter"])
        lat = r["latency"]
        if lat is None:
            need(re.search(r"^acquire latency: not sampled", block, re.M) is not None,
                 "latency null in JSON but sampled in text")
        else:
            need(int(g(r"^acquire latency \(every \d+\w\w acquire, (\d+) samples\)")) == lat["samples"],
                 "latency samples")
            for name, key in (("p50", "p50_us"), ("p99", "p99_us"), ("p99.9", "p999_us"),
                              ("max", "max_us")):
                v = float(g(r"[ ,]%s ([\d.]+) us" % re.escape(name)))
                need(close(v, lat[key], 0.0005), "latency", name, v, lat[key])
        us = r.get("user_spin")
        line = re.search(r"^user spin: (on|off)\b.*$", block, re.M)
        need((us is None) == (line is None) == (r["mode"] not in ("adaptive", "futex_lock")),
             "user spin: text line, JSON object and a TID lock go together", r["mode"])
        if us:
            m = re.match(r"user spin: (on|off), limit (\d+) iterations \(futex\(2\) round trip (\d+) ns / ([\d.]+) ns"
                         r" per iteration\); (\d+) spins, (\d+) took the lock \([\d.]+%\), (\d+) left it to the kernel,"
                         r" [\d.]+ reads per spin; (\d+) skipped \(woken mark, honoured: (yes|no)\);"
                         r" (\d+) backed off \(back-off: (on|off)\)$",
                         line.group(0))
            need(m is not None, "user spin line", line.group(0))
            on, lim, sns, ins, sp, acq, tok, skp, wm, bo, bon = m.groups()
            need((on == "on") == us["on"] and int(lim) == us["limit"] and int(sp) == us["spins"]
                 and int(acq) == us["acquired"] and int(tok) == us["to_kernel"]
                 and int(skp) == us["skipped"] and (wm == "yes") == us["woken_mark_honoured"]
                 and int(bo) == us["backed_off"] and (bon == "on") == us["backoff"]
                 and close(float(sns), us["syscall_ns"], 0.5)
                 and close(float(ins), us["iter_ns"], 0.05), "user spin", line.group(0), us)
            # what holds of any run: off, no spin and no skip; on, every
            # slow lock spun first or skipped the spin (the woken mark,
            # only while honoured; the back-off, only while on), so a
            # lock syscall means one of them; each spin that did not take
            # the lock and each skip made a syscall; a spin reads at most
            # the limit
            ls = r["lock_syscalls"]
            skips = us["skipped"] + us["backed_off"]
            need(us["on"] or us["spins"] + skips == 0, "user spin off but", us["spins"],
                 "spins", skips, "skipped")
            need(us["woken_mark_honoured"] or us["skipped"] == 0, "woken mark ignored but", us["skipped"], "skipped")
            need(us["backoff"] or us["backed_off"] == 0, "back-off off but", us["backed_off"], "backed off")
            # the history starts empty each run and only a spin that ran
            # out raises it: a back-off needs 4 such spins first
            need(us["backed_off"] == 0 or us["spins"] - us["acquired"] - us["to_kernel"] >= 4,
                 "backed off", us["backed_off"], "with fewer than 4 spins that ran out")
            need(us["on"] or not (us["woken_mark_honoured"] or us["backoff"]),
                 "user spin off but the woken mark honoured or the back-off on")
            need(not us["on"] or ls == 0 or us["spins"] + skips > 0, "user spin on,", ls,
                 "lock syscalls but no spin and no skip")
            need(1 <= us["limit"] <= 4096 and us["acquired"] + us["to_kernel"] <= us["spins"]
                 and ls >= us["spins"] - us["acquired"] + skips
                 and us["iterations"] <= us["spins"] * us["limit"], "user spin counts", us, ls)
        need(int(g(r"protected counter (\d+)")) == r["protected_counter"], "protected counter")
        need(r["mutex_ok"] is True, "mutex_ok false")
        if r.get("kernel_stats"):
            line = g(r"^kernel stats \([^)]*\): (.*)$")
            kv = dict(x.split("=") for x in line.split())
            need({k: int(v) for k, v in kv.items()} == r["kernel_stats"], "kernel stats",
                 line, r["kernel_stats"])
    print("# json matches text for", [r["mode"] for r in runs])


if __name__ == "__main__":
    try:
        main()
    except Mismatch as e:
        print("# mismatch:", e)
        sys.exit(1)
    except (OSError, ValueError, KeyError, AttributeError, TypeError, IndexError) as e:
        print("# cannot compare:", type(e).__name__, e)
        sys.exit(1)
