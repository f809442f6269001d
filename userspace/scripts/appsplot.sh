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
modes = ["glibc-aa", "lock"] + (["lock-aa"] if laa else []) + ["adaptive"]
colour = {"faster": "#2ca02c", "slower": "#d62728"}
pts, bands, labels, fails = [], [], [], []
x = 0
for t in j["tests"]:
    rows = {r["type"]: r for r in t["rows"]}
    aa = (rows.get("glibc-aa") or {}).get("value_ratio") or {}
    if "lo" in aa:
        lo, hi = aa["lo"], aa["hi"]
        bands.append((x - 0.4, x + len(modes) - 0.6, min(1, lo, 1 / hi), max(1, hi, 1 / lo)))
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
with open(os.path.join(tmp, "p.dat"), "w") as f:
    for p in pts:
        f.write("%g %g %g %g 0x%s\n" % (p[0], p[1], p[2], p[3], p[4][1:]))
P = print
P("set encoding utf8")
for term, ext in (("svg size 1100,520 dynamic font 'sans,10'", "svg"),
                  ("pngcairo size 1100,520 font 'sans,9'", "png")):
    P("set terminal " + term)
    P('set output "%s.%s"' % (base, ext))
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
    P("unset object")
    for n, (a, b, lo, hi) in enumerate(bands, 1):
        P("set object %d rect from %g, %g to %g, %g fc rgb '#dddddd' fs solid 0.6 noborder behind"
          % (n, a, lo, b, hi))
    P("set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'black'")
    for n, xx in enumerate(fails):
        P("set label %d 'failed' at %g, graph 0.5 center rotate by 90 tc rgb '#d62728'" % (n + 1, xx))
    P('plot "%s" using 1:2:3:4:5 with yerrorbars pt 7 ps 1.2 lw 2 lc rgb variable'
      % os.path.join(tmp, "p.dat"))
    P("unset label; unset arrow")
PYEOF
	gnuplot "$tmp/plot.gp" || { echo "appsplot.sh: gnuplot failed for $js" >&2; exit 1; }
	echo "appsplot.sh: wrote $base.svg $base.png"
done
