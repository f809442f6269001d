#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What `make run` executes in the guest: kernel + probe, the RFC blocks of
# `futex_lock -i N` and `futex_lock -a -i N` (256 threads as in the RFC,
# RFC delays 1000/10000), the --compare table of every lock, and
# `perf bench futex lock`, `lock -a` and `lock-pi` (perf built from the
# patched tree by make perf), `perf stat` per mode when a working perf
# exists, and the engine's own cost per iteration against a bare loop
# (`overhead`).
# Sizes (env): FL_RUN_ITER (first try of the RFC runs, default 20000; a run
# shorter than FL_RUN_MIN_S (1 s) is redone with N scaled up, so each
# printed block lasts >= 1 s); the tables are time-bounded so a slow mode
# cannot blow the budget: FL_CMP_DURATION (0.4 s per run; runs overrun it
# when threads sit in the kernel), FL_CMP_THREADS ("8 256"), FL_CMP_REPEAT
# (10 paired repetitions in random order; every table has an A/A row),
# FL_PERF_DURATION (1 s), FL_PERF_THREADS (8; also perf bench's -t),
# FL_PERF_BENCH_RUNTIME (perf bench -r, 2 s), PERF_BENCH (default
# $BUILD/perf/perf).
# FL_RUN_SUMMARY (1; 0: no issue-17 summary), FL_RUN_SUMMARY_THREADS
# ("2 8"), FL_RUN_SUMMARY_HOLD ("0 1000"), FL_RUN_SUMMARY_REPEAT (10),
# FL_RUN_SUMMARY_DURATION (0.2 s): the 4-cell summary at the end.
# Figures from an emulator are only comparable as ratios within one run.
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
FL=$REPO/userspace/build/futex_lock
N=${FL_RUN_ITER:-20000}
MIN_S=${FL_RUN_MIN_S:-1}
CD=${FL_CMP_DURATION:-0.4}
CT=${FL_CMP_THREADS:-"8 256"}
CR=${FL_CMP_REPEAT:-10}
PD=${FL_PERF_DURATION:-1}
PT=${FL_PERF_THREADS:-8}
PR=${FL_PERF_BENCH_RUNTIME:-2}
PB=${PERF_BENCH:-${BUILD:-$REPO/build}/perf/perf}
rc=0
t0=$SECONDS

[ -x "$FL" ] || { echo "compare.sh: $FL missing: make -C userspace" >&2; exit 1; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "== futex_lock on $(uname -sr), $(nproc) CPUs ($cpu) =="
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
"$FL" --probe

# RFC block, >= MIN_S seconds: too short a run is redone with more iterations
rfc() {
	local a=$1 n=$N out el try
	for try in 1 2 3 4; do
		out=$("$FL" $a -i "$n" 2>&1) || { printf '%s\n' "$out"; return 1; }
		el=$(sed -n 's/^elapsed: \([0-9.]*\) s.*/\1/p' <<<"$out")
		awk -v e="$el" -v m="$MIN_S" 'BEGIN { exit !(e >= m) }' && break
		[ $try = 4 ] && break
		echo "# ($n iterations took ${el:-?} s < $MIN_S s: again with more)"
		n=$(awk -v n="$n" -v e="$el" -v m="$MIN_S" 'BEGIN { if (e <= 0) e = 0.01; printf "%d", n * 1.3 * m / e + 1 }')
	done
	echo "# futex_lock $a -i $n        (defaults: 256 threads, -d 1000 -w 10000)"
	printf '%s\n' "$out"
}
for a in "" "-a"; do
	echo
	rfc "$a" || rc=1
done

for t in $CT; do
	echo
	echo "# futex_lock --compare --duration $CD -t $t -r $CR     (-d 1000 -w 10000)"
	"$FL" --compare --duration "$CD" -t "$t" -r "$CR" || rc=1
done

# perf bench futex lock beside lock-pi: perf's own workload (usleep(1)
# inside the lock, threads pinned round-robin), the same for all three
echo
if [ ! -x "$PB" ]; then
	echo "# perf bench futex lock: skipped (no $PB: make perf)"
elif ! "$PB" bench futex lock -h 2>&1 | grep -q -- '--adaptive'; then
	echo "# perf bench futex lock: skipped ($PB has no futex lock benchmark: is the series' tools/perf patch applied?)"
else
	echo "# perf bench futex {lock,lock -a,lock-pi} -t $PT -r $PR -s     ($("$PB" version))"
	for b in "lock" "lock -a" "lock-pi"; do
		# $b unquoted: "lock -a" is the benchmark and an option
		if ! out=$("$PB" bench futex $b -t "$PT" -r "$PR" -s 2>&1) ||
			! grep -qE '^Averaged' <<<"$out"; then
			printf '%s\n' "$out"
			rc=1
			continue
		fi
		printf '%-8s %s\n' "$b:" "$(grep -E '^Averaged' <<<"$out")"
		grep -E '^Lock syscalls' <<<"$out" | sed 's/^/         /'
	done
fi

echo
perf=
for p in /usr/bin/perf_"$(uname -r | cut -d. -f1-2)" /usr/bin/perf_* /usr/bin/perf; do
	[ -x "$p" ] || continue
	if "$p" stat -e task-clock,context-switches,cpu-migrations true >/dev/null 2>&1; then
		perf=$p
		break
	fi
done
if [ -z "$perf" ]; then
	echo "# perf stat: skipped (no working perf binary for $(uname -r))"
else
	echo "# perf stat -e task-clock,context-switches,cpu-migrations ($perf), futex_lock -m MODE --duration $PD -t $PT"
	printf '%-17s %14s %14s %14s %10s %14s\n' mode task-clock-ms ctx-switches migrations Kiter/s ctxsw/Kiter
	for m in futex_lock adaptive pi waitwake waitwake-spin pthread pthread-adaptive spin; do
		if ! out=$("$perf" stat -x, -e task-clock,context-switches,cpu-migrations \
				"$FL" -m "$m" --duration "$PD" -t "$PT" 2>&1); then
			printf '%-17s %14s\n' "$m" unavailable
			continue
		fi
		tc=$(awk -F, '$3=="task-clock"{printf "%.1f",$1}' <<<"$out")
		cs=$(awk -F, '$3=="context-switches"{print $1}' <<<"$out")
		mg=$(awk -F, '$3=="cpu-migrations"{print $1}' <<<"$out")
		kr=$(sed -n 's/^elapsed: .*(\([0-9.]*\) Kiter\/s)$/\1/p' <<<"$out")
		it=$(sed -n 's/^lock calls: \([0-9]*\)$/\1/p' <<<"$out")
		cpk=$(awk -v c="$cs" -v i="$it" 'BEGIN{ if (i > 0) printf "%.1f", 1000 * c / i; else print "-" }')
		printf '%-17s %14s %14s %14s %10s %14s\n' "$m" "$tc" "$cs" "$mg" "$kr" "$cpk"
	done
fi
# What the engine itself costs per iteration against a bare lock();unlock()
# loop, as a figure with its interval and A/A row (a benchmark, not a test)
echo
echo "# overhead -r $CR     (futex_lock's engine at -t 1 -d 0 -w 0 against a bare loop)"
"$REPO/userspace/build/overhead" -r "$CR" || rc=1

# The issue-17 summary: 4 cells of make matrix's grid from the same
# machinery (matrix.py, matrix-judge.py), one attempt each (no extension:
# a cell whose A/A interval is wider than [0.95, 1.05] says unresolved;
# make matrix extends it).  FL_RUN_SUMMARY=0 skips it.
if [ "${FL_RUN_SUMMARY:-1}" != 0 ]; then
	echo
	echo "# issue-17 summary: threads ${FL_RUN_SUMMARY_THREADS:-2 8} x hold ${FL_RUN_SUMMARY_HOLD:-0 1000}, outside 0," \
		"${FL_RUN_SUMMARY_REPEAT:-10} x ${FL_RUN_SUMMARY_DURATION:-0.2} s per cell, every lock (make matrix: the full grid, resolved)"
	sdir=$(mktemp -d)
	if FL_MATRIX_OUT=$sdir FL_MATRIX_CELLS=$sdir/cells FL_MATRIX_NO_AGGREGATE=1 \
		FL_MATRIX_THREADS="${FL_RUN_SUMMARY_THREADS:-2 8}" FL_MATRIX_HOLD="${FL_RUN_SUMMARY_HOLD:-0 1000}" \
		FL_MATRIX_OUTSIDE=0 FL_MATRIX_REPEAT=${FL_RUN_SUMMARY_REPEAT:-10} \
		FL_MATRIX_MAX_REPEAT=${FL_RUN_SUMMARY_REPEAT:-10} \
		FL_MATRIX_DURATION=${FL_RUN_SUMMARY_DURATION:-0.2} \
		FL_MATRIX_MAX_DURATION=${FL_RUN_SUMMARY_DURATION:-0.2} \
		"$REPO/userspace/scripts/matrix.sh" >"$sdir/log" 2>&1; then
		"$REPO/userspace/scripts/matrix-judge.py" "$sdir/cells" | grep -v '^$' || rc=1
	else
		cat "$sdir/log"
		rc=1
	fi
	rm -rf "$sdir"
fi

echo
echo "# compare.sh took $((SECONDS - t0)) s"
exit $rc
