#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Why does the try-first sampler still over-sample waits at 2/10000/0
# with a 1-ms spin budget (budget-latency-v9-...: 1.23)?  Candidate:
# under TCG, the sampled acquire runs more branches between the previous
# unlock and its try than an unsampled one.  This diagnostic, fixed
# beforehand in Documentation/futex-lock.md, runs the committed futex_lock
# and a scratch build (scratch-uniform-path.diff: every acquire takes the
# same path to its try, build/xs-futex_lock, not the project's code) in
# one boot, 2/10000/0, ADAPTIVE as shipped and with a 1-ms budget, a
# sample every 16th acquire.  In the guest (make vm FLAVOUR=base
# VM_TIMEOUT=900 CMD=Documentation/results/sampler-diag-.../run.sh).
# Writes committed/ and scratch/ beside itself; latency.py of
# budget-latency-v9-... tables each.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=${REPO:-$(cd "$here/../../.." && pwd)}
for v in committed:$repo/userspace/build/futex_lock scratch:$repo/build/xs-futex_lock; do
	name=${v%%:*} fl=${v#*:}
	mkdir -p "$here/$name"
	"$fl" --compare --baseline adaptive -m adaptive \
		-m adaptive@spin_calibrate=0,spin_max_ns=1000000 \
		-t 2 -d 10000 -w 0 --duration 0.2 -r 20 --ci-target 2 \
		--time-limit 150 --seed 291160 --latency-every 16 \
		--json-file "$here/$name/t2-h10000-w0.json" >"$here/$name/t2-h10000-w0.txt" 2>&1 || exit 1
	sed -n 1,8p "$here/$name/t2-h10000-w0.txt"
done
