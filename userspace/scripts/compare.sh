#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What `make run` executes in the guest: kernel + probe, the RFC blocks of
# `futex_lock -i N` and `futex_lock -a -i N` (256 threads as in the RFC,
# RFC delays 1000/10000), the --compare table of every lock, and
# `perf stat` per mode when a working perf exists.
# Sizes (env): FL_RUN_ITER (RFC runs, default 20000), FL_CMP_ITER (default
# 20000), FL_CMP_THREADS (8), FL_CMP_REPEAT (3), FL_PERF_ITER (10000).
# Tuned for ~2-4 minutes under QEMU TCG at -smp 2; figures from an
# emulator are only comparable as ratios within one run.
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
FL=$REPO/userspace/build/futex_lock
N=${FL_RUN_ITER:-20000}
CN=${FL_CMP_ITER:-20000}
CT=${FL_CMP_THREADS:-8}
CR=${FL_CMP_REPEAT:-3}
PN=${FL_PERF_ITER:-10000}
rc=0
t0=$SECONDS

[ -x "$FL" ] || { echo "compare.sh: $FL missing: make -C userspace" >&2; exit 1; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "== futex_lock on $(uname -sr), $(nproc) CPUs ($cpu) =="
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
"$FL" --probe

for a in "" "-a"; do
	echo
	echo "# futex_lock $a -i $N        (defaults: 256 threads, -d 1000 -w 10000)"
	"$FL" $a -i "$N" || rc=1
done

echo
echo "# futex_lock --compare -i $CN -t $CT -r $CR"
"$FL" --compare -i "$CN" -t "$CT" -r "$CR" || rc=1

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
	echo "# perf stat -e task-clock,context-switches,cpu-migrations ($perf), futex_lock -m MODE -i $PN -t $CT"
	printf '%-17s %14s %14s %14s %10s\n' mode task-clock-ms ctx-switches migrations Kiter/s
	for m in futex_lock adaptive pi waitwake waitwake-spin pthread pthread-adaptive spin; do
		if ! out=$("$perf" stat -x, -e task-clock,context-switches,cpu-migrations \
				"$FL" -m "$m" -i "$PN" -t "$CT" 2>&1); then
			printf '%-17s %14s\n' "$m" unavailable
			continue
		fi
		tc=$(awk -F, '$3=="task-clock"{printf "%.1f",$1}' <<<"$out")
		cs=$(awk -F, '$3=="context-switches"{print $1}' <<<"$out")
		mg=$(awk -F, '$3=="cpu-migrations"{print $1}' <<<"$out")
		kr=$(sed -n 's/^Result: \([0-9]*\) Kiter\/s$/\1/p' <<<"$out")
		printf '%-17s %14s %14s %14s %10s\n' "$m" "$tc" "$cs" "$mg" "$kr"
	done
fi
echo
echo "# compare.sh took $((SECONDS - t0)) s"
exit $rc
