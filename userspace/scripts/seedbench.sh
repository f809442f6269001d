#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The three seed write-up benchmarks (lockbench, wakebench, queuebench) in
# one go, on whatever machine this runs: `make seedbench` runs it in the
# VM (base kernel) and natively on the host.  Writes into
# Documentation/results/:
#   seed-<label>-<run>.txt    the table, headed by the machine description
#   seed-<label>-<run>.json   the same run's JSON, meta.environment added
# <label>: seed-vm-tcg-<kernel>-smp<n> in the TCG guest, else
# seed-host-<kernel>-cpu<n> (override: FL_SEED_LABEL).
# FL_SEED_ONLY="name,...": only these runs (names as in the runs table).
# Usage: seedbench.sh [quick|full]   (default full; quick: a first look,
#        about 30 s on 2 CPUs).  Sizes are chosen per environment: under
#        TCG the runs are smaller so the guest part stays under ~10 min.
set -u
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
B=$REPO/userspace/build
size=${1:-full}
case $size in quick|full) ;; *) echo "usage: $0 [quick|full]" >&2; exit 2 ;; esac
for t in lockbench wakebench queuebench; do
	[ -x "$B/$t" ] || { echo "seedbench: $B/$t missing: make -C userspace" >&2; exit 1; }
done
env_desc=$(fl_env_desc)
label=${FL_SEED_LABEL:-$(fl_env_label seed)}
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mkdir -p "$RES"
tcg=0
case $env_desc in QEMU*) tcg=1 ;; esac
ncpu=$(nproc)
wmax=$((ncpu * 2))

# name, then the tool's arguments
if [ "$size" = quick ]; then
	runs=(
		"lockbench|lockbench --quick"
		"wakebench|wakebench --quick -w 1..$ncpu"
		"queuebench|queuebench --quick"
	)
elif [ $tcg = 1 ]; then
	runs=(
		"lockbench|lockbench -r 30 -T wait"
		"lockbench-idle|lockbench -r 100 -T idle"
		"lockbench-fifo|lockbench -r 20 -l 8192 --sched fifo"
		"wakebench|wakebench -w 1..$ncpu -r 10 -n 30"
		"wakebench-fifo|wakebench -w $((ncpu > 1 ? ncpu - 1 : 1)) -r 10 -n 30 --sched fifo"
		"queuebench|queuebench -r 10 -j 10000"
	)
else
	# the host: the write-up's sizes for lockbench (100 / 1000 repetitions)
	runs=(
		"lockbench|lockbench -T wait"
		"lockbench-idle|lockbench -T idle"
		"lockbench-over|lockbench -t $wmax -r 30"
		"wakebench|wakebench -w 1..$wmax -r 20 -n 50"
		"queuebench|queuebench -r 20"
		"queuebench-over|queuebench -w $wmax -r 20"
	)
fi

echo "seedbench: $label; $env_desc; $size"
t0=$SECONDS
rc=0
for r in "${runs[@]}"; do
	name=${r%%|*}
	args=${r#*|}
	if [ -n "${FL_SEED_ONLY:-}" ]; then
		case ",${FL_SEED_ONLY// /,}," in *",$name,"*) ;; *) continue ;; esac
	fi
	base=$RES/$label-$name
	s=$SECONDS
	{
		echo "# $label: $env_desc"
		echo "# cpu: $cpu x $ncpu; kernel $(uname -r); $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		[ $tcg = 1 ] && echo "# TCG: every time below is an emulation figure; compare ratios within one table only"
		echo "# command: $args"
	} >"$base.txt"
	# shellcheck disable=SC2086
	"$B"/$args --json-file "$base.json.tmp" >>"$base.txt" 2>"$base.err"
	st=$?
	if [ $st -ne 0 ]; then
		echo "seedbench: $name failed (exit $st):" >&2
		cat "$base.err" >&2
		rc=1
	fi
	cat "$base.err" >>"$base.txt"
	rm -f "$base.err"
	"$PY" - "$base.json.tmp" "$base.json" "$label" "$env_desc" "$args" <<'PYEOF' || rc=1
import json, sys, time
src, dst, label, env, args = sys.argv[1:]
j = json.load(open(src))
j["meta"].update({"label": label, "environment": env, "command": args,
                  "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
json.dump(j, open(dst, "w"), indent=1)
PYEOF
	rm -f "$base.json.tmp"
	echo "seedbench: $name done in $((SECONDS - s)) s -> ${base#"$REPO"/}.{txt,json}"
done
echo "seedbench: $label done in $((SECONDS - t0)) s"
exit $rc
