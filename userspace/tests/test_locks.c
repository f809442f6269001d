// SPDX-License-Identifier: GPL-2.0
/*
 * test_locks - TAP tests of every lock implementation in lib/locks.c:
 *  1. mutual exclusion: T threads x N iterations, started on a barrier;
 *     inside the lock a flag must be free (exchange returns 0) and a
 *     counter is read, held across the critical section (a long hold and,
 *     every 32nd time, a wait until another thread is inside lock() or
 *     all others are done, so contention happens on any machine, even on
 *     one CPU) and written back + 1; at
 *     the end counter == T x N, no overlap was seen, and contention must
 *     have happened (threads seen waiting inside the critical section),
 *     else the test says it proved nothing and fails;
 *  1b. the same check on a test-only lock that does not lock must fail
 *     in every one of several runs (the check can fail);
 *  2. uncontended: 1 thread -> lock/unlock calls exact, 0 syscalls;
 *  3. forced contention: main holds the lock until each of 3 threads is
 *     blocked on it (asleep in the kernel, or counted a lock syscall; a
 *     generous timeout only turns a hang into a failure) -> lock syscalls
 *     > 0 (and unlock syscalls > 0 for sleeping locks).
 *  4. kernel-stats deltas from two stats files whose values differ;
 * Modes needing FUTEX_LOCK are skipped when the kernel lacks it, unless
 * --require-futex-lock is given (then they fail).
 * FUTEXLOCK_TEST_BROKEN_LOCK=1 adds the test-only broken lock to the modes
 * tested as if it were real: the run must then fail (shows the check bites).
 * Usage: test_locks [--require-futex-lock] [-t THREADS]
 *                   [-i ITERATIONS] [MODE...]
 */
#include "futexlock.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static int testno;
static int failures;
static char msg_buf[240];

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

/*
 * A test of a lock the kernel lacks: SKIP, or with --require-futex-lock
 * a failure.  Returns the number skipped (0 or 1).
 */
static int no_futex_lock(bool require, const char *what)
{
	if (require) {
		printf("not ok %d - %s: kernel has no FUTEX_LOCK\n", ++testno, what);
		failures++;
		return 0;
	}
	printf("ok %d - %s # SKIP kernel has no FUTEX_LOCK\n", ++testno, what);
	return 1;
}

struct shared {
	struct fl_lock lock;
	_Alignas(FL_CACHELINE) uint64_t counter;
	atomic_int in_cs;
	atomic_int violations;
	_Alignas(FL_CACHELINE) atomic_int waiting;	/* threads inside fl_lock() */
	atomic_int done;			/* threads finished */
	atomic_int entered;			/* contend_worker: about to lock */
	atomic_uint_fast64_t contended;	/* CS entries that saw a waiter */
	uint64_t iters;
	int nthreads;
	bool try_first;		/* every other acquire: fl_trylock() first */
	pthread_barrier_t barrier;
};

struct thr {
	pthread_t th;
	_Atomic pid_t tid;
	struct shared *sh;
	struct fl_counters c;
	uint32_t seen;		/* woken_direct_worker(): the mark it saw */
};

/*
 * Inside the critical section: wait until another thread is inside
 * fl_lock() (so this entry is contended), every other thread is done, or
 * an overlap was already seen (a lock that does not exclude: the others
 * may all be in here too).  An event, not a time: it holds on any
 * machine, loaded or not.
 */
static void wait_for_contender(struct shared *sh, int nthreads)
{
	while (!atomic_load(&sh->waiting) &&
	       atomic_load(&sh->done) < nthreads - 1 &&
	       !atomic_load(&sh->violations))
		sched_yield();
}

static void *mutex_worker(void *arg)
{
	struct thr *t = arg;
	struct shared *sh = t->sh;

	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	pthread_barrier_wait(&sh->barrier);
	for (uint64_t i = 0; i < sh->iters; i++) {
		volatile uint64_t v;

		atomic_fetch_add(&sh->waiting, 1);
		if (!sh->try_first || i % 2 || !fl_trylock(&sh->lock, &t->c))
			fl_lock(&sh->lock, &t->c);
		atomic_fetch_sub(&sh->waiting, 1);
		if (atomic_exchange_explicit(&sh->in_cs, 1, memory_order_relaxed))
			atomic_fetch_add(&sh->violations, 1);
		/* read, hold, write back: a second owner loses an update */
		v = sh->counter;
		if (i % 32 == 31)
			wait_for_contender(sh, sh->nthreads);
		else
			fl_delay(i % 8 == 0 ? 400 : 40);
		if (atomic_load_explicit(&sh->waiting, memory_order_relaxed) ||
		    atomic_load_explicit(&sh->in_cs, memory_order_relaxed) != 1)
			atomic_fetch_add_explicit(&sh->contended, 1,
						  memory_order_relaxed);
		sh->counter = v + 1;
		atomic_store_explicit(&sh->in_cs, 0, memory_order_relaxed);
		fl_unlock(&sh->lock, &t->c);
	}
	atomic_fetch_add(&sh->done, 1);
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
	sh->nthreads = (int)n;
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

/*
 * Returns 1 if exclusion held, 0 if it was violated, -1 if no contention
 * was seen (the run proved nothing); extra gets the figures.
 */
static int mutex_run(const struct fl_lock_ops *ops, unsigned threads,
		     uint64_t iters, bool try_first, char *extra, size_t len)
{
	struct shared *sh = aligned_alloc(FL_CACHELINE, sizeof(*sh));
	struct thr *t = calloc(threads, sizeof(*t));
	struct fl_counters s;
	uint64_t expect = (uint64_t)threads * iters, contended;
	int ret, overlaps;
	bool ok;

	memset(sh, 0, sizeof(*sh));
	fl_lock_init(&sh->lock, ops);
	sh->iters = iters;
	sh->try_first = try_first;
	ok = run_threads(sh, t, threads, mutex_worker) == 0;
	sum(t, threads, &s);
	overlaps = atomic_load(&sh->violations);
	contended = atomic_load(&sh->contended);
	ok = ok && sh->counter == expect && !overlaps &&
	     s.lock_calls == expect && s.unlock_calls == expect;
	/* a broken lock shows up as overlaps; a correct one as waiters */
	ret = !ok ? 0 : contended + (uint64_t)overlaps < 10 ? -1 : 1;
	snprintf(extra, len,
		 "%u threads x %" PRIu64 ": counter %" PRIu64 "/%" PRIu64
		 ", overlaps %d, contended entries %" PRIu64 ", lock calls %" PRIu64
		 ", lock syscalls %" PRIu64 ", unlock syscalls %" PRIu64,
		 threads, iters, sh->counter, expect, overlaps, contended,
		 s.lock_calls, s.lock_syscalls, s.unlock_syscalls);
	fl_lock_destroy(&sh->lock);
	free(t);
	free(sh);
	return ret;
}

/*
 * try_first: every other acquire is fl_trylock() and, if that fails,
 * fl_lock() (the engine's acquire while it samples latency): exclusion
 * and exact lock calls (one per acquisition, none for a failed try) hold
 * with it too.
 */
static void test_mutex(const struct fl_lock_ops *ops, unsigned threads,
		       uint64_t iters, bool try_first)
{
	char extra[300];
	int r = mutex_run(ops, threads < 2 ? 2 : threads, iters, try_first,
			  extra, sizeof(extra));

	if (r < 0)
		strncat(extra, "; NO CONTENTION SEEN: the test proved nothing",
			sizeof(extra) - strlen(extra) - 1);
	tap(r == 1, try_first ?
	    "%s: mutual exclusion under forced contention, trylock first" :
	    "%s: mutual exclusion under forced contention", ops->name, extra);
}

/* The check itself must fail on a lock that does not lock, every time. */
static void test_check_catches_broken(unsigned threads, uint64_t iters)
{
	enum { RUNS = 5 };
	char extra[300], last[256] = "";
	int caught = 0;

	for (int i = 0; i < RUNS; i++) {
		if (mutex_run(&fl_lock_test_broken, threads < 2 ? 2 : threads,
			      iters, false, extra, sizeof(extra)) == 0)
			caught++;
		else
			snprintf(last, sizeof(last), "missed: %.240s", extra);
	}
	snprintf(extra, sizeof(extra), "caught in %d of %d runs%s%.256s", caught,
		 RUNS, last[0] ? "; " : "", last);
	tap(caught == RUNS, "%s: the exclusion check fails a lock that does not lock",
	    fl_lock_test_broken.name, extra);
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

/*
 * trylock (the engine's first attempt while it samples latency): one
 * attempt that never waits.  On a free lock it takes it and counts one
 * lock call; on a held one (held by this thread: no second thread
 * needed, and no lock here waits in trylock) it fails and counts
 * nothing; after the unlock it takes it again.  A TID mode needs the TID cached, as the engine's workers have
 * it.  No kernel op is called: the modes of FUTEX_LOCK run here too.
 */
static void test_trylock(const struct fl_lock_ops *ops)
{
	struct fl_lock *l = aligned_alloc(FL_CACHELINE, sizeof(*l));
	struct fl_counters c;
	bool t1, t2, t3;
	char extra[160];
	uint64_t n1, n2, n3;

	memset(&c, 0, sizeof(c));
	(void)fl_gettid();
	fl_lock_init(l, ops);
	t1 = fl_trylock(l, &c);
	n1 = c.lock_calls;
	t2 = fl_trylock(l, &c);
	n2 = c.lock_calls;
	if (t1)
		fl_unlock(l, &c);
	t3 = fl_trylock(l, &c);
	n3 = c.lock_calls;
	if (t3)
		fl_unlock(l, &c);
	snprintf(extra, sizeof(extra), "free %d (calls %" PRIu64 "), held %d "
		 "(calls %" PRIu64 "), free again %d (calls %" PRIu64 ")",
		 t1, n1, t2, n2, t3, n3);
	tap(t1 && n1 == 1 && !t2 && n2 == 1 && t3 && n3 == 2 &&
	    c.lock_syscalls == 0 && c.unlock_syscalls == 0,
	    "%s: trylock takes a free lock, fails on a held one, counts what it took",
	    ops->name, extra);
	fl_lock_destroy(l);
	free(l);
}

static void *contend_worker(void *arg)
{
	struct thr *t = arg;

	atomic_store(&t->tid, fl_gettid());
	pthread_barrier_wait(&t->sh->barrier);
	atomic_fetch_add(&t->sh->entered, 1);
	fl_lock(&t->sh->lock, &t->c);
	t->sh->counter++;
	fl_unlock(&t->sh->lock, &t->c);
	return NULL;
}

/*
 * Each of the n threads is blocked in fl_lock(): it entered it and is
 * asleep (in the kernel) or has counted a lock syscall (a spin lock's
 * yield).  Waits for that event; the 60 s bound only turns a hang into a
 * failure.
 */
static bool wait_blocked(struct shared *sh, struct thr *t, int n)
{
	uint64_t end = fl_now_ns() + 60 * 1000000000ull;

	for (int i = 0; i < n;) {
		pid_t tid = atomic_load(&t[i].tid);
		int st = tid ? fl_task_state(tid) : 0;

		if (atomic_load(&sh->entered) == n &&
		    (st == 'S' || st == 'D' ||
		     __atomic_load_n(&t[i].c.lock_syscalls, __ATOMIC_RELAXED))) {
			i++;
			continue;
		}
		if (fl_now_ns() > end)
			return false;
		fl_poll_pause();
	}
	return true;
}

static void test_contended(const struct fl_lock_ops *ops)
{
	enum { N = 3 };
	struct shared *sh = aligned_alloc(FL_CACHELINE, sizeof(*sh));
	struct thr t[N];
	struct fl_counters mc = { 0 }, s;
	char extra[200];
	bool ok = true, blocked;

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
	blocked = ok && wait_blocked(sh, t, N);	/* ... until the others block */
	ok = ok && blocked;
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
		 PRIu64 ", unlock calls %" PRIu64 ", unlock syscalls %" PRIu64 "%s%s",
		 s.lock_calls, s.lock_syscalls, s.unlock_calls, s.unlock_syscalls,
		 ops->counts_syscalls ? "" : "; syscalls not countable",
		 blocked ? "" : "; a waiter never blocked within 60 s");
	tap(ok, "%s: forced contention -> syscalls > 0", ops->name, extra);
	fl_lock_destroy(&sh->lock);
	free(sh);
}

/* Deltas from two stats files with different values (and a new name). */
static void test_kstats_delta(void)
{
	char dir[] = "/tmp/test_locks.XXXXXX", p0[64], p1[64], extra[400];
	struct fl_kstats k0, k1, d;
	bool ok;
	FILE *f;

	if (!mkdtemp(dir)) {
		tap(false, "%s: kernel-stats delta", "kstats", "mkdtemp failed");
		return;
	}
	snprintf(p0, sizeof(p0), "%s/before", dir);
	snprintf(p1, sizeof(p1), "%s/after", dir);
	f = fopen(p0, "w");
	if (f) {
		fputs("lock_slow: 3\nspin_acquired: 40\nwake_latency_ns: 90000\n", f);
		fclose(f);
	}
	f = fopen(p1, "w");
	if (f) {
		fputs("lock_slow: 10\nspin_acquired: 40\nsleeps: 5\nwake_latency_ns: 80000\n", f);
		fclose(f);
	}
	setenv("FUTEXLOCK_KSTATS", p0, 1);
	ok = fl_kstats_read(&k0) == 0;
	setenv("FUTEXLOCK_KSTATS", p1, 1);
	ok = ok && fl_kstats_read(&k1) == 0;
	unsetenv("FUTEXLOCK_KSTATS");
	fl_kstats_delta(&k0, &k1, &d);
	/* wake_latency_ns is a gauge: its value at the end, not a delta */
	ok = ok && d.n == 4 && !strcmp(d.name[0], "lock_slow") &&
	     d.value[0] == 7 && !strcmp(d.name[1], "spin_acquired") &&
	     d.value[1] == 0 && !strcmp(d.name[2], "sleeps") && d.value[2] == 5 &&
	     !strcmp(d.name[3], "wake_latency_ns") && d.value[3] == 80000;
	snprintf(extra, sizeof(extra), "n=%d: %s=%" PRIu64 " %s=%" PRIu64
		 " %s=%" PRIu64 " %s=%" PRIu64 ", want lock_slow=7 spin_acquired=0"
		 " sleeps=5 wake_latency_ns=80000",
		 d.n, d.n > 0 ? d.name[0] : "-", d.n > 0 ? d.value[0] : 0,
		 d.n > 1 ? d.name[1] : "-", d.n > 1 ? d.value[1] : 0,
		 d.n > 2 ? d.name[2] : "-", d.n > 2 ? d.value[2] : 0,
		 d.n > 3 ? d.name[3] : "-", d.n > 3 ? d.value[3] : 0);
	tap(ok, "%s: delta of two readings that differ (a gauge keeps its value)",
	    "kstats", extra);
	unlink(p0);
	unlink(p1);
	rmdir(dir);
}

/*
 * fl_gettid() caches the TID per thread (the TID locks' fast paths read it
 * on every call): the main thread and a new thread each get their own.
 */
static void *gettid_worker(void *arg)
{
	pid_t *tids = arg;

	tids[0] = fl_gettid();
	tids[1] = fl_gettid();
	tids[2] = (pid_t)syscall(SYS_gettid);
	return NULL;
}

static void test_gettid(void)
{
	pid_t main1 = fl_gettid(), main2 = fl_gettid();
	pid_t tids[3] = { 0, 0, 0 };
	pthread_t th;
	char extra[128];
	bool ok;

	ok = pthread_create(&th, NULL, gettid_worker, tids) == 0 &&
	     pthread_join(th, NULL) == 0;
	ok = ok && main1 == (pid_t)syscall(SYS_gettid) && main2 == main1 &&
	     tids[0] == tids[2] && tids[1] == tids[2] && tids[0] != main1;
	snprintf(extra, sizeof(extra), "main %d %d, thread %d %d (kernel %d)",
		 (int)main1, (int)main2, (int)tids[0], (int)tids[1], (int)tids[2]);
	tap(ok, "%s: each thread gets its own TID", "fl_gettid", extra);
}

/* A child of fork() is a new thread: it must not keep the parent's TID. */
static void test_gettid_fork(void)
{
	pid_t parent = fl_gettid(), child;
	int status = 0;
	char extra[96];
	bool ok;

	child = fork();
	if (child == 0)
		_exit(fl_gettid() == getpid() && fl_gettid() != parent ? 0 : 1);
	ok = child > 0 && waitpid(child, &status, 0) == child &&
	     WIFEXITED(status) && WEXITSTATUS(status) == 0;
	snprintf(extra, sizeof(extra), "parent %d, child %d, child status 0x%x",
		 (int)parent, (int)child, status);
	tap(ok, "%s: a fork() child gets its own TID", "fl_gettid", extra);
}

/*
 * The TID locks' fast paths read the TID cache without filling it
 * (fl_tid_peek()): a thread's first lock with an empty cache must still
 * take the lock under its own TID, in user space, and unlock it there.
 * The same for a first trylock (the engine's first attempt): on a free
 * lock it must succeed, never fail for want of a cached TID.
 */
struct first_lock {
	const struct fl_lock_ops *ops;
	bool try;		/* fl_trylock() first, not fl_lock() */
	uint32_t other;		/* try: the word holds this owner first */
	bool took;		/* what it returned (fl_lock(): true) */
	uint32_t held, after;
	pid_t tid;
	struct fl_counters c;
};

static void *first_lock_worker(void *arg)
{
	struct first_lock *f = arg;
	struct fl_lock l;

	if (fl_tid_peek() != 0 || fl_lock_init(&l, f->ops))
		return NULL;
	if (f->try) {
		atomic_store(&l.word, f->other);
		f->took = fl_trylock(&l, &f->c);
	} else {
		fl_lock(&l, &f->c);
		f->took = true;
	}
	f->held = atomic_load(&l.word);
	f->tid = (pid_t)syscall(SYS_gettid);
	if (f->took)
		fl_unlock(&l, &f->c);
	f->after = atomic_load(&l.word);
	fl_lock_destroy(&l);
	return NULL;
}

/* f's first lock or try in a new thread (an empty TID cache); false if
 * the thread could not be run */
static bool first_lock_run(struct first_lock *f)
{
	pthread_t th;

	return pthread_create(&th, NULL, first_lock_worker, f) == 0 &&
	       pthread_join(th, NULL) == 0;
}

static const char *const tid_modes[] = { "futex_lock", "adaptive", "pi" };
#define N_TID_MODES (sizeof(tid_modes) / sizeof(tid_modes[0]))

static int test_first_lock_empty_tid_cache(bool require)
{
	int skips = 0;

	for (size_t i = 0; i < N_TID_MODES; i++) {
		struct first_lock f = { .held = 0, .after = 1, .tid = -1 };
		char extra[160];
		bool ok;

		f.ops = fl_lock_find(tid_modes[i]);
		if (!fl_lock_available(f.ops)) {
			snprintf(extra, sizeof(extra),
				 "%s: first lock with an empty TID cache", tid_modes[i]);
			skips += no_futex_lock(require, extra);
			continue;
		}
		ok = first_lock_run(&f);
		ok = ok && f.held == (uint32_t)f.tid && f.after == 0 &&
		     f.c.lock_syscalls == 0 && f.c.unlock_syscalls == 0;
		snprintf(extra, sizeof(extra),
			 "word 0x%x held (tid %d), 0x%x after; syscalls lock %llu unlock %llu",
			 f.held, (int)f.tid, f.after,
			 (unsigned long long)f.c.lock_syscalls,
			 (unsigned long long)f.c.unlock_syscalls);
		tap(ok, "%s: first lock with an empty TID cache names the thread, no syscall",
		    tid_modes[i], extra);
	}
	return skips;
}

/*
 * No kernel op is called (trylock, and the unlock of an uncontended word).
 * Free: the try takes the lock under the thread's TID.  Held by another
 * owner (a TID no thread here has): the try fails and leaves the word,
 * the count and the kernel alone (a fallback that waited or called the
 * lock op would not).
 */
static void test_first_trylock_empty_tid_cache(void)
{
	const uint32_t other = 0x3ffffe;	/* above any live TID here */

	for (size_t i = 0; i < N_TID_MODES; i++) {
		struct first_lock f = { .try = true, .after = 1, .tid = -1 };
		struct first_lock g = { .try = true, .other = other, .after = 1, .tid = -1 };
		char extra[200];
		bool ok;

		f.ops = g.ops = fl_lock_find(tid_modes[i]);
		ok = first_lock_run(&f);
		ok = ok && f.took && f.held == (uint32_t)f.tid && f.after == 0 &&
		     f.c.lock_calls == 1 && f.c.lock_syscalls == 0 &&
		     f.c.unlock_syscalls == 0;
		ok = ok && first_lock_run(&g);
		ok = ok && !g.took && g.held == other && g.after == other &&
		     g.c.lock_calls == 0 && g.c.lock_syscalls == 0 &&
		     g.c.unlock_syscalls == 0;
		snprintf(extra, sizeof(extra),
			 "free: took %d, word 0x%x (tid %d), 0x%x after, calls %llu; held: took %d, word 0x%x, calls %llu; syscalls %llu",
			 f.took, f.held, (int)f.tid, f.after,
			 (unsigned long long)f.c.lock_calls, g.took, g.after,
			 (unsigned long long)g.c.lock_calls,
			 (unsigned long long)(f.c.lock_syscalls + f.c.unlock_syscalls +
					      g.c.lock_syscalls + g.c.unlock_syscalls));
		tap(ok, "%s: first trylock with an empty TID cache takes a free lock under the thread's TID, fails on a held one",
		    tid_modes[i], extra);
	}
}

/*
 * fl_user_spin(), the adaptive lock's user-space spin, without a kernel:
 * what it takes, what it leaves to the kernel at once, how much budget it
 * uses; and its calibration and switch (lib/userspin.c).
 */
struct release_arg {
	_Atomic uint32_t *w;
	atomic_int go;
};

static void *release_later(void *arg)
{
	struct release_arg *a = arg;

	while (!atomic_load(&a->go))
		sched_yield();
	usleep(20000);	/* the spinner is (very likely) spinning by now */
	atomic_store_explicit(a->w, 0, memory_order_release);
	return NULL;
}

/* one read at a time: the word must read 0 twice in a row, any owner
 * between two free reads starts over; a flag or our TID goes to the kernel */
static void test_user_spin_rule(uint32_t me, uint32_t other)
{
	static const struct { uint32_t seq[4]; int n, want_at; const char *what; } cases[] = {
		{ { 0, 0 }, 2, 2, "0 0" },
		{ { 0, 1, 0, 1 }, 4, 0, "0 X 0 X" },
		{ { 1, 0, 0 }, 3, 3, "X 0 0" },
		{ { 0, 1, 0, 0 }, 4, 4, "0 X 0 0" },
	};
	char msg[200] = "";
	bool ok = true;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool was_free = false;
		int at = 0;

		for (int k = 0; k < cases[i].n && !at; k++) {
			uint32_t v = cases[i].seq[k] ? other : 0;
			int r = fl_user_spin_step(v, me, &was_free);

			if (r == FL_USPIN_TRY)
				at = k + 1;
			else if (r != FL_USPIN_READ_ON)
				at = -1;
		}
		if (at != cases[i].want_at) {
			ok = false;
			snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "%s%s: tried at read %d, want %d",
				 *msg ? "; " : "", cases[i].what, at, cases[i].want_at);
		}
	}
	{
		bool wf = true;	/* even right after a free read */

		ok = ok && fl_user_spin_step(FUTEX_WAITERS, me, &wf) == FL_USPIN_KERNEL &&
		     fl_user_spin_step(other | FUTEX_OWNER_DIED, me, &wf) == FL_USPIN_KERNEL &&
		     fl_user_spin_step(me, me, &wf) == FL_USPIN_KERNEL;
	}
	tap(ok, "%s: tries only on the second free read in a row (0 0, X 0 0, 0 X 0 0; never 0 X 0 X); a flag or its own TID goes to the kernel",
	    "user spin", msg);
}

/*
 * The back-off's history (fl_uspin_backoff_spin(), fl_uspin_backoff_done()):
 * three failed spins skip nothing, each failure after them doubles the
 * skips that follow (1, 2, 4, ... 64, then 64 again), a spin that took
 * the lock forgets it, one that stopped on a flag leaves it; 1000
 * contended locks whose spins all fail spin 24 times (10 spins and 63
 * skips on the way up, then one spin in 65 locks: 14 more, and 17 skips
 * left over); one win then three failures, over and over, never skips.
 */
static void test_user_spin_backoff(void)
{
	static const int want[12] = { 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 64 };
	_Atomic uint32_t h = 0;
	char msg[200] = "";
	int spins = 0, run[12], n = 0, skips = 0;
	bool ok = true;

	for (int i = 0; i < 1000; i++) {
		int skipped = 0;

		while (i < 1000 && !fl_uspin_backoff_spin(&h)) {
			skipped++;
			i++;
		}
		if (i == 1000)
			break;
		if (n < 12)
			run[n++] = skipped;
		spins++;
		fl_uspin_backoff_done(&h, FL_USPIN_SPENT);
	}
	for (int k = 0; k < 12; k++)
		ok = ok && run[k] == want[k];
	ok = ok && spins == 24;
	if (!ok)
		snprintf(msg, sizeof(msg), "spins %d, skips before spins 1-12: %d %d %d %d %d %d %d %d %d %d %d %d",
			 spins, run[0], run[1], run[2], run[3], run[4], run[5], run[6], run[7],
			 run[8], run[9], run[10], run[11]);
	{
		uint32_t before = atomic_load(&h);

		fl_uspin_backoff_done(&h, FL_USPIN_KERNEL);
		ok = ok && atomic_load(&h) == before && before >> 16 == FL_USPIN_BACKOFF_LEVELS;
		fl_uspin_backoff_done(&h, FL_USPIN_TAKEN);
		ok = ok && atomic_load(&h) == 0 && fl_uspin_backoff_spin(&h) && atomic_load(&h) == 0;
	}
	/* win, fail, fail, fail, win ...: never a skip */
	for (int i = 0; i < 100; i++) {
		ok = ok && fl_uspin_backoff_spin(&h);
		if (!fl_uspin_backoff_spin(&h))
			skips++;
		fl_uspin_backoff_done(&h, i % 4 ? FL_USPIN_SPENT : FL_USPIN_TAKEN);
	}
	ok = ok && !skips;
	tap(ok, "%s: three failed spins skip nothing, then the next 1, 2, 4 .. 64 contended locks; 24 spins in 1000 that all fail; a flag leaves the history, a taken lock clears it; three failures between wins never skip",
	    "user spin back-off", msg);
}

/* the knob user_spin through futex_lock's knob code: set for a run, the
 * default (-1) back after it, no file touched */
static void test_user_spin_knob(uint32_t limit)
{
	struct fl_knobs k;
	char err[320] = "";
	int parsed = fl_knobs_parse("user_spin=0", &k), during, after, during1, bo;
	uint32_t lim_during, lim1;

	setenv("FUTEXLOCK_KNOB_DIR", "/nonexistent-knob-dir", 1);	/* no file may be needed */
	if (parsed || fl_knobs_apply(&k, err, sizeof(err))) {
		tap(false, "%s: the knob user_spin is set for a run and restored after it", "user spin", err);
		unsetenv("FUTEXLOCK_KNOB_DIR");
		return;
	}
	during = fl_user_spin_get();
	lim_during = fl_user_spin_limit(true);
	fl_knobs_restore(err, sizeof(err));
	after = fl_user_spin_get();
	fl_knobs_parse("user_spin=1", &k);
	fl_knobs_apply(&k, err, sizeof(err));
	during1 = fl_user_spin_get();
	lim1 = fl_user_spin_limit(false);
	fl_knobs_restore(err, sizeof(err));
	fl_knobs_parse("user_spin_backoff=1", &k);
	fl_knobs_apply(&k, err, sizeof(err));
	bo = fl_user_spin_backoff_get() == 1 && fl_user_spin_backoff();
	fl_knobs_restore(err, sizeof(err));
	unsetenv("FUTEXLOCK_KNOB_DIR");
	snprintf(msg_buf, sizeof(msg_buf),
		 "=0: %d (limit %u), after %d; =1: %d (limit %u), after %d; user_spin_backoff=1: %s, after %d",
		 during, lim_during, after, during1, lim1, fl_user_spin_get(), bo ? "on" : "not on",
		 fl_user_spin_backoff_get());
	tap(during == 0 && lim_during == 0 && after == -1 && during1 == 1 && lim1 == limit &&
	    fl_user_spin_get() == -1 && bo && fl_user_spin_backoff_get() == -1 && !fl_user_spin_backoff(),
	    "%s: the knobs user_spin and user_spin_backoff are set for a run and restored after it",
	    "user spin", msg_buf);
}

static void test_user_spin(void)
{
	const uint32_t me = (uint32_t)fl_gettid(), other = me ^ 1;
	const struct fl_user_spin_cal *cal = fl_user_spin_calibrate();
	_Atomic uint32_t w = 0;
	struct release_arg ra = { .w = &w };
	pthread_t th;
	uint32_t b = 50, b2 = 50, b3 = 50, b4 = 50;
	int got, got2, got3, got4;
	char msg[240];

	got = fl_user_spin(&w, me, &b);
	snprintf(msg, sizeof(msg), "%s, budget left %u", got == FL_USPIN_TAKEN ? "taken" : "not taken", b);
	tap(got == FL_USPIN_TAKEN && atomic_load(&w) == me && b == 48,
	    "%s: a free word is taken on its second free read", "user spin", msg);

	atomic_store(&w, other);
	got = fl_user_spin(&w, me, &b);
	atomic_store(&w, other | FUTEX_WAITERS);
	got2 = fl_user_spin(&w, me, &b2);
	atomic_store(&w, other | FUTEX_OWNER_DIED);
	got3 = fl_user_spin(&w, me, &b3);
	atomic_store(&w, me);
	got4 = fl_user_spin(&w, me, &b4);
	snprintf(msg, sizeof(msg), "held: %d, left %u; waiters: %d, left %u; owner died: %d, left %u; own TID: %d, left %u",
		 got, b, got2, b2, got3, b3, got4, b4);
	tap(got == FL_USPIN_SPENT && b == 0 && got2 == FL_USPIN_KERNEL && b2 == 49 &&
	    got3 == FL_USPIN_KERNEL && b3 == 49 && got4 == FL_USPIN_KERNEL && b4 == 49 &&
	    atomic_load(&w) == me,
	    "%s: spins out its budget on a held word, reads once on FUTEX_WAITERS, FUTEX_OWNER_DIED or its own TID",
	    "user spin", msg);

	/* bounded: a spin that never takes it fails here instead of hanging */
	atomic_store(&w, other);
	b = 1u << 28;
	if (pthread_create(&th, NULL, release_later, &ra)) {
		tap(false, "%s: takes a word released while it spins", "user spin", "pthread_create");
	} else {
		atomic_store(&ra.go, 1);
		got = fl_user_spin(&w, me, &b);
		pthread_join(th, NULL);
		tap(got == FL_USPIN_TAKEN && atomic_load(&w) == me && b < (1u << 28),
		    "%s: takes a word released while it spins", "user spin", NULL);
	}

	snprintf(msg, sizeof(msg), "kernel acquisition %.0f ns, iteration %.1f ns, limit %u, %u calls",
		 cal->syscall_ns, cal->iter_ns, cal->limit, cal->calls);
	tap(cal->calls == FL_USER_SPIN_CAL_CALLS && cal->limit >= 2 &&
	    cal->limit <= FL_USER_SPIN_MAX &&
	    (cal->limit == FL_USER_SPIN_MAX || cal->limit == 2 ||
	     ((cal->limit - 1) * cal->iter_ns < cal->syscall_ns &&
	      cal->syscall_ns <= cal->limit * cal->iter_ns)) &&
	    fl_user_spin_calibrate() == cal && cal->calls == FL_USER_SPIN_CAL_CALLS,
	    "%s: calibrated once, 248 kernel acquisitions, the limit their median in iterations rounded up",
	    "user spin", msg);

	b = fl_user_spin_limit(true);
	b2 = fl_user_spin_limit(false);
	fl_user_spin_set(0);
	b3 = fl_user_spin_limit(true);
	fl_user_spin_set(1);
	b4 = fl_user_spin_limit(false);
	fl_user_spin_set(-1);
	snprintf(msg, sizeof(msg), "defaults %u/%u, knob 0: %u, knob 1: %u", b, b2, b3, b4);
	tap(b == cal->limit && b2 == 0 && b3 == 0 && b4 == cal->limit &&
	    fl_user_spin_get() == -1 && fl_user_spin_limit(true) == cal->limit,
	    "%s: on by default only where the lock says so; the knob overrides both ways",
	    "user spin", msg);

	test_user_spin_rule(me, other);
	test_user_spin_backoff();
	test_user_spin_knob(cal->limit);
}

/* the contender of contend_round(..., direct): the lock op itself, which
 * never looks at the mark; it notes the mark once it owns the lock */
static void *woken_direct_worker(void *arg)
{
	struct thr *t = arg;
	struct fl_lock *l = &t->sh->lock;

	atomic_store(&t->tid, fl_gettid());
	pthread_barrier_wait(&t->sh->barrier);
	fl_tid_lock_slow(l, &t->c, (uint32_t)fl_gettid(), l->ops->tid_lock_op);
	t->seen = atomic_load(&l->woken);
	t->sh->counter++;
	fl_unlock(l, &t->c);
	return NULL;
}

/*
 * One contender against main's lock: main holds it (the woken mark set
 * by hand if hand_mark), the contender enters fl_lock() (the lock op
 * itself if direct) and sets FUTEX_WAITERS to sleep, main notes the mark
 * and unlocks (through FUTEX_UNLOCK).  m[]: the mark after a user-space
 * unlock, while the contender waits, after the round; false if a thread
 * failed or never asked to sleep.  hist, unless NULL: the user spin's
 * back-off history, set to *hist while main holds the lock (so a spin by
 * the contender runs out of budget), and read back into it after.
 */
static bool contend_round(const struct fl_lock_ops *ops, bool hand_mark, bool direct,
			  uint32_t *hist, struct thr *t, uint64_t *main_unlock_sys,
			  uint32_t m[3])
{
	struct shared *sh = aligned_alloc(FL_CACHELINE, sizeof(*sh));
	struct fl_counters mc = { 0 };
	bool ok;

	memset(sh, 0, sizeof(*sh));
	memset(t, 0, sizeof(*t));
	fl_lock_init(&sh->lock, ops);
	pthread_barrier_init(&sh->barrier, NULL, 2);
	fl_lock(&sh->lock, &mc);
	fl_unlock(&sh->lock, &mc);		/* user space: no mark */
	m[0] = atomic_load(&sh->lock.woken);
	fl_lock(&sh->lock, &mc);
	if (hand_mark)
		fl_woken_mark(&sh->lock.woken);
	if (hist)
		atomic_store(&sh->lock.uspin_hist, *hist);
	t->sh = sh;
	ok = !pthread_create(&t->th, NULL, direct ? woken_direct_worker : contend_worker, t);
	if (ok) {
		/* it asked to sleep: FUTEX_WAITERS (60 s: a hang guard) */
		uint64_t end = fl_now_ns() + 60 * 1000000000ull;

		pthread_barrier_wait(&sh->barrier);
		while (ok && !(atomic_load(&sh->lock.word) & FUTEX_WAITERS)) {
			ok = fl_now_ns() < end;
			fl_poll_pause();
		}
	}
	m[1] = atomic_load(&sh->lock.woken);
	fl_unlock(&sh->lock, &mc);
	if (t->th)
		pthread_join(t->th, NULL);
	pthread_barrier_destroy(&sh->barrier);
	*main_unlock_sys = mc.unlock_syscalls;
	m[2] = atomic_load(&sh->lock.woken);
	if (hist)
		*hist = atomic_load(&sh->lock.uspin_hist);
	ok = ok && sh->counter == 1;
	fl_lock_destroy(&sh->lock);
	free(sh);
	return ok;
}

/*
 * The woken mark (futexlock.h): an unlock through FUTEX_UNLOCK marks a
 * lock that spins in user space (FUTEX_LOCK's paths are unchanged); a
 * locker that finds the mark goes to the kernel without spinning, the
 * mark stays while it waits there and its acquisition clears it;
 * user_spin_woken=0 spins anyway (the mark still set and cleared).
 */
static int test_woken_mark(bool require)
{
	const struct fl_lock_ops *fl = fl_lock_find("futex_lock"),
				 *ad = fl_lock_find("adaptive");
	struct thr a, f, h, h0;
	uint64_t mus[4];
	uint32_t ma[3], mf[3], mh[3], mh0[3];
	bool ok;

	if (!fl_lock_available(fl) || !fl_lock_available(ad)) {
		int skips = 0;

		for (int k = 0; k < 2; k++)
			skips += no_futex_lock(require, "woken mark");
		return skips;
	}
	ok = contend_round(ad, false, true, NULL, &a, &mus[0], ma);
	ok = contend_round(fl, false, true, NULL, &f, &mus[1], mf) && ok;
	snprintf(msg_buf, sizeof(msg_buf),
		 "adaptive: after a user-space unlock %u, seen by the woken %u; futex_lock: %u, %u; unlock syscalls %"
		 PRIu64 "/%" PRIu64, ma[0], a.seen, mf[0], f.seen, mus[0], mus[1]);
	tap(ok && mus[0] == 1 && mus[1] == 1 && ma[0] == 0 && a.seen == 1 && mf[0] == 0 && f.seen == 0,
	    "%s: FUTEX_UNLOCK of a spinning lock marks it, FUTEX_LOCK's and a user-space unlock do not",
	    "woken mark", msg_buf);

	ok = contend_round(ad, true, false, NULL, &h, &mus[2], mh);
	fl_user_spin_woken_set(0);
	ok = contend_round(ad, true, false, NULL, &h0, &mus[3], mh0) && ok;
	fl_user_spin_woken_set(-1);
	snprintf(msg_buf, sizeof(msg_buf),
		 "marked: spins %" PRIu64 ", skipped %" PRIu64 ", lock syscalls %" PRIu64
		 ", mark waiting %u, after %u; user_spin_woken=0: spins %" PRIu64 ", skipped %" PRIu64
		 ", after %u", h.c.user_spins, h.c.user_spin_skipped, h.c.lock_syscalls, mh[1], mh[2],
		 h0.c.user_spins, h0.c.user_spin_skipped, mh0[2]);
	tap(ok && h.c.user_spins == 0 && h.c.user_spin_skipped == 1 && h.c.lock_syscalls >= 1 &&
	    mh[1] == 1 && mh[2] == 0 && h0.c.user_spins == 1 && h0.c.user_spin_skipped == 0 &&
	    mh0[2] == 0 && fl_user_spin_woken_get() == -1,
	    "%s: a marked lock is not spun on; the mark stays while its locker waits in the kernel, whose acquisition clears it; user_spin_woken=0 spins",
	    "woken mark", msg_buf);
	return 0;
}

/*
 * The knob user_spin_backoff (the back-off tested above, in a lock): on, a
 * lock with a skip left does not spin and uses the skip up; a spin that
 * runs out of budget raises the level; off (the default here), the lock
 * spins and its history stays as it was.
 */
static int test_user_spin_backoff_knob(bool require)
{
	const struct fl_lock_ops *ad = fl_lock_find("adaptive");
	const uint32_t skip1 = (FL_USPIN_BACKOFF_AFTER + 1) << 16 | 1;
	uint32_t h[3] = { skip1, 0, skip1 }, m[3];
	struct thr on_skip, on_fail, off;
	uint64_t mus;
	bool ok;

	if (!fl_lock_available(ad))
		return no_futex_lock(require, "user spin back-off");
	/* main holds the lock (no mark): a spin by the contender runs out */
	fl_user_spin_backoff_set(1);
	ok = contend_round(ad, false, false, &h[0], &on_skip, &mus, m);
	ok = contend_round(ad, false, false, &h[1], &on_fail, &mus, m) && ok;
	fl_user_spin_backoff_set(-1);
	ok = contend_round(ad, false, false, &h[2], &off, &mus, m) && ok;
	snprintf(msg_buf, sizeof(msg_buf),
		 "on, a skip left: spins %" PRIu64 ", backed off %" PRIu64 ", history 0x%x -> 0x%x; "
		 "on, none: spins %" PRIu64 ", backed off %" PRIu64 ", history 0 -> 0x%x; "
		 "off: spins %" PRIu64 ", backed off %" PRIu64 ", history 0x%x -> 0x%x",
		 on_skip.c.user_spins, on_skip.c.user_spin_backed_off, skip1, h[0],
		 on_fail.c.user_spins, on_fail.c.user_spin_backed_off, h[1],
		 off.c.user_spins, off.c.user_spin_backed_off, skip1, h[2]);
	tap(ok && on_skip.c.user_spins == 0 && on_skip.c.user_spin_backed_off == 1 &&
	    on_skip.c.user_spin_skipped == 0 && on_skip.c.lock_syscalls >= 1 &&
	    h[0] == skip1 - 1 && on_fail.c.user_spins == 1 && on_fail.c.user_spin_backed_off == 0 &&
	    h[1] == 1u << 16 && off.c.user_spins == 1 && off.c.user_spin_backed_off == 0 &&
	    h[2] == skip1 && fl_user_spin_backoff_get() == -1,
	    "%s: on, a lock with a skip left backs off and uses it; a spin that runs out raises the level; off, the lock spins and keeps its history",
	    "user spin back-off", msg_buf);
	return 0;
}

int main(int argc, char **argv)
{
	const struct fl_lock_ops *sel[32];
	size_t nsel = 0;
	bool require = false;
	bool broken = getenv("FUTEXLOCK_TEST_BROKEN_LOCK") &&
		      !strcmp(getenv("FUTEXLOCK_TEST_BROKEN_LOCK"), "1");
	uint64_t threads = 4, iters = 10000;
	size_t ntests;
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
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!nsel)
		for (size_t i = 0; i < fl_lock_nmodes; i++)
			sel[nsel++] = fl_lock_modes[i];
	if (broken && nsel < 32)
		sel[nsel++] = &fl_lock_test_broken;	/* as if it were real */

	/* of the 21, 6 are the first lock and trylock, one each per TID mode */
	ntests = nsel * 5 + 21 + fl_spinlock_nmodes;
	printf("TAP version 13\n1..%zu\n", ntests);
	printf("# %s\n", fl_futex_lock_probe_line());
	if (broken)
		printf("# FUTEXLOCK_TEST_BROKEN_LOCK=1: test-broken is tested as a real lock; this run must fail\n");
	test_kstats_delta();
	test_gettid();
	test_gettid_fork();
	skips += test_first_lock_empty_tid_cache(require);
	test_first_trylock_empty_tid_cache();
	test_user_spin();
	skips += test_woken_mark(require);
	skips += test_user_spin_backoff_knob(require);
	test_check_catches_broken((unsigned)threads, iters / 4 ? iters / 4 : 1);
	for (size_t i = 0; i < fl_spinlock_nmodes; i++)
		test_trylock(fl_spinlock_modes[i]);
	for (size_t i = 0; i < nsel; i++) {
		const struct fl_lock_ops *ops = sel[i];

		test_trylock(ops);
		if (!fl_lock_available(ops)) {
			for (int k = 0; k < 4; k++)
				skips += no_futex_lock(require, ops->name);
			continue;
		}
		test_uncontended(ops);
		test_mutex(ops, (unsigned)threads, iters, false);
		test_mutex(ops, (unsigned)threads, iters, true);
		test_contended(ops);
	}
	printf("# %d tests, %d failed, %d skipped\n", testno, failures, skips);
	return failures ? 1 : 0;
usage:
	fprintf(stderr, "usage: test_locks [--require-futex-lock] [-t THREADS] [-i ITERATIONS] [MODE...]\n");
	return 2;
}
