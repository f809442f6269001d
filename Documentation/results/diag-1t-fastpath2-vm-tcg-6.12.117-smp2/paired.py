#!/usr/bin/env python3
# diagnostic only: per-repetition ratios of two instances of one or more
# futex_lock --compare JSON files, median and the 95 % order-statistic
# interval of the median (binomial).  Usage: paired.py run1.json [run2.json]
import json,sys,random,statistics as st
def load(f):
    d=json.load(open(f)); by={}
    for r in d['runs']:
        by.setdefault(r['rep'],{})[r['instance']]=r['kiter_s']
    return by
def ci(x):
    x=sorted(x); n=len(x)
    # order-statistic 95% CI of the median (binomial)
    from math import comb
    k=0
    best=None
    for j in range(n//2):
        p=sum(comb(n,i) for i in range(j, n-j+1))/2**n
        if p>=0.95: best=j
    return st.median(x), x[best], x[n-1-best]
files=sys.argv[1:]
reps=[]
for f in files: reps+=list(load(f).values())
print('instances', sorted(reps[0]))
for a,b in [('futex_lock','x_old'),('adaptive','x_oldad'),('futex_lock','waitwake'),('x_old','waitwake'),('adaptive','waitwake'),('x_oldad','waitwake'),('waitwake (A/A)','waitwake')]:
    keyb=[k for k in reps[0] if k==b][0]
    rs=[r[a]/r[b] for r in reps if a in r and b in r]
    m,lo,hi=ci(rs); print(f'{a:16s}/{b:10s} n={len(rs)} {m:.4f} [{lo:.4f}, {hi:.4f}]')
