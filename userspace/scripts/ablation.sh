#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ablation.sh - what each rule of FUTEX_LOCK_ADAPTIVE's spin policy buys and
# costs (make ablation: in the guest, patched base kernel, root).
#
# Per cell (threads:hold loops:outside loops) one futex_lock --compare whose
# baseline is FUTEX_LOCK_ADAPTIVE as the kernel ships it (runnable check,
# calibrated budget, waiters, overload, first-wake and queue checks and
# the quiet start on; back-off and the charge of a whole call off), with
# its A/A row (the same again),
# each rule switched from its default alone through its debugfs knob
# (futex_lock -m adaptive@KNOB=V: set before each of that instance's runs,
# restored after), the user-space spin before the system call switched
# off (user_spin=0, futex_lock's own switch), the spin without the woken
# mark (user_spin_woken=0: it spins while a woken waiter may be on its
# way), the user spin's back-off switched on (user_spin_backoff=1, the
# preload's default), a blocking call charged with all its wake-ups
# (spin_charge_call=1, off by default), that charge without its guard
# for an overcommitted machine (spin_charge_call=1,
# spin_charge_check_overload=0), all of them off (v4's
# policy: the fixed spin_max_ns budget, 100 us), and FUTEX_LOCK.  For a rule that is on by default, a ratio below
# 1 means the lock is slower without it: the rule buys that much; above 1,
# it costs.  For the back-offs (the kernel's and the user spin's, off by
# default) and the charge of a whole call the row is the lock with it on:
# above 1 it would pay.  Repetitions
# go on (--ci-target) until every interval is within FL_ABL_CI percent of
# its median or FL_ABL_TIME seconds have passed; the A/A row says how wide
# the noise is and futex_lock's verdicts use it.
#
# Env: FL_ABL_CELLS ("2:0:0 8:0:0 4:1000:0 2:10000:0"), FL_ABL_REPEAT (20),
#      FL_ABL_DURATION (0.2 s), FL_ABL_CI (4), FL_ABL_TIME (300 s per cell),
#      FL_ABL_OUT (Documentation/results/ablation-<label>), FL_ABL_SEED.
# Writes per cell t<T>-h<H>-w<W>.txt (futex_lock's tables: ratios with
# intervals, verdicts, the kernel counters per lock) and .json.
# Exit: 0, 1 if a cell failed, 2 bad arguments.
set -u
. "$(dirname "$0")/common.sh"
FL=${FL_ABL_FL:-$REPO/userspace/build/futex_lock}
CELLS=${FL_ABL_CELLS:-"2:0:0 8:0:0 4:1000:0 2:10000:0"}
REPEAT=${FL_ABL_REPEAT:-20}
DURATION=${FL_ABL_DURATION:-0.2}
CI=${FL_ABL_CI:-4}
TLIM=${FL_ABL_TIME:-300}
OUT=${FL_ABL_OUT:-$RES/$(fl_env_label ablation)}
SEED=${FL_ABL_SEED:-}

case ${1:-} in
-h | --help)
	sed -n '3,/^# Exit:/p' "$0" | sed 's/^# \{0,1\}//'
	exit 0 ;;
"") ;;
*)
	echo "ablation.sh: no arguments (environment: see --help)" >&2
	exit 2 ;;
esac
for c in $CELLS; do
	[[ $c =~ ^[0-9]+:[0-9]+:[0-9]+$ ]] || {
		echo "ablation.sh: bad cell '$c' in FL_ABL_CELLS (want T:HOLD:OUTSIDE)" >&2
		exit 2
	}
done

MODES=(-m adaptive -m adaptive@spin_check_runnable=0 -m adaptive@spin_calibrate=0
       -m adaptive@spin_backoff=1 -m adaptive@spin_check_waiters=0
       -m adaptive@spin_check_overload=0 -m adaptive@spin_check_first_wake=0
       -m adaptive@spin_check_queue=0 -m adaptive@spin_quiet_start=0
       -m adaptive@user_spin=0 -m adaptive@user_spin_woken=0
       -m adaptive@user_spin_backoff=1 -m adaptive@spin_charge_call=1
       -m adaptive@spin_charge_call=1,spin_charge_check_overload=0
       -m adaptive@spin_check_runnable=0,spin_calibrate=0,spin_backoff=0,spin_check_waiters=0,spin_check_overload=0,spin_check_first_wake=0,spin_check_queue=0,spin_quiet_start=0,user_spin=0,spin_charge_call=0,spin_charge_check_overload=0
       -m futex_lock)
mkdir -p "$OUT"
echo "ablation: $(fl_env_desc); $(uname -r), $(nproc) CPUs; writing $OUT"
rc=0
for c in $CELLS; do
	IFS=: read -r t h w <<<"$c"
	base=$OUT/t$t-h$h-w$w
	echo "== cell: $t threads, hold $h loops, outside $w loops"
	if ! "$FL" --compare "${MODES[@]}" --baseline adaptive -t "$t" -d "$h" -w "$w" \
		--duration "$DURATION" -r "$REPEAT" --ci-target "$CI" --time-limit "$TLIM" \
		${SEED:+--seed "$SEED"} --json-file "$base.json.tmp" >"$base.txt.tmp" 2>&1; then
		echo "ablation: cell $c failed:" >&2
		cat "$base.txt.tmp" >&2
		rc=1
		continue
	fi
	mv "$base.txt.tmp" "$base.txt"
	mv "$base.json.tmp" "$base.json"
	cat "$base.txt"
done
exit $rc
