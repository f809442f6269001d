// SPDX-License-Identifier: GPL-2.0
/*
 * lockbench - "how long can a lock keep you waiting" (after Skarupke 2019).
 *
 * T threads each lock/unlock one lock L times; the whole test repeats R
 * times.  Test "wait": t0 = now; lock(); wait = now - t0.  Test "idle": the
 * holder stores now just before unlock(); the next thread that gets the
 * lock measures the gap (how long a free lock sat idle while wanted).
 * Every repetition runs every lock type once in a fresh random order, plus
 * the baseline type a second time (A/A control); ratios to the baseline are
 * medians of the per-repetition ratios with a 95% bootstrap interval.
 */
#include "futexlock.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TYPES 24
#define MAX_THREADS 1024

enum { TEST_WAIT = 1, TEST_IDLE = 2 };

struct opts {
	unsigned threads;
	uint64_t loops;
	uint64_t reps;		/* 0: per-test default */
	int tests;
	const struct fl_lock_ops *types[MAX_TYPES];
	unsigned ntypes;
	const struct fl_lock_ops *base;
	enum fl_sched sched;
	bool pin, json;
	const char *json_file;	/* table to stdout, JSON here */
	uint64_t seed;		/* of the run order (--seed, else time) */
};

static const char *const default_types[] = {
	"pthread", "terrible_spinlock", "spinlock_amd", "spinlock",
	"ticket_spinlock", "waitwake", "futex_lock", "adaptive", "pi",
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: lockbench [options]\n"
"Longest wait / longest idle of a contended lock (Skarupke 2019, on Linux).\n"
"  -t, --threads N   threads (default: online CPUs)\n"
"  -l, --loops N     lock/unlock per thread per test (default 16384)\n"
"  -r, --reps N      repetitions (default 100 for wait, 1000 for idle)\n"
"  -T, --test T      wait, idle or both (default both)\n"
"  -m, --type NAME   lock type, repeatable (default: all below)\n"
"  -b, --baseline N  type the ratios refer to (default pthread); it also\n"
"                    runs twice per repetition as the A/A control row\n"
"  --sched P         other, fifo or rr for the lock threads\n"
"  --pin             thread i on the i-th allowed CPU\n"
"  --quick           -l 2048 -r 10 (for tests and a first look)\n"
"  --seed N          seed of the run order (default: time; printed)\n"
"  --json            JSON instead of the table\n"
"  --json-file F     the table to stdout and the JSON into F\n"
"  -h, --help        this text\n"
"Types: pthread waitwake futex_lock adaptive pi (lib/locks.c, any mode of\n"
"futex_lock -m works), terrible_spinlock spinlock_amd spinlock\n"
"ticket_spinlock (lib/spinlocks.c).  futex_lock and adaptive need the\n"
"patched kernel; elsewhere they are reported unavailable.\n"
"Verdicts (JSON): lower is better for both ratios; see fl_decide() in\n"
"lib/compare.c (>= 5 pairs, interval clear of 1 and of the two-sided A/A\n"
"band; A/A row 'control', a failed row 'failed').\n"
"Exit: 0 ok, 1 a run failed (e.g. a lock did not exclude) or none of the\n"
"-m types could run here, 2 bad usage.\n");
}

static void bad(const char *what, const char *arg)
{
	fprintf(stderr, "lockbench: bad %s: '%s'\n", what, arg ? arg : "");
	usage(stderr);
	exit(2);
}

/* ---- one run ------------------------------------------------------------ */
struct shared {
	struct fl_lock lock;
	_Alignas(FL_CACHELINE) _Atomic uint64_t last_release;	/* idle test */
	uint64_t counter;					/* under the lock */
	struct fl_owner owner;		/* the exclusion check, own line */
	_Alignas(FL_CACHELINE) _Atomic unsigned ready;
	_Atomic uint32_t go;	/* 0 wait, 1 go, 2 abort (futex word) */
	const struct opts *o;
	int test;
};

struct worker {
	pthread_t th;
	unsigned idx;
	struct shared *sh;
	struct fl_counters cnt;
	struct fl_hist hist;		/* in TSC cycles, scaled when printed */
	uint64_t longest;		/* cycles */
	uint64_t end_ns;
	uint32_t tid;
	uint64_t overlaps;		/* seen by the owner word */
	uint64_t handoffs;		/* entries after another thread's */
	char err[160];
};

/*
 * Load, pause, store: a lock that does not exclude loses counts.  The
 * pause (tens of cycles) is the critical section's only work, in place of
 * the write-up's max() inside the lock.  The owner word around it
 * (struct fl_owner, the check of futex_lock's engine) catches overlaps the
 * counter alone missed (6 of 10 runs at -t 2 -l 20000 -r 3 passed).
 */
static inline void count(struct shared *sh, struct worker *w)
{
	uint64_t v;

	w->overlaps += fl_owner_enter(&sh->owner, w->tid, &w->handoffs);
	v = sh->counter;
	fl_cpu_relax();
	sh->counter = v + 1;
	w->overlaps += fl_owner_leave(&sh->owner, w->tid);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct fl_lock *l = &sh->lock;
	uint64_t loops = sh->o->loops;
	bool first = true;

	w->tid = (uint32_t)fl_gettid();
	if (fl_thread_setup(w->idx, sh->o->pin, sh->o->sched, 0, w->err,
			    sizeof(w->err)))
		atomic_store(&sh->go, 2);
	atomic_fetch_add(&sh->ready, 1);
	/* sleep, not spin: under --sched fifo spinning starters starve main */
	while (atomic_load_explicit(&sh->go, memory_order_acquire) == 0)
		fl_futex((_Atomic uint32_t *)&sh->go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	if (atomic_load(&sh->go) == 2)
		return NULL;
	if (sh->test == TEST_WAIT) {
		for (uint64_t i = 0; i < loops; i++) {
			uint64_t t0 = fl_cycles(), d;

			fl_lock(l, &w->cnt);
			d = fl_cycles() - t0;
			count(sh, w);
			fl_unlock(l, &w->cnt);
			if (d > w->longest)
				w->longest = d;
			fl_hist_add(&w->hist, d);
		}
	} else {
		for (uint64_t i = 0; i < loops; i++) {
			uint64_t t, d;

			fl_lock(l, &w->cnt);
			t = fl_cycles();
			d = t - atomic_load_explicit(&sh->last_release,
						     memory_order_relaxed);
			count(sh, w);
			atomic_store_explicit(&sh->last_release, fl_cycles(),
					      memory_order_relaxed);
			fl_unlock(l, &w->cnt);
			if (first) {	/* nobody has released before us: skip */
				first = false;
				continue;
			}
			if ((int64_t)d < 0)
				d = 0;
			if (d > w->longest)
				w->longest = d;
			fl_hist_add(&w->hist, d);
		}
	}
	w->end_ns = fl_now_ns();
	return NULL;
}

struct col {			/* one row of the table */
	const struct fl_lock_ops *ops;
	bool aa, available, failed;
	char err[200];
	double *dur_ms;		/* per repetition, 0 = no data */
	double *longest;	/* per repetition, cycles */
	struct fl_hist hist;	/* cycles */
	uint64_t syscalls, calls;
	uint64_t handoffs;	/* entries after another thread's (owner word) */
};

/* Runs one test of one type; 0, or -1 with c->err set. */
static int run_one(const struct opts *o, int test, struct col *c, unsigned rep,
		   struct worker *ws)
{
	struct shared *sh;
	uint64_t t0, end = 0, longest = 0, overlaps = 0;
	unsigned created = 0;
	int r, ret = 0;

	sh = aligned_alloc(FL_CACHELINE, (sizeof(*sh) + FL_CACHELINE - 1) &
			   ~(size_t)(FL_CACHELINE - 1));
	if (!sh) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	memset(sh, 0, sizeof(*sh));
	sh->o = o;
	sh->test = test;
	r = fl_lock_init(&sh->lock, c->ops);
	if (r) {
		snprintf(c->err, sizeof(c->err), "lock init: %s", strerror(r));
		free(sh);
		return -1;
	}
	atomic_store(&sh->last_release, fl_cycles());
	for (unsigned i = 0; i < o->threads; i++) {
		memset(&ws[i], 0, sizeof(ws[i]));
		ws[i].idx = i;
		ws[i].sh = sh;
		fl_hist_init(&ws[i].hist);
		r = pthread_create(&ws[i].th, NULL, worker_main, &ws[i]);
		if (r) {
			snprintf(c->err, sizeof(c->err), "pthread_create: %s", strerror(r));
			atomic_store(&sh->go, 2);
			ret = -1;
			break;
		}
		created++;
	}
	while (ret == 0 && atomic_load(&sh->ready) < created)
		fl_poll_pause();
	t0 = fl_now_ns();
	if (ret == 0) {
		uint32_t expect = 0;

		atomic_compare_exchange_strong(&sh->go, &expect, 1);
	}
	fl_futex(&sh->go, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	for (unsigned i = 0; i < created; i++)
		pthread_join(ws[i].th, NULL);
	for (unsigned i = 0; i < created; i++) {
		if (ws[i].err[0] && !ret) {
			snprintf(c->err, sizeof(c->err), "%s", ws[i].err);
			ret = -1;
		}
	}
	if (ret == 0) {
		for (unsigned i = 0; i < created; i++) {
			if (ws[i].end_ns > end)
				end = ws[i].end_ns;
			if (ws[i].longest > longest)
				longest = ws[i].longest;
			fl_hist_merge(&c->hist, &ws[i].hist);
			c->calls += ws[i].cnt.lock_calls;
			c->syscalls += ws[i].cnt.lock_syscalls;
		}
		for (unsigned i = 0; i < created; i++)
			overlaps += ws[i].overlaps;
		for (unsigned i = 0; i < created; i++)
			c->handoffs += ws[i].handoffs;
		if (sh->counter != (uint64_t)o->threads * o->loops || overlaps) {
			snprintf(c->err, sizeof(c->err),
				 "lock did not exclude: counter %llu, expected %llu, overlapping critical sections %llu",
				 (unsigned long long)sh->counter,
				 (unsigned long long)o->threads * o->loops,
				 (unsigned long long)overlaps);
			ret = -1;
		} else {
			c->dur_ms[rep] = (double)(end - t0) / 1e6;
			c->longest[rep] = (double)longest;
		}
	}
	fl_lock_destroy(&sh->lock);
	free(sh);
	return ret;
}

/* ns per TSC cycle, measured over the whole program */
static double cyc_scale(uint64_t ns0, uint64_t c0)
{
	uint64_t ns = fl_now_ns() - ns0, c = fl_cycles() - c0;

	return c ? (double)ns / (double)c : 1.0;
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y) - (x > y);
}

static void report(const struct opts *o, int test, uint64_t reps,
		   struct col *cols, unsigned ncols, double sc, bool first)
{
	const char *tname = test == TEST_WAIT ? "wait" : "idle";
	struct col *base = &cols[0];
	char b1[64], b2[64];

	if (!o->json) {
		printf("lockbench: test %s; %u threads x %llu loops, %llu repetitions "
		       "(paired, random order); sched %s; pin %s\n", tname, o->threads,
		       (unsigned long long)o->loops, (unsigned long long)reps,
		       fl_sched_name(o->sched), o->pin ? "yes" : "no");
		printf("%-22s %8s %-19s %-28s %8s %8s %9s %-19s\n", "type", "avg ms",
		       "dur/base [95% CI]", test == TEST_WAIT ? "four longest waits ms" :
		       "four longest idles ms", "p50 us", "p99 us", "p99.9 us",
		       "longest/base [CI]");
	} else {
		printf("%s{\"test\": \"%s\", \"threads\": %u, \"loops\": %llu, \"reps\": %llu, \"rows\": [",
		       first ? "" : ", ", tname, o->threads,
		       (unsigned long long)o->loops, (unsigned long long)reps);
	}
	for (unsigned k = 0; k < ncols; k++) {
		struct col *c = &cols[k];
		char name[48];
		double top[4] = { 0 }, *srt, avg = 0;
		unsigned n = 0;
		struct fl_ratio_ci dr, lr;

		snprintf(name, sizeof(name), "%s%s", c->ops->name, c->aa ? " (A/A)" : "");
		srt = calloc(reps, sizeof(*srt));
		if (!srt)
			abort();
		for (uint64_t i = 0; i < reps; i++) {
			if (c->dur_ms[i] > 0) {
				avg += c->dur_ms[i];
				srt[n++] = c->longest[i] * sc / 1e6;
			}
		}
		avg = n ? avg / n : 0;
		qsort(srt, n, sizeof(*srt), cmp_desc);
		for (unsigned i = 0; i < 4 && i < n; i++)
			top[i] = srt[i];
		free(srt);
		/* durations and waits: lower is better; the A/A column is last */
		fl_compare(c->dur_ms, base->dur_ms, cols[ncols - 1].dur_ms, reps,
			   FL_LOWER_IS_BETTER, &dr);
		fl_compare(c->longest, base->longest, cols[ncols - 1].longest, reps,
			   FL_LOWER_IS_BETTER, &lr);
		if (k == 0)
			dr.n = lr.n = 0;
		if (c->failed) {	/* no verdict from a row that failed */
			fl_fail(&dr);
			fl_fail(&lr);
		}
		if (!o->json) {
			if (!c->available)
				printf("%-22s unavailable\n", name);
			else if (!n)
				printf("%-22s failed: %s\n", name, c->err);
			else
				printf("%-22s %8.1f %-19s %6.2f, %6.2f, %6.2f, %6.2f %8.2f %8.2f %9.2f %-19s%s%s\n",
				       name, avg, k ? fl_ci_str(&dr, b1, sizeof(b1)) : "(baseline)",
				       top[0], top[1], top[2], top[3],
				       fl_hist_quantile(&c->hist, 0.5) * sc / 1e3,
				       fl_hist_quantile(&c->hist, 0.99) * sc / 1e3,
				       fl_hist_quantile(&c->hist, 0.999) * sc / 1e3,
				       k ? fl_ci_str(&lr, b2, sizeof(b2)) : "(baseline)",
				       c->failed ? " FAILED: " : "", c->failed ? c->err : "");
			continue;
		}
		printf("%s{\"type\": ", k ? ", " : "");
		fl_json_str(stdout, c->ops->name);
		printf(", \"aa\": %s, \"available\": %s, \"runs\": %u, \"error\": ",
		       c->aa ? "true" : "false", c->available ? "true" : "false", n);
		fl_json_str(stdout, c->failed ? c->err : "");
		printf(", \"avg_ms\": %.4f, \"longest4_ms\": [%.4f, %.4f, %.4f, %.4f]"
		       ", \"mean_us\": %.4f, \"p50_us\": %.4f, \"p99_us\": %.4f, \"p999_us\": %.4f, \"max_us\": %.4f"
		       ", \"samples\": %llu, \"yield_or_syscall_per_lock\": %.4f, \"dur_ratio\": ",
		       avg, top[0], top[1], top[2], top[3],
		       c->hist.count ? (double)c->hist.sum_ns / c->hist.count * sc / 1e3 : 0,
		       fl_hist_quantile(&c->hist, 0.5) * sc / 1e3,
		       fl_hist_quantile(&c->hist, 0.99) * sc / 1e3,
		       fl_hist_quantile(&c->hist, 0.999) * sc / 1e3,
		       (double)c->hist.max_ns * sc / 1e3,
		       (unsigned long long)c->hist.count,
		       c->calls ? (double)c->syscalls / c->calls : 0);
		fl_json_ci(stdout, &dr);
		printf(", \"longest_ratio\": ");
		fl_json_ci(stdout, &lr);
		/* 0: no thread ever took the lock after another; the
		 * exclusion check saw no contention to check */
		printf(", \"handoffs\": %llu, \"dur_ms_reps\": ",
		       (unsigned long long)c->handoffs);
		fl_json_series(stdout, c->dur_ms, reps, 1.0);
		printf(", \"longest_ms_reps\": ");
		fl_json_series(stdout, c->longest, reps, sc / 1e6);
		printf("}");
	}
	if (o->json)
		printf("]}");
	else
		printf("ratios: median of per-repetition ratios to %s with a 95%% bootstrap "
		       "interval (lower is better);\nthe A/A row is %s against itself (the noise floor); "
		       "seed %llu\n\n", base->ops->name, base->ops->name,
		       (unsigned long long)o->seed);
}

static int run_test(const struct opts *o, int test, uint64_t reps,
		    uint64_t ns0, uint64_t c0, bool first)
{
	unsigned ncols = o->ntypes + 1, *order;
	struct col *cols = calloc(ncols, sizeof(*cols));
	struct worker *ws = calloc(o->threads, sizeof(*ws));
	uint64_t seed = o->seed ^ (uint64_t)test;
	int ret = 0;

	order = calloc(ncols, sizeof(*order));
	if (!cols || !ws || !order)
		abort();
	/* column 0: the baseline; the last column: the baseline again (A/A) */
	for (unsigned k = 0; k < ncols; k++) {
		struct col *c = &cols[k];

		c->ops = k == o->ntypes ? o->base : o->types[k];
		c->aa = k == o->ntypes;
		c->available = fl_lock_available(c->ops);
		c->dur_ms = calloc(reps, sizeof(double));
		c->longest = calloc(reps, sizeof(double));
		if (!c->dur_ms || !c->longest)
			abort();
		fl_hist_init(&c->hist);
		order[k] = k;
	}
	for (uint64_t rep = 0; rep < reps; rep++) {
		fl_shuffle(order, ncols, &seed);
		for (unsigned j = 0; j < ncols; j++) {
			struct col *c = &cols[order[j]];

			if (!c->available || c->failed)
				continue;
			if (run_one(o, test, c, rep, ws)) {
				c->failed = true;
				ret = 1;
				fprintf(stderr, "lockbench: %s %s: %s\n",
					test == TEST_WAIT ? "wait" : "idle",
					c->ops->name, c->err);
			}
		}
	}
	report(o, test, reps, cols, ncols, cyc_scale(ns0, c0), first);
	if (o->json_file) {
		struct opts oj = *o;

		oj.json = true;
		fl_json_begin();
		report(&oj, test, reps, cols, ncols, cyc_scale(ns0, c0), first);
		fl_json_end();
	}
	for (unsigned k = 0; k < ncols; k++) {
		free(cols[k].dur_ms);
		free(cols[k].longest);
	}
	free(cols);
	free(ws);
	free(order);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "loops", required_argument, NULL, 'l' },
		{ "reps", required_argument, NULL, 'r' },
		{ "test", required_argument, NULL, 'T' },
		{ "type", required_argument, NULL, 'm' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "sched", required_argument, NULL, 1 },
		{ "pin", no_argument, NULL, 2 },
		{ "quick", no_argument, NULL, 3 },
		{ "json", no_argument, NULL, 4 },
		{ "json-file", required_argument, NULL, 5 },
		{ "seed", required_argument, NULL, 6 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .loops = 16384, .tests = TEST_WAIT | TEST_IDLE };
	const char *base = "pthread";
	bool quick = false, loops_set = false, seed_set = false, none = false;
	unsigned nreq;
	uint64_t v, ns0 = fl_now_ns(), c0 = fl_cycles();
	unsigned bi;
	int c, ret = 0;

	o.threads = fl_online_cpus();
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:l:r:T:m:b:h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			if (fl_parse_u64(optarg, 1, MAX_THREADS, &v))
				bad("--threads (1..1024)", optarg);
			o.threads = (unsigned)v;
			break;
		case 'l':
			if (fl_parse_u64(optarg, 1, 1ull << 32, &o.loops))
				bad("--loops", optarg);
			loops_set = true;
			break;
		case 'r':
			if (fl_parse_u64(optarg, 1, 1000000, &o.reps))
				bad("--reps", optarg);
			break;
		case 'T':
			if (!strcmp(optarg, "wait"))
				o.tests = TEST_WAIT;
			else if (!strcmp(optarg, "idle"))
				o.tests = TEST_IDLE;
			else if (!strcmp(optarg, "both"))
				o.tests = TEST_WAIT | TEST_IDLE;
			else
				bad("--test", optarg);
			break;
		case 'm':
			if (o.ntypes == MAX_TYPES - 1)
				bad("--type (too many)", optarg);
			o.types[o.ntypes] = fl_lock_find_any(optarg);
			if (!o.types[o.ntypes])
				bad("--type", optarg);
			o.ntypes++;
			break;
		case 'b':
			base = optarg;
			break;
		case 1:
			if (fl_parse_sched(optarg, &o.sched))
				bad("--sched", optarg);
			break;
		case 2:
			o.pin = true;
			break;
		case 3:
			quick = true;
			break;
		case 4:
			o.json = true;
			break;
		case 5:
			o.json_file = optarg;
			break;
		case 6:
			if (fl_parse_u64(optarg, 0, UINT64_MAX, &o.seed))
				bad("--seed", optarg);
			seed_set = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			bad("option (missing value)", argv[optind - 1]);
			break;
		default:
			bad("option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad("argument", argv[optind]);
	if (!seed_set)
		o.seed = fl_now_ns() ^ ((uint64_t)getpid() << 32);
	nreq = o.ntypes;
	for (unsigned i = 0; i < o.ntypes; i++)
		if (!fl_lock_available(o.types[i]))
			nreq--;
	none = o.ntypes && !nreq;	/* no -m type can run: say so, exit 1 */
	o.base = fl_lock_find_any(base);
	if (!o.base)
		bad("--baseline", base);
	if (!o.ntypes)
		for (size_t i = 0; i < sizeof(default_types) / sizeof(*default_types); i++)
			o.types[o.ntypes++] = fl_lock_find_any(default_types[i]);
	/* the baseline goes first (column 0), once */
	for (bi = 0; bi < o.ntypes && o.types[bi] != o.base; bi++)
		;
	if (bi == o.ntypes && o.ntypes == MAX_TYPES - 1)
		bad("--type (too many)", base);
	memmove(&o.types[1], &o.types[0], bi * sizeof(o.types[0]));
	if (bi == o.ntypes)
		o.ntypes++;
	o.types[0] = o.base;
	if (!fl_lock_available(o.base)) {
		fprintf(stderr, "lockbench: baseline %s unavailable: %s\n",
			o.base->name, FL_NO_FUTEX_LOCK_MSG);
		return 1;
	}
	if (o.sched == FL_SCHED_FIFO || o.sched == FL_SCHED_RR) {
		char err[160];

		/* main above the workers, so it can start and join them */
		if (fl_thread_setup(0, false, o.sched, 1, err, sizeof(err))) {
			fprintf(stderr, "lockbench: %s\n", err);
			return 1;
		}
	}
	if (quick && !loops_set)
		o.loops = 2048;
	if (quick && !o.reps)
		o.reps = 10;
	if (o.json_file) {
		o.json = false;
		if (fl_json_file_open(o.json_file))
			bad("--json-file (cannot write)", o.json_file);
	}
	if (!o.json)
		printf("# %s\n", fl_futex_lock_probe_line());
	if (o.json || o.json_file) {
		fl_json_begin();
		printf("{");
		fl_json_meta(stdout, "lockbench", o.seed);
		printf(", \"sched\": \"%s\", \"pin\": %s, \"baseline\": ",
		       fl_sched_name(o.sched), o.pin ? "true" : "false");
		fl_json_str(stdout, o.base->name);
		printf(", \"tests\": [");
		fl_json_end();
	}
	if (o.tests & TEST_WAIT)
		ret |= run_test(&o, TEST_WAIT, o.reps ? o.reps : 100, ns0, c0, true);
	if (o.tests & TEST_IDLE)
		ret |= run_test(&o, TEST_IDLE, o.reps ? o.reps : 1000, ns0, c0,
				!(o.tests & TEST_WAIT));
	if (o.json || o.json_file) {
		fl_json_begin();
		printf("]}\n");
		fl_json_end();
	}
	if (none) {
		fprintf(stderr, "lockbench: none of the requested types can run here (%s)\n",
			FL_NO_FUTEX_LOCK_MSG);
		ret = 1;
	}
	return ret;
}
