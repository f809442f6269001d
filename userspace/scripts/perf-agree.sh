#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make perfagree, in the guest: does `perf bench futex lock` measure what
# `futex_lock -s` measures?  Both on the same workload: T threads pinned
# round-robin (futex_lock --pin), L empty loops inside the lock and none
# between the calls (perf -l L, futex_lock -d L -w 0), D seconds; L = 0 is
# the plain lock();unlock() loop.  Each
# repetition runs perf twice (A and A') and futex_lock once, in a new
# random order; the ratios futex_lock/A and A'/A of each repetition give a
# median with a 95% bootstrap interval.  The A'/A row is the noise floor:
# the two tools agree when futex_lock/A lies inside the A/A band.
# A measurement, not a test: nothing here fails on a speed.  Under QEMU
# TCG the figures are emulation figures (compare ratios, not speeds).
# futex_lock's engine does more per iteration than perf's loop (an atomic
# exchange of its owner flag and a counter inside the lock, counters, a
# timed acquire every 1024): at L = 0 that is a visible part of the loop.
# Env: PA_THREADS ("2 8"), PA_LOADS ("0 1000"), PA_DURATION (2 s, whole
# seconds: perf -r),
# PA_REPEAT (10), PA_MODES ("plain adaptive"), PA_SEED (random order),
# PERF_BENCH (default $BUILD/perf/perf).
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
FL=$REPO/userspace/build/futex_lock
PB=${PERF_BENCH:-${BUILD:-$REPO/build}/perf/perf}
TH=${PA_THREADS:-"2 8"}
LOADS=${PA_LOADS:-"0 1000"}
D=${PA_DURATION:-2}
R=${PA_REPEAT:-10}
MODES=${PA_MODES:-"plain adaptive"}
SEED=${PA_SEED:-$$}
RANDOM=$SEED
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
t0=$SECONDS

[ -x "$FL" ] || { echo "perf-agree: $FL missing: make userspace" >&2; exit 1; }
[ -x "$PB" ] || { echo "perf-agree: $PB missing: make perf" >&2; exit 1; }
"$FL" --probe || exit 1
echo "== perf bench futex lock vs futex_lock -s on $(uname -r), $(nproc) CPUs; $("$PB" version)"
echo "== seed $SEED (order of the three runs in each repetition)"

avg() { sed -n 's/^Averaged \([0-9.]*\) operations\/sec.*/\1/p' <<<"$1" | head -1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for mode in $MODES; do
	pa= fa=
	[ "$mode" = adaptive ] && pa=-a fa=-a
	for ld in $LOADS; do
	for t in $TH; do
		perf_cmd=("$PB" bench futex lock $pa -l "$ld" -t "$t" -r "$D" -s)
		fl_cmd=("$FL" $fa -s --pin -d "$ld" -w 0 -t "$t" --duration "$D")
		echo
		echo "# $mode, $t threads, $ld loops in the lock, $D s, $R repetitions:"
		echo "#   A, A': perf ${perf_cmd[*]:1}"
		echo "#   F:     futex_lock ${fl_cmd[*]:1}"
		: >"$TMP/values"
		for ((rep = 1; rep <= R; rep++)); do
			order=(A B F)
			for ((i = 2; i > 0; i--)); do	# Fisher-Yates
				j=$((RANDOM % (i + 1)))
				x=${order[i]} order[i]=${order[j]} order[j]=$x
			done
			declare -A v=()
			for w in "${order[@]}"; do
				if [ "$w" = F ]; then
					out=$("${fl_cmd[@]}" 2>&1)
				else
					out=$("${perf_cmd[@]}" 2>&1)
				fi
				v[$w]=$(avg "$out")
				[ -n "${v[$w]}" ] || { echo "perf-agree: no Averaged line from $w:"; echo "$out"; exit 1; }
			done
			echo "rep $rep (${order[*]}): A ${v[A]} A' ${v[B]} F ${v[F]}"
			echo "${v[A]} ${v[B]} ${v[F]}" >>"$TMP/values"
			unset v
		done
		"$PY" - "$TMP/values" <<'EOF'
import random, statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
def band(ratios, n=10000):
    rnd = random.Random(1)
    meds = sorted(statistics.median(rnd.choices(ratios, k=len(ratios))) for _ in range(n))
    return statistics.median(ratios), meds[int(0.025 * n)], meds[int(0.975 * n) - 1]
fa = [f / a for a, b, f in rows]
aa = [b / a for a, b, f in rows]
print("median ops/s: perf A %.0f, perf A' %.0f, futex_lock -s %.0f" %
      tuple(statistics.median(c) for c in zip(*rows)))
m, lo, hi = band(aa)
print("A/A  perf A'/perf A       %.3f  [%.3f-%.3f]" % (m, lo, hi))
m2, lo2, hi2 = band(fa)
verdict = ("median inside the A/A interval" if lo <= m2 <= hi else
           "median outside, intervals overlap" if lo2 <= hi and lo <= hi2 else
           "outside the A/A noise")
print("     futex_lock/perf A    %.3f  [%.3f-%.3f]  %s" % (m2, lo2, hi2, verdict))
EOF
	done
	done
done
echo
echo "# perf-agree.sh took $((SECONDS - t0)) s"
