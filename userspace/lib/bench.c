// SPDX-License-Identifier: GPL-2.0
/*
 * Lock-throughput engine: N threads start together on a barrier and run
 * lock(); hold delay; unlock(); outside delay; either for an exact number
 * of iterations split over the threads, or until a deadline.
 *
 * The loop takes no timestamps: two clock reads per iteration cost more
 * than an uncontended lock pair and one of them would sit inside the
 * critical section.  Acquire latency is sampled instead: every Nth
 * acquire (cfg->latency_every) is timed into a log-bucket histogram.
 */
#include "futexlock.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

struct fl_bench;

struct fl_worker {
	_Alignas(FL_CACHELINE) struct fl_bench *b;
	pthread_t th;
	unsigned idx;
	uint64_t target;	/* iterations; 0 = until b->stop */
	uint64_t iters;
	struct fl_counters c;
	uint64_t t_start, t_end;
	double user_s, sys_s, cpu_s;
	uint64_t nvcsw, nivcsw;
	int err;
	char errmsg[96];
	/* -M: this thread's own lock, protected counter and owner word */
	struct fl_lock own_lock;
	_Alignas(FL_CACHELINE) uint64_t own_counter;
	struct fl_owner own_owner;
	/* entries that found another owner inside, and exits that found
	 * the owner word no longer theirs (see struct fl_owner) */
	_Alignas(FL_CACHELINE) uint64_t overlaps;
	uint64_t handoffs;	/* entries that followed another thread's */
	/* cfg->perf_loop: the lock, loaded from here by every lock and
	 * unlock as perf's workerfn() loads w->futex */
	struct fl_lock *perf_lock;
	struct fl_hist lat;
};

struct fl_bench {
	struct fl_lock lock;
	/* the data the lock protects and the owner word, a line each */
	_Alignas(FL_CACHELINE) uint64_t protected_counter;
	struct fl_owner owner;
	_Alignas(FL_CACHELINE) atomic_int stop;
	const struct fl_bench_cfg *cfg;
	pthread_barrier_t barrier;
	cpu_set_t allowed;
	int ncpus;
};

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static int worker_setup(struct fl_worker *w)
{
	const struct fl_bench_cfg *cfg = w->b->cfg;
	int r;

	if (cfg->pin && w->b->ncpus > 0) {
		int want = (int)(w->idx % (unsigned)w->b->ncpus), seen = 0;
		cpu_set_t set;

		CPU_ZERO(&set);
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &w->b->allowed))
				continue;
			if (seen++ == want) {
				CPU_SET(cpu, &set);
				break;
			}
		}
		r = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (r) {
			snprintf(w->errmsg, sizeof(w->errmsg),
				 "pin thread %u: %s", w->idx, strerror(r));
			return r;
		}
	}
	if (cfg->sched != FL_SCHED_DEFAULT) {
		int pol = cfg->sched == FL_SCHED_FIFO ? SCHED_FIFO :
			  cfg->sched == FL_SCHED_RR ? SCHED_RR : SCHED_OTHER;
		struct sched_param sp = { 0 };

		if (pol != SCHED_OTHER)
			sp.sched_priority = sched_get_priority_min(pol);
		r = pthread_setschedparam(pthread_self(), pol, &sp);
		if (r) {
			snprintf(w->errmsg, sizeof(w->errmsg),
				 "set scheduling policy: %s", strerror(r));
			return r;
		}
	}
	return 0;
}

/*
 * cfg->perf_loop: the loop of perf bench futex lock's workerfn()
 * (tools/perf/bench/futex-lock.c) and nothing more: lock, the hold
 * loops, unlock, a count kept in a register, then the stop flag
 * (do-while: at least one iteration, as perf).  Lock and unlock are
 * perf's two inlined cmpxchg; only the slow paths touch memory of the
 * worker (their syscall counts, as perf's worker struct).  Instruction
 * for instruction as perf's: each lock and unlock loads the lock's
 * address from the worker (perf's w->futex), the hold is preceded by
 * perf's sign test of its load (-l < 0 means usleep(1) there; never
 * here) and is perf's loop, an int counter and barrier(), not
 * fl_delay()'s unsigned long.  Under TCG an iteration at -d 0 is ~15
 * instructions, and without the loads and the test the loop ran
 * 1.1-1.5x perf's ops/s.
 */
static uint64_t perf_loop(struct fl_worker *w, struct fl_lock *l)
{
	struct fl_bench *b = w->b;
	const uint32_t tid = (uint32_t)fl_gettid();
	const int lop = l->ops->tid_lock_op, uop = l->ops->tid_unlock_op;
	const int loops = (int)b->cfg->hold_loops;	/* <= 10^9 */
	uint64_t ops = 0;

	/* a TID is never 0: the lock's cmpxchg expects a constant 0, as perf's */
	if (!tid)
		__builtin_unreachable();
	w->perf_lock = l;
	do {
		fl_tid_lock(w->perf_lock, &w->c, tid, lop);
		if (loops < 0)
			usleep(1);
		for (int i = 0; i < loops; i++)
			__asm__ volatile("" ::: "memory");	/* perf's barrier() */
		fl_tid_unlock(w->perf_lock, &w->c, tid, uop);
		ops++;
	} while (!atomic_load_explicit(&b->stop, memory_order_relaxed));
	w->c.lock_calls = ops;
	w->c.unlock_calls = ops;
	return ops;
}

static void *worker(void *arg)
{
	struct fl_worker *w = arg;
	struct fl_bench *b = w->b;
	const bool multi = b->cfg->multi;
	struct fl_lock *l = multi ? &w->own_lock : &b->lock;
	uint64_t *ctr = multi ? &w->own_counter : &b->protected_counter;
	struct fl_owner *ow = multi ? &w->own_owner : &b->owner;
	const uint32_t me = (uint32_t)fl_gettid();
	const uint64_t hold = b->cfg->hold_loops, outside = b->cfg->wait_loops;
	const unsigned every = b->cfg->latency_every;
	struct rusage r0, r1;
	struct timespec c0, c1;
	uint64_t i = 0, gap, lat_zero = 0;
	const bool timed = b->cfg->iterations == 0;
	/*
	 * Latency sampling with a random phase per thread: the first sampled
	 * acquire is a uniformly random one of the first 'every', then every
	 * 'every'th; each acquire of every thread is sampled with probability
	 * 1/every, so a thread with fewer than 'every' acquires (a starved
	 * one) is sampled as often as its acquires deserve, not never.
	 */
	uint64_t rs = fl_now_ns() ^ ((uint64_t)(w->idx + 1) * 0x9e3779b97f4a7c15ull);

	gap = every > 1 ? fl_rng_next(&rs) % every : 0;

	w->err = worker_setup(w);
	pthread_barrier_wait(&b->barrier);
	if (w->err)
		return NULL;
	getrusage(RUSAGE_THREAD, &r0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	w->t_start = fl_now_ns();
	if (b->cfg->perf_loop) {
		i = perf_loop(w, l);
		goto done;
	}
	/*
	 * Without sampling, plain iterations: lock(), the critical section,
	 * unlock(), checking nothing but the count (or the stop flag).  With
	 * sampling, every acquire is ITER_TRY() (below), the first sampled
	 * one after 'gap' (the random phase), then every 'every'th.
	 */
	/*
	 * The exclusion check (struct fl_owner) around a load / 64-loop
	 * delay / store of the counter on its own line: the window is that
	 * long even at -d 0 (the old check, xchg; addq; store on the
	 * counter's line, let a lock that excludes nobody pass in 9 of 20
	 * iteration-bounded runs); overlapping owners also lose counts.
	 */
#define CRITICAL() do {						\
		uint64_t v;						\
									\
		w->overlaps += fl_owner_enter(ow, me, &w->handoffs);	\
		v = *ctr;						\
		fl_delay(FL_CHECK_WINDOW_LOOPS);			\
		*ctr = v + 1;						\
		fl_delay(hold);						\
		w->overlaps += fl_owner_leave(ow, me);			\
	} while (0)
#define ITER() do {				\
		fl_lock(l, &w->c);		\
		CRITICAL();			\
		fl_unlock(l, &w->c);		\
		fl_delay(outside);		\
	} while (0)
	/*
	 * An acquire when sampling.  Its clock reads must not change the
	 * race it times.  With little work outside the lock an unsampled
	 * thread takes the lock again at once after its unlock; anything the
	 * sampled acquire does first gives a waiter the window, and it is
	 * the one that waits.  Two samplers did that:
	 *  - a clock read before lock() (before 2026-11-29: in the budget
	 *    sweep the sampled waits added up to 0.5-134 times the threads'
	 *    time);
	 *  - a try first, but only for the sampled acquire, after the batch
	 *    loop's exit and a branch (4131253: 1.23-1.30 at 2/10000/0 with
	 *    a 1-ms kernel spin; under TCG every conditional branch ends a
	 *    translation block).
	 * So every acquire takes the same path to its try: the count (no
	 * branch) and trylock.  Only after a failed try does the sampled one
	 * read the clock around lock(); an acquire that did not wait is a
	 * sample of 0, only counted (lat_zero, into the histogram at the
	 * end); a wait goes into the histogram inside the critical section
	 * (after the exclusion check's window), not between the unlock and
	 * the next try.  The unsampled acquires try first too: one more
	 * attempt (a call to the mode's trylock) before lock() when the
	 * lock is held, and trylock alone when it is free.
	 */
#define ITER_TRY() do {					\
		const bool sampled = --cnt == 0;		\
		const bool waits = !fl_trylock(l, &w->c);	\
		uint64_t t0 = 0, t1 = 0;			\
								\
		if (waits) {					\
			if (sampled)				\
				t0 = fl_now_ns();		\
			fl_lock(l, &w->c);			\
			if (sampled)				\
				t1 = fl_now_ns();		\
		}						\
		CRITICAL();					\
		if (sampled) {					\
			if (waits)				\
				fl_hist_add(&w->lat, t1 - t0);	\
			else					\
				lat_zero++;			\
			cnt = every;				\
		}						\
		fl_unlock(l, &w->c);				\
		fl_delay(outside);				\
	} while (0)
	/*
	 * One loop for both bodies: to the count, or until the stop flag
	 * (read before every acquire).
	 */
#define RUN(BODY) do {							\
		if (!timed) {						\
			for (; i < w->target; i++)			\
				BODY();					\
		} else {						\
			while (!atomic_load_explicit(&b->stop,		\
						     memory_order_relaxed)) { \
				BODY();					\
				i++;					\
			}						\
		}							\
	} while (0)
	if (!every) {
		RUN(ITER);
	} else {
		uint64_t cnt = gap + 1;

		RUN(ITER_TRY);
	}
done:
#undef RUN
#undef ITER
#undef ITER_TRY
#undef CRITICAL
	w->t_end = fl_now_ns();
	fl_hist_add_zeros(&w->lat, lat_zero);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	getrusage(RUSAGE_THREAD, &r1);
	w->cpu_s = (double)(c1.tv_sec - c0.tv_sec) +
		   (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
	w->iters = i;
	w->user_s = tv_s(&r1.ru_utime) - tv_s(&r0.ru_utime);
	w->sys_s = tv_s(&r1.ru_stime) - tv_s(&r0.ru_stime);
	w->nvcsw = (uint64_t)(r1.ru_nvcsw - r0.ru_nvcsw);
	w->nivcsw = (uint64_t)(r1.ru_nivcsw - r0.ru_nivcsw);
	return NULL;
}

int fl_bench_run(const struct fl_bench_cfg *cfg, struct fl_bench_result *res)
{
	struct fl_worker *w = NULL;
	struct fl_bench *b;
	struct fl_kstats k0, k1;
	pthread_attr_t attr;
	uint64_t tmin = UINT64_MAX, tmax = 0, counted = 0, t_create, t_stop = 0;
	double *per = NULL;
	unsigned started = 0;
	int r;

	memset(res, 0, sizeof(*res));
	res->kstats.n = -1;
	if (fl_user_spin_applies(cfg->ops, cfg->perf_loop)) {
		res->user_spin_limit = fl_user_spin_limit(cfg->ops->user_spin == FL_USPIN_ON);
		res->user_spin_woken = res->user_spin_limit && fl_user_spin_woken();
		res->user_spin_backoff = res->user_spin_limit && fl_user_spin_backoff();
	}
	fl_hist_init(&res->lat);
	if (!cfg->threads || (!cfg->iterations && !(cfg->duration_s > 0)) ||
	    (cfg->perf_loop && (cfg->iterations || !cfg->ops->tid_lock_op))) {
		snprintf(res->error, sizeof(res->error), "bad configuration");
		res->setup_failed = true;
		return -1;
	}
	b = aligned_alloc(FL_CACHELINE, sizeof(*b));
	w = aligned_alloc(FL_CACHELINE, sizeof(*w) * cfg->threads);
	per = calloc(cfg->threads, sizeof(*per));
	if (!b || !w || !per) {
		snprintf(res->error, sizeof(res->error), "out of memory");
		res->setup_failed = true;
		free(b);
		free(w);
		free(per);
		return -1;
	}
	memset(b, 0, sizeof(*b));
	memset(w, 0, sizeof(*w) * cfg->threads);
	b->cfg = cfg;
	if (sched_getaffinity(0, sizeof(b->allowed), &b->allowed) == 0)
		b->ncpus = CPU_COUNT(&b->allowed);
	r = fl_lock_init_shared(&b->lock, cfg->ops, cfg->shared);
	for (unsigned t = 0; !r && cfg->multi && t < cfg->threads; t++) {
		r = fl_lock_init_shared(&w[t].own_lock, cfg->ops, cfg->shared);
		if (r)
			while (t--)
				fl_lock_destroy(&w[t].own_lock);
	}
	if (r) {
		snprintf(res->error, sizeof(res->error), "lock init: %s",
			 strerror(r));
		res->setup_failed = true;
		goto out_free;
	}
	pthread_barrier_init(&b->barrier, NULL, cfg->threads + 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);

	if (cfg->read_kstats)
		fl_kstats_read(&k0);
	/* perf's bench__start: before the first thread is created */
	t_create = fl_now_ns();
	for (unsigned t = 0; t < cfg->threads; t++) {
		w[t].b = b;
		w[t].idx = t;
		fl_hist_init(&w[t].lat);
		w[t].target = cfg->iterations ?
			fl_split(cfg->iterations, cfg->threads, t) : 0;
		r = pthread_create(&w[t].th, &attr, worker, &w[t]);
		if (r) {
			snprintf(res->error, sizeof(res->error),
				 "pthread_create (thread %u): %s", t, strerror(r));
			break;
		}
		started++;
	}
	if (started < cfg->threads) {
		/* the started threads wait on a barrier that cannot complete */
		fprintf(stderr, "futexlock: %s\n", res->error);
		exit(1);
	}
	pthread_barrier_wait(&b->barrier);
	if (!cfg->iterations) {
		struct timespec ts;
		double d = cfg->duration_s;

		ts.tv_sec = (time_t)d;
		ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		atomic_store_explicit(&b->stop, 1, memory_order_relaxed);
		t_stop = fl_now_ns();	/* perf's bench__end */
	}
	for (unsigned t = 0; t < cfg->threads; t++)
		pthread_join(w[t].th, NULL);
	if (cfg->read_kstats && k0.n >= 0 && fl_kstats_read(&k1) == 0)
		fl_kstats_delta(&k0, &k1, &res->kstats);
	pthread_attr_destroy(&attr);
	pthread_barrier_destroy(&b->barrier);

	for (unsigned t = 0; t < cfg->threads; t++) {
		if (w[t].err) {
			snprintf(res->error, sizeof(res->error), "%s", w[t].errmsg);
			res->setup_failed = true;
			goto out_destroy;
		}
	}

	{
		res->thr_min = UINT64_MAX;
		for (unsigned t = 0; t < cfg->threads; t++) {
			struct fl_worker *x = &w[t];

			res->iterations += x->iters;
			res->total.lock_calls += x->c.lock_calls;
			res->total.lock_syscalls += x->c.lock_syscalls;
			res->total.unlock_calls += x->c.unlock_calls;
			res->total.unlock_syscalls += x->c.unlock_syscalls;
			res->total.user_spins += x->c.user_spins;
			res->total.user_spin_acquired += x->c.user_spin_acquired;
			res->total.user_spin_to_kernel += x->c.user_spin_to_kernel;
			res->total.user_spin_iters += x->c.user_spin_iters;
			res->total.user_spin_skipped += x->c.user_spin_skipped;
			res->total.user_spin_backed_off += x->c.user_spin_backed_off;
			res->user_s += x->user_s;
			res->sys_s += x->sys_s;
			res->cpu_s += x->cpu_s;
			res->nvcsw += x->nvcsw;
			res->nivcsw += x->nivcsw;
			fl_hist_merge(&res->lat, &x->lat);
			counted += cfg->multi ? x->own_counter : 0;
			res->overlaps += x->overlaps;
			res->handoffs += x->handoffs;
			if (x->iters < res->thr_min)
				res->thr_min = x->iters;
			if (x->iters > res->thr_max)
				res->thr_max = x->iters;
			if (x->t_start && x->t_start < tmin)
				tmin = x->t_start;
			if (x->t_end > tmax)
				tmax = x->t_end;
		}
		/* every sampled thread's worst sampled wait */
		for (unsigned t = 0; t < cfg->threads; t++)
			if (w[t].lat.count)
				per[res->lat_threads++] = (double)w[t].lat.max_ns / 1e3;
		if (res->lat_threads) {
			res->thr_worst_min_us = fl_min(per, res->lat_threads);
			res->thr_worst_med_us = fl_median(per, res->lat_threads);
			res->thr_worst_max_us = fl_max(per, res->lat_threads);
		}
		for (unsigned t = 0; t < cfg->threads; t++)
			per[t] = (double)w[t].iters;
		res->longest_wait_us = (double)res->lat.max_ns / 1e3;
		res->mean_wait_us = res->lat.count ?
			(double)res->lat.sum_ns / 1e3 / (double)res->lat.count : 0.0;
	}
	res->thr_mean = fl_mean(per, cfg->threads);
	res->thr_stddev = fl_stddev(per, cfg->threads);
	res->elapsed_s = tmax > tmin ? (double)(tmax - tmin) / 1e9 : 0.0;
	res->kiter_s = res->elapsed_s > 0 ?
		(double)res->iterations / res->elapsed_s / 1e3 : 0.0;
	res->kiter_per_cpu_s = res->cpu_s > 0 ?
		(double)res->iterations / res->cpu_s / 1e3 : 0.0;
	if (cfg->perf_loop && t_stop > t_create) {
		/* perf: per thread ops / runtime.tv_sec, then avg_stats() and
		 * stddev_stats() (the standard error of that mean) */
		res->perf_runtime_s = (double)(t_stop - t_create) / 1e9;
		res->perf_secs = (unsigned)((t_stop - t_create) / 1000000000ull);
		for (unsigned t = 0; t < cfg->threads; t++)
			per[t] = res->perf_secs ?
				(double)(w[t].iters / res->perf_secs) : 0.0;
		res->perf_ops_s = fl_mean(per, cfg->threads);
		res->perf_se_ops_s = cfg->threads > 1 ?
			fl_stddev(per, cfg->threads) / sqrt(cfg->threads - 1.0) : 0.0;
	}
	res->protected_counter = cfg->multi ? counted : b->protected_counter;
	res->exclusion_checked = !cfg->perf_loop;
	res->mutex_ok = (!res->exclusion_checked ||
			 (res->protected_counter == res->iterations &&
			  res->overlaps == 0)) &&
			res->total.lock_calls == res->iterations &&
			res->total.unlock_calls == res->iterations;
	if (!res->mutex_ok)
		snprintf(res->error, sizeof(res->error),
			 "mutual exclusion violated: protected counter %llu, iterations %llu, overlapping entries %llu",
			 (unsigned long long)res->protected_counter,
			 (unsigned long long)res->iterations,
			 (unsigned long long)res->overlaps);
out_destroy:
	for (unsigned t = 0; cfg->multi && t < cfg->threads; t++)
		fl_lock_destroy(&w[t].own_lock);
	fl_lock_destroy(&b->lock);
out_free:
	free(per);
	free(w);
	free(b);
	return res->error[0] ? -1 : 0;
}
