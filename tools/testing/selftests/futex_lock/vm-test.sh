#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In-guest entry point for "make check": runs the futex_lock kselftests
# (project side: the tests that need the debugfs knobs) and the futex
# selftests of the patched tree (upstream's plus the series' futex_lock)
# through "make -C tools/testing/selftests TARGETS=futex run_tests", all
# built by
#   make -C tools/testing/selftests/futex_lock KSRC=.. KOUT=.. OUTPUT=$BUILD/selftests/futex_lock
# Prints TAP; exits non-zero if anything failed, crashed or ran short.
set -u

BIN=${BUILD:-${REPO:-.}/build}/selftests/futex_lock
fail=0
n=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# run NAME CMD...: one TAP line for CMD; status 4 is a SKIP.  The time
# limit of a run is a hang guard (HANG_S), not an expectation.
run() {
	local name=$1 rc try t0
	shift
	n=$((n + 1))
	for ((try = 1; try <= ${RETRIES:-1}; try++)); do
		echo "# === $name (attempt $try)"
		# through a file, not a pipe: a child that outlives a crashed
		# test would hold a pipe open and hang the run
		t0=$SECONDS
		timeout -k 5 "${HANG_S:-1800}" "$@" >"$out" 2>&1
		rc=$?
		sed 's/^/# /' "$out"
		echo "# time: $((SECONDS - t0)) s"
		[ "$rc" -eq 0 ] || [ "$rc" -eq 4 ] && break
	done
	if [ "$rc" -eq 0 ]; then
		echo "ok $n $name"
	elif [ "$rc" -eq 4 ]; then
		echo "ok $n $name # SKIP"
	else
		echo "not ok $n $name # exit $rc"
		fail=1
	fi
}

echo "TAP version 13"

if [ -e /sys/kernel/debug/futex_lock/stats ]; then
	sed 's/^/# stats before: /' /sys/kernel/debug/futex_lock/stats
fi

# UPSTREAM_ONLY=1: only the futex selftests of KSRC below (a quick check
# of the series' tests; make check runs both)
[ "${UPSTREAM_ONLY:-0}" = 1 ] || run futex_lock_test "$BIN/futex_lock_test"

# A test killed (hang guard) or stopped by a failed ASSERT between setting
# the debug knob fake_nr_running and resetting it would leave every later
# spin decision on a fake count: fail loudly and reset it.
FAKE=/sys/kernel/debug/futex_lock/fake_nr_running
if [ "${UPSTREAM_ONLY:-0}" != 1 ] && [ -e "$FAKE" ]; then
	n=$((n + 1))
	v=$(cat "$FAKE")
	if [ "$v" = 0 ]; then
		echo "ok $n futex_lock_fake_nr_running_reset"
	else
		echo 0 >"$FAKE"
		echo "not ok $n futex_lock_fake_nr_running_reset # left at $v (now 0)"
		fail=1
	fi
fi

stats_after() {
	if [ -e /sys/kernel/debug/futex_lock/stats ]; then
		n=$((n + 1))
		sed 's/^/# stats after: /' /sys/kernel/debug/futex_lock/stats
		echo "ok $n futex_lock_stats_readable"
	fi
}

# KSFT_SERIES_ONLY=1 (make check: its 15-minute cold budget has no room
# for upstream's whole futex suite, ~30 s on the debug kernel under TCG):
# of the futex selftests of KSRC only the series' functional/futex_lock,
# run directly.  CI runs them all on three kernels (make check-voluntary,
# check-base, check-up).
if [ "${KSFT_SERIES_ONLY:-0}" = 1 ]; then
	run futex/futex_lock "$BIN/kselftest/futex/functional/futex_lock"
	echo "# the other upstream futex selftests: not run (KSFT_SERIES_ONLY=1; CI runs them)"
	stats_after
	echo "1..$n"
	exit $fail
fi

# --- The futex selftests of KSRC: upstream's and the series'
# functional/futex_lock.c, run by the selftests' own
#   make -C $KSRC/tools/testing/selftests TARGETS=futex run_tests
# with the variables the Makefile built them with (KSFT_VARS there), so
# nothing is rebuilt here.  futex/run.sh passes on the status of its last
# program only, so the verdicts come from the TAP of each program: one
# line here per program run.sh starts, in run.sh's order.
KSFT=$BIN/kselftest
# Failing runs of these (time-free, or ours) are verdicts; the other
# upstream tests use fixed sleeps (futex_requeue waits 10 ms for 10
# threads to block, futex_wait_uninitialized_heap gives its child 5 s),
# which a loaded TCG guest does not always honour: their failed tests are
# retried (RETRIES) and a failure of every attempt is reported as a SKIP
# with its reason; a crash or a short plan fails them too.  The cases of
# futex_requeue and futex_wait run without the sleeps in futex_lock_test
# (requeue_plain_waiters_wake3_requeue7, the wait_sleeping helpers) and
# count there.
STRICT=" futex_lock futex_wait_timeout futex_wait_wouldblock "
UP_HANG_S=${UP_HANG_S:-1800}

# tap_blocks FILE [PREFIX]: "name plan ok not_ok skip" for each TAP stream
# in FILE (lines after PREFIX, "# " inside the kselftest runner's output).
# name is that of the program's first "# name: ..." message, "-" if none;
# plan is -1 without a plan line.
tap_blocks() {
	awk -v p="${2:-}" '
	function dump() { if (k) print name, plan, ok, nok, skip }
	substr($0, 1, length(p)) != p { next }
	{ l = substr($0, length(p) + 1) }
	# (futex/run.sh may print tput escapes, no newline, before it)
	l ~ /TAP version 13$/ { dump(); k++; name = "-"; plan = -1; ok = nok = skip = 0; next }
	!k { next }
	l ~ /^1\.\.[0-9]+/ { split(l, a, /[. ]+/); plan = a[2] + 0; next }
	l ~ /^ok [0-9]+/ { ok++; if (l ~ /# SKIP/) skip++; next }
	l ~ /^not ok [0-9]+/ { nok++; next }
	name == "-" && l ~ /^# [A-Za-z0-9_]+: / { name = l; sub(/^# /, "", name); sub(/: .*/, "", name) }
	END { dump() }' "$1"
}

# upstream_verdict PLAN OK NOK: why this run of a program failed, or
# nothing if it passed
# (futex_requeue reports a failed test twice: more results than planned)
upstream_verdict() {
	if [ "$1" -lt 0 ]; then
		echo "no TAP plan (crashed or not run)"
	elif [ $(($2 + $3)) -lt "$1" ]; then
		echo "short TAP plan: $(($2 + $3)) of $1 results (crashed?)"
	elif [ "$3" -ne 0 ]; then
		echo "$3 of $1 failed"
	elif [ $(($2 + $3)) -gt "$1" ]; then
		echo "$(($2 + $3)) results, $1 planned"
	fi
}

# The kselftest runner writes the programs' output to /dev/stdout: a guest
# without udev may lack it (guest-init creates it; so does this, as root).
for l in fd:/proc/self/fd stdin:/proc/self/fd/0 stdout:/proc/self/fd/1 \
	stderr:/proc/self/fd/2; do
	[ -e "/dev/${l%%:*}" ] || ln -s "${l#*:}" "/dev/${l%%:*}" 2>/dev/null
done
if [ ! -L /dev/stdout ] && [ ! -c /dev/stdout ]; then
	n=$((n + 1))
	echo "not ok $n upstream-futex # no /dev/stdout, where the kselftest runner writes"
	echo "1..$n"
	exit 1
fi
if [ ! -x "$KSFT/futex/functional/futex_wait" ] ||
	[ ! -r "$KSFT/futex/functional/run.sh" ]; then
	n=$((n + 1))
	echo "not ok $n upstream-futex # not built in $KSFT"
	echo "1..$n"
	exit 1
fi
# The runner runs the programs in their output directory, where some
# create files: futex_wait maps one MAP_SHARED, which the 9p share of the
# repo (cache=none) refuses.  Run a copy (same times: nothing is rebuilt)
# on the guest's tmpfs.
ksft_tmp=$(mktemp -d)
trap 'rm -rf "$out" "$ksft_tmp"' EXIT
cp -a "$KSFT" "$ksft_tmp/" || exit 1
KSFT=$ksft_tmp/kselftest
KSFT_VARS=(TARGETS=futex building_out_of_srctree=1 "BUILD=$KSFT"
	"KHDR_INCLUDES=-isystem ${KOUT:?}/usr/include")
KSFT_RUN=$KSFT/futex/functional/run.sh
echo "# === make -C \$KSRC/tools/testing/selftests ${KSFT_VARS[*]} run_tests"
t0=$SECONDS
(
	export kselftest_override_timeout=$UP_HANG_S
	timeout -k 5 $((UP_HANG_S + 300)) make --no-print-directory \
		-C "${KSRC:?}/tools/testing/selftests" "${KSFT_VARS[@]}" run_tests
) >"$out" 2>&1
mrc=$?
sed 's/^/# /' "$out"
echo "# time: $((SECONDS - t0)) s (run_tests)"
ksft_out=$ksft_tmp/run_tests.out
cp "$out" "$ksft_out"

# The runner's own line: a TIMEOUT, or run.sh's (last program's) status.
n=$((n + 1))
top=$(grep -aE '^(not )?ok 1 selftests: futex: run.sh' "$ksft_out")
if [ "$mrc" -ne 0 ] || [ -z "$top" ] || [ "${top#not }" != "$top" ]; then
	echo "not ok $n upstream-futex run_tests # make exit $mrc, runner: ${top:-no verdict}"
	fail=1
else
	echo "ok $n upstream-futex run_tests # $top"
fi

# (through files: a guest without udev may lack /dev/fd for "< <(...)")
sed -n 's/ *\$COLOR//; s/^\.\///p' "$KSFT_RUN" >"$out"
mapfile -t cmds <"$out"
tap_blocks "$ksft_out" "# " >"$out"
mapfile -t blocks <"$out"
if [ -e "$KSRC/tools/testing/selftests/futex/functional/futex_lock.c" ] &&
	! printf '%s\n' "${cmds[@]}" | grep -qx futex_lock; then
	n=$((n + 1))
	echo "not ok $n futex/futex_lock # the series' tests are not in $KSFT_RUN"
	fail=1
fi
for i in "${!cmds[@]}"; do
	cmd=${cmds[$i]} prog=${cmds[$i]%% *}
	n=$((n + 1))
	read -r name plan ok nok skip <<<"${blocks[$i]:-- -1 0 0 0}"
	why=$(upstream_verdict "$plan" "$ok" "$nok")
	[ "$name" = "$prog" ] || why="TAP stream $((i + 1)) is from '$name', not $prog"
	if [ -z "$why" ]; then
		if [ "$plan" -gt 0 ] && [ "$skip" -eq "$plan" ]; then
			echo "ok $n futex/$cmd # SKIP all $plan"
		else
			echo "ok $n futex/$cmd # $((ok - skip)) passed, $skip skipped"
		fi
		continue
	fi
	# a fixed sleep that was too short gives "not ok", never a crash
	if [[ $STRICT == *" $prog "* || $why != *" failed" ]]; then
		echo "not ok $n futex/$cmd # $why"
		fail=1
		continue
	fi
	# informational: run it again on its own, up to RETRIES times in all
	for ((try = 2; try <= ${RETRIES:-5}; try++)); do
		echo "# === futex/$cmd (attempt $try; first: $why)"
		t0=$SECONDS
		(cd "$KSFT/futex/functional" &&
			timeout -k 5 300 "./$prog" ${cmd#"$prog"}) >"$out" 2>&1
		rc=$?
		sed 's/^/# /' "$out"
		echo "# time: $((SECONDS - t0)) s"
		read -r _ plan ok nok skip <<<"$(tap_blocks "$out" | head -n 1)"
		[ "$rc" -eq 0 ] && [ -z "$(upstream_verdict "${plan:--1}" "${ok:-0}" "${nok:-0}")" ] &&
			break
	done
	if ((try <= ${RETRIES:-5})); then
		echo "ok $n futex/$cmd # passed on attempt $try"
	else
		echo "ok $n futex/$cmd # SKIP informational: $why in all ${RETRIES:-5} attempts, relies on fixed sleeps"
	fi
done
stats_after
echo "1..$n"
exit $fail
