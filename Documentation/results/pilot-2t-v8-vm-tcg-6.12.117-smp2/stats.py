#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Per-instance medians of the spin counters of a pilot json (per run);
# rounds from x_spin_rounds (experiment build) or spin_rounds (v9).
import json, statistics as st, sys
for f in sys.argv[1:]:
    d = json.load(open(f)); by = {}
    for r in d['runs']:
        by.setdefault(r['instance'], []).append(r)
    print(f)
    for k, rs in by.items():
        ks = [r.get('kernel_stats') or {} for r in rs]
        if not ks[0].get('spin_attempts'):
            continue
        m = lambda xs: st.median(list(xs))
        att = lambda s: max(1, s['spin_attempts'])
        print('  %-34s spins/Kit=%6.2f acq%%=%5.1f rounds/spin=%5.1f ns/round=%5.0f us/spin=%5.1f timeout%%=%4.1f ownerchg/spin=%.2f sleeps/Kit=%.2f ho/Kit=%.1f' % (
            k, m(s['spin_attempts'] * 1000 / r['iterations'] for s, r in zip(ks, rs)),
            m(100 * s['spin_acquired'] / att(s) for s in ks),
            m(s.get('x_spin_rounds', s.get('spin_rounds', 0)) / att(s) for s in ks),
            m(s.get('x_spin_ns', 0) / max(1, s.get('x_spin_rounds', 1)) for s in ks),
            m(s.get('x_spin_ns', 0) / att(s) / 1000 for s in ks),
            m(100 * s['spin_stop_timeout'] / att(s) for s in ks),
            m(s['spin_owner_changes'] / att(s) for s in ks),
            m(s['sleeps'] * 1000 / r['iterations'] for s, r in zip(ks, rs)),
            m(r['handoffs'] * 1000 / r['iterations'] for r in rs)))
