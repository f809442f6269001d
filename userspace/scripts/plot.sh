#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host side of the result matrix: for every Documentation/results/matrix-*.csv
# draw with gnuplot (Debian gnuplot-nox; python3 stdlib prepares the data):
#   matrix-<label>-winner.svg/.png    which lock wins where (threads x hold,
#                                     one panel per outside-loop value); only
#                                     separated winners (paired ratio to the
#                                     runner-up "faster": 95% interval above
#                                     1 and the A/A band, lib/compare.c) are
#                                     coloured, other cells say "no winner"
#   matrix-<label>-curves.svg/.png       Kiter/s vs threads, one line per lock,
#                                     one panel per (hold, outside)
#   matrix-<label>-adaptive.svg/.png  FUTEX_LOCK_ADAPTIVE / FUTEX_LOCK ratio with
#                                     its interval, coloured only where the
#                                     CSV's verdict (the engine's, against the
#                                     cell's two-sided A/A band) is faster or
#                                     slower; other cells are white and say
#                                     "≈" with the verdict
# Usage: plot.sh [CSV...]
set -u
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
fl_need_gnuplot plot.sh
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$RES"/matrix-*.csv)
[ -e "${files[0]}" ] || { echo "plot.sh: no matrix CSV in $RES (run make matrix)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for csv in "${files[@]}"; do
	base=${csv%.csv}
	"$PY" - "$csv" "$tmp" "$base" <<'PYEOF' >"$tmp/plot.gp" || exit 1
import csv, sys, os
src, tmp, base = sys.argv[1:]
rows = list(csv.DictReader(open(src)))
label = rows[0]["label"]
# the A/A control row repeats the baseline's mode: not a mode of its own
rows = [r for r in rows if r.get("control", "0") != "1"]
# a lock is an instance: the same mode may run again with other debugfs
# settings (adaptive@spin_check_first_wake=0), which is not the lock itself
def inst(r):
    return r.get("instance") or r["mode"]
modes = []
for r in rows:
    if inst(r) not in modes:
        modes.append(inst(r))
colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
          "#e377c2", "#7f7f7f"]
col = {m: colors[i % len(colors)] for i, m in enumerate(modes)}
ths = sorted({int(r["threads"]) for r in rows})
hs = sorted({int(r["hold_loops"]) for r in rows})
ws = sorted({int(r["outside_loops"]) for r in rows})
val = {}
win = {}
for r in rows:
    if r.get("winner") in ("1", "tie"):
        win[(int(r["threads"]), int(r["hold_loops"]), int(r["outside_loops"]))] = r
for r in rows:
    if r["median_kiter_s"]:
        val[(int(r["threads"]), int(r["hold_loops"]), int(r["outside_loops"]), inst(r))] = float(r["median_kiter_s"])
env = label
try:
    import json
    meta = json.load(open(base + ".json"))["meta"]
    env = "%s: %s, %s x %s, kernel %s, %s" % (label, meta["environment"], meta["cpu"],
                                         meta["ncpus"], meta["kernel"], meta["date"])
except (OSError, ValueError, KeyError):
    pass
# make matrix in the guest: the figures are emulation figures, and say so
if "QEMU" in env or "-tcg-" in label:
    env = "VM/TCG EMULATION FIGURES (compare ratios only)\\n" + env.replace(
        " (timings are emulated; compare ratios only)", "")
env = env.replace("_", "\\_")
# issue 17: only a resolved cell counts (A/A interval within the band);
# cells the matrix recorded unresolved are hatched and say so.  Older CSVs
# have no resolved column: nothing is marked.
unres = {}
for r in rows:
    if r.get("resolved") == "0":
        unres[(int(r["threads"]), int(r["hold_loops"]), int(r["outside_loops"]))] = r.get("aa_width", "")


def write_unres(w):
    fn = os.path.join(tmp, "unres-%d.dat" % w)
    with open(fn, "w") as f:
        for yi, h in enumerate(hs):
            for xi, t in enumerate(ths):
                if (t, h, w) in unres:
                    f.write('%d %d "UNRESOLVED A/A w %s"\n' % (xi, yi, unres[(t, h, w)]))
    return fn


def unres_layer(w):
    """plot clauses: hatched boxes (under the cell labels) and a label on
    the unresolved cells"""
    fn = write_unres(w)
    if not os.path.getsize(fn):
        return "", ""
    return (', "%s" using 1:2:(0.5):(0.5) with boxxyerror fs transparent pattern 5 border '
            'fc rgb "#606060"' % fn,
            ', "%s" using 1:($2-0.38):3 with labels font ",7" textcolor rgb "black"' % fn)
out = []
P = out.append
P('set encoding utf8')
P('set style fill solid 1.0 noborder')
# ---- winner heatmap ----
for w in ws:
    fn = os.path.join(tmp, "win-%d.dat" % w)
    with open(fn, "w") as f:
        for yi, h in enumerate(hs):
            for xi, t in enumerate(ths):
                r = win.get((t, h, w))
                if not r:
                    continue
                m = inst(r)
                # "\\\\_": an underscore, not a subscript, in enhanced text
                esc = lambda x: x.replace("_", "\\\\_")
                if r["winner"] == "1":
                    rgb = int(col[m][1:], 16)
                    f.write('%d %d %d "%s\\nx%.2f [%.2f-%.2f]"\n' % (
                        xi, yi, rgb, esc(m), float(r["win_ratio"]),
                        float(r["win_lo"]), float(r["win_hi"])))
                else:
                    f.write('%d %d %d "no separated winner\\n(best median: %s)"\n' % (
                        xi, yi, 0x9a9a9a, esc(m)))
def axes():
    P('set xtics (%s)' % ", ".join('"%d" %d' % (t, i) for i, t in enumerate(ths)))
    P('set ytics (%s)' % ", ".join('"%d" %d' % (h, i) for i, h in enumerate(hs)))
    P('set xrange [-0.5:%f]' % (len(ths) - 0.5))
    P('set yrange [-0.5:%f]' % (len(hs) - 0.5))
    P('set xlabel "threads"; set ylabel "hold loops (-d)"')
for term, ext in (("svg size 1100,%d dynamic font 'sans,11'", "svg"),
                  ("pngcairo size 1100,%d font 'sans,10'", "png")):
    P("set terminal " + term % (430 * len(ws)))
    P('set output "%s-winner.%s"' % (base, ext))
    P('set multiplot layout %d,1 title "Which lock wins where: only winners whose paired ratio to the runner-up has a 95%% interval above 1 and above the A/A band \\n(grey: no separated winner; hatched: unresolved cell, A/A interval outside the band)\\n%s"' % (len(ws), env))
    axes()
    P('unset key')
    for w in ws:
        P('set title "outside loops (-w) = %d"' % w)
        fn = os.path.join(tmp, "win-%d.dat" % w)
        hatch, ulab = unres_layer(w)
        P('plot "%s" using 1:2:(0.5):(0.5):3 with boxxyerror fc rgb variable%s, '
          '"%s" using 1:2:4 with labels textcolor rgb "white" font ",9"%s' % (fn, hatch, fn, ulab))
    P('unset multiplot')
# ---- curves ----
for w in ws:
    for h in hs:
        for m in modes:
            with open(os.path.join(tmp, "c-%d-%d-%s.dat" % (w, h, m)), "w") as f:
                for t in ths:
                    if (t, h, w, m) in val:
                        f.write("%d %g\n" % (t, val[(t, h, w, m)]))
for term, ext in (("svg size %d,%d dynamic font 'sans,10'", "svg"),
                  ("pngcairo size %d,%d font 'sans,9'", "png")):
    P("set terminal " + term % (380 * len(hs), 330 * len(ws)))
    P('set output "%s-curves.%s"' % (base, ext))
    P('set multiplot layout %d,%d title "Kiter/s vs threads (median), %s"' % (len(ws), len(hs), env))
    P('unset xrange; unset yrange; set autoscale')
    P('set logscale x 2; set logscale y; set xtics auto; set ytics auto')
    P('set xlabel "threads"; set ylabel "Kiter/s"; set key outside bottom center horizontal font ",8"')
    P('set grid')
    for w in ws:
        for h in hs:
            P('set title "hold %d, outside %d"' % (h, w))
            parts = []
            for m in modes:
                fn = os.path.join(tmp, "c-%d-%d-%s.dat" % (w, h, m))
                if os.path.getsize(fn):
                    parts.append('"%s" using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb "%s" title "%s"' % (fn, col[m], m))
            if parts:
                P("plot " + ", ".join(parts))
    P('unset multiplot')
    P('unset logscale; unset grid')
# ---- adaptive / futex_lock ratio ----
# adaptive's ratio and interval are paired against the baseline futex_lock
ad = {(int(r["threads"]), int(r["hold_loops"]), int(r["outside_loops"])): r
      for r in rows if inst(r) == "adaptive" and r.get("ratio_lo")}
have = bool(ad) and any(r["mode"] == "futex_lock" and r.get("baseline") == "1" for r in rows)
if have:
    for w in ws:
        with open(os.path.join(tmp, "ad-%d.dat" % w), "w") as f:
            for yi, h in enumerate(hs):
                for xi, t in enumerate(ths):
                    r = ad.get((t, h, w))
                    if not r:
                        continue
                    q, lo, hi = float(r["ratio"]), float(r["ratio_lo"]), float(r["ratio_hi"])
                    # the engine's verdict (lib/compare.c, the A/A band of
                    # the cell), never a rule of this script's own
                    if r["verdict"] not in ("faster", "slower"):
                        f.write('%d %d 1 "≈%.2f\\n[%.2f-%.2f]\\n%s"\n' % (
                            xi, yi, q, lo, hi, r["verdict"] or "-"))
                    else:
                        f.write('%d %d %g "%.2f\\n[%.2f-%.2f]"\n' % (xi, yi, q, q, lo, hi))
    for term, ext in (("svg size 900,%d dynamic font 'sans,11'", "svg"),
                      ("pngcairo size 900,%d font 'sans,10'", "png")):
        P("set terminal " + term % (400 * len(ws)))
        P('set output "%s-adaptive.%s"' % (base, ext))
        P('set multiplot layout %d,1 title "FUTEX\\\\_LOCK\\\\_ADAPTIVE / FUTEX\\\\_LOCK throughput, paired median [95%% interval]\\n>1: spinning helps; white ≈: no verdict against the cell\'s A/A band; hatched: unresolved cell\\n%s"' % (len(ws), env))
        axes()
        P('set palette defined (0.5 "#b2182b", 1 "white", 1.5 "#2166ac")')
        P('set cbrange [0.5:1.5]')
        P('unset key')
        for w in ws:
            P('set title "outside loops (-w) = %d"' % w)
            fn = os.path.join(tmp, "ad-%d.dat" % w)
            hatch, ulab = unres_layer(w)
            P('plot "%s" using 1:2:(0.5):(0.5):3 with boxxyerror fc palette%s, '
              '"%s" using 1:2:4 with labels font ",9"%s' % (fn, hatch, fn, ulab))
        P('unset multiplot')
print("\n".join(out))
PYEOF
	gnuplot "$tmp/plot.gp" || { echo "plot.sh: gnuplot failed on $csv" >&2; exit 1; }
	ls "$base"-*.svg "$base"-*.png 2>/dev/null | sed 's/^/plot.sh: wrote /'
done
