#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A description after the fact (not in the plans): in ADAPTIVE's runs
at 256/10000/0 (M/ and H/, the instance "adaptive"), the kernel's own
wake-latency samples (wake_ns_sum / wake_samples: woken waiter's
sleep-to-run) against sleeps per 1,000 iterations and Kiter/s, run by
run.  FUTEX_LOCK's latency is not sampled, so this cannot compare the
two locks.  QEMU TCG emulation figures."""
import glob
import json
import os
import statistics as st

HERE = os.path.dirname(os.path.abspath(__file__))


def corr(a, b):
    ma, mb = st.mean(a), st.mean(b)
    num = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    return num / (sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b)) ** 0.5


rows = []
for f in sorted(glob.glob(os.path.join(HERE, "[MH]", "*.json"))):
    for r in json.load(open(f))["runs"]:
        k = r.get("kernel_stats") or {}
        if r["instance"] != "adaptive" or r.get("control") or not k.get("wake_samples"):
            continue
        rows.append((k["wake_ns_sum"] / k["wake_samples"] / 1000.0,
                     1000.0 * k["sleeps"] / r["iterations"], r["kiter_s"]))
rows.sort()
lat, slp, kit = zip(*rows)
print("ADAPTIVE at 256/10000/0, %d runs (M/ and H/) -- VM/TCG EMULATION FIGURES" % len(rows))
print("mean wake latency per run: median %.1f us, %.1f-%.1f" % (st.median(lat), lat[0], lat[-1]))
print("correlation: latency~sleeps/Kit %.2f, sleeps/Kit~Kiter/s %.2f, latency~Kiter/s %.2f"
      % (corr(lat, slp), corr(slp, kit), corr(lat, kit)))
q = len(rows) // 4
for name, part in (("shortest-latency quarter", rows[:q]), ("longest-latency quarter", rows[-q:])):
    print("%s: latency %.1f us, sleeps %.1f per 1,000 it., %.1f Kiter/s (medians)"
          % (name, st.median(p[0] for p in part), st.median(p[1] for p in part),
             st.median(p[2] for p in part)))
