#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make perfagree, in the guest: does `perf bench futex lock` measure what
# `futex_lock -s` measures?  Both on the same workload: T threads pinned
# round-robin, L empty loops inside the lock and none between the calls,
# D seconds; L = 0 is the plain lock();unlock() loop.  futex_lock runs
# with --perf-loop: perf's loop (lock's inlined cmpxchg, L loops, unlock,
# a count; no exclusion check, no timestamps) and perf's figure (per-thread
# iterations / whole seconds from thread creation to the stop).  Its
# default engine does more per iteration (the exclusion check's owner word
# and 64-loop counter window inside the lock, calls through the mode's
# function pointers, a trylock before every acquire and the clock on
# every 1024th that waits): with PA_ENGINE=1 it runs
# as well, as a fourth run per repetition (E), to show that difference.
# Each repetition runs perf twice (A and A') and futex_lock once (F), in a
# new random order; the ratios F/A and A'/A of each repetition give a
# median with a 95% bootstrap interval.  The A'/A row is the noise floor:
# the two tools agree when F/A lies inside the A/A band.
# A measurement, not a test: nothing here fails on a speed.  Under QEMU
# TCG the figures are emulation figures (compare ratios, not speeds).
# Env: PA_THREADS ("2 8"), PA_LOADS ("0 1000"), PA_DURATION (2 s, whole
# seconds: perf -r), PA_REPEAT (10), PA_MODES ("plain adaptive"),
# PA_ENGINE (0; 1: also the default engine, futex_lock -s --pin -d L -w 0),
# PA_SEED (random order), PERF_BENCH (default $BUILD/perf/perf).
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
FL=$REPO/userspace/build/futex_lock
PB=${PERF_BENCH:-${BUILD:-$REPO/build}/perf/perf}
TH=${PA_THREADS:-"2 8"}
LOADS=${PA_LOADS:-"0 1000"}
D=${PA_DURATION:-2}
R=${PA_REPEAT:-10}
MODES=${PA_MODES:-"plain adaptive"}
ENGINE=${PA_ENGINE:-0}
SEED=${PA_SEED:-$$}
RANDOM=$SEED
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
t0=$SECONDS

[ -x "$FL" ] || { echo "perf-agree: $FL missing: make userspace" >&2; exit 1; }
[ -x "$PB" ] || { echo "perf-agree: $PB missing: make perf" >&2; exit 1; }
"$FL" --probe || exit 1
echo "== perf bench futex lock vs futex_lock -s on $(uname -r), $(nproc) CPUs; $("$PB" version)"
echo "== seed $SEED (order of the runs in each repetition)"

avg() { sed -n 's/^Averaged \([0-9.]*\) operations\/sec.*/\1/p' <<<"$1" | head -1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for mode in $MODES; do
	pa= fa=
	[ "$mode" = adaptive ] && pa=-a fa=-a
	for ld in $LOADS; do
	for t in $TH; do
		perf_cmd=("$PB" bench futex lock $pa -l "$ld" -t "$t" -r "$D" -s)
		fl_cmd=("$FL" $fa -s --perf-loop -d "$ld" -t "$t" --duration "$D")
		eng_cmd=("$FL" $fa -s --pin -d "$ld" -w 0 -t "$t" --duration "$D")
		echo
		echo "# $mode, $t threads, $ld loops in the lock, $D s, $R repetitions:"
		echo "#   A, A': perf ${perf_cmd[*]:1}"
		echo "#   F:     futex_lock ${fl_cmd[*]:1}"
		runs=(A B F)
		if [ "$ENGINE" = 1 ]; then
			echo "#   E:     futex_lock ${eng_cmd[*]:1}"
			runs+=(E)
		fi
		: >"$TMP/values"
		for ((rep = 1; rep <= R; rep++)); do
			order=("${runs[@]}")
			for ((i = ${#order[@]} - 1; i > 0; i--)); do	# Fisher-Yates
				j=$((RANDOM % (i + 1)))
				x=${order[i]} order[i]=${order[j]} order[j]=$x
			done
			declare -A v=()
			for w in "${order[@]}"; do
				case $w in
				F) out=$("${fl_cmd[@]}" 2>&1) ;;
				E) out=$("${eng_cmd[@]}" 2>&1) ;;
				*) out=$("${perf_cmd[@]}" 2>&1) ;;
				esac
				v[$w]=$(avg "$out")
				[ -n "${v[$w]}" ] || { echo "perf-agree: no Averaged line from $w:"; echo "$out"; exit 1; }
			done
			line="rep $rep (${order[*]}): A ${v[A]} A' ${v[B]} F ${v[F]}"
			vals="${v[A]} ${v[B]} ${v[F]}"
			if [ "$ENGINE" = 1 ]; then
				line="$line E ${v[E]}"
				vals="$vals ${v[E]}"
			fi
			echo "$line"
			echo "$vals" >>"$TMP/values"
			unset v
		done
		"$PY" - "$TMP/values" <<'EOF'
import random, statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
def band(ratios, n=10000):
    rnd = random.Random(1)
    meds = sorted(statistics.median(rnd.choices(ratios, k=len(ratios))) for _ in range(n))
    return statistics.median(ratios), meds[int(0.025 * n)], meds[int(0.975 * n) - 1]
names = ["perf A", "perf A'", "futex_lock --perf-loop -s", "futex_lock -s (engine)"]
meds = [statistics.median(c) for c in zip(*rows)]
print("median ops/s: " + ", ".join("%s %.0f" % (n, m) for n, m in zip(names, meds)))
m, lo, hi = band([r[1] / r[0] for r in rows])
print("A/A  perf A'/perf A               %.3f  [%.3f-%.3f]" % (m, lo, hi))
for col, label in ((2, "F    --perf-loop/perf A"), (3, "E    engine/perf A     ")):
    if col >= len(rows[0]):
        continue
    m2, lo2, hi2 = band([r[col] / r[0] for r in rows])
    verdict = ("median inside the A/A interval" if lo <= m2 <= hi else
               "median outside, intervals overlap" if lo2 <= hi and lo <= hi2 else
               "outside the A/A noise")
    print("     %s       %.3f  [%.3f-%.3f]  %s" % (label, m2, lo2, hi2, verdict))
EOF
	done
	done
done
echo
echo "# perf-agree.sh took $((SECONDS - t0)) s"
