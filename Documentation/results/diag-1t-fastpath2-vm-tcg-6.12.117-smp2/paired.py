#!/usr/bin/env python3
# diagnostic only: per-repetition ratios of two instances of one or more
# futex_lock --compare JSON files, the median and the 95 % order-statistic
# interval of the median: [x(k), x(n-k+1)] (1-based) with the largest k
# for which P(k <= B <= n-k) >= 0.95, B ~ Binomial(n, 1/2).
# Usage: paired.py run1.json [run2.json]
import json
import statistics as st
import sys
from math import comb


def load(f):
    by = {}
    for r in json.load(open(f))['runs']:
        by.setdefault(r['rep'], {})[r['instance']] = r['kiter_s']
    return by


def ci(x):
    x = sorted(x)
    n = len(x)
    k = None
    for kk in range(1, n // 2 + 1):
        if sum(comb(n, i) for i in range(kk, n - kk + 1)) / 2**n >= 0.95:
            k = kk
    return st.median(x), x[k - 1], x[n - k]


reps = []
for f in sys.argv[1:]:
    reps += list(load(f).values())
print('instances', sorted(reps[0]))
for a, b in [('futex_lock', 'x_old'), ('adaptive', 'x_oldad'),
             ('futex_lock', 'waitwake'), ('x_old', 'waitwake'),
             ('adaptive', 'waitwake'), ('x_oldad', 'waitwake'),
             ('waitwake (A/A)', 'waitwake')]:
    rs = [r[a] / r[b] for r in reps if a in r and b in r]
    m, lo, hi = ci(rs)
    print(f'{a:16s}/{b:10s} n={len(rs)} {m:.4f} [{lo:.4f}, {hi:.4f}]')
