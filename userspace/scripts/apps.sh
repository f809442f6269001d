#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make apps (issue 18 part 3, skeleton): real Debian programs under glibc,
# an A/A control (glibc again, a separate instance), FUTEXLOCK_PRELOAD=lock
# and =adaptive, in the guest (patched base kernel).  Every program runs
# each mode once per repetition, in a new random order per repetition;
# apps_table (lib/compare.c, the engine of futex_lock --compare) prints per
# mode the median of the per-repetition ratios to glibc, its 95% interval
# and the verdict against the A/A band, plus the medians of the kernel
# counter deltas per run.  Per-run lines go to $OUT/PROGRAM.runs.
# Env: APPS_REPS (default 10), APPS_SECS (seconds per run, default 5),
# APPS_SEED, APPS (programs, default "stress-ng sysbench-threads").
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
U=$REPO/userspace
OUT=${APPS_OUT:-${BUILD:-$REPO/build}/apps}
SO=$U/build/libfutexlock-preload.so
KS=/sys/kernel/debug/futex_lock/stats
R=${APPS_REPS:-10}
SECS=${APPS_SECS:-5}
RANDOM=${APPS_SEED:-$$}
MODES=(glibc glibc-aa lock adaptive)
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

kval() { local l; while IFS= read -r l; do [ "${l%%:*}" = "$1" ] && { echo "${l##* }"; return; }; done <"$2"; echo 0; }
kd() { echo $(( $(kval "$1" "$TMP/k1") - $(kval "$1" "$TMP/k0") )); }

# run_prog PROGRAM: its figure of merit (higher is better) on stdout
run_prog() {
	local l f=
	case $1 in
	stress-ng)
		# two stressor processes, 4 threads each on one mutex that
		# hold it across sched_yield(); bogo ops/s (real time)
		stress-ng --mutex 2 -t "$SECS" --metrics-brief >"$TMP/o" 2>&1
		while read -r a b c d e g h i j k; do
			[ "$b" = metrc: ] && [ "$d" = mutex ] && [[ $e =~ ^[0-9]+$ ]] && f=$j
		done <"$TMP/o"
		;;
	sysbench-threads)
		# one mutex, the holder yields inside it: the adversarial
		# case for spinning; events per second
		sysbench threads --threads=8 --thread-locks=1 --thread-yields=10 \
			--time="$SECS" run >"$TMP/o" 2>&1
		while IFS= read -r l; do
			[[ $l =~ total\ number\ of\ events:\ +([0-9]+) ]] && f=$((BASH_REMATCH[1] / SECS))
		done <"$TMP/o"
		;;
	esac
	echo "${f:-0}"
}

echo "apps: kernel $(uname -r), $R repetitions of ${SECS} s, modes ${MODES[*]}"
for prog in ${APPS:-stress-ng sysbench-threads}; do
	: >"$OUT/$prog.runs"
	for ((r = 1; r <= R; r++)); do
		order=("${MODES[@]}")
		for ((i = ${#order[@]} - 1; i > 0; i--)); do
			j=$((RANDOM % (i + 1))); t=${order[i]}; order[i]=${order[j]}; order[j]=$t
		done
		for m in "${order[@]}"; do
			cp $KS "$TMP/k0" 2>/dev/null || : >"$TMP/k0"
			case $m in
			glibc*) v=$(run_prog "$prog") ;;
			*) v=$(LD_PRELOAD=$SO FUTEXLOCK_PRELOAD=$m run_prog "$prog") ;;
			esac
			cp $KS "$TMP/k1" 2>/dev/null || : >"$TMP/k1"
			echo "$m $r $v lock_sys/s=$(( ($(kd lock_syscalls) + $(kd lock_adaptive_syscalls)) / SECS )) unlock_sys/s=$(( $(kd unlock_syscalls) / SECS )) sleeps/s=$(( $(kd sleeps) / SECS )) spin_acq/s=$(( $(kd spin_acquired) / SECS ))" >>"$OUT/$prog.runs"
		done
	done
	echo
	echo "# $prog"
	"$U/build/apps_table" <"$OUT/$prog.runs" | tee "$OUT/$prog.table"
done
