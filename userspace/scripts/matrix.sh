#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Result matrix (what the 2010 RFC promised): sweep threads x hold loops x
# outside loops for every lock mode, time-bounded runs (--duration), all
# modes interleaved per cell (--compare). Run in the guest by `make matrix`
# (or on any machine). Writes into Documentation/results/:
#   matrix-<label>.csv   one row per cell x mode (medians over the repeats)
#   matrix-<label>.json  machine description + the full futex_lock JSON per cell
# Env: FL_MATRIX_LABEL (default vm-<kernel>-smp<ncpus> or host-...),
#      FL_MATRIX_THREADS ("1 2 4 8 32 256"), FL_MATRIX_HOLD ("0 100 1000 10000"),
#      FL_MATRIX_OUTSIDE ("0 10000"), FL_MATRIX_DURATION (0.5 s),
#      FL_MATRIX_REPEAT (2), FL_MATRIX_MODES (all).
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
FL=$REPO/userspace/build/futex_lock
OUT=${FL_MATRIX_OUT:-$REPO/Documentation/results}
THREADS=${FL_MATRIX_THREADS:-"1 2 4 8 32 256"}
HOLDS=${FL_MATRIX_HOLD:-"0 100 1000 10000"}
OUTS=${FL_MATRIX_OUTSIDE:-"0 10000"}
DUR=${FL_MATRIX_DURATION:-0.5}
REP=${FL_MATRIX_REPEAT:-2}
MODES=${FL_MATRIX_MODES:-}
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

[ -x "$FL" ] || { echo "matrix.sh: $FL missing: make -C userspace" >&2; exit 1; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
# where are we: QEMU TCG shows a QEMU CPU model; a hypervisor flag otherwise
# means some VM (KVM with -cpu host); no flag: bare metal.
if [ -n "${FL_MATRIX_ENV:-}" ]; then
	env_desc=$FL_MATRIX_ENV
elif grep -qi 'qemu\|tcg' <<<"$cpu"; then
	env_desc="QEMU TCG emulation (timings are emulated; compare ratios only)"
elif grep -qw hypervisor /proc/cpuinfo; then
	env_desc="virtual machine (hypervisor flag set)"
else
	env_desc="bare metal"
fi
if [ -z "${FL_MATRIX_LABEL:-}" ]; then
	case $env_desc in
	QEMU*) FL_MATRIX_LABEL=vm-tcg-$(uname -r)-smp$(nproc) ;;
	*) FL_MATRIX_LABEL=host-$(uname -r)-cpu$(nproc) ;;
	esac
fi
label=$FL_MATRIX_LABEL
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
margs=()
for m in $MODES; do margs+=(-m "$m"); done

ncell=$(( $(wc -w <<<"$THREADS") * $(wc -w <<<"$HOLDS") * $(wc -w <<<"$OUTS") ))
echo "matrix: $label; $env_desc; $ncell cells x ${MODES:-8 modes} x $REP x ${DUR}s"
"$FL" --probe
t0=$SECONDS
i=0
for w in $OUTS; do
	for h in $HOLDS; do
		for t in $THREADS; do
			i=$((i + 1))
			f=$tmp/cell-$t-$h-$w.json
			if ! "$FL" --compare --duration "$DUR" -r "$REP" -t "$t" -d "$h" \
					-w "$w" "${margs[@]}" --json >"$f" 2>"$tmp/err"; then
				echo "matrix: cell threads=$t hold=$h outside=$w failed:" >&2
				cat "$tmp/err" >&2
			fi
			printf '[%3d/%d %4ds] threads=%-3s hold=%-5s outside=%-5s\n' \
				"$i" "$ncell" $((SECONDS - t0)) "$t" "$h" "$w"
		done
	done
done

"$PY" - "$tmp" "$OUT/matrix-$label" "$label" "$env_desc" "$cpu" "$(nproc)" "$DUR" "$REP" <<'PYEOF'
import csv, glob, json, os, platform, sys, time
tmp, base, label, env, cpu, ncpu, dur, rep = sys.argv[1:]
cells = []
for f in glob.glob(os.path.join(tmp, "cell-*.json")):
    t, h, w = map(int, os.path.basename(f)[5:-5].split("-"))
    try:
        j = json.load(open(f))
    except ValueError:
        continue
    cells.append({"threads": t, "hold_loops": h, "outside_loops": w, "result": j})
cells.sort(key=lambda c: (c["outside_loops"], c["hold_loops"], c["threads"]))
meta = {"label": label, "environment": env, "cpu": cpu, "ncpus": int(ncpu),
        "kernel": platform.release(), "duration_s": float(dur),
        "repeat": int(rep), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
json.dump({"meta": meta, "cells": cells}, open(base + ".json", "w"), indent=1)
cols = ["label", "kernel", "threads", "hold_loops", "outside_loops", "mode",
        "available", "runs", "median_kiter_s", "min_kiter_s", "max_kiter_s",
        "spread_pct", "ratio_to_futex_lock", "lock_syscall_pct",
        "unlock_syscall_pct", "kiter_per_cpu_s", "longest_wait_us",
        "thread_cv_pct", "winner"]
with open(base + ".csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(cols)
    for c in cells:
        s = c["result"]["summary"]
        ok = [m for m in s if m.get("runs")]
        win = max(ok, key=lambda m: m["median_kiter_s"])["mode"] if ok else ""
        for m in s:
            row = {"label": label, "kernel": meta["kernel"], "threads": c["threads"],
                   "hold_loops": c["hold_loops"], "outside_loops": c["outside_loops"],
                   "mode": m["mode"], "available": int(m["available"]),
                   "runs": m["runs"], "winner": int(m["mode"] == win)}
            for k in cols:
                if k not in row:
                    v = m.get(k)
                    row[k] = "" if v is None else (round(v, 4) if isinstance(v, float) else v)
            wr.writerow([row[k] for k in cols])
print("matrix: wrote %s.csv and %s.json (%d cells)" % (base, base, len(cells)))
PYEOF
echo "matrix: done in $((SECONDS - t0)) s"
