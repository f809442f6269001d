// SPDX-License-Identifier: GPL-2.0
/*
 * futex_lock - measure lock operations per second (Darren Hart's FUTEX_LOCK
 * RFC tester, 2010), plus every other lock of the project side by side.
 *
 * The default output keeps the RFC format exactly:
 *   futex_lock: Measure FUTEX_LOCK operations per second
 *   Arguments: iterations=10000000 threads=256 adaptive=0
 *   Result: 420 Kiter/s
 *   lock calls: 10000000
 *   lock syscalls: 665824 (6.66%)
 *   unlock calls: 10000000
 *   unlock syscalls: 861240 (8.61%)
 * followed by the extra figures this version measures.
 */
#include "futexlock.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#define DEF_ITERATIONS	10000000ull
#define DEF_THREADS	256u
#define DEF_HOLD	1000ull
#define DEF_WAIT	10000ull
#define DEF_REPEAT	10u
#define MAX_REPEAT	1000u
#define MAX_THREADS	4096u
#define MAX_MODES	16
#define MAX_INST	(MAX_MODES + 2)
#define LABEL_MAX	256

/* A mode of -m: a lock, or a knob variant of one (MODE@KNOB=VALUE,...). */
struct mode {
	const struct fl_lock_ops *ops;
	struct fl_knobs knobs;		/* n = 0: the plain mode */
	char label[LABEL_MAX];		/* the -m string, its name everywhere */
};

struct opts {
	uint64_t iterations;
	bool iterations_set;
	unsigned threads;
	uint64_t hold, wait;
	double duration;
	unsigned repeat;
	bool repeat_set;
	double ci_target;	/* percent; 0 = off */
	double time_limit;	/* seconds; 0 = none */
	bool adaptive, compare, json, pin, shared, multi, silent;
	bool perf_loop, wait_set, latency_set;
	unsigned latency_every;
	uint64_t seed;
	bool seed_set;
	const char *json_file;
	enum fl_sched sched;
	const char *sched_name;
	struct mode modes[MAX_MODES];
	size_t nmodes;
	const struct fl_lock_ops *baseline;	/* --baseline, or chosen */
	bool baseline_set;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: futex_lock [options]\n"
"Measure lock operations per second: N threads run lock(); hold; unlock(); wait.\n"
"\n"
"RFC options (Darren Hart's FUTEX_LOCK tester):\n"
"  -a            adaptive: use FUTEX_LOCK_ADAPTIVE (same as -m adaptive)\n"
"  -i N          total iterations over all threads (default %llu). They are\n"
"                split so that exactly N run: each thread gets N/T, the first\n"
"                N%%T threads one more (the RFC dropped the remainder)\n"
"  -t N, -n N    threads (default %u, as in the RFC runs)\n"
"  -d LOOPS      empty asm(\"\":::\"memory\") loops inside the lock (default %llu)\n"
"  -w LOOPS      empty loops outside the lock (default %llu)\n"
"                The defaults are the delays of the RFC's published run\n"
"                (420 Kiter/s); -d 0 -w 0 is the plain lock();unlock() loop.\n"
"\n"
"More:\n"
"  -m MODE       lock to measure, repeatable (default futex_lock); see below\n"
"  -m MODE@KNOB=VALUE[,KNOB=VALUE...]\n"
"                a knob variant of MODE: its own instance, named by the whole\n"
"                string, running MODE's lock with the patched kernel's spin\n"
"                knobs (files in /sys/kernel/debug/futex_lock/) set for each\n"
"                of its runs and restored right after it:\n"
"                spin_check_runnable, spin_calibrate, spin_backoff,\n"
"                spin_check_waiters, spin_check_overload,\n"
"                spin_check_first_wake, spin_check_queue,\n"
"                spin_quiet_start, spin_charge_call,\n"
"                spin_charge_check_overload (0 or 1),\n"
"                spin_max_ns, handoff_threshold (decimal).\n"
"                Needs root and the patched kernel; every knob is set and\n"
"                restored once before the first run (exit 1 if one cannot\n"
"                be). For an ablation:\n"
"                --compare -m adaptive -m adaptive@spin_backoff=0\n"
"                --baseline adaptive\n"
"                Three knobs are this program's, no kernel file, and need\n"
"                neither root nor debugfs: user_spin (0 or 1), the user-\n"
"                space spin before the lock op (one kernel round trip at\n"
"                most), on by default for adaptive, off for futex_lock;\n"
"                user_spin_woken (0 or 1, default 1), the spin skipped\n"
"                while the lock is marked (an unlock through the kernel\n"
"                woke a waiter that has not taken it yet);\n"
"                user_spin_backoff (0 or 1, default 0), the spin skipped\n"
"                on a lock whose spins keep failing, as the preload does\n"
"                (after 4 failures in a row 1 contended lock, then 2, 4,\n"
"                ... up to 64; a spin that wins resets it); the other\n"
"                modes refuse all three\n"
"  --compare     run the modes (all, or the -m ones) in R paired repetitions,\n"
"                in a new random order each repetition, plus an A/A control\n"
"                (the baseline again as a separate instance); print per mode\n"
"                the median of the per-repetition ratios to the baseline,\n"
"                its 95%% bootstrap interval and a verdict\n"
"  -r R          repetitions for --compare (default %u, at least 2)\n"
"  --ci-target P after R repetitions go on until every interval is narrower\n"
"                than P%% of its median (or --time-limit, or %u repetitions)\n"
"  --time-limit S  add no repetition after S seconds (at least 2 run)\n"
"  --baseline M  the mode ratios refer to (default futex_lock; pthread when\n"
"                this kernel has no FUTEX_LOCK, and the table says so)\n"
"  --seed N      seed of the order shuffle (default: time; printed)\n"
"  --duration S  time-bounded run of S seconds instead of -i; reports per-thread\n"
"                iterations min/max/stddev (fairness)\n"
"  --latency-every N  time every Nth acquire into a latency histogram\n"
"                (default %u; 0 = no timestamps, plain lock() calls):\n"
"                every acquire tries the lock first, and only a sampled\n"
"                one that must wait reads the clock around its lock (an\n"
"                acquire that did not wait is 0)\n"
"  --latency     time every acquire (= --latency-every 1): exact latency\n"
"                percentiles; every wait adds clock reads and a\n"
"                histogram add to its hold\n"
"  -S            shared futexes (no FUTEX_PRIVATE_FLAG; process-shared\n"
"                pthread mutexes), as perf bench futex -S\n"
"  -M            one lock per thread (no contention: per-op cost and\n"
"                scalability), as perf bench futex -M\n"
"  -s, --silent  print only one line per run, as perf bench futex:\n"
"                Averaged N operations/sec (+- x%%), total secs = S\n"
"                (per-thread average and its relative standard error)\n"
"  --json        print every figure as JSON instead of text\n"
"  --json-file F also write the JSON of the same runs to file F\n"
"  --pin         pin thread i to the (i mod ncpu)-th allowed CPU; one thread\n"
"                per CPU only when threads <= CPUs\n"
"  --sched P     scheduling policy of the threads: other, fifo or rr\n"
"                (fifo/rr at the minimum priority; needs privileges)\n"
"  --perf-loop   run perf bench futex lock's loop instead of this engine's, for\n"
"                comparing the two tools (make perfagree): per iteration the\n"
"                lock's inlined cmpxchg fast path, -d LOOPS, the unlock, a\n"
"                count; no exclusion check, no timestamps, no -w loops.\n"
"                Needs --duration in whole seconds (perf's -r), -w 0 or no\n"
"                -w, and mode futex_lock, adaptive or pi; threads always\n"
"                pinned round-robin (as perf); not with --compare, --json,\n"
"                --json-file, --latency or --latency-every.  -s prints perf's\n"
"                line: per-thread iterations / whole seconds from thread\n"
"                creation to the stop, averaged over the threads\n"
"  --probe       print whether this kernel has FUTEX_LOCK; exit 0 if it has\n"
"  -h, --help    this text\n"
"\n"
"Modes:\n", (unsigned long long)DEF_ITERATIONS, DEF_THREADS,
		(unsigned long long)DEF_HOLD, (unsigned long long)DEF_WAIT,
		DEF_REPEAT, MAX_REPEAT, FL_DEF_LATENCY_EVERY);
	for (size_t i = 0; i < fl_lock_nmodes; i++)
		fprintf(f, "  %-17s %s\n", fl_lock_modes[i]->name,
			fl_lock_modes[i]->desc);
	fprintf(f,
"\n"
"Counters are exact and per thread: a lock call is one acquire, a lock syscall\n"
"one kernel entry on that path (futex(2); sched_yield() for spin); n/a where a\n"
"library hides them. Context switches (getrusage per thread) and CPU time are\n"
"reported for every mode. Every run also checks mutual exclusion: an owner\n"
"word checked on entry and exit around a 64-loop load/store of a counter\n"
"(\"not exercised\" below 100 hand-offs between threads).\n"
"Exit status: 0 ok, 1 run failed, set-up error or nothing measurable,\n"
"2 bad arguments, 3 mutual exclusion violated.\n");
}

static void bad_arg(const char *opt, const char *val)
{
	fprintf(stderr, "futex_lock: invalid value '%s' for %s\n", val, opt);
	usage(stderr);
	exit(2);
}

static void bad_combo(const char *msg)
{
	fprintf(stderr, "futex_lock: %s\n", msg);
	usage(stderr);
	exit(2);
}

static const struct fl_lock_ops *find_mode(const char *name)
{
	const struct fl_lock_ops *ops = fl_lock_find(name);
	const char *t = getenv("FUTEXLOCK_TEST_BROKEN_LOCK");

	/* the test-only broken lock, for the tests that must see it caught */
	if (!ops && t && !strcmp(t, "1") &&
	    !strcmp(name, fl_lock_test_broken.name))
		ops = &fl_lock_test_broken;
	return ops;
}

/* MODE or MODE@KNOB=VALUE,...; the same string twice is one instance */
static void add_mode(struct opts *o, const char *arg)
{
	struct mode *m = &o->modes[o->nmodes];
	const char *at = strchr(arg, '@');
	char name[40];
	bool spin;

	for (size_t i = 0; i < o->nmodes; i++)
		if (!strcmp(o->modes[i].label, arg))
			return;
	snprintf(name, sizeof(name), "%.*s", at ? (int)(at - arg) : (int)strlen(arg), arg);
	m->ops = find_mode(name);
	if (!m->ops || strlen(arg) >= sizeof(m->label) ||
	    (at && fl_knobs_parse(at + 1, &m->knobs)))
		bad_arg("-m", arg);
	/* a row that switches nothing: whether the lock spins (its default,
	 * or user_spin), then each of this program's knobs */
	spin = m->ops->user_spin == FL_USPIN_ON;
	for (int i = 0; i < m->knobs.n; i++)
		if (!strcmp(m->knobs.name[i], "user_spin"))
			spin = m->knobs.value[i] != 0;
	for (int i = 0; i < m->knobs.n; i++) {
		if (!fl_knob_is_user(&m->knobs, i))
			continue;
		if (m->ops->user_spin == FL_USPIN_NEVER)
			bad_arg("-m (user_spin, user_spin_woken, user_spin_backoff: futex_lock and adaptive only)", arg);
		/* the woken mark and the back-off matter only where the lock spins */
		if (strcmp(m->knobs.name[i], "user_spin") && !spin) {
			char what[96];

			snprintf(what, sizeof(what),
				 "-m (%s: only where the lock spins; futex_lock needs user_spin=1)",
				 m->knobs.name[i]);
			bad_arg(what, arg);
		}
	}
	strcpy(m->label, arg);
	o->nmodes++;
}

/*
 * --perf-loop runs perf bench futex lock's loop and reports its figure,
 * so only what perf can express is accepted; it pins as perf does.
 */
static void check_perf_loop(struct opts *o)
{
	if (!(o->duration > 0))
		bad_combo("--perf-loop is time-bounded like perf's -r: it needs --duration");
	if (o->duration != floor(o->duration))
		bad_combo("--perf-loop: --duration in whole seconds (perf's -r)");
	if (o->wait_set && o->wait)
		bad_combo("--perf-loop: perf's loop has no work outside the lock: -w 0 or no -w");
	if (o->compare)
		bad_combo("--perf-loop runs one mode once: not with --compare");
	if (o->json || o->json_file)
		bad_combo("--perf-loop: text or -s only, not --json or --json-file");
	if (o->latency_set)
		bad_combo("--perf-loop takes no timestamps: not with --latency or --latency-every");
	for (size_t m = 0; m < o->nmodes; m++)
		if (!o->modes[m].ops->tid_lock_op)
			bad_combo("--perf-loop needs a TID-owner lock: mode futex_lock, adaptive or pi");
	if (o->nmodes > 1)
		bad_combo("--perf-loop runs one mode: futex_lock, adaptive or pi");
	o->wait = 0;
	o->latency_every = 0;
	o->pin = true;
}

enum { OPT_COMPARE = 256, OPT_DURATION, OPT_JSON, OPT_PIN, OPT_SCHED,
       OPT_PROBE, OPT_JSON_FILE, OPT_CI_TARGET, OPT_TIME_LIMIT, OPT_BASELINE,
       OPT_SEED, OPT_LAT_EVERY, OPT_LATENCY, OPT_PERF_LOOP };

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "compare", no_argument, NULL, OPT_COMPARE },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "pin", no_argument, NULL, OPT_PIN },
		{ "sched", required_argument, NULL, OPT_SCHED },
		{ "probe", no_argument, NULL, OPT_PROBE },
		{ "json-file", required_argument, NULL, OPT_JSON_FILE },
		{ "ci-target", required_argument, NULL, OPT_CI_TARGET },
		{ "time-limit", required_argument, NULL, OPT_TIME_LIMIT },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "latency-every", required_argument, NULL, OPT_LAT_EVERY },
		{ "latency", no_argument, NULL, OPT_LATENCY },
		{ "perf-loop", no_argument, NULL, OPT_PERF_LOOP },
		{ "silent", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->iterations = DEF_ITERATIONS;
	o->threads = DEF_THREADS;
	o->hold = DEF_HOLD;
	o->wait = DEF_WAIT;
	o->repeat = DEF_REPEAT;
	o->latency_every = FL_DEF_LATENCY_EVERY;
	o->sched_name = "default";
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ai:t:n:d:w:m:r:SMsh", lo, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->adaptive = true;
			break;
		case 'i':
			if (fl_parse_u64(optarg, 1, 1000000000000ull, &o->iterations))
				bad_arg("-i", optarg);
			o->iterations_set = true;
			break;
		case 't':
		case 'n':
			if (fl_parse_u64(optarg, 1, MAX_THREADS, &v))
				bad_arg(c == 't' ? "-t" : "-n", optarg);
			o->threads = (unsigned)v;
			break;
		case 'd':
			if (fl_parse_u64(optarg, 0, 1000000000ull, &o->hold))
				bad_arg("-d", optarg);
			break;
		case 'w':
			if (fl_parse_u64(optarg, 0, 1000000000ull, &o->wait))
				bad_arg("-w", optarg);
			o->wait_set = true;
			break;
		case 'm':
			if (o->nmodes == MAX_MODES)
				bad_arg("-m", optarg);
			add_mode(o, optarg);
			break;
		case 'r':
			if (fl_parse_u64(optarg, 2, MAX_REPEAT, &v))
				bad_arg("-r", optarg);
			o->repeat = (unsigned)v;
			o->repeat_set = true;
			break;
		case 'S':
			o->shared = true;
			break;
		case 'M':
			o->multi = true;
			break;
		case 's':
			o->silent = true;
			break;
		case OPT_COMPARE:
			o->compare = true;
			break;
		case OPT_DURATION:
			if (fl_parse_double(optarg, 0.001, 86400, &o->duration))
				bad_arg("--duration", optarg);
			break;
		case OPT_CI_TARGET:
			if (fl_parse_double(optarg, 0.1, 1000, &o->ci_target))
				bad_arg("--ci-target", optarg);
			break;
		case OPT_TIME_LIMIT:
			if (fl_parse_double(optarg, 0.001, 86400, &o->time_limit))
				bad_arg("--time-limit", optarg);
			break;
		case OPT_BASELINE:
			o->baseline = find_mode(optarg);
			if (!o->baseline)
				bad_arg("--baseline", optarg);
			o->baseline_set = true;
			break;
		case OPT_SEED:
			if (fl_parse_u64(optarg, 0, UINT64_MAX, &o->seed))
				bad_arg("--seed", optarg);
			o->seed_set = true;
			break;
		case OPT_LAT_EVERY:
			if (fl_parse_u64(optarg, 0, 1u << 30, &v))
				bad_arg("--latency-every", optarg);
			o->latency_every = (unsigned)v;
			o->latency_set = true;
			break;
		case OPT_LATENCY:
			o->latency_every = 1;
			o->latency_set = true;
			break;
		case OPT_PERF_LOOP:
			o->perf_loop = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_JSON_FILE:
			o->json_file = optarg;
			break;
		case OPT_PIN:
			o->pin = true;
			break;
		case OPT_SCHED:
			o->sched_name = optarg;
			if (!strcmp(optarg, "other"))
				o->sched = FL_SCHED_OTHER;
			else if (!strcmp(optarg, "fifo"))
				o->sched = FL_SCHED_FIFO;
			else if (!strcmp(optarg, "rr"))
				o->sched = FL_SCHED_RR;
			else
				bad_arg("--sched", optarg);
			break;
		case OPT_PROBE: {
			int ok = fl_futex_lock_probe(NULL);

			printf("%s\n", fl_futex_lock_probe_line());
			exit(ok ? 0 : 1);
		}
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			fprintf(stderr, "futex_lock: option needs a value: %s\n",
				argv[optind - 1]);
			usage(stderr);
			exit(2);
		default:
			fprintf(stderr, "futex_lock: unknown option: %s\n",
				argv[optind - 1]);
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "futex_lock: unexpected argument: %s\n", argv[optind]);
		usage(stderr);
		exit(2);
	}
	if (o->adaptive && o->nmodes)
		bad_combo("-a selects mode adaptive; do not combine it with -m");
	if (o->duration > 0 && o->iterations_set)
		bad_combo("use either -i or --duration");
	if (!o->compare && (o->repeat_set || o->ci_target > 0 ||
			    o->time_limit > 0 || o->baseline_set || o->seed_set))
		bad_combo("-r, --ci-target, --time-limit, --baseline and --seed need --compare");
	if (o->silent && (o->json || o->compare))
		bad_combo("-s prints one line per run; not with --json or --compare");
	if (o->adaptive)
		add_mode(o, "adaptive");
	if (!o->nmodes) {
		if (o->compare) {
			for (size_t i = 0; i < fl_lock_nmodes; i++)
				add_mode(o, fl_lock_modes[i]->name);
		} else {
			add_mode(o, "futex_lock");
		}
	}
	if (o->perf_loop)
		check_perf_loop(o);
}

/* One measured instance of --compare: a mode, the baseline, or its A/A copy. */
struct inst {
	const struct fl_lock_ops *ops;
	struct fl_knobs knobs;		/* a knob variant's; n = 0: none */
	char label[LABEL_MAX];
	bool available, is_base, is_control;
};

struct run {
	const struct fl_lock_ops *ops;
	const char *label;		/* the instance's, or the mode's */
	const struct fl_knobs *knobs;
	size_t inst;
	unsigned rep;
	struct fl_bench_result r;
};

static void cfg_for(const struct opts *o, const struct fl_lock_ops *ops,
		    struct fl_bench_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ops = ops;
	cfg->threads = o->threads;
	cfg->iterations = o->duration > 0 ? 0 : o->iterations;
	cfg->duration_s = o->duration;
	cfg->hold_loops = o->hold;
	cfg->wait_loops = o->wait;
	cfg->pin = o->pin;
	cfg->sched = o->sched;
	cfg->read_kstats = true;
	cfg->latency_every = o->latency_every;
	cfg->shared = o->shared;
	cfg->multi = o->multi;
	cfg->perf_loop = o->perf_loop;
}

static bool is_rfc_mode(const struct fl_lock_ops *ops)
{
	return !strcmp(ops->name, "futex_lock") || !strcmp(ops->name, "adaptive");
}

static double per_kiter(uint64_t n, uint64_t iters)
{
	return iters ? 1000.0 * (double)n / (double)iters : 0.0;
}

static double cpu_per_kiter(double cpu_s, uint64_t iters)
{
	return iters ? cpu_s * 1000.0 / (double)iters : 0.0;
}

static void print_sys(const char *what, const struct fl_lock_ops *ops,
		      uint64_t sys, uint64_t calls)
{
	if (ops->counts_syscalls)
		printf("%s syscalls: %" PRIu64 " (%.2f%%)\n", what, sys,
		       fl_pct(sys, calls));
	else
		printf("%s syscalls: n/a\n", what);
}

/* the user-space spin: the calibration and what it did */
static void print_user_spin(const struct fl_bench_result *r)
{
	const struct fl_user_spin_cal *cal = fl_user_spin_calibrate();
	const struct fl_counters *t = &r->total;

	printf("user spin: %s, limit %u iterations (futex(2) round trip %.0f ns / %.1f ns per iteration); %" PRIu64
	       " spins, %" PRIu64 " took the lock (%.2f%%), %" PRIu64 " left it to the kernel, %.1f reads per spin; %"
	       PRIu64 " skipped (woken mark, honoured: %s); %" PRIu64 " backed off (back-off: %s)\n",
	       r->user_spin_limit ? "on" : "off", cal->limit,
	       cal->syscall_ns, cal->iter_ns, t->user_spins, t->user_spin_acquired,
	       fl_pct(t->user_spin_acquired, t->user_spins), t->user_spin_to_kernel,
	       t->user_spins ? (double)t->user_spin_iters / (double)t->user_spins : 0.0,
	       t->user_spin_skipped, r->user_spin_woken ? "yes" : "no",
	       t->user_spin_backed_off, r->user_spin_backoff ? "on" : "off");
}

static void print_latency(const struct opts *o, const struct fl_bench_result *r)
{
	const struct fl_hist *h = &r->lat;

	if (!o->latency_every || !h->count) {
		printf("acquire latency: not sampled (%s)\n", o->perf_loop ?
		       "--perf-loop" : o->latency_every ?
		       "fewer acquires than --latency-every" : "--latency-every 0");
		return;
	}
	/* the sample count stands beside the percentiles; a p99 from fewer
	 * than 100 samples (p99.9: 1000) is only the largest few of them */
	printf("acquire latency (every %u%s acquire, %" PRIu64 " samples): "
	       "p50 %.3f us, p90 %.3f us, p99 %.3f us, p99.9 %.3f us, max %.3f us%s\n",
	       o->latency_every, o->latency_every == 1 ? "st" : "th", h->count,
	       (double)fl_hist_quantile(h, 0.5) / 1e3,
	       (double)fl_hist_quantile(h, 0.9) / 1e3,
	       (double)fl_hist_quantile(h, 0.99) / 1e3,
	       (double)fl_hist_quantile(h, 0.999) / 1e3,
	       (double)h->max_ns / 1e3,
	       h->count < 100 ? " (< 100 samples: p99 and p99.9 are not percentiles)" :
	       h->count < 1000 ? " (< 1000 samples: p99.9 is not a percentile)" : "");
	printf("per-thread worst sampled wait: min %.3f us, median %.3f us, max %.3f us "
	       "(%u of %u threads sampled, random phase per thread)\n",
	       r->thr_worst_min_us, r->thr_worst_med_us, r->thr_worst_max_us,
	       r->lat_threads, o->threads);
}

/* perf_se_ops_s relative to the truncated mean, as perf prints it */
static double perf_rel_pct(const struct fl_bench_result *r)
{
	unsigned long avg = (unsigned long)r->perf_ops_s;

	return avg ? 100.0 * r->perf_se_ops_s / (double)avg : 0.0;
}

static void print_text(const struct opts *o, const struct run *run)
{
	const struct fl_bench_result *r = &run->r;
	const struct fl_lock_ops *ops = run->ops;
	bool adaptive = !strcmp(ops->name, "adaptive");

	/* --- the RFC block, byte for byte --- */
	if (is_rfc_mode(ops))
		printf("futex_lock: Measure FUTEX_LOCK operations per second\n");
	else
		printf("futex_lock: Measure %s operations per second\n", ops->name);
	if (o->duration > 0)
		printf("Arguments: duration=%gs threads=%u adaptive=%d", o->duration,
		       o->threads, adaptive);
	else
		printf("Arguments: iterations=%" PRIu64 " threads=%u adaptive=%d",
		       o->iterations, o->threads, adaptive);
	if (!is_rfc_mode(ops))
		printf(" mode=%s", ops->name);
	printf("\n");
	printf("Result: %.0f Kiter/s\n", r->kiter_s);
	printf("lock calls: %" PRIu64 "\n", r->total.lock_calls);
	print_sys("lock", ops, r->total.lock_syscalls, r->total.lock_calls);
	printf("unlock calls: %" PRIu64 "\n", r->total.unlock_calls);
	print_sys("unlock", ops, r->total.unlock_syscalls, r->total.unlock_calls);

	/* --- beyond the RFC --- */
	if (fl_user_spin_applies(ops, o->perf_loop))
		print_user_spin(r);
	printf("mode: %s; hold loops: %" PRIu64 "; outside loops: %" PRIu64
	       "; pin: %s; sched: %s; futex: %s; locks: %s%s\n", ops->name,
	       o->hold, o->wait, o->pin ? "yes" : "no", o->sched_name,
	       o->shared ? "shared" : "private",
	       o->multi ? "one per thread" : "one",
	       o->perf_loop ? "; loop: perf" : "");
	if (run->knobs->n) {
		printf("knobs (%s, set for this run, restored after it):", fl_knob_dir());
		for (int i = 0; i < run->knobs->n; i++)
			printf(" %s=%" PRIu64, run->knobs->name[i], run->knobs->value[i]);
		printf("\n");
	}
	if (o->duration > 0)
		printf("iterations: %" PRIu64 " in %.3f s\n", r->iterations,
		       r->elapsed_s);
	else
		printf("iterations: exactly %" PRIu64 " = %u threads x %" PRIu64
		       ", first %" PRIu64 " threads +1\n", r->iterations,
		       o->threads, o->iterations / o->threads,
		       o->iterations % o->threads);
	printf("elapsed: %.3f s (%.2f Kiter/s)\n", r->elapsed_s, r->kiter_s);
	printf("cpu: %.3f s (user %.3f s, sys %.3f s); Kiter per CPU-second: %.2f; "
	       "CPU-s per Kiter: %.6f\n", r->cpu_s, r->user_s, r->sys_s,
	       r->kiter_per_cpu_s, cpu_per_kiter(r->cpu_s, r->iterations));
	printf("context switches: voluntary %" PRIu64 " (%.2f per 1000 iterations), "
	       "involuntary %" PRIu64 " (%.2f per 1000 iterations)\n",
	       r->nvcsw, per_kiter(r->nvcsw, r->iterations), r->nivcsw,
	       per_kiter(r->nivcsw, r->iterations));
	print_latency(o, r);
	printf("per-thread iterations: min %" PRIu64 " max %" PRIu64
	       " mean %.1f stddev %.1f (cv %.1f%%)\n", r->thr_min, r->thr_max,
	       r->thr_mean, r->thr_stddev,
	       r->thr_mean > 0 ? 100.0 * r->thr_stddev / r->thr_mean : 0.0);
	if (o->perf_loop)
		printf("perf bench style: Averaged %lu operations/sec (+- %.2f%%), total secs = %u "
		       "(per-thread iterations / whole seconds of the %.3f s from thread creation to the stop)\n",
		       (unsigned long)r->perf_ops_s, perf_rel_pct(r), r->perf_secs,
		       r->perf_runtime_s);
	/* "ok" only when threads took the lock in turn often enough */
	if (!r->exclusion_checked)
		printf("mutual exclusion: not checked (--perf-loop: perf's loop has no check)\n");
	else if (r->mutex_ok && r->handoffs < FL_MIN_HANDOFFS)
		printf("mutual exclusion: not exercised (protected counter %" PRIu64
		       "; %" PRIu64 " hand-offs, fewer than %d)\n",
		       r->protected_counter, r->handoffs, FL_MIN_HANDOFFS);
	else
		printf("mutual exclusion: %s (protected counter %" PRIu64 ")\n",
		       r->mutex_ok ? "ok" : "VIOLATED", r->protected_counter);
	if (r->overlaps)
		printf("mutual exclusion: %" PRIu64 " critical sections overlapped another (owner word)\n",
		       r->overlaps);
	if (r->kstats.n >= 0) {
		printf("kernel stats (%s, delta):", fl_kstats_path());
		for (int i = 0; i < r->kstats.n; i++)
			printf(" %s=%" PRIu64, r->kstats.name[i], r->kstats.value[i]);
		printf("\n");
	}
}

/* perf bench futex style: per-thread average ops/s and its relative stderr */
static void print_silent(const struct opts *o, const struct run *run)
{
	const struct fl_bench_result *r = &run->r;

	if (o->perf_loop) {	/* perf's own figure and format */
		printf("Averaged %lu operations/sec (+- %.2f%%), total secs = %u\n",
		       (unsigned long)r->perf_ops_s, perf_rel_pct(r), r->perf_secs);
		return;
	}
	double avg = r->elapsed_s > 0 ? r->thr_mean / r->elapsed_s : 0;
	double rel = r->thr_mean > 0 ?
		100.0 * r->thr_stddev / sqrt((double)o->threads) / r->thr_mean : 0;

	if (o->nmodes > 1)
		printf("%s: ", run->label);
	printf("Averaged %.0f operations/sec (+- %.2f%%), total secs = %.3f\n",
	       avg, rel, r->elapsed_s);
}

static FILE *jout;

static void json_str(const char *s)
{
	fl_json_str(jout, s);
}

static void json_num(double v)
{
	/* JSON has no NaN/inf */
	if (v != v || v > 1e300 || v < -1e300)
		fprintf(jout, "null");
	else
		fprintf(jout, "%.10g", v);
}

/* "<op>_calls", "<op>_syscalls" and their share (null when not countable). */
static void json_calls(const char *ind, const char *op, uint64_t calls,
		       uint64_t syscalls, bool sc)
{
	fprintf(jout, ",\n%s \"%s_calls\": %" PRIu64, ind, op, calls);
	if (sc)
		fprintf(jout, ", \"%s_syscalls\": %" PRIu64 ", \"%s_syscall_pct\": %.2f",
			op, syscalls, op, fl_pct(syscalls, calls));
	else
		fprintf(jout, ", \"%s_syscalls\": null, \"%s_syscall_pct\": null",
			op, op);
}

static void json_latency(const struct opts *o, const struct fl_bench_result *r)
{
	const struct fl_hist *h = &r->lat;

	if (!o->latency_every || !h->count) {
		fprintf(jout, "null");
		return;
	}
	fprintf(jout, "{\"every\": %u, \"samples\": %" PRIu64 ", \"p50_us\": ",
		o->latency_every, h->count);
	json_num((double)fl_hist_quantile(h, 0.5) / 1e3);
	fprintf(jout, ", \"p90_us\": ");
	json_num((double)fl_hist_quantile(h, 0.9) / 1e3);
	fprintf(jout, ", \"p99_us\": ");
	json_num((double)fl_hist_quantile(h, 0.99) / 1e3);
	fprintf(jout, ", \"p999_us\": ");
	json_num((double)fl_hist_quantile(h, 0.999) / 1e3);
	fprintf(jout, ", \"max_us\": ");
	json_num((double)h->max_ns / 1e3);
	fprintf(jout, ", \"mean_us\": ");
	json_num((double)h->sum_ns / 1e3 / (double)h->count);
	fprintf(jout, ", \"threads_sampled\": %u, \"thread_worst_us\": {\"min\": ",
		r->lat_threads);
	json_num(r->thr_worst_min_us);
	fprintf(jout, ", \"median\": ");
	json_num(r->thr_worst_med_us);
	fprintf(jout, ", \"max\": ");
	json_num(r->thr_worst_max_us);
	fprintf(jout, "}}");
}

/* , "knobs": {"name": value, ...} of a knob variant; nothing for the others */
static void json_knobs(const struct fl_knobs *k)
{
	if (!k->n)
		return;
	fprintf(jout, ", \"knobs\": {");
	for (int i = 0; i < k->n; i++) {
		fprintf(jout, "%s", i ? ", " : "");
		json_str(k->name[i]);
		fprintf(jout, ": %" PRIu64, k->value[i]);
	}
	fprintf(jout, "}");
}

static void json_run(const struct opts *o, const struct run *run,
		     const struct inst *in, const char *ind)
{
	const struct fl_bench_result *r = &run->r;
	bool sc = run->ops->counts_syscalls;

	fprintf(jout, "%s{\"mode\": ", ind);
	json_str(run->ops->name);
	fprintf(jout, ", \"instance\": ");
	json_str(run->label);
	json_knobs(run->knobs);
	fprintf(jout, ", \"control\": %s, \"rep\": %u, \"available\": true, \"ok\": %s",
		in && in->is_control ? "true" : "false", run->rep,
		r->error[0] ? "false" : "true");
	if (r->error[0]) {
		fprintf(jout, ", \"error\": ");
		json_str(r->error);
		fprintf(jout, ", \"setup_error\": %s",
			r->setup_failed ? "true" : "false");
	}
	fprintf(jout, ",\n%s \"iterations\": %" PRIu64 ", \"elapsed_s\": ", ind,
	       r->iterations);
	json_num(r->elapsed_s);
	fprintf(jout, ", \"kiter_s\": ");
	json_num(r->kiter_s);
	fprintf(jout, ", \"result_kiter_s\": %.0f", r->kiter_s);
	json_calls(ind, "lock", r->total.lock_calls, r->total.lock_syscalls, sc);
	json_calls(ind, "unlock", r->total.unlock_calls, r->total.unlock_syscalls, sc);
	if (fl_user_spin_applies(run->ops, o->perf_loop)) {
		const struct fl_user_spin_cal *cal = fl_user_spin_calibrate();

		fprintf(jout, ",\n%s \"user_spin\": {\"on\": %s, \"limit\": %u, \"syscall_ns\": ",
			ind, r->user_spin_limit ? "true" : "false", cal->limit);
		json_num(cal->syscall_ns);
		fprintf(jout, ", \"iter_ns\": ");
		json_num(cal->iter_ns);
		fprintf(jout, ", \"spins\": %" PRIu64 ", \"acquired\": %" PRIu64
			", \"to_kernel\": %" PRIu64 ", \"iterations\": %" PRIu64
			", \"skipped\": %" PRIu64 ", \"woken_mark_honoured\": %s"
			", \"backed_off\": %" PRIu64 ", \"backoff\": %s}",
			r->total.user_spins, r->total.user_spin_acquired,
			r->total.user_spin_to_kernel, r->total.user_spin_iters,
			r->total.user_spin_skipped, r->user_spin_woken ? "true" : "false",
			r->total.user_spin_backed_off, r->user_spin_backoff ? "true" : "false");
	}
	fprintf(jout, ",\n%s \"user_s\": ", ind);
	json_num(r->user_s);
	fprintf(jout, ", \"sys_s\": ");
	json_num(r->sys_s);
	fprintf(jout, ", \"cpu_s\": ");
	json_num(r->cpu_s);
	fprintf(jout, ", \"kiter_per_cpu_s\": ");
	json_num(r->kiter_per_cpu_s);
	fprintf(jout, ", \"cpu_s_per_kiter\": ");
	json_num(cpu_per_kiter(r->cpu_s, r->iterations));
	fprintf(jout, ",\n%s \"voluntary_ctxsw\": %" PRIu64
		", \"involuntary_ctxsw\": %" PRIu64 ", \"voluntary_ctxsw_per_kiter\": ",
		ind, r->nvcsw, r->nivcsw);
	json_num(per_kiter(r->nvcsw, r->iterations));
	fprintf(jout, ", \"involuntary_ctxsw_per_kiter\": ");
	json_num(per_kiter(r->nivcsw, r->iterations));
	fprintf(jout, ",\n%s \"latency\": ", ind);
	json_latency(o, r);
	fprintf(jout, ", \"longest_wait_us\": ");
	json_num(r->longest_wait_us);
	fprintf(jout, ", \"mean_wait_us\": ");
	json_num(r->mean_wait_us);
	fprintf(jout, ",\n%s \"thread_iterations\": {\"min\": %" PRIu64 ", \"max\": %"
	       PRIu64 ", \"mean\": ", ind, r->thr_min, r->thr_max);
	json_num(r->thr_mean);
	fprintf(jout, ", \"stddev\": ");
	json_num(r->thr_stddev);
	fprintf(jout, "},\n%s \"protected_counter\": %" PRIu64 ", \"overlaps\": %" PRIu64
		", \"handoffs\": %" PRIu64 ", \"mutex_ok\": %s, \"exclusion_exercised\": %s",
		ind, r->protected_counter, r->overlaps, r->handoffs,
		r->mutex_ok ? "true" : "false",
		r->handoffs >= FL_MIN_HANDOFFS ? "true" : "false");
	fprintf(jout, ",\n%s \"kernel_stats\": ", ind);
	if (r->kstats.n < 0) {
		fprintf(jout, "null");
	} else {
		fprintf(jout, "{");
		for (int i = 0; i < r->kstats.n; i++) {
			fprintf(jout, "%s", i ? ", " : "");
			json_str(r->kstats.name[i]);
			fprintf(jout, ": %" PRIu64, r->kstats.value[i]);
		}
		fprintf(jout, "}");
	}
	fprintf(jout, "}");
}

struct summary {
	size_t n;
	size_t failed;		/* runs of this instance that failed */
	double median, spread, min, max;
	struct fl_ratio_ci ratio;
	double lock_pct, unlock_pct, kcpu, cpu_per_kiter, vcs, ivcs;
	double maxwait_us, thr_cv;
	struct fl_hist lat;
};

struct compare {
	struct inst inst[MAX_INST];
	size_t ninst, base;		/* base: index of the baseline instance */
	size_t aa;			/* index of the A/A control */
	/* best median of the measured modes (A/A excluded), the runner-up
	 * and their paired ratio (make matrix's "winner"); SIZE_MAX: none */
	size_t win, second;
	struct fl_ratio_ci win_ratio;
	char base_note[160];
	unsigned reps;			/* repetitions done */
	uint64_t seed;
	struct summary s[MAX_INST];
};

/* Kiter/s of instance k in every repetition (0 where it failed) */
static void series(const struct compare *cmp, const struct run *runs,
		   size_t nruns, size_t k, double *v)
{
	for (unsigned rep = 0; rep < cmp->reps; rep++)
		v[rep] = 0;
	for (size_t i = 0; i < nruns; i++)
		if (runs[i].inst == k && !runs[i].r.error[0])
			v[runs[i].rep - 1] = runs[i].r.kiter_s;
}

static void summarize(struct compare *cmpw, const struct run *runs,
		      size_t nruns, struct summary *s)
{
	const struct compare *cmp = cmpw;
	double *v = calloc(cmp->reps + 1, sizeof(*v));
	double *x = calloc(cmp->reps + 1, sizeof(*x));
	double *base = calloc(cmp->reps + 1, sizeof(*base));
	double *aa = calloc(cmp->reps + 1, sizeof(*aa));

	if (!v || !x || !base || !aa)
		abort();
	series(cmp, runs, nruns, cmp->base, base);
	series(cmp, runs, nruns, cmp->aa, aa);
	for (size_t k = 0; k < cmp->ninst; k++) {
		uint64_t lc = 0, ls = 0, uc = 0, us = 0, it = 0, vcs = 0, ivcs = 0;
		double cpu_s = 0, cv = 0;

		memset(&s[k], 0, sizeof(s[k]));
		fl_hist_init(&s[k].lat);
		s[k].ratio.verdict = FL_NO_DATA;
		for (size_t i = 0; i < nruns; i++) {
			const struct fl_bench_result *r = &runs[i].r;

			if (runs[i].inst == k && r->error[0])
				s[k].failed++;
			if (runs[i].inst != k || r->error[0])
				continue;
			v[s[k].n++] = r->kiter_s;
			lc += r->total.lock_calls;
			ls += r->total.lock_syscalls;
			uc += r->total.unlock_calls;
			us += r->total.unlock_syscalls;
			it += r->iterations;
			vcs += r->nvcsw;
			ivcs += r->nivcsw;
			cpu_s += r->cpu_s;
			fl_hist_merge(&s[k].lat, &r->lat);
			if (r->longest_wait_us > s[k].maxwait_us)
				s[k].maxwait_us = r->longest_wait_us;
			cv += r->thr_mean > 0 ? 100.0 * r->thr_stddev / r->thr_mean : 0;
		}
		if (!s[k].n)
			continue;
		s[k].median = fl_median(v, s[k].n);
		s[k].spread = fl_spread_pct(v, s[k].n);
		s[k].min = fl_min(v, s[k].n);
		s[k].max = fl_max(v, s[k].n);
		s[k].lock_pct = fl_pct(ls, lc);
		s[k].unlock_pct = fl_pct(us, uc);
		s[k].kcpu = cpu_s > 0 ? (double)it / cpu_s / 1e3 : 0;
		s[k].cpu_per_kiter = cpu_per_kiter(cpu_s, it);
		s[k].vcs = per_kiter(vcs, it);
		s[k].ivcs = per_kiter(ivcs, it);
		s[k].thr_cv = cv / (double)s[k].n;
		if (k != cmp->base) {
			series(cmp, runs, nruns, k, x);
			/* Kiter/s: higher is better; the A/A row is its own band */
			fl_compare(x, base, k == cmp->aa ? x : aa, cmp->reps,
				   FL_HIGHER_IS_BETTER, &s[k].ratio);
			if (s[k].failed)	/* no verdict from a failed row */
				fl_fail(&s[k].ratio);
		}
	}
	/* the winner: best against runner-up, judged against the A/A band */
	cmpw->win = cmpw->second = SIZE_MAX;
	for (size_t k = 0; k < cmp->ninst; k++) {
		if (k == cmp->aa || !s[k].n || s[k].failed)
			continue;
		if (cmpw->win == SIZE_MAX || s[k].median > s[cmpw->win].median) {
			cmpw->second = cmpw->win;
			cmpw->win = k;
		} else if (cmpw->second == SIZE_MAX ||
			   s[k].median > s[cmpw->second].median) {
			cmpw->second = k;
		}
	}
	memset(&cmpw->win_ratio, 0, sizeof(cmpw->win_ratio));
	if (cmpw->second != SIZE_MAX) {
		series(cmp, runs, nruns, cmpw->win, x);
		series(cmp, runs, nruns, cmpw->second, v);
		fl_ratio_ci(x, v, cmp->reps, &cmpw->win_ratio);
		fl_decide(&cmpw->win_ratio, FL_HIGHER_IS_BETTER, &s[cmp->aa].ratio);
	}
	free(aa);
	free(base);
	free(x);
	free(v);
}

/* --ci-target: every interval narrower than target % of its median? */
static bool ci_narrow(const struct opts *o, const struct compare *cmp)
{
	for (size_t k = 0; k < cmp->ninst; k++) {
		const struct fl_ratio_ci *r = &cmp->s[k].ratio;

		if (k == cmp->base || !cmp->inst[k].available)
			continue;
		if (r->verdict == FL_NO_DATA || r->median <= 0 ||
		    100.0 * (r->hi - r->lo) / r->median > o->ci_target)
			return false;
	}
	return true;
}

/* the mode column: 22 wide, wider for a long knob variant */
static int label_width(const struct compare *cmp)
{
	size_t w = 22;

	for (size_t k = 0; k < cmp->ninst; k++)
		if (strlen(cmp->inst[k].label) > w)
			w = strlen(cmp->inst[k].label);
	return (int)w;
}

static void print_table(const struct opts *o, const struct compare *cmp)
{
	int lw = label_width(cmp);
	const struct summary *s = cmp->s;
	const struct summary *ctl = NULL;
	struct utsname u;

	uname(&u);
	printf("futex_lock --compare: ");
	if (o->duration > 0)
		printf("duration=%gs", o->duration);
	else
		printf("iterations=%" PRIu64, o->iterations);
	printf(" threads=%u hold=%" PRIu64 " outside=%" PRIu64
	       " repeat=%u pin=%s sched=%s%s%s kernel=%s\n", o->threads, o->hold,
	       o->wait, cmp->reps, o->pin ? "yes" : "no", o->sched_name,
	       o->shared ? " shared" : "", o->multi ? " multi" : "", u.release);
	printf("baseline: %s%s\n", cmp->inst[cmp->base].label, cmp->base_note);
	printf("%-*s %10s %6s %-13s %-17s %9s %11s %7s %7s %10s %8s %8s %7s %7s\n",
	       lw, "mode", "Kiter/s", "ratio", "95% CI", "verdict", "lock-sys%",
	       "unlock-sys%", "vcs/Kit", "ics/Kit", "CPUms/Kit", "p50-us",
	       "p99-us", "lat-n", "thr-cv%");
	for (size_t k = 0; k < cmp->ninst; k++) {
		const struct inst *in = &cmp->inst[k];
		char ratio[16], ci[32], lp[16], up[16], p50[16], p99[16];
		const char *verdict;

		printf("%-*s ", lw, in->label);
		if (!in->available) {
			printf("%10s\n", "unavailable");
			continue;
		}
		if (!s[k].n) {
			printf("%10s\n", "failed");
			continue;
		}
		if (k == cmp->base) {
			snprintf(ratio, sizeof(ratio), "1");
			snprintf(ci, sizeof(ci), "(baseline)");
			verdict = "-";
		} else if (s[k].ratio.verdict == FL_NO_DATA ||
			   s[k].ratio.verdict == FL_FAILED) {
			snprintf(ratio, sizeof(ratio), "-");
			snprintf(ci, sizeof(ci), "-");
			verdict = fl_verdict_name(s[k].ratio.verdict);
		} else {
			snprintf(ratio, sizeof(ratio), "%.2f", s[k].ratio.median);
			snprintf(ci, sizeof(ci), "%.2f-%.2f", s[k].ratio.lo,
				 s[k].ratio.hi);
			verdict = fl_verdict_name(s[k].ratio.verdict);
		}
		if (in->ops->counts_syscalls) {
			snprintf(lp, sizeof(lp), "%.2f", s[k].lock_pct);
			snprintf(up, sizeof(up), "%.2f", s[k].unlock_pct);
		} else {
			snprintf(lp, sizeof(lp), "n/a");
			snprintf(up, sizeof(up), "n/a");
		}
		if (s[k].lat.count) {
			snprintf(p50, sizeof(p50), "%.2f",
				 (double)fl_hist_quantile(&s[k].lat, 0.5) / 1e3);
			if (s[k].lat.count >= 100)
				snprintf(p99, sizeof(p99), "%.2f",
					 (double)fl_hist_quantile(&s[k].lat, 0.99) / 1e3);
			else
				snprintf(p99, sizeof(p99), "-");
		} else {
			snprintf(p50, sizeof(p50), "-");
			snprintf(p99, sizeof(p99), "-");
		}
		printf("%10.2f %6s %-13s %-17s %9s %11s %7.2f %7.2f %10.4f %8s %8s %7" PRIu64 " %7.1f\n",
		       s[k].median, ratio, ci, verdict, lp, up, s[k].vcs,
		       s[k].ivcs, 1000.0 * s[k].cpu_per_kiter, p50, p99,
		       s[k].lat.count, s[k].thr_cv);
		if (in->is_control)
			ctl = &s[k];
	}
	printf("ratio = median over %u repetitions of Kiter/s(mode) / Kiter/s(baseline) in the\n"
	       "same repetition (order shuffled every repetition, seed %" PRIu64 "); 95%% CI: bootstrap of\n"
	       "that median; verdict (Kiter/s: higher is better): faster/slower only with >= %d pairs and a CI\n"
	       "that excludes 1 and is clear of the A/A band (the A/A row's CI [lo,hi] and its reciprocal\n"
	       "[1/hi,1/lo]), else indistinguishable or insufficient data; failed: a run of that mode failed.\n"
	       "The A/A row is the baseline run again as a separate instance: its interval is the noise floor\n"
	       "(verdict 'control': it is the band, not a claim).\n"
	       "vcs/ics per Kit: voluntary/involuntary context switches per 1000 iterations;\n"
	       "CPUms/Kit: CPU-ms per 1000 iterations; p50/p99: sampled acquire latency (random phase per\n"
	       "thread) over all repetitions, lat-n samples (p99 is '-' below 100 samples)\n",
	       cmp->reps, cmp->seed, FL_MIN_VERDICT_PAIRS);
	if (ctl && ctl->ratio.n >= 2 && !fl_aa_ok(&ctl->ratio))
		printf("WARNING: the A/A control's interval excludes 1.0: the noise of this run is\n"
		       "larger than its intervals say; verdicts above are judged against that band\n");
}

/* Kernel counters (debugfs) per mode: mean delta per run, per 1000 iterations. */
static void print_kstats_table(const struct compare *cmp, const struct run *runs,
			       size_t nruns)
{
	const struct fl_kstats *names = NULL;

	for (size_t i = 0; i < nruns; i++)
		if (runs[i].r.kstats.n > 0)
			names = &runs[i].r.kstats;
	if (!names)
		return;
	printf("\nkernel stats (%s): delta per 1000 iterations, mean over runs\n"
	       "(values such as spin_budget_ns: the value after the run, mean over runs)\n",
	       fl_kstats_path());
	printf("%-*s", label_width(cmp), "mode");
	for (int k = 0; k < names->n; k++)
		printf(" %*s", (int)(strlen(names->name[k]) > 9 ? strlen(names->name[k]) : 9),
		       names->name[k]);
	printf("\n");
	for (size_t m = 0; m < cmp->ninst; m++) {
		bool any = false;

		for (size_t i = 0; i < nruns; i++)
			any |= runs[i].inst == m && runs[i].r.kstats.n > 0;
		if (!any)
			continue;
		printf("%-*s", label_width(cmp), cmp->inst[m].label);
		for (int k = 0; k < names->n; k++) {
			double sum = 0;
			int w = strlen(names->name[k]) > 9 ? (int)strlen(names->name[k]) : 9;
			size_t cnt = 0;

			for (size_t i = 0; i < nruns; i++) {
				const struct fl_bench_result *r = &runs[i].r;

				if (runs[i].inst != m || r->kstats.n <= 0 ||
				    !r->iterations)
					continue;
				for (int j = 0; j < r->kstats.n; j++)
					if (!strcmp(r->kstats.name[j], names->name[k]))
						sum += fl_kstats_is_gauge(names->name[k]) ?
						       (double)r->kstats.value[j] :
						       1000.0 * (double)r->kstats.value[j] /
						       (double)r->iterations;
				cnt++;
			}
			printf(" %*.2f", w, cnt ? sum / (double)cnt : 0.0);
		}
		printf("\n");
	}
}

static void json_begin(const struct opts *o, const struct compare *cmp)
{
	struct utsname u;
	int err, ok = fl_futex_lock_probe(&err);

	uname(&u);
	fprintf(jout, "{\n  \"tool\": \"futex_lock\",\n  ");
	fl_json_provenance(jout, cmp ? cmp->seed : 0);
	fprintf(jout, ",\n  \"kernel\": ");
	json_str(u.release);
	fprintf(jout, ",\n  \"machine\": ");
	json_str(u.machine);
	fprintf(jout, ",\n  \"futex_lock_available\": %s,\n  \"probe\": ",
	       ok ? "true" : "false");
	json_str(fl_futex_lock_probe_line());
	fprintf(jout, ",\n  \"arguments\": {\"iterations\": ");
	if (o->duration > 0)
		fprintf(jout, "null");
	else
		fprintf(jout, "%" PRIu64, o->iterations);
	fprintf(jout, ", \"duration_s\": ");
	if (o->duration > 0)
		json_num(o->duration);
	else
		fprintf(jout, "null");
	fprintf(jout, ", \"threads\": %u, \"hold_loops\": %" PRIu64
	       ", \"outside_loops\": %" PRIu64 ", \"repeat\": %u"
	       ", \"compare\": %s, \"pin\": %s, \"shared\": %s, \"multi\": %s"
	       ", \"latency_every\": %u, \"sched\": ", o->threads, o->hold,
	       o->wait, cmp ? cmp->reps : 1, o->compare ? "true" : "false",
	       o->pin ? "true" : "false", o->shared ? "true" : "false",
	       o->multi ? "true" : "false", o->latency_every);
	json_str(o->sched_name);
	fprintf(jout, ", \"modes\": [");
	for (size_t m = 0; m < o->nmodes; m++) {
		fprintf(jout, "%s", m ? ", " : "");
		json_str(o->modes[m].label);
	}
	fprintf(jout, "]");
	if (cmp) {
		fprintf(jout, ", \"seed\": %" PRIu64 ", \"ci_target_pct\": ", cmp->seed);
		json_num(o->ci_target);
		fprintf(jout, ", \"time_limit_s\": ");
		json_num(o->time_limit);
	}
	fprintf(jout, "},\n");
	if (cmp) {
		fprintf(jout, "  \"baseline\": ");
		json_str(cmp->inst[cmp->base].ops->name);
		fprintf(jout, ", \"baseline_note\": ");
		json_str(cmp->base_note);
		fprintf(jout, ",\n");
	}
}

/*
 * "vs": instance k's paired ratio to every other measured instance (not the
 * A/A copy), judged by the engine against the table's A/A band as the
 * ratio to the baseline is: make matrix's ADAPTIVE-vs-best-mainline column.
 */
static void json_vs(const struct compare *cmp, const struct run *runs,
		    size_t nruns, size_t k)
{
	double *x = calloc(cmp->reps + 1, sizeof(*x));
	double *y = calloc(cmp->reps + 1, sizeof(*y));
	bool first = true;

	if (!x || !y)
		abort();
	fprintf(jout, ",\n     \"vs\": {");
	if (k != cmp->aa && !cmp->s[k].failed) {
		series(cmp, runs, nruns, k, x);
		for (size_t j = 0; j < cmp->ninst; j++) {
			struct fl_ratio_ci r;

			if (j == k || j == cmp->aa || !cmp->s[j].n || cmp->s[j].failed)
				continue;
			series(cmp, runs, nruns, j, y);
			fl_ratio_ci(x, y, cmp->reps, &r);
			fl_decide(&r, FL_HIGHER_IS_BETTER, &cmp->s[cmp->aa].ratio);
			fprintf(jout, "%s", first ? "" : ", ");
			first = false;
			json_str(cmp->inst[j].label);
			fprintf(jout, ": ");
			fl_json_ci(jout, &r);
		}
	}
	fprintf(jout, "}");
	free(y);
	free(x);
}

static void json_summary(const struct compare *cmp, const struct run *runs,
			 size_t nruns)
{
	const struct summary *s = cmp->s;

	fprintf(jout, ",\n  \"summary\": [\n");
	for (size_t k = 0; k < cmp->ninst; k++) {
		const struct inst *in = &cmp->inst[k];

		fprintf(jout, "    {\"mode\": ");
		json_str(in->ops->name);
		fprintf(jout, ", \"instance\": ");
		json_str(in->label);
		json_knobs(&in->knobs);
		fprintf(jout, ", \"baseline\": %s, \"control\": %s, \"available\": %s, \"runs\": %zu",
			k == cmp->base ? "true" : "false",
			in->is_control ? "true" : "false",
			in->available ? "true" : "false", s[k].n);
		if (s[k].n) {
			fprintf(jout, ",\n     \"median_kiter_s\": ");
			json_num(s[k].median);
			fprintf(jout, ", \"min_kiter_s\": ");
			json_num(s[k].min);
			fprintf(jout, ", \"max_kiter_s\": ");
			json_num(s[k].max);
			fprintf(jout, ", \"spread_pct\": ");
			json_num(s[k].spread);
			fprintf(jout, ",\n     \"ratio\": ");
			if (k == cmp->base)
				fprintf(jout, "1, \"ratio_lo\": 1, \"ratio_hi\": 1, \"pairs\": %u, \"verdict\": \"baseline\"",
					cmp->reps);
			else if (s[k].ratio.verdict == FL_FAILED)
				fprintf(jout, "null, \"ratio_lo\": null, \"ratio_hi\": null, \"pairs\": %zu, \"verdict\": \"failed\", \"failed_runs\": %zu",
					s[k].ratio.n, s[k].failed);
			else if (s[k].ratio.n < 2)
				fprintf(jout, "null, \"ratio_lo\": null, \"ratio_hi\": null, \"pairs\": %zu, \"verdict\": null",
					s[k].ratio.n);
			else {
				json_num(s[k].ratio.median);
				fprintf(jout, ", \"ratio_lo\": ");
				json_num(s[k].ratio.lo);
				fprintf(jout, ", \"ratio_hi\": ");
				json_num(s[k].ratio.hi);
				fprintf(jout, ", \"pairs\": %zu, \"verdict\": ", s[k].ratio.n);
				json_str(fl_verdict_name(s[k].ratio.verdict));
			}
			fprintf(jout, ", \"better\": \"higher\", \"comparison\": ");
			if (k == cmp->base)
				fprintf(jout, "null");
			else
				fl_json_ci(jout, &s[k].ratio);
			json_vs(cmp, runs, nruns, k);
			if (in->ops->counts_syscalls)
				fprintf(jout, ",\n     \"lock_syscall_pct\": %.2f, \"unlock_syscall_pct\": %.2f",
				       s[k].lock_pct, s[k].unlock_pct);
			else
				fprintf(jout, ",\n     \"lock_syscall_pct\": null, \"unlock_syscall_pct\": null");
			fprintf(jout, ", \"kiter_per_cpu_s\": ");
			json_num(s[k].kcpu);
			fprintf(jout, ", \"cpu_s_per_kiter\": ");
			json_num(s[k].cpu_per_kiter);
			fprintf(jout, ", \"voluntary_ctxsw_per_kiter\": ");
			json_num(s[k].vcs);
			fprintf(jout, ", \"involuntary_ctxsw_per_kiter\": ");
			json_num(s[k].ivcs);
			fprintf(jout, ",\n     \"latency_samples\": %" PRIu64 ", \"latency_p50_us\": ",
				s[k].lat.count);
			json_num(s[k].lat.count ? (double)fl_hist_quantile(&s[k].lat, 0.5) / 1e3 : -1e301);
			fprintf(jout, ", \"latency_p90_us\": ");
			json_num(s[k].lat.count ? (double)fl_hist_quantile(&s[k].lat, 0.9) / 1e3 : -1e301);
			fprintf(jout, ", \"latency_p99_us\": ");
			json_num(s[k].lat.count ? (double)fl_hist_quantile(&s[k].lat, 0.99) / 1e3 : -1e301);
			fprintf(jout, ", \"latency_p999_us\": ");
			json_num(s[k].lat.count ? (double)fl_hist_quantile(&s[k].lat, 0.999) / 1e3 : -1e301);
			fprintf(jout, ", \"latency_max_us\": ");
			json_num(s[k].lat.count ? (double)s[k].lat.max_ns / 1e3 : -1e301);
			fprintf(jout, ", \"longest_wait_us\": ");
			json_num(s[k].maxwait_us);
			fprintf(jout, ", \"thread_cv_pct\": ");
			json_num(s[k].thr_cv);
		}
		fprintf(jout, "}%s\n", k + 1 < cmp->ninst ? "," : "");
	}
	fprintf(jout, "  ]");
	/* the table's noise floor and the best mode against the runner-up */
	fprintf(jout, ",\n  \"aa\": ");
	fl_json_ci(jout, &s[cmp->aa].ratio);
	fprintf(jout, ",\n  \"aa_ok\": %s,\n  \"winner\": ",
		s[cmp->aa].ratio.n < 2 ? "null" : fl_aa_ok(&s[cmp->aa].ratio) ? "true" : "false");
	if (cmp->second == SIZE_MAX) {
		fprintf(jout, "null");
	} else {
		fprintf(jout, "{\"best\": ");
		json_str(cmp->inst[cmp->win].label);
		fprintf(jout, ", \"runner_up\": ");
		json_str(cmp->inst[cmp->second].label);
		fprintf(jout, ", \"comparison\": ");
		fl_json_ci(jout, &cmp->win_ratio);
		fprintf(jout, "}");
	}
}

static void json_all(const struct opts *o, const struct compare *cmp,
		     const struct run *runs, size_t nruns)
{
	json_begin(o, cmp);
	fprintf(jout, "  \"runs\": [\n");
	for (size_t i = 0; i < nruns; i++) {
		json_run(o, &runs[i], cmp ? &cmp->inst[runs[i].inst] : NULL, "    ");
		fprintf(jout, "%s\n", i + 1 < nruns ? "," : "");
	}
	fprintf(jout, "  ]");
	if (cmp)
		json_summary(cmp, runs, nruns);
	fprintf(jout, "\n}\n");
}

static int write_json(const struct opts *o, const struct compare *cmp,
		      const struct run *runs, size_t nruns)
{
	if (o->json_file) {
		jout = fopen(o->json_file, "w");
		if (!jout) {
			perror(o->json_file);
			return 1;
		}
		json_all(o, cmp, runs, nruns);
		if (fclose(jout)) {
			perror(o->json_file);
			return 1;
		}
	}
	if (o->json) {
		jout = stdout;
		json_all(o, cmp, runs, nruns);
	}
	return 0;
}

static int run_status(const struct run *run, int status)
{
	const struct fl_bench_result *r = &run->r;

	if (!r->error[0])
		return status;
	if (r->setup_failed) {
		fprintf(stderr, "futex_lock: %s: setup error: %s\n",
			run->label, r->error);
		return status ? status : 1;
	}
	fprintf(stderr, "futex_lock: %s: %s\n", run->label, r->error);
	if (!r->mutex_ok && r->iterations)
		return 3;
	return status ? status : 1;
}

/*
 * One run; a knob variant's knobs are set right before it and restored
 * right after it.  A knob that cannot be set fails the run as a set-up
 * error; one that cannot be restored ends futex_lock: every later run
 * would measure a changed kernel.
 */
static void bench(const struct opts *o, struct run *run)
{
	struct fl_bench_cfg cfg;
	char err[512];

	cfg_for(o, run->ops, &cfg);
	memset(&run->r, 0, sizeof(run->r));
	if (run->knobs->n &&
	    fl_knobs_apply(run->knobs, run->r.error, sizeof(run->r.error))) {
		run->r.kstats.n = -1;
		fl_hist_init(&run->r.lat);
		run->r.setup_failed = true;
		return;
	}
	fl_bench_run(&cfg, &run->r);
	if (run->knobs->n && fl_knobs_restore(err, sizeof(err))) {
		fprintf(stderr, "futex_lock: %s: %s: the kernel's spin policy stays changed\n",
			run->label, err);
		exit(1);
	}
}

/*
 * Before any run: every knob variant's knobs set and restored once, so
 * that no patched kernel, no root or no debugfs is one clear error, not
 * a table of failed runs.
 */
static void check_knobs(const struct opts *o)
{
	char err[512];

	for (size_t m = 0; m < o->nmodes; m++) {
		const struct mode *md = &o->modes[m];

		if (md->knobs.n && (fl_knobs_apply(&md->knobs, err, sizeof(err)) ||
				    fl_knobs_restore(err, sizeof(err)))) {
			fprintf(stderr, "futex_lock: -m %s: %s (knob variants need root and the patched kernel's debugfs)\n",
				md->label, err);
			exit(1);
		}
	}
}

/* Plain runs: each mode once, RFC block (or the -s line) per run. */
static int run_single(const struct opts *o)
{
	struct run *runs = calloc(o->nmodes, sizeof(*runs));
	size_t nruns = 0;
	int status = 0;

	if (!runs)
		return 1;
	for (size_t m = 0; m < o->nmodes; m++) {
		if (!fl_lock_available(o->modes[m].ops)) {
			fprintf(stderr, "futex_lock: %s\n", FL_NO_FUTEX_LOCK_MSG);
			free(runs);
			return 1;
		}
	}
	for (size_t m = 0; m < o->nmodes; m++) {
		struct run *run = &runs[nruns++];

		run->ops = o->modes[m].ops;
		run->label = o->modes[m].label;
		run->knobs = &o->modes[m].knobs;
		run->rep = 1;
		bench(o, run);
		status = run_status(run, status);
		/* a run that never started has no RFC block to print */
		if (o->json || run->r.setup_failed)
			continue;
		if (o->silent) {
			print_silent(o, run);
			continue;
		}
		if (nruns > 1)
			printf("\n");
		print_text(o, run);
	}
	if (write_json(o, NULL, runs, nruns))
		status = status ? status : 1;
	free(runs);
	return status;
}

static int run_compare(const struct opts *o)
{
	struct compare *cmp = calloc(1, sizeof(*cmp));
	struct run *runs = NULL;
	size_t nruns = 0, cap = 0, navail = 0;
	unsigned order[MAX_INST];
	uint64_t t0 = fl_now_ns(), rs;
	int err, status = 0;

	if (!cmp)
		return 1;
	fl_futex_lock_probe(&err);
	for (size_t m = 0; m < o->nmodes; m++) {
		struct inst *in = &cmp->inst[cmp->ninst++];

		in->ops = o->modes[m].ops;
		in->knobs = o->modes[m].knobs;
		in->available = fl_lock_available(in->ops);
		snprintf(in->label, sizeof(in->label), "%s", o->modes[m].label);
		navail += in->available;
	}
	if (!navail) {
		fprintf(stderr, "futex_lock: --compare: none of the requested modes can run here (%s)\n",
			fl_futex_lock_probe_line());
		free(cmp);
		return 1;
	}
	/* the baseline: --baseline, else futex_lock, else pthread */
	{
		const struct fl_lock_ops *b = o->baseline;

		if (!b) {
			b = fl_lock_find("futex_lock");
			if (!fl_lock_available(b)) {
				b = fl_lock_find("pthread");
				snprintf(cmp->base_note, sizeof(cmp->base_note),
					 " (FUTEX_LOCK unavailable on this kernel: probe %s; ratios refer to pthread)",
					 err ? strerrorname_np(err) : "succeeded");
			}
		}
		if (!fl_lock_available(b)) {
			fprintf(stderr, "futex_lock: --baseline %s cannot run here (%s)\n",
				b->name, fl_futex_lock_probe_line());
			free(cmp);
			return 1;
		}
		cmp->base = cmp->ninst;
		for (size_t k = 0; k < cmp->ninst; k++)
			if (cmp->inst[k].ops == b && !cmp->inst[k].knobs.n)
				cmp->base = k;
		if (cmp->base == cmp->ninst) {
			struct inst *in = &cmp->inst[cmp->ninst++];

			in->ops = b;
			in->available = true;
			snprintf(in->label, sizeof(in->label), "%s", b->name);
		}
		cmp->inst[cmp->base].is_base = true;
		/* the A/A control: the baseline again, a separate instance */
		{
			struct inst *in = &cmp->inst[cmp->ninst++];

			in->ops = b;
			in->available = true;
			in->is_control = true;
			snprintf(in->label, sizeof(in->label), "%s (A/A)", b->name);
			cmp->aa = cmp->ninst - 1;
		}
	}
	cmp->seed = o->seed_set ? o->seed : (fl_now_ns() ^ ((uint64_t)getpid() << 32));
	rs = cmp->seed ? cmp->seed : 1;
	for (unsigned rep = 0;; rep++) {
		double el = (double)(fl_now_ns() - t0) / 1e9;

		if (rep >= 2 && o->time_limit > 0 && el >= o->time_limit)
			break;
		if (rep >= o->repeat) {
			if (!(o->ci_target > 0) || rep >= MAX_REPEAT)
				break;
			cmp->reps = rep;
			summarize(cmp, runs, nruns, cmp->s);
			if (ci_narrow(o, cmp))
				break;
		}
		/* a new random order of the instances every repetition */
		for (size_t k = 0; k < cmp->ninst; k++)
			order[k] = (unsigned)k;
		fl_shuffle(order, cmp->ninst, &rs);
		for (size_t q = 0; q < cmp->ninst; q++) {
			const struct inst *in = &cmp->inst[order[q]];
			struct run *run;

			if (!in->available)
				continue;
			if (nruns == cap) {
				cap = cap ? 2 * cap : 4 * MAX_INST;
				runs = realloc(runs, cap * sizeof(*runs));
				if (!runs)
					abort();
			}
			run = &runs[nruns++];
			memset(run, 0, sizeof(*run));
			run->ops = in->ops;
			run->label = in->label;
			run->knobs = &in->knobs;
			run->inst = order[q];
			run->rep = rep + 1;
			bench(o, run);
			status = run_status(run, status);
		}
		cmp->reps = rep + 1;
	}
	summarize(cmp, runs, nruns, cmp->s);
	if (write_json(o, cmp, runs, nruns))
		status = status ? status : 1;
	if (!o->json) {
		print_table(o, cmp);
		print_kstats_table(cmp, runs, nruns);
	}
	free(runs);
	free(cmp);
	return status;
}

int main(int argc, char **argv)
{
	struct opts o;

	parse(argc, argv, &o);
	setvbuf(stdout, NULL, _IOLBF, 0);
	check_knobs(&o);
	return o.compare ? run_compare(&o) : run_single(&o);
}
