#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In-guest entry point for "make check": short bounded runs of futex_torture
# and futex_fuzz (built by make -C tools/testing/futex_torture into
# $BUILD/futex_torture), each checker once more with a deliberately broken
# input (it must fail), and trinity restricted to futex(2) beside the
# fuzzer when trinity is installed.  Prints TAP; exits non-zero on failure.
#
# Environment: REPO, BUILD (set by vm-run), FT_DURATION (seconds of the
# torture and of the fuzzer, default 5), FT_SEED (default 1).
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
BIN=${BUILD:-$REPO/build}/futex_torture
D=${FT_DURATION:-5}
SEED=${FT_SEED:-1}
n=0 fail=0 t0=$SECONDS
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# run NAME EXPECT CMD...: one TAP line; EXPECT is the exit status wanted
# (0 pass, 1 for the broken-input self-tests); 4 is a SKIP.
run() {
	local name=$1 want=$2 rc
	shift 2
	n=$((n + 1))
	echo "# === $name: $*"
	# through a file, not a pipe: a helper process that outlived a
	# crashed fuzzer once held the pipe open and hung make check
	# a hang guard: the checkers' own end bounds are tens of seconds
	timeout -k 5 $((${D%.*} * 3 + 300)) "$@" >"$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	if [ "$rc" -eq 4 ]; then
		echo "ok $n $name # SKIP [$((SECONDS - t0))s]"
	elif [ "$rc" -eq "$want" ]; then
		echo "ok $n $name [$((SECONDS - t0))s]"
	else
		echo "not ok $n $name # exit $rc, want $want [$((SECONDS - t0))s]"
		fail=1
	fi
}

echo "TAP version 13"
for b in futex_torture futex_fuzz; do
	if [ ! -x "$BIN/$b" ]; then
		echo "not ok 1 $b built # missing $BIN/$b: make -C tools/testing/futex_torture"
		echo "1..1"
		exit 1
	fi
done
echo "# kernel $(uname -r)"

# the checkers must see a broken lock / a shrunk errno table fail
run torture_selftest_noexclude 1 "$BIN/futex_torture" --duration 1 --seed "$SEED" \
	--selftest-broken=noexclude --no-tune
run torture_selftest_lostwake 1 "$BIN/futex_torture" --duration 2 --seed "$SEED" \
	--selftest-broken=lostwake --stall-ms 200 --no-tune --no-signals --no-deaths
run fuzz_selftest_drop_errno 1 "$BIN/futex_fuzz" --duration 1 --seed "$SEED" \
	--drop-errno EDEADLK --drop-errno ESRCH

run futex_torture 0 "$BIN/futex_torture" --duration "$D" --seed "$SEED"
# misuse (review F2): FUTEX_CMP_REQUEUE of lock waiters must not make two owners
run futex_torture_requeue 0 "$BIN/futex_torture" --duration 3 --seed "$SEED" --requeue

# the fuzzer, with trinity restricted to futex(2) beside it when installed
tri=
if command -v trinity >/dev/null; then
	tdir=$(mktemp -d)
	mkdir "$tdir/victims"
	chmod -R 777 "$tdir"
	# futex(2) only, as nobody, no fd/file set-up (slow under TCG); SIGINT
	# at the bound makes trinity print its per-errno stats
	(cd "$tdir" && exec setpriv --reuid=65534 --regid=65534 --clear-groups \
		timeout -s INT -k 10 $((${D%.*} + 5)) trinity -q -c futex -C 2 -N 1000000 \
		-s "$SEED" -V "$tdir/victims" -l off --stats \
		--disable-fds=sockets,pipes,perf,epoll,eventfd,pseudo,timerfd,testfile,memfd,drm \
		>"$tdir/trinity.log" 2>&1) &
	tri=$!
fi
run futex_fuzz 0 "$BIN/futex_fuzz" --duration "$D" --seed "$SEED"
if [ -n "$tri" ]; then
	n=$((n + 1))
	wait "$tri"
	rc=$?
	grep -v '^\[main\] \(futex\|sysv_shm\|epoll\|eventfd\):' "$tdir/trinity.log" |
		sed -n '/Ran [0-9]* syscalls/,$p' | sed 's/^/# trinity: /'
	# trinity's own exit status reflects its children; what counts here is
	# that the kernel survived (vm-run fails the run on any splat) and
	# that it ran: 124 is our time bound
	if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
		echo "ok $n trinity_futex # rc $rc [$((SECONDS - t0))s]"
	else
		echo "not ok $n trinity_futex # rc $rc [$((SECONDS - t0))s]"
		fail=1
	fi
	rm -rf "$tdir"
else
	n=$((n + 1))
	echo "ok $n trinity_futex # SKIP trinity not installed (Debian package trinity)"
fi
echo "1..$n"
exit $fail
