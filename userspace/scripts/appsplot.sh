#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Plot of make apps (userspace/scripts/apps.sh) with gnuplot; python3 stdlib
# prepares the data.  For every Documentation/results/apps-<label>.json:
#   apps-<label>.{svg,png}   per program, the ratio to glibc (median of the
#                            paired repetitions, 95% bootstrap interval) of
#                            the A/A control, FUTEXLOCK_PRELOAD=lock (and its
#                            own A/A, lock-aa, where it ran) and
#                            =adaptive; the program's two-sided A/A band
#                            shaded grey; a point is coloured only where the
#                            engine's verdict (lib/compare.c) is faster
#                            (green) or slower (red), failed rows are marked
#   apps-<label>-adaptive.{svg,png}  where lock-aa ran: adaptive / lock per
#                            program against lock's own A/A band, the
#                            [0.95, 1.05] lines of issue 17's "resolved"
# Usage: appsplot.sh [JSON...]
set -u
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
fl_need_gnuplot appsplot.sh
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$RES"/apps-*.json)
[ -e "${files[0]}" ] || { echo "appsplot.sh: no apps-*.json in $RES (run make apps)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for js in "${files[@]}"; do
	base=${js%.json}
	"$PY" - "$js" "$tmp" "$base" <<'PYEOF' >"$tmp/plot.gp" || exit 1
import json, os, sys
src, tmp, base = sys.argv[1:]
j = json.load(open(src))
def esc(s):
    return s.replace("_", "\\\\_")
where = j.get("environment", "?")
if "TCG" in where:
    where = "VM/TCG EMULATION FIGURES (compare ratios only)"
env = "%s; kernel %s, %d CPUs, tools %s" % (where, j["meta"]["kernel"], j["meta"]["ncpus"],
                                         j["git_commit"])
# lock-aa (FUTEXLOCK_PRELOAD=lock again, lock's own A/A) where it ran
laa = any(r["type"] == "lock-aa" for t in j["tests"] for r in t["rows"])
# adaptive-nous (adaptive without the preload's user spin) where it ran
nous = any(r["type"] == "adaptive-nous" for t in j["tests"] for r in t["rows"])
modes = ["glibc-aa", "lock"] + (["lock-aa"] if laa else []) + ["adaptive"] + \
    (["adaptive-nous"] if nous else [])
colour = {"faster": "#2ca02c", "slower": "#d62728"}
def band(x0, x1, aa):
    """the grey rectangle of an A/A interval, two-sided as the engine
    judges it: [min(1, lo, 1/hi), max(1, hi, 1/lo)] from x0 to x1"""
    lo, hi = aa["lo"], aa["hi"]
    return (x0, x1, min(1, lo, 1 / hi), max(1, hi, 1 / lo))
pts, bands, labels, fails = [], [], [], []
x = 0
for t in j["tests"]:
    rows = {r["type"]: r for r in t["rows"]}
    aa = (rows.get("glibc-aa") or {}).get("value_ratio") or {}
    if "lo" in aa:
        bands.append(band(x - 0.4, x + len(modes) - 0.6, aa))
    for i, m in enumerate(modes):
        r = rows.get(m)
        c = (r or {}).get("value_ratio") or {}
        name = "A/A" if m == "glibc-aa" else m
        labels.append((x + i, "%s %s" % (esc(t["test"]) if i == 0 else "", name)))
        if r is None or r["failed"] or "median" not in c:
            fails.append(x + i)
            continue
        v = c["verdict"]
        pts.append((x + i, c["median"], c["lo"], c["hi"], colour.get(v, "#555555"), v))
    x += len(modes) + 1
def write_dat(name, pts):
    """the points (x, median, lo, hi, colour) for yerrorbars; its path"""
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        for p in pts:
            f.write("%g %g %g %g 0x%s\n" % (p[0], p[1], p[2], p[3], p[4][1:]))
    return path
def plot_points(path):
    P('plot "%s" using 1:2:3:4:5 with yerrorbars pt 7 ps 1.2 lw 2 lc rgb variable' % path)
def shade_bands(bands):
    """the grey A/A bands behind the points and the dashed line at 1"""
    P("unset object")
    for n, (a, b, lo, hi) in enumerate(bands, 1):
        P("set object %d rect from %g, %g to %g, %g fc rgb '#dddddd' fs solid 0.6 noborder behind"
          % (n, a, lo, b, hi))
    P("set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'black'")
def each_terminal(suffix, width):
    """svg, then png: <base><suffix>.<ext>, width x 520"""
    for term, ext in (("svg size %d,520 dynamic font 'sans,10'" % width, "svg"),
                      ("pngcairo size %d,520 font 'sans,9'" % width, "png")):
        P("set terminal " + term)
        P('set output "%s%s.%s"' % (base, suffix, ext))
        yield
pdat = write_dat("p.dat", pts)
P = print
P("set encoding utf8")
for _ in each_terminal("", 1100):
    P('set title "Real programs under the FUTEX\\\\_LOCK preload: ratio to glibc (higher = faster), '
      'median of %d paired repetitions, 95%% interval; grey: the program\'s A/A band\\n%s" font ",9"'
      % (j["tests"][0]["reps"], esc(env)))
    P("set logscale y; set grid y; unset key; set ylabel 'ratio to glibc'")
    P("set ytics (0.25, 0.33, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4)")
    P("set xrange [-1:%d]" % x)
    ys = [p[2] for p in pts] + [b[2] for b in bands] + [1.0]
    yh = [p[3] for p in pts] + [b[3] for b in bands] + [1.0]
    P("set yrange [%g:%g]" % (min(ys) / 1.25, max(yh) * 1.25))
    P("set xtics rotate by -35 font ',8' (%s)" % ", ".join('"%s" %g' % (l, xx) for xx, l in labels))
    shade_bands(bands)
    for n, xx in enumerate(fails):
        P("set label %d 'failed' at %g, graph 0.5 center rotate by 90 tc rgb '#d62728'" % (n + 1, xx))
    plot_points(pdat)
    P("unset label; unset arrow")

# Issue 17's figure for the programs: adaptive / lock per program, lock's
# own A/A (lock-aa / lock) as the band, the [0.95, 1.05] lines a resolved
# band must lie within; written only where lock-aa ran.  Where
# adaptive-nous ran, its two pairs beside it (adaptive-nous / lock: the
# kernel op's share; adaptive / adaptive-nous: the user spin's), each
# point labelled with its pair.
apts, abands, alabels = [], [], []
for t in j["tests"]:
    if t.get("adaptive_vs_lock_band") != "lock-aa":
        continue
    lines = [("", t.get("adaptive_vs_lock"), t.get("adaptive_vs_lock_issue17"))]
    lines += [("\\n%s / %s" % (q["num"], q["den"]), q.get("ratio"), q.get("issue17"))
              for q in t.get("pairs") or []]
    if len(lines) > 1:
        lines[0] = ("\\nadaptive / lock",) + lines[0][1:]
    for what, c, i17 in lines:
        c, i17 = c or {}, i17 or {}
        aa = c.get("aa") or {}
        if "median" not in c or "lo" not in aa:
            continue
        x = len(alabels)
        abands.append(band(x - 0.3, x + 0.3, aa))
        alabels.append((x, "%s%s\\nA/A width %.3f%s" % (
            esc(t["test"]), what, i17.get("aa_width", aa["hi"] - aa["lo"]),
            "" if i17.get("aa_resolved") else "\\nunresolved")))
        apts.append((x, c["median"], c["lo"], c["hi"], colour.get(c["verdict"], "#555555")))
if apts:
    adat = write_dat("a.dat", apts)
    for _ in each_terminal("-adaptive", 1000):
        P('set title "FUTEXLOCK\\\\_PRELOAD=adaptive over =lock%s (higher = faster), median of %d paired '
          'repetitions, 95%% interval\\ngrey: lock\'s own A/A band (lock-aa over lock); dotted: [0.95, 1.05], '
          'where a resolved band lies\\n%s" font ",9"'
          % (",\\nadaptive-nous (its user spin off) over lock, adaptive over adaptive-nous;" if nous else "",
             j["tests"][0]["reps"], esc(env)))
        P("unset logscale; set logscale y; set grid y; unset key; set ylabel '%s'"
          % ("ratio of the pair named below" if nous else "adaptive / lock"))
        P("set ytics (0.8, 0.85, 0.9, 0.95, 1, 1.05, 1.1, 1.2, 1.3, 1.5, 1.75, 2)")
        P("set xrange [-0.7:%g]" % (len(alabels) - 0.3))
        ys = [p[2] for p in apts] + [b[2] for b in abands] + [0.95]
        yh = [p[3] for p in apts] + [b[3] for b in abands] + [1.05]
        P("set yrange [%g:%g]" % (min(ys) / 1.05, max(yh) * 1.05))
        P("set bmargin 6")
        P("set xtics norotate font ',8' (%s)" % ", ".join('"%s" %g' % (l, xx) for xx, l in alabels))
        shade_bands(abands)
        P("set arrow 2 from graph 0, first 0.95 to graph 1, first 0.95 nohead dt 3 lc rgb '#888888'")
        P("set arrow 3 from graph 0, first 1.05 to graph 1, first 1.05 nohead dt 3 lc rgb '#888888'")
        plot_points(adat)
        P("unset arrow")
    open(os.path.join(tmp, "adaptive"), "w").close()
PYEOF
	gnuplot "$tmp/plot.gp" || { echo "appsplot.sh: gnuplot failed for $js" >&2; exit 1; }
	echo "appsplot.sh: wrote $base.svg $base.png"
	if [ -e "$tmp/adaptive" ]; then
		rm -f "$tmp/adaptive"
		echo "appsplot.sh: wrote $base-adaptive.svg $base-adaptive.png"
	fi
done
