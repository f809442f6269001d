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
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#define DEF_ITERATIONS	10000000ull
#define DEF_THREADS	256u
#define DEF_HOLD	1000ull
#define DEF_WAIT	10000ull
#define DEF_REPEAT	3u
#define MAX_THREADS	4096u
#define MAX_MODES	16

struct opts {
	uint64_t iterations;
	bool iterations_set;
	unsigned threads;
	uint64_t hold, wait;
	double duration;
	unsigned repeat;
	bool adaptive, compare, json, pin;
	const char *json_file;
	enum fl_sched sched;
	const char *sched_name;
	const struct fl_lock_ops *modes[MAX_MODES];
	size_t nmodes;
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
"  --compare     run all modes (or the -m ones) interleaved, -r times, and\n"
"                print a table: median Kiter/s, ratio to futex_lock, syscall %%,\n"
"                spread = (max-min)/median over the repetitions\n"
"  -r R          repetitions for --compare (default %u)\n"
"  --duration S  time-bounded run of S seconds instead of -i; reports per-thread\n"
"                iterations min/max/stddev (fairness)\n"
"  --json        print every figure as JSON instead of text\n"
"  --json-file F also write the JSON of the same runs to file F\n"
"  --pin         pin thread i to the i-th allowed CPU, round-robin\n"
"  --sched P     scheduling policy of the threads: other, fifo or rr\n"
"                (fifo/rr at the minimum priority; needs privileges)\n"
"  --probe       print whether this kernel has FUTEX_LOCK; exit 0 if it has\n"
"  -h, --help    this text\n"
"\n"
"Modes:\n", (unsigned long long)DEF_ITERATIONS, DEF_THREADS,
		(unsigned long long)DEF_HOLD, (unsigned long long)DEF_WAIT,
		DEF_REPEAT);
	for (size_t i = 0; i < fl_lock_nmodes; i++)
		fprintf(f, "  %-17s %s\n", fl_lock_modes[i]->name,
			fl_lock_modes[i]->desc);
	fprintf(f,
"\n"
"Counters are exact and per thread: a lock call is one acquire, a lock syscall\n"
"one kernel entry on that path (futex(2); sched_yield() for spin); n/a where a\n"
"library hides them. Every run also checks mutual exclusion with a counter\n"
"incremented inside the lock.\n"
"Exit status: 0 ok, 1 run failed or mode unavailable, 2 bad arguments,\n"
"3 mutual exclusion violated.\n");
}

static void bad_arg(const char *opt, const char *val)
{
	fprintf(stderr, "futex_lock: invalid value '%s' for %s\n", val, opt);
	usage(stderr);
	exit(2);
}

static void add_mode(struct opts *o, const char *name)
{
	const struct fl_lock_ops *ops = fl_lock_find(name);

	if (!ops)
		bad_arg("-m", name);
	for (size_t i = 0; i < o->nmodes; i++)
		if (o->modes[i] == ops)
			return;
	o->modes[o->nmodes++] = ops;
}

enum { OPT_COMPARE = 256, OPT_DURATION, OPT_JSON, OPT_PIN, OPT_SCHED,
       OPT_PROBE, OPT_JSON_FILE };

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
	o->sched_name = "default";
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ai:t:n:d:w:m:r:h", lo, NULL)) != -1) {
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
			break;
		case 'm':
			if (o->nmodes == MAX_MODES)
				bad_arg("-m", optarg);
			add_mode(o, optarg);
			break;
		case 'r':
			if (fl_parse_u64(optarg, 1, 1000, &v))
				bad_arg("-r", optarg);
			o->repeat = (unsigned)v;
			break;
		case OPT_COMPARE:
			o->compare = true;
			break;
		case OPT_DURATION:
			if (fl_parse_double(optarg, 0.001, 86400, &o->duration))
				bad_arg("--duration", optarg);
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
	if (o->adaptive && o->nmodes) {
		fprintf(stderr, "futex_lock: -a selects mode adaptive; do not combine it with -m\n");
		usage(stderr);
		exit(2);
	}
	if (o->duration > 0 && o->iterations_set) {
		fprintf(stderr, "futex_lock: use either -i or --duration\n");
		usage(stderr);
		exit(2);
	}
	if (o->adaptive)
		add_mode(o, "adaptive");
	if (!o->nmodes) {
		if (o->compare) {
			for (size_t i = 0; i < fl_lock_nmodes; i++)
				o->modes[o->nmodes++] = fl_lock_modes[i];
		} else {
			add_mode(o, "futex_lock");
		}
	}
}

struct run {
	const struct fl_lock_ops *ops;
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
}

static bool is_rfc_mode(const struct fl_lock_ops *ops)
{
	return !strcmp(ops->name, "futex_lock") || !strcmp(ops->name, "adaptive");
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
	printf("mode: %s; hold loops: %" PRIu64 "; outside loops: %" PRIu64
	       "; pin: %s; sched: %s\n", ops->name, o->hold, o->wait,
	       o->pin ? "yes" : "no", o->sched_name);
	if (o->duration > 0)
		printf("iterations: %" PRIu64 " in %.3f s\n", r->iterations,
		       r->elapsed_s);
	else
		printf("iterations: exactly %" PRIu64 " = %u threads x %" PRIu64
		       ", first %" PRIu64 " threads +1\n", r->iterations,
		       o->threads, o->iterations / o->threads,
		       o->iterations % o->threads);
	printf("elapsed: %.3f s (%.2f Kiter/s)\n", r->elapsed_s, r->kiter_s);
	printf("cpu: %.3f s (user %.3f s, sys %.3f s); Kiter per CPU-second: %.2f\n",
	       r->cpu_s, r->user_s, r->sys_s, r->kiter_per_cpu_s);
	printf("acquire wait: longest %.1f us, mean %.2f us\n",
	       r->longest_wait_us, r->mean_wait_us);
	printf("per-thread iterations: min %" PRIu64 " max %" PRIu64
	       " mean %.1f stddev %.1f (cv %.1f%%)\n", r->thr_min, r->thr_max,
	       r->thr_mean, r->thr_stddev,
	       r->thr_mean > 0 ? 100.0 * r->thr_stddev / r->thr_mean : 0.0);
	printf("mutual exclusion: %s (protected counter %" PRIu64 ")\n",
	       r->mutex_ok ? "ok" : "VIOLATED", r->protected_counter);
	if (r->kstats.n >= 0) {
		printf("kernel stats (%s, delta):", fl_kstats_path());
		for (int i = 0; i < r->kstats.n; i++)
			printf(" %s=%" PRIu64, r->kstats.name[i], r->kstats.value[i]);
		printf("\n");
	}
}

static FILE *jout;

static void json_str(const char *s)
{
	fputc('"', jout);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(jout, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(jout, "\\u%04x", *s);
		else
			fputc(*s, jout);
	}
	fputc('"', jout);
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

static void json_run(const struct run *run, const char *ind)
{
	const struct fl_bench_result *r = &run->r;
	bool sc = run->ops->counts_syscalls;

	fprintf(jout, "%s{\"mode\": ", ind);
	json_str(run->ops->name);
	fprintf(jout, ", \"rep\": %u, \"available\": true, \"ok\": %s", run->rep,
	       r->error[0] ? "false" : "true");
	if (r->error[0]) {
		fprintf(jout, ", \"error\": ");
		json_str(r->error);
	}
	fprintf(jout, ",\n%s \"iterations\": %" PRIu64 ", \"elapsed_s\": ", ind,
	       r->iterations);
	json_num(r->elapsed_s);
	fprintf(jout, ", \"kiter_s\": ");
	json_num(r->kiter_s);
	fprintf(jout, ", \"result_kiter_s\": %.0f", r->kiter_s);
	json_calls(ind, "lock", r->total.lock_calls, r->total.lock_syscalls, sc);
	json_calls(ind, "unlock", r->total.unlock_calls, r->total.unlock_syscalls, sc);
	fprintf(jout, ",\n%s \"user_s\": ", ind);
	json_num(r->user_s);
	fprintf(jout, ", \"sys_s\": ");
	json_num(r->sys_s);
	fprintf(jout, ", \"cpu_s\": ");
	json_num(r->cpu_s);
	fprintf(jout, ", \"kiter_per_cpu_s\": ");
	json_num(r->kiter_per_cpu_s);
	fprintf(jout, ",\n%s \"longest_wait_us\": ", ind);
	json_num(r->longest_wait_us);
	fprintf(jout, ", \"mean_wait_us\": ");
	json_num(r->mean_wait_us);
	fprintf(jout, ",\n%s \"thread_iterations\": {\"min\": %" PRIu64 ", \"max\": %"
	       PRIu64 ", \"mean\": ", ind, r->thr_min, r->thr_max);
	json_num(r->thr_mean);
	fprintf(jout, ", \"stddev\": ");
	json_num(r->thr_stddev);
	fprintf(jout, "},\n%s \"protected_counter\": %" PRIu64 ", \"mutex_ok\": %s",
	       ind, r->protected_counter, r->mutex_ok ? "true" : "false");
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
	const struct fl_lock_ops *ops;
	bool available;
	size_t n;
	double median, spread, min, max, ratio;
	double lock_pct, unlock_pct, kcpu, maxwait_us, thr_cv;
};

static void summarize(const struct opts *o, const struct run *runs,
		      size_t nruns, struct summary *s)
{
	double *v = calloc(nruns + 1, sizeof(*v));
	double base = 0.0;

	for (size_t m = 0; m < o->nmodes; m++) {
		uint64_t lc = 0, ls = 0, uc = 0, us = 0;
		double cpu_it = 0, cpu_s = 0, cv = 0;

		memset(&s[m], 0, sizeof(s[m]));
		s[m].ops = o->modes[m];
		s[m].available = fl_lock_available(o->modes[m]);
		for (size_t i = 0; i < nruns; i++) {
			const struct fl_bench_result *r = &runs[i].r;

			if (runs[i].ops != o->modes[m] || r->error[0])
				continue;
			v[s[m].n++] = r->kiter_s;
			lc += r->total.lock_calls;
			ls += r->total.lock_syscalls;
			uc += r->total.unlock_calls;
			us += r->total.unlock_syscalls;
			cpu_it += (double)r->iterations;
			cpu_s += r->cpu_s;
			if (r->longest_wait_us > s[m].maxwait_us)
				s[m].maxwait_us = r->longest_wait_us;
			cv += r->thr_mean > 0 ? 100.0 * r->thr_stddev / r->thr_mean : 0;
		}
		if (!s[m].n)
			continue;
		s[m].median = fl_median(v, s[m].n);
		s[m].spread = fl_spread_pct(v, s[m].n);
		s[m].min = fl_min(v, s[m].n);
		s[m].max = fl_max(v, s[m].n);
		s[m].lock_pct = fl_pct(ls, lc);
		s[m].unlock_pct = fl_pct(us, uc);
		s[m].kcpu = cpu_s > 0 ? cpu_it / cpu_s / 1e3 : 0;
		s[m].thr_cv = cv / (double)s[m].n;
		if (!strcmp(o->modes[m]->name, "futex_lock"))
			base = s[m].median;
	}
	for (size_t m = 0; m < o->nmodes; m++)
		s[m].ratio = base > 0 && s[m].n ? s[m].median / base : -1;
	free(v);
}

static void print_table(const struct opts *o, const struct summary *s)
{
	struct utsname u;

	uname(&u);
	printf("futex_lock --compare: ");
	if (o->duration > 0)
		printf("duration=%gs", o->duration);
	else
		printf("iterations=%" PRIu64, o->iterations);
	printf(" threads=%u hold=%" PRIu64 " outside=%" PRIu64
	       " repeat=%u pin=%s sched=%s kernel=%s\n", o->threads, o->hold,
	       o->wait, o->repeat, o->pin ? "yes" : "no", o->sched_name, u.release);
	printf("%-17s %10s %6s %9s %11s %8s %11s %11s %8s\n", "mode", "Kiter/s",
	       "ratio", "lock-sys%", "unlock-sys%", "spread%", "Kiter/CPU-s",
	       "maxwait-us", "thr-cv%");
	for (size_t m = 0; m < o->nmodes; m++) {
		char ratio[16], lp[16], up[16], kc[24];

		printf("%-17s ", s[m].ops->name);
		if (!s[m].available) {
			printf("%10s\n", "unavailable");
			continue;
		}
		if (!s[m].n) {
			printf("%10s\n", "failed");
			continue;
		}
		if (s[m].ratio >= 0)
			snprintf(ratio, sizeof(ratio), "%.2f", s[m].ratio);
		else
			snprintf(ratio, sizeof(ratio), "-");
		if (s[m].ops->counts_syscalls) {
			snprintf(lp, sizeof(lp), "%.2f", s[m].lock_pct);
			snprintf(up, sizeof(up), "%.2f", s[m].unlock_pct);
		} else {
			snprintf(lp, sizeof(lp), "n/a");
			snprintf(up, sizeof(up), "n/a");
		}
		if (s[m].kcpu > 0)
			snprintf(kc, sizeof(kc), "%.2f", s[m].kcpu);
		else
			snprintf(kc, sizeof(kc), "n/a");
		printf("%10.2f %6s %9s %11s %8.1f %11s %11.1f %8.1f\n",
		       s[m].median, ratio, lp, up, s[m].spread, kc,
		       s[m].maxwait_us, s[m].thr_cv);
	}
	printf("ratio = median / median of futex_lock; spread = (max-min)/median "
	       "over %u runs; thr-cv = per-thread iterations stddev/mean\n",
	       o->repeat);
}

/* Kernel counters (debugfs) per mode: mean delta per run, per 1000 iterations. */
static void print_kstats_table(const struct opts *o, const struct run *runs,
			       size_t nruns)
{
	const struct fl_kstats *names = NULL;

	for (size_t i = 0; i < nruns; i++)
		if (runs[i].r.kstats.n > 0)
			names = &runs[i].r.kstats;
	if (!names)
		return;
	printf("\nkernel stats (%s): delta per 1000 iterations, mean over runs\n",
	       fl_kstats_path());
	printf("%-17s", "mode");
	for (int k = 0; k < names->n; k++)
		printf(" %*s", (int)(strlen(names->name[k]) > 9 ? strlen(names->name[k]) : 9),
		       names->name[k]);
	printf("\n");
	for (size_t m = 0; m < o->nmodes; m++) {
		bool any = false;

		for (size_t i = 0; i < nruns; i++)
			any |= runs[i].ops == o->modes[m] && runs[i].r.kstats.n > 0;
		if (!any)
			continue;
		printf("%-17s", o->modes[m]->name);
		for (int k = 0; k < names->n; k++) {
			double sum = 0;
			int w = strlen(names->name[k]) > 9 ? (int)strlen(names->name[k]) : 9;
			size_t cnt = 0;

			for (size_t i = 0; i < nruns; i++) {
				const struct fl_bench_result *r = &runs[i].r;

				if (runs[i].ops != o->modes[m] || r->kstats.n <= 0 ||
				    !r->iterations)
					continue;
				for (int j = 0; j < r->kstats.n; j++)
					if (!strcmp(r->kstats.name[j], names->name[k]))
						sum += 1000.0 * (double)r->kstats.value[j] /
						       (double)r->iterations;
				cnt++;
			}
			printf(" %*.2f", w, cnt ? sum / (double)cnt : 0.0);
		}
		printf("\n");
	}
}

static void json_begin(const struct opts *o)
{
	struct utsname u;
	int err, ok = fl_futex_lock_probe(&err);

	uname(&u);
	fprintf(jout, "{\n  \"tool\": \"futex_lock\",\n  \"kernel\": ");
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
	       ", \"compare\": %s, \"pin\": %s, \"sched\": ", o->threads, o->hold,
	       o->wait, o->compare ? o->repeat : 1, o->compare ? "true" : "false",
	       o->pin ? "true" : "false");
	json_str(o->sched_name);
	fprintf(jout, ", \"modes\": [");
	for (size_t m = 0; m < o->nmodes; m++) {
		fprintf(jout, "%s", m ? ", " : "");
		json_str(o->modes[m]->name);
	}
	fprintf(jout, "]},\n");
}

static void json_end(const struct opts *o, const struct run *runs,
		     size_t nruns, const struct summary *s)
{
	fprintf(jout, "  \"runs\": [\n");
	for (size_t i = 0; i < nruns; i++) {
		json_run(&runs[i], "    ");
		fprintf(jout, "%s\n", i + 1 < nruns ? "," : "");
	}
	fprintf(jout, "  ],\n  \"summary\": [\n");
	for (size_t m = 0; m < o->nmodes; m++) {
		fprintf(jout, "    {\"mode\": ");
		json_str(s[m].ops->name);
		fprintf(jout, ", \"available\": %s, \"runs\": %zu",
		       s[m].available ? "true" : "false", s[m].n);
		if (s[m].n) {
			fprintf(jout, ", \"median_kiter_s\": ");
			json_num(s[m].median);
			fprintf(jout, ", \"min_kiter_s\": ");
			json_num(s[m].min);
			fprintf(jout, ", \"max_kiter_s\": ");
			json_num(s[m].max);
			fprintf(jout, ", \"spread_pct\": ");
			json_num(s[m].spread);
			fprintf(jout, ", \"ratio_to_futex_lock\": ");
			if (s[m].ratio >= 0)
				json_num(s[m].ratio);
			else
				fprintf(jout, "null");
			if (s[m].ops->counts_syscalls)
				fprintf(jout, ", \"lock_syscall_pct\": %.2f, \"unlock_syscall_pct\": %.2f",
				       s[m].lock_pct, s[m].unlock_pct);
			else
				fprintf(jout, ", \"lock_syscall_pct\": null, \"unlock_syscall_pct\": null");
			fprintf(jout, ", \"kiter_per_cpu_s\": ");
			json_num(s[m].kcpu);
			fprintf(jout, ", \"longest_wait_us\": ");
			json_num(s[m].maxwait_us);
			fprintf(jout, ", \"thread_cv_pct\": ");
			json_num(s[m].thr_cv);
		}
		fprintf(jout, "}%s\n", m + 1 < o->nmodes ? "," : "");
	}
	fprintf(jout, "  ]\n}\n");
}

int main(int argc, char **argv)
{
	struct opts o;
	struct run *runs;
	struct summary s[MAX_MODES];
	size_t nruns = 0;
	unsigned reps;
	int status = 0;

	parse(argc, argv, &o);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!o.compare) {
		for (size_t m = 0; m < o.nmodes; m++) {
			if (!fl_lock_available(o.modes[m])) {
				fprintf(stderr, "futex_lock: %s\n", FL_NO_FUTEX_LOCK_MSG);
				return 1;
			}
		}
	}
	reps = o.compare ? o.repeat : 1;
	runs = calloc((size_t)reps * o.nmodes, sizeof(*runs));
	if (!runs)
		return 1;

	for (unsigned rep = 0; rep < reps; rep++) {
		/* interleave the modes; rotate the order every repetition */
		for (size_t k = 0; k < o.nmodes; k++) {
			const struct fl_lock_ops *ops =
				o.modes[(k + rep) % o.nmodes];
			struct fl_bench_cfg cfg;
			struct run *run;

			if (!fl_lock_available(ops))
				continue;
			run = &runs[nruns];
			run->ops = ops;
			run->rep = rep + 1;
			cfg_for(&o, ops, &cfg);
			if (fl_bench_run(&cfg, &run->r)) {
				fprintf(stderr, "futex_lock: %s: %s\n", ops->name,
					run->r.error);
				if (!run->r.mutex_ok && run->r.iterations)
					status = 3;
				else if (!status)
					status = 1;
			}
			if (!o.json && !o.compare) {
				if (nruns)
					printf("\n");
				print_text(&o, run);
			}
			nruns++;
		}
	}
	summarize(&o, runs, nruns, s);
	if (o.json_file) {
		jout = fopen(o.json_file, "w");
		if (!jout) {
			perror(o.json_file);
			return 1;
		}
		json_begin(&o);
		json_end(&o, runs, nruns, s);
		if (fclose(jout)) {
			perror(o.json_file);
			return 1;
		}
	}
	if (o.json) {
		jout = stdout;
		json_begin(&o);
		json_end(&o, runs, nruns, s);
	} else if (o.compare) {
		print_table(&o, s);
		print_kstats_table(&o, runs, nruns);
	}
	free(runs);
	return status;
}
