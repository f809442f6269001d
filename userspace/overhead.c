// SPDX-License-Identifier: GPL-2.0
/*
 * overhead - what futex_lock's measuring engine costs per iteration.
 *
 * futex_lock -t 1 -d 0 -w 0 runs one thread through lock(); unlock() with
 * nothing else in its loop but a counter; a bare loop of the same pairs in
 * a thread of its own is the reference.  Every repetition runs, per lock,
 * the bare loop, the engine and the bare loop a second time (the A/A
 * control) in a fresh random order; the figure per lock is the median of
 * the per-repetition ratios engine / bare with its 95% bootstrap interval,
 * next to the A/A ratio bare / bare and its interval.  The engine's cost
 * is "within the noise" when the two intervals overlap.
 *
 * This is a benchmark: it reports, it never fails on a figure.  The same
 * question used to be a host test ("within 10% of a bare loop") that
 * failed on machines it was not tuned on.
 */
#include "futexlock.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODES 16

enum { COL_BARE, COL_ENGINE, COL_AA, NCOLS };

struct bare {
	const struct fl_lock_ops *ops;
	uint64_t n, ns;
	int err;
};

static void *bare_thread(void *arg)
{
	struct bare *b = arg;
	struct fl_lock *l = aligned_alloc(FL_CACHELINE, sizeof(*l));
	struct fl_counters c = { 0 };
	volatile uint64_t counter = 0;
	uint64_t t0;

	if (!l || fl_lock_init(l, b->ops)) {
		b->err = 1;
		free(l);
		return NULL;
	}
	t0 = fl_now_ns();
	for (uint64_t i = 0; i < b->n; i++) {
		fl_lock(l, &c);
		counter++;
		fl_unlock(l, &c);
	}
	b->ns = fl_now_ns() - t0;
	fl_lock_destroy(l);
	free(l);
	return NULL;
}

/* one bare loop in its own thread, like the engine's worker: ns per pair */
static double bare_ns(const struct fl_lock_ops *ops, uint64_t n)
{
	struct bare b = { ops, n, 0, 0 };
	pthread_t th;

	if (pthread_create(&th, NULL, bare_thread, &b))
		return 0;
	pthread_join(th, NULL);
	return b.err ? 0 : (double)b.ns / (double)n;
}

static double engine_ns(const struct fl_lock_ops *ops, uint64_t n)
{
	struct fl_bench_cfg cfg = { .ops = ops, .threads = 1, .iterations = n,
				    .latency_every = FL_DEF_LATENCY_EVERY };
	struct fl_bench_result *r = malloc(sizeof(*r));
	double ns;

	if (!r || fl_bench_run(&cfg, r) || !r->iterations) {
		free(r);
		return 0;
	}
	ns = r->elapsed_s * 1e9 / (double)r->iterations;
	free(r);
	return ns;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: overhead [options]\n"
"Per-iteration cost of futex_lock's engine (-t 1 -d 0 -w 0) against a bare\n"
"lock();unlock() loop, paired repetitions in random order, with an A/A row.\n"
"  -m, --mode NAME   lock, repeatable (default: spin waitwake pi)\n"
"  -i, --pairs N     lock/unlock pairs per run (default 1000000)\n"
"  -r, --reps N      paired repetitions (default 10, at least 2)\n"
"  --seed N          seed of the run order (default 1)\n"
"  --json            JSON instead of the table\n"
"  -h, --help        this text\n"
"Reports figures; exits 0 when every mode ran, 1 when one could not run,\n"
"2 on bad arguments.\n");
}

struct mode_res {
	const struct fl_lock_ops *ops;
	double *v[NCOLS];	/* ns per pair, one per repetition */
	struct fl_ratio_ci eng, aa;
	bool ran;
};

/* the verdict of lib/compare.c, in this tool's words (time: lower is better) */
static const char *reading(const struct mode_res *m)
{
	switch (m->eng.verdict) {
	case FL_SLOWER:
		return "engine costs more";
	case FL_FASTER:
		return "engine costs less";
	case FL_INDISTINGUISHABLE:
		return "within the A/A band";
	default:
		return "insufficient data";
	}
}

static void print_ci_json(const char *key, const struct fl_ratio_ci *r)
{
	printf("\"%s\": ", key);
	fl_json_ci(stdout, r);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "pairs", required_argument, NULL, 'i' },
		{ "reps", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const defaults[] = { "spin", "waitwake", "pi" };
	struct mode_res m[MAX_MODES];
	uint64_t pairs = 1000000, reps = 10, seed = 1, seed0, v;
	unsigned nm = 0, *order;
	bool json = false;
	int c, rc = 0;

	memset(m, 0, sizeof(m));
	while ((c = getopt_long(argc, argv, "m:i:r:h", lo, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (nm == MAX_MODES || !fl_lock_find(optarg))
				goto bad;
			m[nm++].ops = fl_lock_find(optarg);
			break;
		case 'i':
			if (fl_parse_u64(optarg, 1, 1000000000, &pairs))
				goto bad;
			break;
		case 'r':
			if (fl_parse_u64(optarg, 2, 10000, &reps))
				goto bad;
			break;
		case 'S':
			if (fl_parse_u64(optarg, 0, UINT64_MAX, &v))
				goto bad;
			seed = v ? v : 1;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (!nm)
		for (; nm < sizeof(defaults) / sizeof(defaults[0]); nm++)
			m[nm].ops = fl_lock_find(defaults[nm]);

	order = calloc((size_t)nm * NCOLS, sizeof(*order));
	if (!order)
		abort();
	for (unsigned i = 0; i < nm; i++) {
		m[i].ran = fl_lock_available(m[i].ops);
		for (int k = 0; k < NCOLS; k++) {
			m[i].v[k] = calloc(reps, sizeof(double));
			if (!m[i].v[k])
				abort();
		}
	}
	seed0 = seed;
	for (uint64_t r = 0; r < reps; r++) {
		for (unsigned i = 0; i < nm * NCOLS; i++)
			order[i] = i;
		fl_shuffle(order, (size_t)nm * NCOLS, &seed);
		for (unsigned i = 0; i < nm * NCOLS; i++) {
			struct mode_res *x = &m[order[i] / NCOLS];
			int col = order[i] % NCOLS;

			if (!x->ran)
				continue;
			x->v[col][r] = col == COL_ENGINE ? engine_ns(x->ops, pairs)
							 : bare_ns(x->ops, pairs);
			if (x->v[col][r] <= 0)
				x->ran = false;
		}
	}
	for (unsigned i = 0; i < nm; i++) {
		if (!m[i].ran) {
			rc = 1;
			continue;
		}
		/* times: engine / bare > 1 means the engine costs more */
		fl_compare(m[i].v[COL_ENGINE], m[i].v[COL_BARE], m[i].v[COL_AA], reps,
			   FL_LOWER_IS_BETTER, &m[i].eng);
		fl_compare(m[i].v[COL_AA], m[i].v[COL_BARE], m[i].v[COL_AA], reps,
			   FL_LOWER_IS_BETTER, &m[i].aa);
	}

	if (json) {
		printf("{");
		fl_json_meta(stdout, "overhead", seed0);
		printf(", \"pairs\": %" PRIu64 ", \"reps\": %" PRIu64 ", \"rows\": [",
		       pairs, reps);
		for (unsigned i = 0; i < nm; i++) {
			printf("%s{\"mode\": ", i ? ", " : "");
			fl_json_str(stdout, m[i].ops->name);
			printf(", \"available\": %s", m[i].ran ? "true" : "false");
			if (m[i].ran) {
				printf(", \"bare_ns\": %.3f, \"engine_ns\": %.3f, ",
				       fl_median(m[i].v[COL_BARE], reps),
				       fl_median(m[i].v[COL_ENGINE], reps));
				print_ci_json("engine_over_bare", &m[i].eng);
				printf(", ");
				print_ci_json("aa", &m[i].aa);
				printf(", \"reading\": ");
				fl_json_str(stdout, reading(&m[i]));
			}
			printf("}");
		}
		printf("]}\n");
		return rc;
	}
	printf("overhead: futex_lock -t 1 -d 0 -w 0 against a bare lock();unlock() loop, %" PRIu64
	       " pairs, %" PRIu64 " paired repetitions in random order\n", pairs, reps);
	printf("%-10s %12s %14s  %-22s %-22s %s\n", "mode", "bare ns/pair",
	       "engine ns/iter", "engine/bare [95% CI]", "A/A bare/bare [95% CI]",
	       "reading");
	for (unsigned i = 0; i < nm; i++) {
		char a[64], b[64];

		if (!m[i].ran) {
			printf("%-10s unavailable\n", m[i].ops->name);
			continue;
		}
		snprintf(a, sizeof(a), "%.3f [%.3f-%.3f]", m[i].eng.median,
			 m[i].eng.lo, m[i].eng.hi);
		snprintf(b, sizeof(b), "%.3f [%.3f-%.3f]", m[i].aa.median,
			 m[i].aa.lo, m[i].aa.hi);
		printf("%-10s %12.2f %14.2f  %-22s %-22s %s\n", m[i].ops->name,
		       fl_median(m[i].v[COL_BARE], reps),
		       fl_median(m[i].v[COL_ENGINE], reps), a, b, reading(&m[i]));
	}
	printf("ratio = median over %" PRIu64 " repetitions of the per-repetition ratio of times (lower is cheaper), 95%% bootstrap interval\n",
	       reps);
	return rc;
bad:
	usage(stderr);
	return 2;
}
