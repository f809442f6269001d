#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make apps (issue 18 part 3): real Debian 12 programs, each with its own
# figure of merit, under glibc, an A/A control (glibc again, a separate
# instance), FUTEXLOCK_PRELOAD=lock, =lock again (lock-aa: FUTEX_LOCK's own
# A/A) and =adaptive, in the guest (patched base kernel).  Every program
# runs each mode once per repetition, in a new
# random order per repetition; apps_table (lib/compare.c, the engine of
# futex_lock --compare) prints per mode the median of the per-repetition
# ratios to glibc, its 95% interval and the verdict against the A/A band
# (and adaptive / lock, paired the same way, against lock-aa / lock's band:
# issue 17's question),
# plus the medians of the per-run counters per program op: the kernel's
# debugfs counter deltas (lock and unlock syscalls, sleeps, spin phases,
# acquisitions while spinning) and the context switches of the program
# (wait4 rusage of all its threads, apps_run).  A run whose own output
# check fails is "failed", never a number.
#
#   apps.sh            the measurement; tables on stdout, per-run lines in
#                      $APPS_OUT/PROGRAM.runs, results (text + JSON) in
#                      $APPS_RESULTS/apps-<label>.{txt,json}
#   apps.sh --smoke [PROGRAM]   make check's smoke (TAP): PROGRAM (default
#                      cache_bench) once under lock and once under adaptive,
#                      short, with FUTEXLOCK_PRELOAD_STATS=1; asserts
#                      completion, the program's own output check and the
#                      preload's own account (it converted mutexes, locked
#                      through them, and its syscall counts equal the
#                      kernel's debugfs deltas); never a speed
#   apps.sh --env MODE  (tests) the environment a timed run of MODE gets
#                      from apps.sh, one VAR=VALUE per line (none for
#                      glibc and glibc-aa)
#   apps.sh --judge-stats MODE OPS K0 K1 OUTPUT   (tests) judge the
#                      FUTEXLOCK_PRELOAD_STATS=1 lines of OUTPUT against the
#                      kernel stats files K0 (before) and K1 (after): prints
#                      the "@stats" line of a .runs file; exit 1 if failed
#   apps.sh --help
#
# Per program, before the timed repetitions, one untimed run per preloaded
# mode with FUTEXLOCK_PRELOAD_STATS=1 (its "@stats" line in the .runs file):
# a mode whose preload converted no mutex or locked nothing through it is
# "failed" (it would have measured glibc).  The same run gives the lock/unlock
# syscall ratio: FUTEX_LOCK(_ADAPTIVE) syscalls per lock acquisition and
# FUTEX_UNLOCK syscalls per unlock (syscalls: the kernel's debugfs deltas;
# acquisitions and unlocks: the preload's counts), and whether the preload's
# own syscall counts equal the kernel's.  Every timed run records the delta of
# every line of the kernel's debugfs stats file (k_NAME, raw; lost_max,
# handoff_threshold, spin_max_ns, wake_latency_ns and spin_budget_ns are
# values at the end, not deltas).
#
# Programs (APPS, default all five; figure of merit, higher is better):
#   cache_bench       RocksDB cache_bench, one LRU shard (one hot mutex):
#                     "Rough parallel ops/sec"
#   db_bench          RocksDB db_bench readrandom on a flushed DB with a 1 MB
#                     one-shard block cache, --use_adaptive_mutex=1 (the DB
#                     mutex is PTHREAD_MUTEX_ADAPTIVE_NP): ops/sec; check:
#                     every key read was found
#   sysbench-threads  sysbench threads --thread-locks=1: one mutex, the
#                     holder yields inside it: events/s
#   memcached         memcached (2 worker threads, Unix socket: the guest
#                     kernel has no INET) driven by memcslap's get test, the
#                     preload on the server only: gets/s; check: the
#                     server's own counters say every get hit
#   stress-ng         stress-ng --mutex: bogo ops/s (real time)
# Env: APPS_REPS (10), APPS_SECS (seconds per run, 4), APPS_SEED, APPS,
# APPS_MODES (default "glibc glibc-aa lock lock-aa adaptive"; glibc and glibc-aa
# are required; "off" adds the preload loaded with FUTEXLOCK_PRELOAD=off,
# everything passed through to glibc: the cost of the interposition alone;
# "lock-aa" (with lock) runs FUTEXLOCK_PRELOAD=lock again, a separate
# instance: FUTEX_LOCK's own A/A, the band adaptive / lock is judged by;
# "adaptive-nous" (with lock and adaptive) runs FUTEXLOCK_PRELOAD=adaptive
# with FUTEXLOCK_PRELOAD_USER_SPIN=0, the kernel op without the preload's
# user spin: apps_table adds adaptive-nous / lock and adaptive /
# adaptive-nous, and its stats run fails if the user spin ran),
# APPS_OUT (build/apps), APPS_RESULTS (Documentation/results; "" = none),
# PRELOAD_SO (the preload; the smoke is shown failing with a broken one),
# APPS_SMOKE_GUARD (the smoke's hang guard per run, 300 s).
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
U=$REPO/userspace
# shellcheck source=common.sh
. "$U/scripts/common.sh"
OUT=${APPS_OUT:-${BUILD:-$REPO/build}/apps}
SO=${PRELOAD_SO:-$U/build/libfutexlock-preload.so}
AR=$U/build/apps_run
KS=/sys/kernel/debug/futex_lock/stats
R=${APPS_REPS:-10}
SECS=${APPS_SECS:-4}
SEED=${APPS_SEED:-$(( $(date +%s) % 100000 ))}
# whole numbers, checked before RANDOM=$SEED evaluates the seed as
# arithmetic; at most 200 repetitions (apps_table's MAXR)
num_ok() {
	[[ $2 =~ ^(0|[1-9][0-9]{0,9})$ ]] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] ||
		{ echo "apps.sh: $1 must be a whole number in [$3, $4], not '$2'" >&2; exit 2; }
}
num_ok APPS_REPS "$R" 2 200
num_ok APPS_SECS "$SECS" 1 3600
num_ok APPS_SEED "$SEED" 0 4294967295
RANDOM=$SEED
read -ra MODES <<<"${APPS_MODES:-glibc glibc-aa lock lock-aa adaptive}"
ALL="cache_bench db_bench sysbench-threads memcached stress-ng"
# program sizes: the fixed-work programs are sized to last about SECS under
# TCG (the smoke makes them smaller)
CB_OPS=${APPS_CB_OPS:-50000}	# cache_bench ops per thread (4 threads)
MC_OPS=${APPS_MC_OPS:-3000}	# memcslap gets per client thread (4 threads)
DB_KEYS=20000			# db_bench keys (about 2.6 MB > the 1 MB cache)
GUARD=$(( SECS * 20 + 120 ))	# hang guard per run (s), not a deadline
smoke=0

case ${1:-} in
-h | --help)
	sed -n '3,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'
	exit 0 ;;
--smoke)
	smoke=1
	SMOKE_PROG=${2:-cache_bench} ;;
--judge-stats)
	[ $# -eq 6 ] || { echo "usage: apps.sh --judge-stats MODE OPS K0 K1 OUTPUT" >&2; exit 2; }
	smoke=judge ;;
--env)
	[ $# -eq 2 ] || { echo "usage: apps.sh --env MODE" >&2; exit 2; }
	smoke=env ;;
"") ;;
*)
	echo "usage: apps.sh [--smoke [PROGRAM]] [--help]" >&2
	exit 2 ;;
esac
[ $smoke = judge ] || [ $smoke = env ] || [ $# -le $((smoke + 1)) ] || { echo "usage: apps.sh [--smoke [PROGRAM]] [--help]" >&2; exit 2; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

kval() { local l; while IFS= read -r l; do [ "${l%%:*}" = "$1" ] && { echo "${l##* }"; return; }; done <"$2"; echo 0; }
kd() { echo $(( $(kval "$1" "$TMP/k1") - $(kval "$1" "$TMP/k0") )); }
# kall: " k_NAME=DELTA" for every line of the kernel's stats file (values
# that are not counts, such as the spin budget: their value at the end;
# kstats_delta keeps the one list of those)
kall() {
	local n v
	"$U/build/kstats_delta" "$TMP/k0" "$TMP/k1" | while IFS=': ' read -r n v; do
		printf ' k_%s=%s' "$n" "$v"
	done
}
# fdiv A B: A / B with 6 decimals (bash integers; A may be negative:
# counts that disagree)
fdiv() {
	local q s=
	(( $2 > 0 )) || { echo 0; return; }
	q=$(( $1 * 1000000 / $2 ))
	(( q < 0 )) && s=- q=$(( -q ))
	printf '%s%d.%06d' "$s" $((q / 1000000)) $((q % 1000000))
}
# the value of "KEY=VALUE" in the apps_run line of FILE
rval() { local w; for w in $(<"$2"); do [ "${w%%=*}" = "$1" ] && { echo "${w#*=}"; return; }; done; echo 0; }

# FUTEXLOCK_PRELOAD of a preloaded mode: lock-aa is lock again,
# adaptive-nous is adaptive with the preload's user spin off
preload_mode() { local m=${1%-aa}; echo "${m%-nous}"; }
# PLENV: the environment of preloaded mode $1 (for env(1))
pl_env() {
	PLENV=(LD_PRELOAD="$SO" FUTEXLOCK_PRELOAD="$(preload_mode "$1")"
		FUTEXLOCK_PRELOAD_STATS="${PL_STATS:-0}")
	[ "$1" = adaptive-nous ] && PLENV+=(FUTEXLOCK_PRELOAD_USER_SPIN=0)
	return 0
}

# run MODE OUTFILE COMMAND...: COMMAND under MODE (glibc*: no preload at
# all), timed by apps_run (rusage in $TMP/ru), hang-guarded; its status
run() {
	local m=$1 o=$2
	shift 2
	rm -f "$TMP/ru"
	case $m in
	glibc*) timeout -k 10 "$GUARD" "$AR" -o "$TMP/ru" -- "$@" >"$o" 2>&1 ;;
	*) pl_env "$m"
		timeout -k 10 "$GUARD" "$AR" -o "$TMP/ru" -- env "${PLENV[@]}" "$@" >"$o" 2>&1 ;;
	esac
}

# Each prog_NAME MODE sets VAL (figure of merit, or empty on failure),
# OPS (program operations of the run), WHY (why it failed) and leaves the
# program's rusage line in $TMP/ru.

prog_cache_bench() {
	local rc l
	run "$1" "$TMP/o" cache_bench -threads=4 -ops_per_thread="$CB_OPS" -num_shard_bits=0 \
		-cache_size=8388608 -value_bytes=1024
	rc=$?
	OPS=$((4 * CB_OPS))
	while IFS= read -r l; do
		[[ $l =~ ^Complete\ in\ [0-9.]+\ s\;\ Rough\ parallel\ ops/sec\ =\ ([0-9]+)$ ]] &&
			VAL=${BASH_REMATCH[1]}
	done <"$TMP/o"
	[ $rc -eq 0 ] || WHY="exit status $rc"
	grep -q "^Ops per thread *: $CB_OPS\$" "$TMP/o" || WHY="${WHY:-no 'Ops per thread: $CB_OPS' line}"
	grep -q '^Num shard bits *: 0$' "$TMP/o" || WHY="${WHY:-not one shard}"
}

db_prepare() {
	[ -e "$TMP/rdb.ok" ] && return 0
	rm -rf /tmp/apps-rdb
	db_bench --db=/tmp/apps-rdb --benchmarks=fillseq,flush --num=$DB_KEYS \
		--compression_type=none >"$TMP/prep" 2>&1 &&
		grep -q "^fillseq .* $DB_KEYS operations;" "$TMP/prep" && : >"$TMP/rdb.ok" && return 0
	echo "apps.sh: db_bench fillseq failed:" >&2
	cat "$TMP/prep" >&2
	return 1
}

prog_db_bench() {
	local rc l
	db_prepare || { WHY="fillseq of the test DB failed"; OPS=0; return; }
	run "$1" "$TMP/o" db_bench --db=/tmp/apps-rdb --use_existing_db=1 --benchmarks=readrandom \
		--num=$DB_KEYS --duration="$SECS" --threads=4 --cache_size=1048576 \
		--cache_numshardbits=0 --use_adaptive_mutex=1 --compression_type=none
	rc=$?
	OPS=0
	while IFS= read -r l; do
		if [[ $l =~ ^readrandom\ +:\ +[0-9.]+\ micros/op\ ([0-9]+)\ ops/sec\ [0-9.]+\ seconds\ ([0-9]+)\ operations\;.*\(([0-9]+)\ of\ ([0-9]+)\ found\) ]]; then
			VAL=${BASH_REMATCH[1]} OPS=${BASH_REMATCH[2]}
			# RocksDB's own count: every key read exists
			[ "${BASH_REMATCH[3]}" = "${BASH_REMATCH[4]}" ] && [ "${BASH_REMATCH[4]}" -gt 0 ] ||
				WHY="${BASH_REMATCH[3]} of ${BASH_REMATCH[4]} keys found"
		fi
	done <"$TMP/o"
	[ $rc -eq 0 ] || WHY="exit status $rc"
	[ -n "$VAL" ] || WHY="${WHY:-no readrandom line}"
}

prog_sysbench-threads() {
	local rc l ev= tt=
	run "$1" "$TMP/o" sysbench threads --threads=8 --thread-locks=1 --thread-yields=10 \
		--time="$SECS" run
	rc=$?
	while IFS= read -r l; do
		[[ $l =~ total\ number\ of\ events:\ +([0-9]+)$ ]] && ev=${BASH_REMATCH[1]}
		[[ $l =~ total\ time:\ +([0-9]+)\.([0-9]{4})s$ ]] &&
			tt=$(( 10#${BASH_REMATCH[1]}${BASH_REMATCH[2]} ))
	done <"$TMP/o"
	OPS=${ev:-0}
	[ -n "$ev" ] && [ "${tt:-0}" -gt 0 ] && [ "$ev" -gt 0 ] && VAL=$(( ev * 10000 / tt ))
	[ $rc -eq 0 ] || WHY="exit status $rc"
	[ -n "$VAL" ] || WHY="${WHY:-no event count}"
}

# memcstat NAME: the server's counter (memcached's own stats)
mcstat() { local k v; while read -r k v; do [ "$k" = "$1:" ] && { echo "$v"; return; }; done <"$TMP/mcstat"; echo -1; }

prog_memcached() {
	local m=$1 sock=/tmp/apps-mc.sock rc=0 l pid i k= s= us gets hits
	rm -f "$sock" "$TMP/ru"
	# the server only under the preload; its rusage when it ends
	case $m in
	glibc*) "$AR" -o "$TMP/ru" -- memcached -u nobody -t 2 -s "$sock" -m 64 -c 256 \
		>"$TMP/srv" 2>&1 & ;;
	*) pl_env "$m"
		"$AR" -o "$TMP/ru" -- env "${PLENV[@]}" memcached -u nobody -t 2 -s "$sock" -m 64 -c 256 \
			>"$TMP/srv" 2>&1 & ;;
	esac
	pid=$!
	for ((i = 0; i < 600; i++)); do
		[ -S "$sock" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	OPS=0
	if [ ! -S "$sock" ]; then
		WHY="memcached did not start"
	else
		timeout -k 10 "$GUARD" memcslap --servers="$sock" --test=get --concurrency=4 \
			--execute-number="$MC_OPS" --initial-load=1000 >"$TMP/o" 2>&1
		rc=$?
		while IFS= read -r l; do
			if [[ $l =~ ^Time\ to\ get\ +([0-9]+)\ keys\ by\ +4\ threads:\ +([0-9]+)\.([0-9]{3})\ seconds ]]; then
				k=${BASH_REMATCH[1]}
				s=$(( 10#${BASH_REMATCH[2]}${BASH_REMATCH[3]} ))
			fi
		done <"$TMP/o"
		timeout -k 10 60 memcstat --servers="$sock" >"$TMP/mcstat" 2>&1
		gets=$(mcstat cmd_get) hits=$(mcstat get_hits)
		OPS=${k:-0}
		[ -n "$k" ] && [ "${s:-0}" -gt 0 ] && [ "$k" -gt 0 ] && VAL=$(( k * 1000 / s ))
		[ $rc -eq 0 ] || WHY="memcslap exit status $rc"
		# the server's own account: every get of the run arrived and hit
		[ "$gets" = "$k" ] && [ "$hits" = "$k" ] ||
			WHY="${WHY:-server counted cmd_get $gets get_hits $hits for ${k:-?} gets}"
	fi
	kill -TERM $pid 2>/dev/null
	wait $pid
	us=$?
	[ $us -eq 0 ] || [ $us -eq 143 ] || WHY="${WHY:-memcached exit status $us}"
	[ -n "$VAL" ] || WHY="${WHY:-no 'Time to get' line}"
	cat "$TMP/srv" >>"$TMP/o"
}

prog_stress-ng() {
	local rc a b c d e g h i j k
	run "$1" "$TMP/o" stress-ng --mutex 2 --mutex-procs 4 -t "$SECS" --metrics-brief
	rc=$?
	OPS=0
	while read -r a b c d e g h i j k; do
		if [ "$b" = metrc: ] && [ "$d" = mutex ] && [[ $e =~ ^[0-9]+$ ]]; then
			OPS=$e
			# bogo ops/s (real time), two decimals
			[[ $j =~ ^([0-9]+)\.([0-9]+)$ ]] && VAL=$j
		fi
	done <"$TMP/o"
	[ $rc -eq 0 ] || WHY="exit status $rc"
	grep -q 'successful run completed' "$TMP/o" || WHY="${WHY:-no 'successful run completed'}"
	[ "$OPS" -gt 0 ] || WHY="${WHY:-no bogo ops}"
}

# one_run PROGRAM MODE: run it once, with the kernel counters around it;
# sets LINE (the .runs line: value or "failed", counters per op) and the
# raw deltas LSYS (FUTEX_LOCK + FUTEX_LOCK_ADAPTIVE syscalls), LSYS_A
# (FUTEX_LOCK_ADAPTIVE only), USYS (FUTEX_UNLOCK), and VAL, WHY
one_run() {
	local p=$1 m=$2 csw
	VAL= WHY= OPS=0
	cp $KS "$TMP/k0"
	"prog_$p" "$m"
	cp $KS "$TMP/k1"
	LSYS_A=$(kd lock_adaptive_syscalls)
	LSYS=$(( $(kd lock_syscalls) + LSYS_A ))
	USYS=$(kd unlock_syscalls)
	[ -s "$TMP/ru" ] || WHY="${WHY:-no rusage}"
	[[ $VAL =~ ^[0-9]+(\.[0-9]+)?$ && $VAL =~ [1-9] ]] || WHY="${WHY:-no figure of merit}"
	# a glibc run must not touch the new ops; a preloaded one must have
	# probed them (the FUTEX_UNLOCK of the probe counts), else the preload
	# did not engage and the run measured glibc
	case $m in
	glibc* | off) [ $((LSYS + USYS)) -eq 0 ] ||
		WHY="${WHY:-$m run made $LSYS FUTEX_LOCK and $USYS FUTEX_UNLOCK calls}" ;;
	*) [ "$USYS" -gt 0 ] || WHY="${WHY:-the preload did not engage (no FUTEX_UNLOCK, not even its probe)}" ;;
	esac
	csw=$(( $(rval csw_vol "$TMP/ru") + $(rval csw_invol "$TMP/ru") ))
	LINE="ops=$OPS lock_sys/op=$(fdiv "$LSYS" "$OPS") unlock_sys/op=$(fdiv "$USYS" "$OPS")"
	LINE+=" sleeps/op=$(fdiv "$(kd sleeps)" "$OPS") spins/op=$(fdiv "$(kd spin_attempts)" "$OPS")"
	LINE+=" spin_acq/op=$(fdiv "$(kd spin_acquired)" "$OPS") csw/op=$(fdiv "$csw" "$OPS")"
	LINE+=" lost/op=$(fdiv "$(kd lost_after_wake)" "$OPS")"
	LINE+=" stop_sleep/op=$(fdiv "$(kd spin_stop_owner_sleeping)" "$OPS")"
	LINE+=" stop_resched/op=$(fdiv "$(kd spin_stop_need_resched)" "$OPS")"
	LINE+=" stop_vcpu/op=$(fdiv "$(kd spin_stop_vcpu_preempted)" "$OPS")"
	LINE+=" stop_other/op=$(fdiv $(( $(kd spin_stop_signal) + $(kd spin_stop_timeout) + \
		$(kd spin_stop_owner_gone) + $(kd spin_stop_fault) )) "$OPS")"
	LINE+=$(kall)
	if [ -n "$WHY" ]; then
		LINE="failed $LINE"
	else
		LINE="$VAL $LINE"
	fi
}

# stats_judge MODE OPS K0 K1 OUTPUT: the FUTEXLOCK_PRELOAD_STATS=1 lines of
# OUTPUT (summed over the processes that printed them) against the kernel's
# counters K0 -> K1.  Prints "@stats MODE ok|failed NAME=NUMBER..." and, if
# it failed, a "# MODE stats run failed: WHY" line; status 1 if failed.
# Failed: no stats lines, a process in another mode, no mutex converted, no
# lock taken through the preload.  agree=1: the preload's lock syscalls plus
# its user-spin calibration calls (adaptive: 248 per process that contended)
# equal the kernel's delta of the mode's op, the other op's delta is 0, and
# its unlock syscalls plus probes equal the kernel's FUTEX_UNLOCK delta.
# adaptive-nous (the processes say adaptive) is failed when the user spin
# ran: FUTEXLOCK_PRELOAD_USER_SPIN=0 did not reach the preload.
stats_judge() {
	local m=$1 ops=$2 k0=$3 k1=$4 o=$5 l why= st=ok agree=1 pm
	local np=0 bad=0 conv=0 convn=0 fast=0 slow=0 pls=0 uf=0 pus=0 probes=0 cal=0 us=0 usa=0 usb=0
	local own other kunl op=lock_syscalls
	local re_p='futexlock-preload: stats: pid [0-9]+ mode ([a-z]+) '
	local re_c='futexlock-preload: stats: converted mutexes: normal ([0-9]+)\+([0-9]+) recursive ([0-9]+)\+([0-9]+) errorcheck ([0-9]+)\+([0-9]+) adaptive ([0-9]+)\+([0-9]+) '
	local re_l='futexlock-preload: stats: lock fast ([0-9]+) slow ([0-9]+) lock-syscalls ([0-9]+) trylock-busy [0-9]+ unlock fast ([0-9]+) unlock-syscalls ([0-9]+) probe-syscalls ([0-9]+)$'
	local re_u='futexlock-preload: stats: user-spins ([0-9]+) user-spin-acquired ([0-9]+) .* calibration-syscalls ([0-9]+)( |$)'
	local re_b=' user-spin-backoff ([0-9]+)( |$)'
	local -a b
	pm=$(preload_mode "$m")
	while IFS= read -r l; do
		if [[ $l =~ $re_p ]]; then
			np=$((np + 1))
			[ "${BASH_REMATCH[1]}" = "$pm" ] || bad=$((bad + 1))
		elif [[ $l =~ $re_c ]]; then
			b=("${BASH_REMATCH[@]}")
			convn=$((convn + b[1] + b[2]))
			conv=$((conv + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + b[7] + b[8]))
		elif [[ $l =~ $re_l ]]; then
			b=("${BASH_REMATCH[@]}")
			fast=$((fast + b[1])) slow=$((slow + b[2])) pls=$((pls + b[3]))
			uf=$((uf + b[4])) pus=$((pus + b[5])) probes=$((probes + b[6]))
		elif [[ $l =~ $re_u ]]; then
			us=$((us + BASH_REMATCH[1])) usa=$((usa + BASH_REMATCH[2]))
			cal=$((cal + BASH_REMATCH[3]))
			[[ $l =~ $re_b ]] && usb=$((usb + BASH_REMATCH[1]))
		fi
	done <"$o"
	[ "$pm" = adaptive ] && op=lock_adaptive_syscalls
	own=$(( $(kval $op "$k1") - $(kval $op "$k0") ))
	other=$(( $(kval lock_syscalls "$k1") + $(kval lock_adaptive_syscalls "$k1") -
		$(kval lock_syscalls "$k0") - $(kval lock_adaptive_syscalls "$k0") - own ))
	kunl=$(( $(kval unlock_syscalls "$k1") - $(kval unlock_syscalls "$k0") ))
	if [ $np -eq 0 ]; then
		why="no FUTEXLOCK_PRELOAD_STATS lines: the preload did not run (or no process exited through exit())"
	elif [ $bad -gt 0 ]; then
		why="$bad of $np processes ran in another mode than $m"
	elif [ "$m" = off ]; then
		# loaded, and passed everything through
		[ $((conv + fast + slow)) -eq 0 ] || why="mode off converted $conv mutexes, took $((fast + slow)) locks"
	elif [ $conv -eq 0 ]; then
		why="the preload converted no mutex: the program ran on glibc"
	elif [ $((fast + slow)) -eq 0 ]; then
		why="no mutex was locked through the preload"
	elif [ "$m" = adaptive-nous ] && [ $us -gt 0 ]; then
		why="the user spin ran $us times: FUTEXLOCK_PRELOAD_USER_SPIN=0 did not reach the preload"
	fi
	[ -z "$why" ] || st=failed
	[ $((pls + cal)) -eq $own ] && [ $other -eq 0 ] && [ $((pus + probes)) -eq $kunl ] || agree=0
	echo "@stats $m $st procs=$np converted=$conv converted_normal=$convn acq=$((fast + slow))" \
		"lock_slow=$slow unlocks=$((uf + pus)) pl_lock_sys=$pls calibration=$cal k_lock_sys=$own k_other_lock_sys=$other" \
		"pl_unlock_sys=$pus probes=$probes k_unlock_sys=$kunl agree=$agree ops=$ops" \
		"acq/op=$(fdiv $((fast + slow)) "$ops") lock_sys/acq=$(fdiv $((own - cal)) $((fast + slow)))" \
		"unlock_sys/unlock=$(fdiv $((kunl - probes > 0 ? kunl - probes : 0)) $((uf + pus)))" \
		"user_spins=$us user_spin_acquired=$usa user_spin_backoff=$usb"
	[ -z "$why" ] || { echo "# $m stats run failed: $why"; return 1; }
}
# the named field of an "@stats" line
sfield() { local w; for w in $1; do [ "${w%%=*}" = "$2" ] && { echo "${w#*=}"; return; }; done; echo 0; }

if [ $smoke = judge ]; then
	stats_judge "$2" "$3" "$4" "$5" "$6"
	exit
fi
MODE_NAMES="glibc glibc-aa off lock lock-aa adaptive adaptive-nous"
# known_mode MODE: one of MODE_NAMES, else exit 2 with the list
known_mode() {
	[[ $1 != *" "* && " $MODE_NAMES " == *" $1 "* ]] ||
		{ echo "apps.sh: no mode $1 (have: $MODE_NAMES)" >&2; exit 2; }
}
if [ $smoke = env ]; then
	known_mode "$2"
	[[ $2 == glibc* ]] && exit 0
	pl_env "$2"
	printf '%s\n' "${PLENV[@]}"
	exit 0
fi

# Bad input before the kernel check: the modes first, then the programs
# (a host test reaches the program check only with good modes).  In
# " glibc glibc-aa " one space ends glibc and starts glibc-aa: the pattern
# must not ask for two.
for m in "${MODES[@]}"; do
	known_mode "$m"
done
has_mode() { [[ " ${MODES[*]} " == *" $1 "* ]]; }
! has_mode lock-aa || { has_mode lock && has_mode adaptive; } ||
	{ echo "apps.sh: APPS_MODES has lock-aa (lock's A/A, the band of adaptive / lock) but not lock and adaptive" >&2; exit 2; }
! has_mode adaptive-nous || { has_mode lock && has_mode adaptive; } ||
	{ echo "apps.sh: APPS_MODES has adaptive-nous (adaptive without its user spin, paired with lock and adaptive) but not lock and adaptive" >&2; exit 2; }
[[ " ${MODES[*]} " == *" glibc "*"glibc-aa "* ]] ||
	{ echo "apps.sh: APPS_MODES must include glibc, then glibc-aa" >&2; exit 2; }
[ "$(printf '%s\n' "${MODES[@]}" | sort | uniq -d)" = "" ] ||
	{ echo "apps.sh: APPS_MODES names a mode twice: ${MODES[*]}" >&2; exit 2; }
progs=${APPS:-$ALL}
[ $smoke = 1 ] && progs=$SMOKE_PROG
for p in $progs; do
	declare -F "prog_$p" >/dev/null || { echo "apps.sh: no program $p (have: $ALL)" >&2; exit 2; }
done

"$U/build/futex_lock" --probe >/dev/null 2>&1 && [ -r $KS ] || {
	echo "apps.sh: this kernel has no FUTEX_LOCK or no $KS: run it in the guest (make apps)" >&2
	exit 1
}
for f in "$SO" "$AR" "$U/build/apps_table"; do
	[ -e "$f" ] || { echo "apps.sh: $f missing: make -C userspace" >&2; exit 1; }
done

if [ $smoke = 1 ]; then
	# make check: one program, both modes, short; completion, the
	# program's own check and the preload's account of what it did,
	# checked against the kernel's counters; never a speed
	# (cache_bench: 8000 ops gave 16 FUTEX_LOCK calls under TCG, the
	# smoke runs 16000; a few seconds per mode)
	SECS=1 CB_OPS=4000 MC_OPS=300
	# hang guard: a broken preload can hang the program (seen: a lock
	# that does not lock); 4 s per mode on the base guest, 30-35 s on
	# make check's debug guest (2026-11-28, CI and a clean clone), so
	# 60 s was within 2x of a loaded host's figure
	GUARD=${APPS_SMOKE_GUARD:-300}
	num_ok APPS_SMOKE_GUARD "$GUARD" 1 3600
	n=0 fail=0 t0=$SECONDS
	echo "TAP version 13"
	echo "# $SMOKE_PROG under the preload ($SO), kernel $(uname -r)"
	# (lock-aa and adaptive-nous, lock and adaptive under another
	# environment, are checked on the host: host-tests.sh, apps.sh --env)
	for m in lock adaptive; do
		pm=$(preload_mode "$m")
		PL_STATS=1 one_run "$SMOKE_PROG" "$m"
		grep -v 'futexlock-preload: stats:' "$TMP/o" | tail -n 4 >"$TMP/tail"
		grep 'futexlock-preload: stats:' "$TMP/o" >>"$TMP/tail"
		while IFS= read -r l; do echo "# $l"; done <"$TMP/tail"
		echo "# $m: kernel: FUTEX_LOCK(+ADAPTIVE) +$LSYS, of them ADAPTIVE +$LSYS_A, FUTEX_UNLOCK +$USYS"
		ST=$(stats_judge "$pm" "$OPS" "$TMP/k0" "$TMP/k1" "$TMP/o")
		while IFS= read -r l; do echo "# $l"; done <<<"$ST"
		SWHY=
		[[ $ST == *$'\n'* ]] && SWHY=" (${ST#*$'\n'# })"
		ST=${ST%%$'\n'*}
		n=$((n + 1))
		if [ -z "$WHY" ]; then
			echo "ok $n - $SMOKE_PROG under $m: completed, its own output check passed ($OPS ops)"
		else
			echo "not ok $n - $SMOKE_PROG under $m: $WHY"
			fail=$((fail + 1))
		fi
		# the preload engaged, by its own account (deterministic: no
		# contention needed): it converted mutexes and took locks
		# through them (cache_bench: every cache op locks the shard
		# mutex at least once)
		n=$((n + 1))
		acq=$(sfield "$ST" acq) conv=$(sfield "$ST" converted) want=1
		[ "$SMOKE_PROG" = cache_bench ] && want=$OPS
		if [ "${ST#@stats $pm ok }" != "$ST" ] && [ "$acq" -ge "$want" ] && [ "$want" -gt 0 ]; then
			echo "ok $n - $SMOKE_PROG under $m: the preload converted $conv mutexes and took $acq locks (>= $want)"
		else
			echo "not ok $n - $SMOKE_PROG under $m: the preload converted $conv mutexes and took $acq locks (want >= $want)$SWHY"
			fail=$((fail + 1))
		fi
		# cross-check: the preload's syscall counts are the kernel's
		# (the mode's op; none of the other; FUTEX_UNLOCK incl. probe)
		n=$((n + 1))
		d="preload lock-syscalls $(sfield "$ST" pl_lock_sys) + user-spin calibration $(sfield "$ST" calibration), kernel $(sfield "$ST" k_lock_sys) of the mode's op and $(sfield "$ST" k_other_lock_sys) of the other; preload unlock-syscalls $(sfield "$ST" pl_unlock_sys) + probes $(sfield "$ST" probes), kernel FUTEX_UNLOCK $(sfield "$ST" k_unlock_sys)"
		if [ "$(sfield "$ST" agree)" = 1 ] && [ "$(sfield "$ST" procs)" -gt 0 ]; then
			echo "ok $n - $SMOKE_PROG under $m: the kernel's counters agree with the preload's ($d)"
		else
			echo "not ok $n - $SMOKE_PROG under $m: the kernel's counters disagree with the preload's ($d)"
			fail=$((fail + 1))
		fi
	done
	echo "1..$n"
	echo "# $((SECONDS - t0)) s"
	echo "$((n - fail)) passed, $fail failed"
	[ $fail -eq 0 ]
	exit
fi

mkdir -p "$OUT"
label=$(fl_env_label apps)
env_desc=$(fl_env_desc)
echo "apps: kernel $(uname -r), $(nproc) CPUs, $env_desc"
echo "apps: $R repetitions, ${SECS} s per timed run, seed $SEED, modes ${MODES[*]}, programs $progs"
t0=$SECONDS
specs=()
for p in $progs; do
	unit=ops/s
	case $p in
	db_bench) unit="readrandom ops/s" ;;
	sysbench-threads) unit="events/s" ;;
	memcached) unit="gets/s (memcslap)" ;;
	stress-ng) unit="bogo ops/s (real time)" ;;
	esac
	: >"$OUT/$p.runs"
	: >"$OUT/$p.log"
	# untimed: did the preload engage (else the mode is "failed"), and
	# the lock/unlock syscall ratio (lock-aa is lock's: lock's run says it)
	for m in "${MODES[@]}"; do
		[[ $m == glibc* || $m == lock-aa ]] && continue
		PL_STATS=1 one_run "$p" "$m"
		ST=$(stats_judge "$m" "$OPS" "$TMP/k0" "$TMP/k1" "$TMP/o")
		if [ -n "$WHY" ] && [ "${ST#@stats $m ok }" != "$ST" ]; then
			ST="@stats $m failed ${ST#@stats $m ok }"$'\n'"# $m stats run failed: $WHY"
		fi
		echo "$ST" >>"$OUT/$p.runs"
		{ echo "=== $p $m stats run: $ST ${WHY:+(FAILED: $WHY)}"; cat "$TMP/o" "$TMP/ru"; } >>"$OUT/$p.log"
		echo "apps: $p $m stats run: ${ST%% procs=*}"
	done
	for ((r = 1; r <= R; r++)); do
		order=("${MODES[@]}")
		for ((i = ${#order[@]} - 1; i > 0; i--)); do
			j=$((RANDOM % (i + 1))); t=${order[i]}; order[i]=${order[j]}; order[j]=$t
		done
		for m in "${order[@]}"; do
			one_run "$p" "$m"
			[ -n "$WHY" ] && echo "# $m $r failed: $WHY" >>"$OUT/$p.runs"
			echo "$m $r $LINE" >>"$OUT/$p.runs"
			{ echo "=== $p $m rep $r: $LINE ${WHY:+(FAILED: $WHY)}"; cat "$TMP/o" "$TMP/ru"; } >>"$OUT/$p.log"
		done
		echo "apps: $p repetition $r of $R done ($((SECONDS - t0)) s)"
	done
	echo
	echo "# $p ($unit)"
	"$U/build/apps_table" <"$OUT/$p.runs" | tee "$OUT/$p.table"
	specs+=("$p:$unit:$OUT/$p.runs")
done
echo "apps: $((SECONDS - t0)) s"

RES=${APPS_RESULTS-$REPO/Documentation/results}
[ -n "$RES" ] || exit 0
mkdir -p "$RES"
"$U/build/apps_table" --json --seed "$SEED" --env "$env_desc" "${specs[@]}" >"$RES/$label.json" ||
	exit 1
{
	echo "make apps: real programs under glibc, an A/A control and the FUTEX_LOCK preload"
	echo "environment: $env_desc"
	echo "kernel: $(uname -r) $(uname -v), $(nproc) CPUs"
	echo "tools: $(grep -o '"git_commit": "[^"]*"' "$RES/$label.json" | head -1)"
	echo "$R paired repetitions per program, modes in a new random order each; ${SECS} s per timed run; seed $SEED"
	echo "counters: medians per program op of the kernel's debugfs deltas (lock_sys = FUTEX_LOCK +"
	echo "FUTEX_LOCK_ADAPTIVE syscalls, unlock_sys = FUTEX_UNLOCK, sleeps, spins = spin phases,"
	echo "spin_acq = acquired while spinning, lost = lost_after_wake, stop_sleep/_resched/_vcpu ="
	echo "spin_stop_owner_sleeping/_need_resched/_vcpu_preempted, stop_other = the other spin_stop_*)"
	echo "and of the program's context switches (csw, rusage); the JSON has every debugfs counter"
	echo "(k_*, raw deltas per run).  The syscall ratio comes from one untimed run per mode with"
	echo "FUTEXLOCK_PRELOAD_STATS=1: syscalls from the kernel, acquisitions and unlocks from the preload"
	echo
	"$U/build/apps_table" "${specs[@]}"
} >"$RES/$label.txt"
echo "apps: wrote $RES/$label.txt and $RES/$label.json"
