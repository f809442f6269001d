#!/usr/bin/env python3
# pair.py FILE.json[.gz] A B - the median of the per-repetition ratios
# B/A of one futex_lock --compare run (instances A and B as named in its
# JSON), with a 95 % bootstrap interval (4000 resamples, seed 1).
import gzip,json,sys,random,statistics
def load(f):
    j=json.load((gzip.open if f.endswith('.gz') else open)(f, 'rt')); by={}
    for r in j['runs']:
        by.setdefault(r['rep'],{})[r['instance']]=r['kiter_s']
    return by
def boot(x,n=4000):
    random.seed(1); m=[]
    for _ in range(n):
        s=[random.choice(x) for _ in x]; m.append(statistics.median(s))
    m.sort(); return statistics.median(x), m[int(0.025*n)], m[int(0.975*n)]
f,a,b=sys.argv[1],sys.argv[2],sys.argv[3]
by=load(f)
x=[d[b]/d[a] for d in by.values() if a in d and b in d]
print(f, '%s / %s: n=%d median %.3f [%.3f-%.3f]'%((b,a,len(x))+boot(x)))
