// SPDX-License-Identifier: GPL-2.0
/*
 * test_locks - TAP tests of every lock implementation in lib/locks.c:
 *  1. mutual exclusion: T threads x N iterations; inside the lock a flag
 *     must be free (exchange returns 0) and a plain counter is bumped;
 *     at the end counter == T x N;
 *  2. uncontended: 1 thread -> lock/unlock calls exact, 0 syscalls;
 *  3. forced contention: main holds the lock while 3 threads block on it
 *     -> lock syscalls > 0 (and unlock syscalls > 0 for sleeping locks).
 * Modes needing FUTEX_LOCK are skipped when the kernel lacks it, unless
 * --require-futex-lock is given (then they fail).
 * Usage: test_locks [--require-futex-lock] [-t THREADS] [-i ITERATIONS] [MODE...]
 */
#include "futexlock.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int testno;
static int failures;

static void tap(bool ok, const char *fmt, const char *mode, const char *extra)
{
	printf("%s %d - ", ok ? "ok" : "not ok", ++testno);
	printf(fmt, mode);
	if (extra && *extra)
		printf(" (%s)", extra);
	printf("\n");
	if (!ok)
		failures++;
}

struct shared {
	struct fl_lock lock;
	_Alignas(FL_CACHELINE) uint64_t counter;
	atomic_int in_cs;
	atomic_int violations;
	uint64_t iters;
	pthread_barrier_t barrier;
};

struct thr {
	pthread_t th;
	struct shared *sh;
	struct fl_counters c;
};

static void *mutex_worker(void *arg)
{
	struct thr *t = arg;
	struct shared *sh = t->sh;

	pthread_barrier_wait(&sh->barrier);
	for (uint64_t i = 0; i < sh->iters; i++) {
		fl_lock(&sh->lock, &t->c);
		if (atomic_exchange_explicit(&sh->in_cs, 1, memory_order_relaxed))
			atomic_fetch_add(&sh->violations, 1);
		sh->counter++;
		fl_delay(i % 8 == 0 ? 200 : 10);
		atomic_store_explicit(&sh->in_cs, 0, memory_order_relaxed);
		fl_unlock(&sh->lock, &t->c);
		if (i % 16 == 0)
			fl_delay(100);
	}
	return NULL;
}

static void sum(struct thr *t, unsigned n, struct fl_counters *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < n; i++) {
		s->lock_calls += t[i].c.lock_calls;
		s->lock_syscalls += t[i].c.lock_syscalls;
		s->unlock_calls += t[i].c.unlock_calls;
		s->unlock_syscalls += t[i].c.unlock_syscalls;
	}
}

static int run_threads(struct shared *sh, struct thr *t, unsigned n,
		       void *(*fn)(void *))
{
	pthread_barrier_init(&sh->barrier, NULL, n);
	for (unsigned i = 0; i < n; i++) {
		t[i].sh = sh;
		if (pthread_create(&t[i].th, NULL, fn, &t[i]))
			return -1;
	}
	for (unsigned i = 0; i < n; i++)
		pthread_join(t[i].th, NULL);
	pthread_barrier_destroy(&sh->barrier);
	return 0;
}

static void test_mutex(const struct fl_lock_ops *ops, unsigned threads,
		       uint64_t iters)
{
	struct shared *sh = aligned_alloc(FL_CACHELINE, sizeof(*sh));
	struct thr *t = calloc(threads, sizeof(*t));
	struct fl_counters s;
	char extra[200];
	uint64_t expect = (uint64_t)threads * iters;
	bool ok;

	memset(sh, 0, sizeof(*sh));
	fl_lock_init(&sh->lock, ops);
	sh->iters = iters;
	ok = run_threads(sh, t, threads, mutex_worker) == 0;
	sum(t, threads, &s);
	ok = ok && sh->counter == expect && !sh->violations &&
	     s.lock_calls == expect && s.unlock_calls == expect;
	snprintf(extra, sizeof(extra),
		 "%u threads x %" PRIu64 ": counter %" PRIu64 "/%" PRIu64
		 ", overlaps %d, lock calls %" PRIu64 ", lock syscalls %" PRIu64
		 ", unlock syscalls %" PRIu64, threads, iters, sh->counter,
		 expect, atomic_load(&sh->violations), s.lock_calls,
		 s.lock_syscalls, s.unlock_syscalls);
	tap(ok, "%s: mutual exclusion", ops->name, extra);
	fl_lock_destroy(&sh->lock);
	free(t);
	free(sh);
}

static void test_uncontended(const struct fl_lock_ops *ops)
{
	struct shared *sh = aligned_alloc(FL_CACHELINE, sizeof(*sh));
	struct thr t[1];
	char extra[160];
	bool ok;

	memset(sh, 0, sizeof(*sh));
	memset(t, 0, sizeof(t));
	fl_lock_init(&sh->lock, ops);
	sh->iters = 10000;
	ok = run_threads(sh, t, 1, mutex_worker) == 0;
	ok = ok && sh->counter == 10000 && t[0].c.lock_calls == 10000 &&
	     t[0].c.unlock_calls == 10000;
	if (ops->counts_syscalls)
		ok = ok && t[0].c.lock_syscalls == 0 && t[0].c.unlock_syscalls == 0;
	snprintf(extra, sizeof(extra), "lock calls %" PRIu64 ", lock syscalls %"
		 PRIu64 ", unlock calls %" PRIu64 ", unlock syscalls %" PRIu64 "%s",
		 t[0].c.lock_calls, t[0].c.lock_syscalls, t[0].c.unlock_calls,
		 t[0].c.unlock_syscalls,
		 ops->counts_syscalls ? "" : "; syscalls not countable");
	tap(ok, "%s: 1 thread -> exact calls, 0 syscalls", ops->name, extra);
	fl_lock_destroy(&sh->lock);
	free(sh);
}

static void *contend_worker(void *arg)
{
	struct thr *t = arg;

	pthread_barrier_wait(&t->sh->barrier);
	fl_lock(&t->sh->lock, &t->c);
	t->sh->counter++;
	fl_unlock(&t->sh->lock, &t->c);
	return NULL;
}

static void test_contended(const struct fl_lock_ops *ops)
{
	enum { N = 3 };
	struct shared *sh = aligned_alloc(FL_CACHELINE, sizeof(*sh));
	struct thr t[N];
	struct fl_counters mc = { 0 }, s;
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	char extra[200];
	bool ok = true;

	memset(sh, 0, sizeof(*sh));
	memset(t, 0, sizeof(t));
	fl_lock_init(&sh->lock, ops);
	pthread_barrier_init(&sh->barrier, NULL, N + 1);
	fl_lock(&sh->lock, &mc);	/* main holds the lock ... */
	for (int i = 0; i < N; i++) {
		t[i].sh = sh;
		ok = ok && !pthread_create(&t[i].th, NULL, contend_worker, &t[i]);
	}
	pthread_barrier_wait(&sh->barrier);
	nanosleep(&ts, NULL);		/* ... while the others block */
	fl_unlock(&sh->lock, &mc);
	for (int i = 0; i < N; i++)
		pthread_join(t[i].th, NULL);
	pthread_barrier_destroy(&sh->barrier);
	sum(t, N, &s);
	s.lock_calls += mc.lock_calls;
	s.lock_syscalls += mc.lock_syscalls;
	s.unlock_calls += mc.unlock_calls;
	s.unlock_syscalls += mc.unlock_syscalls;
	ok = ok && sh->counter == N && s.lock_calls == N + 1 &&
	     s.unlock_calls == N + 1;
	if (ops->counts_syscalls) {
		ok = ok && s.lock_syscalls > 0;
		/* a spin lock never needs the kernel to unlock */
		if (strcmp(ops->name, "spin"))
			ok = ok && s.unlock_syscalls > 0;
	}
	snprintf(extra, sizeof(extra), "lock calls %" PRIu64 ", lock syscalls %"
		 PRIu64 ", unlock calls %" PRIu64 ", unlock syscalls %" PRIu64 "%s",
		 s.lock_calls, s.lock_syscalls, s.unlock_calls, s.unlock_syscalls,
		 ops->counts_syscalls ? "" : "; syscalls not countable");
	tap(ok, "%s: forced contention -> syscalls > 0", ops->name, extra);
	fl_lock_destroy(&sh->lock);
	free(sh);
}

int main(int argc, char **argv)
{
	const struct fl_lock_ops *sel[32];
	size_t nsel = 0;
	bool require = false;
	uint64_t threads = 4, iters = 20000;
	int skips = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--require-futex-lock")) {
			require = true;
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			if (fl_parse_u64(argv[++i], 1, 1024, &threads))
				goto usage;
		} else if (!strcmp(argv[i], "-i") && i + 1 < argc) {
			if (fl_parse_u64(argv[++i], 1, 100000000, &iters))
				goto usage;
		} else if (fl_lock_find(argv[i]) && nsel < 32) {
			sel[nsel++] = fl_lock_find(argv[i]);
		} else {
			goto usage;
		}
	}
	if (!nsel)
		for (size_t i = 0; i < fl_lock_nmodes; i++)
			sel[nsel++] = fl_lock_modes[i];

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%zu\n", nsel * 3);
	printf("# %s\n", fl_futex_lock_probe_line());
	for (size_t i = 0; i < nsel; i++) {
		const struct fl_lock_ops *ops = sel[i];

		if (!fl_lock_available(ops)) {
			for (int k = 0; k < 3; k++) {
				if (require) {
					printf("not ok %d - %s: kernel has no FUTEX_LOCK\n",
					       ++testno, ops->name);
					failures++;
				} else {
					printf("ok %d - %s # SKIP kernel has no FUTEX_LOCK (probe: ENOSYS)\n",
					       ++testno, ops->name);
					skips++;
				}
			}
			continue;
		}
		test_uncontended(ops);
		test_mutex(ops, (unsigned)threads, iters);
		test_contended(ops);
	}
	printf("# %d tests, %d failed, %d skipped\n", testno, failures, skips);
	return failures ? 1 : 0;
usage:
	fprintf(stderr, "usage: test_locks [--require-futex-lock] [-t THREADS] [-i ITERATIONS] [MODE...]\n");
	return 2;
}
