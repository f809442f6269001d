#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Plots of the seed benchmarks (seedbench.sh) with gnuplot; python3 stdlib
# prepares the data.  For every Documentation/results/seed-<label>-*.json:
#   seed-<label>-wakebench-order.{svg,png}  mean wake time by wake order,
#                                  one line per method, a panel per W >= 2
#                                  (the Windows post's "average wake time
#                                  in order")
#   seed-<label>-lockbench.{svg,png}  p50 / p99 / p99.9 / max wait or idle
#                                  per lock type, a panel per lockbench run
#   seed-<label>-queuebench.{svg,png} launch, throughput and pre-queued
#                                  ratios to the baseline with 95% intervals
# Usage: seedplot.sh [LABEL...]   (default: every label found)
set -u
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
fl_need_gnuplot seedplot.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
labels=("$@")
if [ ${#labels[@]} -eq 0 ]; then
	mapfile -t labels < <(ls "$RES"/seed-*-lockbench.json "$RES"/seed-*-wakebench.json \
		"$RES"/seed-*-queuebench.json 2>/dev/null |
		sed -E 's#.*/(seed-.*)-(lockbench|wakebench|queuebench)\.json#\1#' | sort -u)
fi
[ ${#labels[@]} -gt 0 ] || { echo "seedplot.sh: no seed-*.json in $RES (run make seedbench)"; exit 0; }

for label in "${labels[@]}"; do
	"$PY" - "$RES" "$label" "$tmp" <<'PYEOF' >"$tmp/plot.gp" || exit 1
import glob, json, os, sys
res, label, tmp = sys.argv[1:]
base = os.path.join(res, label)
out = []
P = out.append
def esc(s):
    return s.replace("_", "\\\\_")
def load(pattern):
    r = []
    for f in sorted(glob.glob(base + "-" + pattern + ".json")):
        try:
            r.append((os.path.basename(f)[len(label) + 1:-5], json.load(open(f))))
        except ValueError:
            pass
    return r
def envline(j):
    m = j["meta"]
    e = "%s, %s x %d, kernel %s" % (m.get("environment", "?"), m["cpu"], m["ncpus"], m["kernel"])
    if "TCG" in e:
        e += " - EMULATION FIGURES"
    return esc(e)
colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39",
          "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363"]
terms = (("svg size %d,%d dynamic font 'sans,10'", "svg"), ("pngcairo size %d,%d font 'sans,9'", "png"))
P("set encoding utf8")

# ---- wakebench: wake time by wake order ----
for name, j in load("wakebench*"):
    sweeps = [s for s in j["sweep"] if s["workers"] >= 2] or j["sweep"]
    for s in sweeps:
        for r in s["rows"]:
            if r["aa"] or not r["runs"]:
                continue
            fn = os.path.join(tmp, "w-%s-%d-%s.dat" % (name, s["workers"], r["method"].replace(":", "_")))
            with open(fn, "w") as f:
                for i, v in enumerate(r["by_order_us"]):
                    f.write("%d %g\n" % (i + 1, v))
    for term, ext in terms:
        P("set terminal " + term % (900, 480 * len(sweeps)))
        P('set output "%s-%s-order.%s"' % (base, name, ext))
        P('set multiplot layout %d,1 title "Mean wake time by wake order (1st..last woken), %s\\n%s"'
          % (len(sweeps), esc(name), envline(j)))
        P('set logscale y; set grid; set xlabel "wake order"; set ylabel "us after the trigger"')
        P('set key outside right top font ",8"')
        for s in sweeps:
            P('set title "%d workers + main, %d repetitions x %d wake-ups"' % (s["workers"], s["reps"], s["runs"]))
            P('set xtics 1')
            parts = []
            for i, r in enumerate(x for x in s["rows"] if not x["aa"] and x["runs"]):
                fn = os.path.join(tmp, "w-%s-%d-%s.dat" % (name, s["workers"], r["method"].replace(":", "_")))
                dt = 1 if i < len(colors) else 2
                parts.append('"%s" using 1:2 with linespoints lw 2 dt %d pt 7 ps 0.6 lc rgb "%s" title "%s"'
                             % (fn, dt, colors[i % len(colors)], esc(r["method"])))
            if parts:
                P("plot " + ", ".join(parts))
        P("unset multiplot; unset logscale; unset grid")

# ---- lockbench: latency quantiles per type ----
lbs = []
for name, j in load("lockbench*"):
    for t in j["tests"]:
        lbs.append((name, j, t))
if lbs:
    for n, (name, j, t) in enumerate(lbs):
        with open(os.path.join(tmp, "l-%d.dat" % n), "w") as f:
            for r in t["rows"]:
                if not r["available"] or not r["runs"]:
                    continue
                nm = r["type"] + (" (A/A)" if r["aa"] else "")
                f.write('"%s" %g %g %g %g\n' % (esc(nm), max(r["p50_us"], 0.005), max(r["p99_us"], 0.005),
                                                max(r["p999_us"], 0.005), max(r["max_us"], 0.005)))
    for term, ext in terms:
        P("set terminal " + term % (1000, 420 * len(lbs)))
        P('set output "%s-lockbench.%s"' % (base, ext))
        P('set multiplot layout %d,1 title "lockbench: how long the lock kept a thread waiting (wait) or sat idle while wanted (idle)\\n%s"'
          % (len(lbs), envline(lbs[0][1])))
        P('set style data histograms; set style histogram clustered gap 1; set style fill solid 0.9 noborder')
        P('set logscale y; set grid y; set xlabel ""; set ylabel "us"; set xtics rotate by -30 font ",8"')
        P('set key top left horizontal font ",8"')
        for n, (name, j, t) in enumerate(lbs):
            P('set title "%s: test %s, %d threads x %d loops, %d repetitions, sched %s"'
              % (esc(name), t["test"], t["threads"], t["loops"], t["reps"], j["sched"]))
            fn = os.path.join(tmp, "l-%d.dat" % n)
            P('plot "%s" using 2:xtic(1) title "p50" lc rgb "#9ecae1", "" using 3 title "p99" lc rgb "#4292c6", '
              '"" using 4 title "p99.9" lc rgb "#08519c", "" using 5 title "max" lc rgb "#d62728"' % fn)
        P("unset multiplot; unset logscale; unset grid")
        P("set style data points; set xtics norotate")

# ---- queuebench: ratios with intervals ----
qbs = load("queuebench*")
if qbs:
    panels = []
    for n, (name, j) in enumerate(qbs):
        for key, what in (("launch_ratio", "launch from sleep (< 1: faster)"),
                          ("tput_ratio", "small-job throughput (> 1: faster)"),
                          ("prequeued_ratio", "pre-queued drain time (< 1: faster)")):
            fn = os.path.join(tmp, "q-%d-%s.dat" % (n, key))
            with open(fn, "w") as f:
                for i, r in enumerate(j["rows"]):
                    c = r.get(key)
                    nm = r["queue"] + (" (A/A)" if r["aa"] else "")
                    if r["queue"] == j["baseline"] and not r["aa"]:
                        c = {"median": 1, "lo": 1, "hi": 1}
                    if c and r["available"] and not r["failed"]:
                        f.write('%d "%s" %g %g %g\n' % (i, esc(nm), c["median"], c["lo"], c["hi"]))
            panels.append((name, j, key, what, fn))
    for term, ext in terms:
        P("set terminal " + term % (1100, 360 * len(panels)))
        P('set output "%s-queuebench.%s"' % (base, ext))
        P('set multiplot layout %d,1 title "queuebench: ratio to %s, median of paired repetitions, 95%% bootstrap interval\\n%s"'
          % (len(panels), esc(qbs[0][1]["baseline"]), envline(qbs[0][1])))
        P('set grid y; unset logscale; set xtics rotate by -30 font ",8"; unset key')
        P('set xlabel ""; set ylabel "ratio to %s"' % esc(qbs[0][1]["baseline"]))
        P('set xrange [-0.5:%f]' % (max(len(j["rows"]) for _, j in qbs) - 0.5))
        for name, j, key, what, fn in panels:
            P('set title "%s: %s; %d workers"' % (esc(name), what, j["workers"]))
            P('set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "black"')
            P('plot "%s" using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1 lw 2 lc rgb "#1f77b4"' % fn)
            P("unset arrow")
        P("unset multiplot")
print("\n".join(out))
PYEOF
	gnuplot "$tmp/plot.gp" || { echo "seedplot.sh: gnuplot failed for $label" >&2; exit 1; }
	ls "$RES/$label"-*.svg "$RES/$label"-*.png 2>/dev/null | sed 's/^/seedplot.sh: wrote /'
done
