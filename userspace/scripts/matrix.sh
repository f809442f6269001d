#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Result matrix (what the 2010 RFC promised): sweep threads x hold loops x
# outside loops for every lock mode, time-bounded runs (--duration), all
# modes in paired repetitions in random order per cell (--compare, with its
# A/A control row). Run in the guest by `make matrix` (or on any machine).
# Writes into Documentation/results/:
#   matrix-<label>.csv   one row per cell x mode: median Kiter/s, ratio to
#                        the baseline with its 95% interval and verdict, and
#                        whether the mode is the cell's *separated* winner
#                        (paired ratio to the runner-up "faster" by futex_lock's
#                        comparison engine, lib/compare.c: interval above 1
#                        and above the cell's A/A band, >= 5 pairs), the
#                        cell's A/A interval, aa_ok, insufficient, schema
#                        version, git commit and seed
#   matrix-<label>.json  machine description + the full futex_lock JSON per cell
# Env: FL_MATRIX_LABEL (default vm-<kernel>-smp<ncpus> or host-...),
#      FL_MATRIX_THREADS ("2 8 256"), FL_MATRIX_HOLD ("0 1000"),
#      FL_MATRIX_OUTSIDE ("0 10000"), FL_MATRIX_DURATION (0.2 s),
#      FL_MATRIX_REPEAT (10), FL_MATRIX_MODES (all).
# 12 cells x 9 instances x 10 x 0.2 s: several minutes under TCG at -smp 2
# (the earlier 48-cell, 2-repetition matrix could not separate most cells).
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
FL=$REPO/userspace/build/futex_lock
OUT=${FL_MATRIX_OUT:-$REPO/Documentation/results}
THREADS=${FL_MATRIX_THREADS:-"2 8 256"}
HOLDS=${FL_MATRIX_HOLD:-"0 1000"}
OUTS=${FL_MATRIX_OUTSIDE:-"0 10000"}
DUR=${FL_MATRIX_DURATION:-0.2}
REP=${FL_MATRIX_REPEAT:-10}
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


def separated_winner(cell):
    """the best mode, the runner-up and their paired ratio, as futex_lock's
    comparison engine (lib/compare.c) judged it against the cell's A/A band;
    separated only with a verdict of "faster"."""
    w = cell["result"].get("winner")
    if not w:
        return None, None, None
    return w["best"], w["runner_up"], w.get("comparison")


cols = ["label", "kernel", "threads", "hold_loops", "outside_loops", "mode",
        "instance", "control", "baseline", "available", "runs",
        "median_kiter_s", "min_kiter_s", "max_kiter_s", "spread_pct",
        "ratio", "ratio_lo", "ratio_hi", "pairs", "verdict",
        "lock_syscall_pct", "unlock_syscall_pct", "kiter_per_cpu_s",
        "cpu_s_per_kiter", "voluntary_ctxsw_per_kiter",
        "involuntary_ctxsw_per_kiter", "latency_p50_us", "latency_p99_us",
        "thread_cv_pct", "winner", "runner_up", "win_ratio", "win_lo", "win_hi",
        "win_verdict", "better", "aa_ratio", "aa_lo", "aa_hi", "aa_ok",
        "insufficient", "min_pairs", "schema_version", "git_commit", "seed"]
with open(base + ".csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(cols)
    for c in cells:
        s = c["result"].get("summary", [])
        best, second, wc = separated_winner(c)
        sep = wc is not None and wc.get("verdict") == "faster"
        r = c["result"]
        aa = r.get("aa") or {}
        for m in s:
            is_best = m["instance"] == best
            row = {"label": label, "kernel": meta["kernel"], "threads": c["threads"],
                   "hold_loops": c["hold_loops"], "outside_loops": c["outside_loops"],
                   "control": int(m["control"]), "baseline": int(m["baseline"]),
                   "available": int(m["available"]), "runs": m["runs"],
                   # 1: separated winner; "tie": best median, not separated
                   "winner": (1 if sep else "tie") if is_best else 0,
                   "runner_up": second if is_best else "",
                   "win_ratio": "", "win_lo": "", "win_hi": "", "win_verdict": "",
                   # the cell's A/A band and the engine's flags (lib/compare.c)
                   "better": "higher", "aa_ratio": aa.get("median", ""),
                   "aa_lo": aa.get("lo", ""), "aa_hi": aa.get("hi", ""),
                   "aa_ok": "" if r.get("aa_ok") is None else int(r["aa_ok"]),
                   "insufficient": int(bool((m.get("comparison") or {}).get("insufficient"))),
                   "min_pairs": r.get("min_pairs", ""),
                   "schema_version": r.get("schema_version", ""),
                   "git_commit": r.get("git_commit", ""), "seed": r.get("seed", "")}
            if is_best and wc:
                row["win_ratio"], row["win_lo"], row["win_hi"], row["win_verdict"] = (
                    wc["median"], wc["lo"], wc["hi"], wc["verdict"])
            for k in cols:
                if k not in row:
                    v = m.get(k)
                    row[k] = "" if v is None else (round(v, 4) if isinstance(v, float) else v)
            wr.writerow([row[k] for k in cols])
print("matrix: wrote %s.csv and %s.json (%d cells)" % (base, base, len(cells)))
PYEOF
echo "matrix: done in $((SECONDS - t0)) s"
