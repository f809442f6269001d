#!/usr/bin/env python3
# diagnostic only: per-repetition ratios of two instances of one or more
# futex_lock --compare JSON files, the median and the 95 % order-statistic
# interval of the median: [x(k), x(n-k+1)] (1-based) with the largest k
# for which P(k <= B <= n-k) >= 0.95, B ~ Binomial(n, 1/2).
# Usage: paired.py [-s K] [-p A:B]... run.json[.gz]...
# -p A:B: the ratio of instance A to instance B (repeatable); without -p,
# this directory's contrasts.  -s K: only repetitions in which both runs
# of a pair ran at most K Kiter/s (the slow state; see the README).
# Also used, with -p, by ../diag-1t-fastpath3-vm-tcg-6.12.117-smp2/.
import argparse
import gzip
import json
import statistics as st
from math import comb


def load(f):
    by = {}
    for r in json.load(gzip.open(f) if f.endswith('.gz') else open(f))['runs']:
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


def pair(v):
    a, sep, b = v.partition(':')
    if not (a and sep and b):
        raise argparse.ArgumentTypeError('want A:B, got %r' % v)
    return a, b


ap = argparse.ArgumentParser(description='paired ratios of futex_lock --compare runs')
ap.add_argument('-p', dest='pairs', type=pair, action='append', metavar='A:B',
                help='the ratio of instance A to instance B (repeatable)')
ap.add_argument('-s', dest='slow', type=float, metavar='K',
                help='only pairs whose two runs ran at most K Kiter/s')
ap.add_argument('files', nargs='+', metavar='run.json[.gz]')
opt = ap.parse_args()
slow = opt.slow
pairs = opt.pairs or [('futex_lock', 'x_old'), ('adaptive', 'x_oldad'),
                      ('futex_lock', 'waitwake'), ('x_old', 'waitwake'),
                      ('adaptive', 'waitwake'), ('x_oldad', 'waitwake'),
                      ('waitwake (A/A)', 'waitwake')]
reps = []
for f in opt.files:
    reps += list(load(f).values())
print('instances', sorted(reps[0]))
for a, b in pairs:
    rs = [r[a] / r[b] for r in reps if a in r and b in r and
          (slow is None or max(r[a], r[b]) <= slow)]
    if not rs:
        continue
    m, lo, hi = ci(rs)
    print(f'{a:16s}/{b:10s} n={len(rs)} {m:.4f} [{lo:.4f}, {hi:.4f}]')
