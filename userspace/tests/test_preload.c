// SPDX-License-Identifier: GPL-2.0
/*
 * test_preload - tests of libfutexlock-preload.so (userspace/preload/).
 *
 *   LD_PRELOAD=build/libfutexlock-preload.so FUTEXLOCK_PRELOAD=MODE \
 *       build/test_preload [--expect-mode MODE] [TEST...]
 *
 * An ordinary pthread program, as the preload sees real programs: it is
 * dynamically linked to glibc and does not know the preload.  Each test
 * runs in a forked child, with its stderr captured and a hang guard
 * (alarm, FL_PRELOAD_GUARD seconds, default 30): a test passes when the
 * child exits 0, said on stderr what the test expects (misuse messages)
 * and nothing else from the preload.  TAP on stdout.
 *
 * "Converted" below means the preload runs mode lock, adaptive or emulate:
 * then the mutex word holds the owner's TID, else glibc's 1.  No test
 * asserts a duration: timed waits are checked for the result and for the
 * clock having passed the deadline, never for how long they took.
 */
#include "futexlock.h"

#include <dlfcn.h>
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <threads.h>

static const char *g_mode = "none";	/* the preload's mode, "none" without */
static int g_conv;			/* mutexes converted */
static unsigned g_guard = 30;

#define FAIL(...) do { fprintf(stdout, "#   " __VA_ARGS__); \
	fprintf(stdout, " (%s:%d)\n", __func__, __LINE__); return 1; } while (0)
#define CHECK(c) do { if (!(c)) FAIL("check failed: %s", #c); } while (0)
#define EQ(a, b) do { long _a = (long)(a), _b = (long)(b); if (_a != _b) \
	FAIL("%s = %ld, expected %s = %ld", #a, _a, #b, _b); } while (0)

static pid_t tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static uint32_t word(pthread_mutex_t *m)
{
	return atomic_load((_Atomic uint32_t *)&m->__data.__lock);
}

/* the word of a mutex the caller holds says who converted it */
static int held_word_ok(pthread_mutex_t *m)
{
	uint32_t w = word(m);

	if (g_conv)
		return (w & FUTEX_TID_MASK) == (uint32_t)tid();
	return w == 1 || w == 2;	/* glibc's lll lock */
}
#define HELD(m) do { if (!held_word_ok(m)) FAIL("word of held mutex = 0x%x, tid %d, converted %d", \
	word(m), (int)tid(), g_conv); } while (0)

static struct timespec ts_in(clockid_t clk, long ms)
{
	struct timespec t;

	clock_gettime(clk, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static int passed(clockid_t clk, const struct timespec *dl)
{
	struct timespec now;

	clock_gettime(clk, &now);
	return now.tv_sec > dl->tv_sec ||
	       (now.tv_sec == dl->tv_sec && now.tv_nsec >= dl->tv_nsec);
}

/* ---- helpers: threads --------------------------------------------------- */
static pthread_t spawn(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, arg)) {
		perror("pthread_create");
		exit(3);
	}
	return t;
}

static long join(pthread_t t)
{
	void *r;

	pthread_join(t, &r);
	return (long)r;
}

/* run fn(arg) in another thread, wait for it, return its result */
static long in_thread(void *(*fn)(void *), void *arg)
{
	return join(spawn(fn, arg));
}

static void *do_trylock(void *m)
{
	return (void *)(long)pthread_mutex_trylock(m);
}

static void *do_unlock(void *m)
{
	return (void *)(long)pthread_mutex_unlock(m);
}

static void *do_lock_unlock(void *m)
{
	long r = pthread_mutex_lock(m);

	if (!r)
		r = pthread_mutex_unlock(m);
	return (void *)r;
}

/* ---- exclusion under contention ----------------------------------------- */
#define NTHR 4
#define NITER 20000
struct excl {
	pthread_mutex_t *m;
	volatile long counter;
	_Atomic int inside;
	_Atomic int bad;
	int use_try;
};

static void *excl_worker(void *p)
{
	struct excl *x = p;

	for (int i = 0; i < NITER; i++) {
		int r;

		if (x->use_try && (i & 1)) {
			while ((r = pthread_mutex_trylock(x->m)) == EBUSY)
				sched_yield();
		} else {
			r = pthread_mutex_lock(x->m);
		}
		if (r) {
			atomic_fetch_add(&x->bad, 1);
			continue;
		}
		if (atomic_exchange(&x->inside, 1))
			atomic_fetch_add(&x->bad, 1);
		x->counter++;
		atomic_store(&x->inside, 0);
		if (pthread_mutex_unlock(x->m))
			atomic_fetch_add(&x->bad, 1);
	}
	return NULL;
}

static int exclusion(pthread_mutex_t *m, int use_try)
{
	struct excl x = { .m = m, .use_try = use_try };
	pthread_t t[NTHR];

	CHECK(pthread_mutex_lock(m) == 0);
	HELD(m);
	CHECK(pthread_mutex_unlock(m) == 0);
	for (int i = 0; i < NTHR; i++)
		t[i] = spawn(excl_worker, &x);
	for (int i = 0; i < NTHR; i++)
		join(t[i]);
	EQ(x.bad, 0);
	EQ(x.counter, (long)NTHR * NITER);
	EQ(word(m), 0);
	return 0;
}

static int init_kind(pthread_mutex_t *m, int type)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	int r = pthread_mutex_init(m, &a);

	pthread_mutexattr_destroy(&a);
	return r;
}

static int t_static_normal(void)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	return exclusion(&m, 1);
}

static int t_static_recursive(void)
{
	static pthread_mutex_t m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

	return exclusion(&m, 0);
}

static int t_static_errorcheck(void)
{
	static pthread_mutex_t m = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;

	return exclusion(&m, 1);
}

static int t_static_adaptive(void)
{
	static pthread_mutex_t m = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;

	return exclusion(&m, 0);
}

static int t_init_kinds(void)
{
	static const int kinds[] = { PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_DEFAULT,
		PTHREAD_MUTEX_RECURSIVE, PTHREAD_MUTEX_ERRORCHECK,
		PTHREAD_MUTEX_ADAPTIVE_NP };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		pthread_mutex_t m;

		EQ(init_kind(&m, kinds[i]), 0);
		if (exclusion(&m, 1))
			FAIL("kind %d", kinds[i]);
		EQ(pthread_mutex_destroy(&m), 0);
	}
	/* NULL attributes */
	pthread_mutex_t m;

	EQ(pthread_mutex_init(&m, NULL), 0);
	if (exclusion(&m, 0))
		return 1;
	EQ(pthread_mutex_destroy(&m), 0);
	return 0;
}

/* ---- recursive and errorcheck per POSIX ---------------------------------- */
static int t_recursive(void)
{
	pthread_mutex_t m;

	EQ(init_kind(&m, PTHREAD_MUTEX_RECURSIVE), 0);
	EQ(pthread_mutex_lock(&m), 0);
	EQ(pthread_mutex_lock(&m), 0);
	EQ(pthread_mutex_trylock(&m), 0);
	struct timespec dl = ts_in(CLOCK_REALTIME, 10);

	EQ(pthread_mutex_timedlock(&m, &dl), 0);
	HELD(&m);
	EQ(in_thread(do_trylock, &m), EBUSY);
	EQ(in_thread(do_unlock, &m), EPERM);	/* not the owner */
	for (int i = 0; i < 3; i++) {
		EQ(pthread_mutex_unlock(&m), 0);
		EQ(in_thread(do_trylock, &m), EBUSY);	/* still held */
	}
	EQ(pthread_mutex_unlock(&m), 0);
	EQ(pthread_mutex_unlock(&m), EPERM);	/* not locked */
	EQ(in_thread(do_lock_unlock, &m), 0);
	EQ(pthread_mutex_destroy(&m), 0);
	return 0;
}

static int t_errorcheck(void)
{
	pthread_mutex_t m = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	struct timespec dl = ts_in(CLOCK_REALTIME, 10);

	EQ(pthread_mutex_unlock(&m), EPERM);	/* not locked */
	EQ(pthread_mutex_lock(&m), 0);
	HELD(&m);
	EQ(pthread_mutex_lock(&m), EDEADLK);
	EQ(pthread_mutex_trylock(&m), EBUSY);	/* POSIX: EBUSY, not EDEADLK */
	EQ(pthread_mutex_timedlock(&m, &dl), EDEADLK);
	EQ(in_thread(do_unlock, &m), EPERM);
	EQ(in_thread(do_trylock, &m), EBUSY);
	EQ(pthread_mutex_unlock(&m), 0);
	EQ(pthread_mutex_unlock(&m), EPERM);
	EQ(pthread_mutex_destroy(&m), 0);
	return 0;
}

/* ---- timed locks --------------------------------------------------------- */
struct holder {
	pthread_mutex_t *m;
	_Atomic int state;	/* 1 holding, 2 release now, 3 released */
};

static void *hold_until_told(void *p)
{
	struct holder *h = p;

	pthread_mutex_lock(h->m);
	atomic_store(&h->state, 1);
	while (atomic_load(&h->state) != 2)
		usleep(1000);
	pthread_mutex_unlock(h->m);
	atomic_store(&h->state, 3);
	return NULL;
}

static int t_timedlock(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct holder h = { .m = &m };
	struct timespec dl, bad = { 0, 1000000000L }, neg = { -1, 0 };
	pthread_t t = spawn(hold_until_told, &h);

	while (atomic_load(&h.state) != 1)
		usleep(1000);
	dl = ts_in(CLOCK_REALTIME, 50);
	EQ(pthread_mutex_timedlock(&m, &dl), ETIMEDOUT);
	CHECK(passed(CLOCK_REALTIME, &dl));
	dl = ts_in(CLOCK_MONOTONIC, 50);
	EQ(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &dl), ETIMEDOUT);
	CHECK(passed(CLOCK_MONOTONIC, &dl));
	dl = ts_in(CLOCK_REALTIME, 50);
	EQ(pthread_mutex_clocklock(&m, CLOCK_REALTIME, &dl), ETIMEDOUT);
	CHECK(passed(CLOCK_REALTIME, &dl));
	EQ(pthread_mutex_timedlock(&m, &bad), EINVAL);
	EQ(pthread_mutex_timedlock(&m, &neg), ETIMEDOUT);
	EQ(pthread_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID, &dl), EINVAL);
	EQ(word(&m) != 0, 1);
	atomic_store(&h.state, 2);
	dl = ts_in(CLOCK_REALTIME, 3600 * 1000);	/* the holder lets go */
	EQ(pthread_mutex_timedlock(&m, &dl), 0);
	HELD(&m);
	EQ(pthread_mutex_unlock(&m), 0);
	join(t);
	/* a free lock with an expired deadline is taken */
	EQ(pthread_mutex_timedlock(&m, &neg), 0);
	EQ(pthread_mutex_unlock(&m), 0);
	return 0;
}

/* ---- condition variables -------------------------------------------------- */
#define QN 4000
struct queue {
	pthread_mutex_t *m;
	pthread_cond_t *nonempty, *nonfull;
	int items;	/* per producer and per consumer; 0: QN */
	int buf[8], head, n, produced, consumed;
	long sum;
	_Atomic int bad;
};

static void *producer(void *p)
{
	struct queue *q = p;

	for (int i = 1; i <= (q->items ? q->items : QN); i++) {
		pthread_mutex_lock(q->m);
		while (q->n == 8)
			if (pthread_cond_wait(q->nonfull, q->m))
				atomic_fetch_add(&q->bad, 1);
		if (!held_word_ok(q->m))
			atomic_fetch_add(&q->bad, 1);
		q->buf[(q->head + q->n++) % 8] = i;
		q->produced++;
		pthread_cond_signal(q->nonempty);
		if (pthread_mutex_unlock(q->m))
			atomic_fetch_add(&q->bad, 1);
	}
	return NULL;
}

static void *consumer(void *p)
{
	struct queue *q = p;

	for (int i = 1; i <= (q->items ? q->items : QN); i++) {
		struct timespec dl = ts_in(CLOCK_REALTIME, 3600 * 1000);

		pthread_mutex_lock(q->m);
		while (q->n == 0) {
			int r = (i & 1) ? pthread_cond_wait(q->nonempty, q->m) :
				pthread_cond_timedwait(q->nonempty, q->m, &dl);
			if (r)
				atomic_fetch_add(&q->bad, 1);
		}
		if (!held_word_ok(q->m))
			atomic_fetch_add(&q->bad, 1);
		q->sum += q->buf[q->head];
		q->head = (q->head + 1) % 8;
		q->n--;
		q->consumed++;
		pthread_cond_signal(q->nonfull);
		if (pthread_mutex_unlock(q->m))
			atomic_fetch_add(&q->bad, 1);
	}
	return NULL;
}

static int run_queue(pthread_mutex_t *m, pthread_cond_t *ne, pthread_cond_t *nf)
{
	struct queue q = { .m = m, .nonempty = ne, .nonfull = nf };
	pthread_t t[4];

	t[0] = spawn(producer, &q);
	t[1] = spawn(producer, &q);
	t[2] = spawn(consumer, &q);
	t[3] = spawn(consumer, &q);
	for (int i = 0; i < 4; i++)
		join(t[i]);
	EQ(q.bad, 0);
	EQ(q.consumed, 2 * QN);
	EQ(q.sum, 2L * QN * (QN + 1) / 2);
	return 0;
}

static int t_cond_queue(void)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t ne = PTHREAD_COND_INITIALIZER, nf = PTHREAD_COND_INITIALIZER;

	return run_queue(&m, &ne, &nf);
}

static int t_cond_queue_errorcheck(void)
{
	pthread_mutex_t m;
	pthread_cond_t ne, nf;

	EQ(init_kind(&m, PTHREAD_MUTEX_ERRORCHECK), 0);
	EQ(pthread_cond_init(&ne, NULL), 0);
	EQ(pthread_cond_init(&nf, NULL), 0);
	if (run_queue(&m, &ne, &nf))
		return 1;
	EQ(pthread_cond_destroy(&ne), 0);
	EQ(pthread_cond_destroy(&nf), 0);
	EQ(pthread_mutex_destroy(&m), 0);
	return 0;
}

static int t_cond_queue_recursive(void)
{
	static pthread_mutex_t m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	static pthread_cond_t ne = PTHREAD_COND_INITIALIZER, nf = PTHREAD_COND_INITIALIZER;

	return run_queue(&m, &ne, &nf);
}

/* a condvar with a pass-through (priority-inheritance) mutex */
static int t_cond_queue_pi(void)
{
	pthread_mutexattr_t a;
	pthread_mutex_t m;
	pthread_cond_t ne = PTHREAD_COND_INITIALIZER, nf = PTHREAD_COND_INITIALIZER;

	pthread_mutexattr_init(&a);
	EQ(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT), 0);
	EQ(pthread_mutex_init(&m, &a), 0);
	struct queue q = { .m = &m, .nonempty = &ne, .nonfull = &nf };
	pthread_t t[2];

	/* held_word_ok() does not apply: PI words hold the TID in glibc too.
	 * Fewer items: contended PI locks sleep in the kernel's rt_mutex
	 * every time, ~20 s for QN items in the TCG guest */
	q.m = &m;
	q.items = QN / 10;
	t[0] = spawn(producer, &q);
	t[1] = spawn(consumer, &q);
	join(t[0]);
	join(t[1]);
	/* producer/consumer counted 'bad' for the word check only */
	EQ(q.consumed, QN / 10);
	EQ(q.sum, (long)(QN / 10) * (QN / 10 + 1) / 2);
	EQ(pthread_mutex_destroy(&m), 0);
	return 0;
}

/* wait with a deadline: ETIMEDOUT, the cond's clock past it, mutex held */
static int timed_wait_on(pthread_cond_t *c, clockid_t clk, int clockwait)
{
	pthread_mutex_t m = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	struct timespec dl = ts_in(clk, 50);

	EQ(pthread_mutex_lock(&m), 0);
	int r = clockwait ? pthread_cond_clockwait(c, &m, clk, &dl) :
		pthread_cond_timedwait(c, &m, &dl);

	EQ(r, ETIMEDOUT);
	CHECK(passed(clk, &dl));
	HELD(&m);
	EQ(pthread_mutex_unlock(&m), 0);	/* EPERM if not re-acquired */
	return 0;
}

static int t_cond_timedwait_realtime(void)
{
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;

	return timed_wait_on(&c, CLOCK_REALTIME, 0);
}

static int t_cond_timedwait_monotonic(void)
{
	pthread_condattr_t a;
	pthread_cond_t c;
	clockid_t k;

	pthread_condattr_init(&a);
	EQ(pthread_condattr_setclock(&a, CLOCK_MONOTONIC), 0);
	EQ(pthread_condattr_getclock(&a, &k), 0);
	EQ(k, CLOCK_MONOTONIC);
	EQ(pthread_cond_init(&c, &a), 0);
	if (timed_wait_on(&c, CLOCK_MONOTONIC, 0))
		return 1;
	EQ(pthread_cond_destroy(&c), 0);
	return 0;
}

static int t_cond_clockwait(void)
{
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec dl = ts_in(CLOCK_REALTIME, 50), bad = { 0, -1 };

	if (timed_wait_on(&c, CLOCK_MONOTONIC, 1) || timed_wait_on(&c, CLOCK_REALTIME, 1))
		return 1;
	pthread_mutex_lock(&m);
	EQ(pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &dl), EINVAL);
	EQ(pthread_cond_timedwait(&c, &m, &bad), EINVAL);
	HELD(&m);
	pthread_mutex_unlock(&m);
	return 0;
}

/* broadcast wakes every sleeper: 4 threads asleep in the wait, one call */
struct bcast {
	pthread_mutex_t m;
	pthread_cond_t c;
	int go, entered;
	pid_t tids[4];
};

static void *bcast_waiter(void *p)
{
	struct bcast *b = p;

	pthread_mutex_lock(&b->m);
	b->tids[b->entered++] = tid();
	while (!b->go)
		pthread_cond_wait(&b->c, &b->m);
	pthread_mutex_unlock(&b->m);
	return NULL;
}

static int t_cond_broadcast(void)
{
	struct bcast b = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, {0} };
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		t[i] = spawn(bcast_waiter, &b);
	for (;;) {
		pthread_mutex_lock(&b.m);
		int e = b.entered;

		pthread_mutex_unlock(&b.m);
		if (e == 4)
			break;
		usleep(1000);
	}
	/* all four inside the wait: wait for them to sleep (event, guard) */
	CHECK(fl_wait_asleep(b.tids, 4, (uint64_t)g_guard * 1000000000ull) == 0);
	pthread_mutex_lock(&b.m);
	b.go = 1;
	EQ(pthread_cond_broadcast(&b.c), 0);
	pthread_mutex_unlock(&b.m);
	for (int i = 0; i < 4; i++)
		join(t[i]);
	EQ(pthread_cond_destroy(&b.c), 0);
	return 0;
}

/* a barrier on one condvar, many rounds: no lost wake-up */
#define ROUNDS 2000
struct barrier {
	pthread_mutex_t m;
	pthread_cond_t c;
	unsigned count, gen;
};

static void *barrier_worker(void *p)
{
	struct barrier *b = p;

	for (int r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&b->m);
		unsigned g = b->gen;

		if (++b->count == NTHR) {
			b->count = 0;
			b->gen++;
			pthread_cond_broadcast(&b->c);
		} else {
			while (g == b->gen)
				pthread_cond_wait(&b->c, &b->m);
		}
		pthread_mutex_unlock(&b->m);
	}
	return NULL;
}

static int t_cond_broadcast_storm(void)
{
	struct barrier b = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
	pthread_t t[NTHR];

	for (int i = 0; i < NTHR; i++)
		t[i] = spawn(barrier_worker, &b);
	for (int i = 0; i < NTHR; i++)
		join(t[i]);
	EQ(b.gen, ROUNDS);
	return 0;
}

/* pthread_cond_wait is a cancellation point; the mutex is held in cleanup */
struct cancel_ctx {
	pthread_mutex_t m;
	pthread_cond_t c;
	_Atomic int cleanup_held;	/* 1: cleanup saw the mutex held */
	_Atomic pid_t tid;
};

static void cancel_cleanup(void *p)
{
	struct cancel_ctx *x = p;

	/* errorcheck mutex: unlock succeeds only for the owner */
	atomic_store(&x->cleanup_held, pthread_mutex_unlock(&x->m) == 0 ? 1 : -1);
}

static void *cancel_waiter(void *p)
{
	struct cancel_ctx *x = p;

	pthread_mutex_lock(&x->m);
	pthread_cleanup_push(cancel_cleanup, x);
	atomic_store(&x->tid, tid());
	for (;;)
		pthread_cond_wait(&x->c, &x->m);
	pthread_cleanup_pop(1);
	return NULL;
}

static int t_cond_cancel(void)
{
	struct cancel_ctx x = { PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP,
				PTHREAD_COND_INITIALIZER, 0, 0 };
	pthread_t t = spawn(cancel_waiter, &x);
	pid_t w;
	void *r;

	while (!(w = atomic_load(&x.tid)))
		usleep(1000);
	CHECK(fl_wait_asleep(&w, 1, (uint64_t)g_guard * 1000000000ull) == 0);
	EQ(pthread_cancel(t), 0);
	pthread_join(t, &r);
	CHECK(r == PTHREAD_CANCELED);
	EQ(atomic_load(&x.cleanup_held), 1);
	EQ(pthread_mutex_trylock(&x.m), 0);
	EQ(pthread_mutex_unlock(&x.m), 0);
	return 0;
}

/* ---- the woken mark (futexlock.h: fl_woken_mark(); glibc's __nusers) ----- */
struct woken_ctx {
	pthread_mutex_t m;
	_Atomic pid_t tid;
	_Atomic int seen;	/* the mark right after the contender's lock */
};

static void *woken_contender(void *p)
{
	struct woken_ctx *x = p;

	atomic_store(&x->tid, tid());
	pthread_mutex_lock(&x->m);
	atomic_store(&x->seen, (int)atomic_load((_Atomic unsigned *)&x->m.__data.__nusers));
	pthread_mutex_unlock(&x->m);
	return NULL;
}

/* main holds x->m (marked by hand if hand), a contender blocks on it
 * (FUTEX_WAITERS), main notes the mark (*waiting) and unlocks; returns
 * the mark the contender saw once it had the lock; *after: the mark once
 * the contender is gone */
static int woken_round(struct woken_ctx *x, int hand, unsigned *waiting, unsigned *after)
{
	_Atomic uint32_t *w = (_Atomic uint32_t *)&x->m.__data.__lock;
	_Atomic unsigned *mark = (_Atomic unsigned *)&x->m.__data.__nusers;
	pthread_t t;

	atomic_store(&x->tid, 0);
	atomic_store(&x->seen, -1);
	if (pthread_mutex_lock(&x->m))
		return -2;
	if (hand)
		atomic_store(mark, 1);
	t = spawn(woken_contender, x);
	while (!(atomic_load(w) & FUTEX_WAITERS))	/* an event; the guard bounds it */
		usleep(100);
	*waiting = atomic_load(mark);
	pthread_mutex_unlock(&x->m);
	join(t);
	*after = atomic_load(mark);
	return atomic_load(&x->seen);
}

/*
 * Where the preload spins (adaptive, emulate; not lock, not with
 * FUTEXLOCK_PRELOAD_USER_SPIN=0) an unlock through the kernel marks the
 * mutex and an acquisition through the lock op clears it; elsewhere
 * nothing touches the mark.  Round 1: the contender clears the mark
 * main's unlock set (sees 0); emulate's lock op always re-arms
 * FUTEX_WAITERS, so the contender's own unlock goes through the slow
 * path and marks it again (1 after the round; under the kernel ops that
 * depends on how the woken waiter took the word: not checked).  Round 2
 * marks by hand: the mark stays while the contender waits; a spinning
 * mode's contender skips its spin (the stats show it: preload-tests.sh
 * runs this test with --in-process and FUTEXLOCK_PRELOAD_STATS=1,
 * user-spins 1, user-spin-skipped 1) and clears it, elsewhere it stays.
 */
/* the preload spins in user space: adaptive or emulate, unless
 * FUTEXLOCK_PRELOAD_USER_SPIN=0 */
static int preload_spins(void)
{
	const char *u = getenv("FUTEXLOCK_PRELOAD_USER_SPIN");

	return (!strcmp(g_mode, "adaptive") || !strcmp(g_mode, "emulate")) &&
	       !(u && !strcmp(u, "0"));
}

static int t_woken_mark(void)
{
	int emulate = !strcmp(g_mode, "emulate");
	int spins = preload_spins();
	struct woken_ctx x = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
	unsigned waiting, after;

	EQ(x.m.__data.__nusers, 0);
	EQ(woken_round(&x, 0, &waiting, &after), 0);
	if (emulate || !spins)
		EQ(after, emulate && spins);
	EQ(woken_round(&x, 1, &waiting, &after), spins ? 0 : 1);
	EQ(waiting, 1);
	return 0;
}

/*
 * The user spin's back-off (futexlock.h: fl_uspin_backoff_spin(); glibc's
 * __spins): ten rounds of woken_round(), in each of which the contender's
 * spin fails for certain (main holds the lock until the contender waits
 * in the kernel), with the woken mark cleared by hand before each so that
 * only the back-off decides.  Where the preload spins with the back-off,
 * rounds 1-4, 6 and 9 spin and the others skip (nothing after three
 * failures, then one skip, two, four), which leaves the history at level
 * 6 with 3 skips to go; preload-tests.sh runs it with --in-process and
 * FUTEXLOCK_PRELOAD_STATS=1 (user-spins 6, user-spin-backoff 4).
 * Elsewhere nothing touches the history.
 */
static int t_backoff(void)
{
	const char *b = getenv("FUTEXLOCK_PRELOAD_USER_SPIN_BACKOFF");
	int backoff = preload_spins() && !(b && !strcmp(b, "0"));
	struct woken_ctx x = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
	_Atomic uint32_t *h = (_Atomic uint32_t *)(void *)&x.m.__data.__spins;
	unsigned waiting, after;

	EQ(atomic_load(h), 0);
	for (int r = 0; r < 10; r++) {
		atomic_store((_Atomic unsigned *)&x.m.__data.__nusers, 0);
		EQ(woken_round(&x, 0, &waiting, &after) >= 0, 1);
	}
	EQ(atomic_load(h), backoff ? 6u << 16 | 3 : 0);
	return 0;
}

/* ---- pass-through kinds --------------------------------------------------- */
static void *lock_and_exit(void *m)
{
	pthread_mutex_lock(m);
	return NULL;
}

static int t_robust(void)
{
	pthread_mutexattr_t a;
	pthread_mutex_t m;

	pthread_mutexattr_init(&a);
	EQ(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST), 0);
	EQ(pthread_mutex_init(&m, &a), 0);
	in_thread(lock_and_exit, &m);
	EQ(pthread_mutex_lock(&m), EOWNERDEAD);
	EQ(pthread_mutex_consistent(&m), 0);
	EQ(pthread_mutex_unlock(&m), 0);
	EQ(pthread_mutex_lock(&m), 0);
	EQ(pthread_mutex_unlock(&m), 0);
	return 0;
}

static int t_pp(void)
{
	pthread_mutexattr_t a;
	pthread_mutex_t m;
	int ceil;

	pthread_mutexattr_init(&a);
	EQ(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT), 0);
	EQ(pthread_mutexattr_setprioceiling(&a, sched_get_priority_min(SCHED_FIFO)), 0);
	EQ(pthread_mutex_init(&m, &a), 0);
	EQ(pthread_mutex_getprioceiling(&m, &ceil), 0);
	EQ(ceil, sched_get_priority_min(SCHED_FIFO));
	EQ(word(&m), (uint32_t)ceil << 19);	/* glibc keeps the ceiling there */
	/* glibc may refuse (EINVAL where the priority cannot be raised, as in
	 * some containers); either way the word stays glibc's */
	if (pthread_mutex_lock(&m) == 0) {
		EQ(word(&m) & 0xfff80000u, (uint32_t)ceil << 19);
		EQ(in_thread(do_trylock, &m), EBUSY);
		EQ(pthread_mutex_unlock(&m), 0);
	}
	EQ(word(&m), (uint32_t)ceil << 19);
	EQ(pthread_mutex_destroy(&m), 0);
	return 0;
}

/* process-shared mutex + condvar between two processes (glibc's) */
static int t_pshared(void)
{
	struct sh {
		pthread_mutex_t m;
		pthread_cond_t c;
		int turn, rounds;
	} *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	int st;

	CHECK(s != MAP_FAILED);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	EQ(pthread_mutex_init(&s->m, &ma), 0);
	EQ(pthread_cond_init(&s->c, &ca), 0);
	pthread_mutex_lock(&s->m);
	EQ(word(&s->m), 1);	/* glibc's, in every mode */
	pthread_mutex_unlock(&s->m);
	pid_t p = fork();

	if (p == 0) {
		for (int i = 0; i < 500; i++) {
			pthread_mutex_lock(&s->m);
			while (s->turn != 1)
				pthread_cond_wait(&s->c, &s->m);
			s->turn = 0;
			s->rounds++;
			pthread_cond_broadcast(&s->c);
			pthread_mutex_unlock(&s->m);
		}
		_exit(0);
	}
	for (int i = 0; i < 500; i++) {
		pthread_mutex_lock(&s->m);
		while (s->turn != 0)
			pthread_cond_wait(&s->c, &s->m);
		s->turn = 1;
		pthread_cond_broadcast(&s->c);
		pthread_mutex_unlock(&s->m);
	}
	CHECK(waitpid(p, &st, 0) == p);
	EQ(st, 0);
	EQ(s->rounds, 500);
	return 0;
}

/* ---- fork and pthread_atfork ---------------------------------------------- */
static pthread_mutex_t fork_m = PTHREAD_MUTEX_INITIALIZER;
static void fork_prepare(void) { pthread_mutex_lock(&fork_m); }
static void fork_parent(void) { pthread_mutex_unlock(&fork_m); }
static void fork_child(void) { pthread_mutex_unlock(&fork_m); }

struct fork_ctx {
	pthread_mutex_t *m;
	_Atomic pid_t tid;
};

static void *fork_contender(void *p)
{
	struct fork_ctx *x = p;

	atomic_store(&x->tid, tid());
	pthread_mutex_lock(x->m);	/* blocks: the child's main holds it */
	pthread_mutex_unlock(x->m);
	return NULL;
}

static int fork_child_body(void)
{
	pthread_mutex_t e = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	struct fork_ctx x = { &e, 0 };

	/* the atfork child handler released fork_m; it is usable */
	EQ(pthread_mutex_lock(&fork_m), 0);
	HELD(&fork_m);
	EQ(pthread_mutex_unlock(&fork_m), 0);
	/* contention in the child: every slow path sees the child's TIDs */
	EQ(pthread_mutex_lock(&e), 0);
	HELD(&e);
	pthread_t t = spawn(fork_contender, &x);
	pid_t ct;

	while (!(ct = atomic_load(&x.tid)))
		usleep(1000);
	/* it sleeps in the lock: the slow paths run with the child's TIDs */
	CHECK(fl_wait_asleep(&ct, 1, (uint64_t)g_guard * 1000000000ull) == 0);
	EQ(pthread_mutex_unlock(&e), 0);
	join(t);
	return exclusion(&e, 1);
}

/*
 * The preload's statistics at _exit() belong to the process that owns
 * them: a thread locks 3 times and stays blocked, main locks 10 times; a
 * fork child (atfork handlers ran: its counters start at 0, the blocked
 * thread's are not its own) locks 5 times and leaves with _exit(),
 * printing its own; a vfork child (main's memory, main's thread counters)
 * leaves with _exit() at once and must print nothing, nor spend main's
 * printout.  preload-tests.sh runs it with --in-process and
 * FUTEXLOCK_PRELOAD_STATS=1: two printouts, main's pid (on stdout) with
 * lock fast >= 13, the child's with lock fast 5.
 */
static sem_t g_live_locked, g_live_never;

/* lock and unlock a mutex |n| times; n < 0: then stay blocked (sem_wait) */
static void *lock_n(void *arg)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	int n = (int)(intptr_t)arg;

	for (int i = 0; i < (n < 0 ? -n : n); i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	if (n < 0) {	/* stay running */
		sem_post(&g_live_locked);
		while (sem_wait(&g_live_never))
			;
	}
	return NULL;
}

/* a detached thread that has locked n times and stays blocked */
static int start_blocked_locker(int n)
{
	pthread_t t;

	EQ(sem_init(&g_live_locked, 0, 0), 0);
	EQ(sem_init(&g_live_never, 0, 0), 0);
	EQ(pthread_create(&t, NULL, lock_n, (void *)(intptr_t)-n), 0);
	EQ(pthread_detach(t), 0);
	while (sem_wait(&g_live_locked))
		;
	return 0;
}

static int t_fork_exit(void)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	int st;
	pid_t p;

	EQ(start_blocked_locker(3), 0);
	for (int i = 0; i < 10; i++) {
		EQ(pthread_mutex_lock(&m), 0);
		EQ(pthread_mutex_unlock(&m), 0);
	}
	printf("# main pid %d\n", (int)getpid());
	fflush(stdout);
	p = fork();
	if (p == 0) {
		for (int i = 0; i < 5; i++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
		_exit(0);
	}
	EQ(p > 0, 1);
	EQ(waitpid(p, &st, 0), p);
	EQ(WIFEXITED(st) && WEXITSTATUS(st) == 0, 1);
	p = vfork();
	if (p == 0)
		_exit(0);
	EQ(p > 0, 1);
	EQ(waitpid(p, &st, 0), p);
	EQ(WIFEXITED(st) && WEXITSTATUS(st) == 0, 1);
	return 0;
}

/*
 * The preload's statistics count the threads still running at exit: one
 * thread locks 7 times and is joined, another locks 5 times and is still
 * blocked (in sem_wait, not a mutex) when main returns; main locks
 * nothing.  preload-tests.sh runs it with --in-process and
 * FUTEXLOCK_PRELOAD_STATS=1: lock fast 12 (7 without the running one).
 */
static int t_live_thread(void)
{
	pthread_t a;

	EQ(pthread_create(&a, NULL, lock_n, (void *)(intptr_t)7), 0);
	EQ(pthread_join(a, NULL), 0);
	EQ(start_blocked_locker(5), 0);
	return 0;
}

static int t_fork_atfork(void)
{
	int st;

	EQ(pthread_atfork(fork_prepare, fork_parent, fork_child), 0);
	/* the parent has another thread, as a real program would */
	EQ(in_thread(do_lock_unlock, &fork_m), 0);
	for (int i = 0; i < 3; i++) {
		pid_t p = fork();

		if (p == 0)
			_exit(fork_child_body());
		CHECK(p > 0);
		CHECK(waitpid(p, &st, 0) == p);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			FAIL("fork child failed: status 0x%x", st);
		EQ(pthread_mutex_trylock(&fork_m), 0);	/* parent handler released it */
		HELD(&fork_m);
		EQ(pthread_mutex_unlock(&fork_m), 0);
	}
	return 0;
}

/* ---- misuse ----------------------------------------------------------------- */
static int t_unlock_nonowner(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	EQ(pthread_mutex_lock(&m), 0);
	EQ(in_thread(do_unlock, &m), 0);	/* glibc allows it for NORMAL */
	EQ(word(&m), 0);
	EQ(in_thread(do_trylock, &m), 0);	/* released */
	EQ(in_thread(do_unlock, &m), 0);
	return 0;
}

static int t_destroy_locked(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	EQ(pthread_mutex_lock(&m), 0);
	EQ(pthread_mutex_destroy(&m), EBUSY);
	EQ(pthread_mutex_unlock(&m), 0);
	EQ(pthread_mutex_destroy(&m), 0);
	return 0;
}

static int t_owner_died(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	in_thread(lock_and_exit, &m);
	pthread_mutex_lock(&m);	/* glibc: hangs; the preload: aborts */
	FAIL("pthread_mutex_lock of a dead owner's mutex returned");
}

/* the owner dies while a waiter sleeps in the lock: nobody wakes the
 * waiter; the preload's periodic owner check must end it with a message */
struct asleep_ctx {
	pthread_mutex_t m;
	_Atomic pid_t waiter;
	_Atomic int go;
};

static void *asleep_owner(void *p)
{
	struct asleep_ctx *x = p;
	pid_t w;

	pthread_mutex_lock(&x->m);
	atomic_store(&x->go, 1);
	while (!(w = atomic_load(&x->waiter)))
		usleep(1000);
	/* exit holding it once the waiter sleeps in the lock */
	fl_wait_asleep(&w, 1, (uint64_t)g_guard * 1000000000ull);
	return NULL;
}

static int t_owner_died_asleep(void)
{
	struct asleep_ctx x = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
	pthread_t t = spawn(asleep_owner, &x);

	pthread_detach(t);
	while (!atomic_load(&x.go))
		usleep(1000);
	atomic_store(&x.waiter, tid());
	pthread_mutex_lock(&x.m);	/* glibc: hangs; the preload: aborts */
	FAIL("pthread_mutex_lock of a dead owner's mutex returned");
}

static int t_relock_normal(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	EQ(pthread_mutex_lock(&m), 0);
	EQ(pthread_mutex_lock(&m), EDEADLK);	/* glibc: hangs */
	EQ(pthread_mutex_unlock(&m), 0);
	return 0;
}

/* ---- C11 threads -------------------------------------------------------------- */
static mtx_t c11_m;
static cnd_t c11_c;
static int c11_flag;

static int c11_waiter(void *p)
{
	(void)p;
	mtx_lock(&c11_m);
	while (!c11_flag)
		cnd_wait(&c11_c, &c11_m);
	c11_flag = 2;
	cnd_signal(&c11_c);
	mtx_unlock(&c11_m);
	return 7;
}

static int c11_trylock(void *p)
{
	return mtx_trylock(p);
}

static int t_c11(void)
{
	mtx_t r;
	thrd_t t;
	int res;
	struct timespec dl;

	EQ(mtx_init(&c11_m, mtx_timed), thrd_success);
	EQ(cnd_init(&c11_c), thrd_success);
	EQ(mtx_lock(&c11_m), thrd_success);
	HELD((pthread_mutex_t *)&c11_m);
	EQ(thrd_create(&t, c11_trylock, &c11_m), thrd_success);
	EQ(thrd_join(t, &res), thrd_success);
	EQ(res, thrd_busy);
	dl = ts_in(CLOCK_REALTIME, 30);
	EQ(cnd_timedwait(&c11_c, &c11_m, &dl), thrd_timedout);
	HELD((pthread_mutex_t *)&c11_m);
	EQ(mtx_unlock(&c11_m), thrd_success);
	EQ(thrd_create(&t, c11_waiter, NULL), thrd_success);
	mtx_lock(&c11_m);
	c11_flag = 1;
	EQ(cnd_broadcast(&c11_c), thrd_success);
	while (c11_flag != 2)
		cnd_wait(&c11_c, &c11_m);
	mtx_unlock(&c11_m);
	EQ(thrd_join(t, &res), thrd_success);
	EQ(res, 7);
	/* recursive */
	EQ(mtx_init(&r, mtx_plain | mtx_recursive), thrd_success);
	EQ(mtx_lock(&r), thrd_success);
	EQ(mtx_lock(&r), thrd_success);
	HELD((pthread_mutex_t *)&r);
	EQ(mtx_unlock(&r), thrd_success);
	EQ(thrd_create(&t, c11_trylock, &r), thrd_success);
	EQ(thrd_join(t, &res), thrd_success);
	EQ(res, thrd_busy);
	EQ(mtx_unlock(&r), thrd_success);
	/* timed */
	EQ(mtx_lock(&c11_m), thrd_success);
	EQ(thrd_create(&t, c11_trylock, &c11_m), thrd_success);
	EQ(thrd_join(t, &res), thrd_success);
	EQ(res, thrd_busy);
	EQ(mtx_unlock(&c11_m), thrd_success);
	dl = ts_in(CLOCK_REALTIME, 30);
	EQ(mtx_timedlock(&c11_m, &dl), thrd_success);
	HELD((pthread_mutex_t *)&c11_m);
	EQ(mtx_unlock(&c11_m), thrd_success);
	mtx_destroy(&r);
	mtx_destroy(&c11_m);
	cnd_destroy(&c11_c);
	return 0;
}

/* ---- the old __pthread_mutex_* symbols an old binary references ------------ */
int old_lock(pthread_mutex_t *);
int old_unlock(pthread_mutex_t *);
int old_trylock(pthread_mutex_t *);
__asm__(".symver old_lock, __pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver old_unlock, __pthread_mutex_unlock@GLIBC_2.2.5");
__asm__(".symver old_trylock, __pthread_mutex_trylock@GLIBC_2.2.5");

static int t_old_symbols(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	EQ(old_lock(&m), 0);
	HELD(&m);
	EQ(pthread_mutex_unlock(&m), 0);
	EQ(pthread_mutex_lock(&m), 0);
	EQ(old_unlock(&m), 0);
	EQ(word(&m), 0);
	EQ(old_trylock(&m), 0);
	HELD(&m);
	EQ(old_unlock(&m), 0);
	return 0;
}

/* ---- the table ------------------------------------------------------------------ */
enum { ANY, CONV };	/* run in every mode / only when mutexes are converted */
static const struct test {
	const char *name;
	int (*fn)(void);
	int when;
	/* substring the preload must print on stderr when it converts
	 * mutexes (else nothing from the preload may appear there) */
	const char *expect;
	const char *desc;
} tests[] = {
	{ "static-normal", t_static_normal, ANY, NULL, "PTHREAD_MUTEX_INITIALIZER: exclusion, lock/trylock" },
	{ "static-recursive", t_static_recursive, ANY, NULL, "PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP: exclusion" },
	{ "static-errorcheck", t_static_errorcheck, ANY, NULL, "PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP: exclusion" },
	{ "static-adaptive", t_static_adaptive, ANY, NULL, "PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP: exclusion" },
	{ "init-kinds", t_init_kinds, ANY, NULL, "pthread_mutex_init of every convertible kind: exclusion, destroy" },
	{ "recursive", t_recursive, ANY, NULL, "recursive mutex: counts, EBUSY, EPERM per POSIX" },
	{ "errorcheck", t_errorcheck, ANY, NULL, "errorcheck mutex: EDEADLK, trylock EBUSY, EPERM per POSIX" },
	{ "timedlock", t_timedlock, ANY, NULL, "timedlock/clocklock: both clocks, EINVAL, negative = expired, success" },
	{ "cond-queue", t_cond_queue, ANY, NULL, "condvar queue, static initialisers, wait + timedwait" },
	{ "cond-queue-errorcheck", t_cond_queue_errorcheck, ANY, NULL, "condvar queue with an errorcheck mutex (re-acquired after wait)" },
	{ "cond-queue-recursive", t_cond_queue_recursive, ANY, NULL, "condvar queue with a recursive mutex" },
	{ "cond-queue-pi", t_cond_queue_pi, ANY, NULL, "condvar queue with a pass-through PI mutex" },
	{ "cond-timedwait-realtime", t_cond_timedwait_realtime, ANY, NULL, "cond timedwait, default clock: ETIMEDOUT after the deadline" },
	{ "cond-timedwait-monotonic", t_cond_timedwait_monotonic, ANY, NULL, "cond timedwait, CLOCK_MONOTONIC condattr: ETIMEDOUT after the deadline" },
	{ "cond-clockwait", t_cond_clockwait, ANY, NULL, "cond clockwait both clocks; bad clock, bad timespec EINVAL" },
	{ "cond-broadcast", t_cond_broadcast, ANY, NULL, "broadcast wakes 4 sleeping waiters" },
	{ "cond-broadcast-storm", t_cond_broadcast_storm, ANY, NULL, "2000-round condvar barrier, 4 threads" },
	{ "cond-cancel", t_cond_cancel, ANY, NULL, "cancel a thread blocked in cond wait: cleanup runs with the mutex held" },
	{ "robust", t_robust, ANY, NULL, "robust mutex passes through: EOWNERDEAD, consistent" },
	{ "pp", t_pp, ANY, NULL, "priority-protect mutex passes through" },
	{ "pshared", t_pshared, ANY, NULL, "process-shared mutex + condvar across fork() pass through" },
	{ "fork-atfork", t_fork_atfork, ANY, NULL, "fork with pthread_atfork handlers; contention in the child" },
	{ "live-thread", t_live_thread, ANY, NULL, "a thread still running at exit (the preload's statistics count it: preload-tests.sh)" },
	{ "fork-exit", t_fork_exit, ANY, NULL, "a fork child and a vfork child leave with _exit() (the preload's statistics: preload-tests.sh)" },
	{ "unlock-nonowner", t_unlock_nonowner, ANY, "unlocked by a thread that does not own it", "normal mutex unlocked by another thread: released (+ message)" },
	{ "destroy-locked", t_destroy_locked, ANY, "pthread_mutex_destroy of mutex", "destroy of a locked mutex: EBUSY (+ message)" },
	{ "owner-died", t_owner_died, CONV, "has exited without unlocking it", "non-robust owner died: message and abort, not a hang" },
	{ "owner-died-asleep", t_owner_died_asleep, CONV, "has exited without unlocking it", "non-robust owner died while a waiter slept: message and abort within the owner check period" },
	{ "woken-mark", t_woken_mark, CONV, NULL, "an unlock through the kernel marks the mutex; a spinning mode's acquisition through the lock op clears it" },
	{ "backoff", t_backoff, CONV, NULL, "a spinning mode's failed user spins, after three, make the next contended locks skip it: 1, 2, 4 (history in __spins)" },
	{ "relock-normal", t_relock_normal, CONV, "locked again by its owner", "normal mutex relocked by its owner: EDEADLK and a message, not a hang" },
	{ "c11", t_c11, ANY, NULL, "C11 mtx_* and cnd_*" },
	{ "old-symbols", t_old_symbols, ANY, NULL, "__pthread_mutex_lock/unlock/trylock@GLIBC_2.2.5" },
};
#define NTESTS (sizeof(tests) / sizeof(tests[0]))

static int run_one(const struct test *t, int n)
{
	char path[] = "/tmp/test_preload.XXXXXX", buf[8192] = "";
	int fd = mkstemp(path), st, ok;
	pid_t p;
	ssize_t len;

	if (fd < 0) {
		perror("mkstemp");
		exit(3);
	}
	unlink(path);
	fflush(stdout);
	p = fork();
	if (p == 0) {
		dup2(fd, 2);
		alarm(g_guard);
		_exit(t->fn() ? 1 : 0);
	}
	waitpid(p, &st, 0);
	len = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	buf[len > 0 ? len : 0] = '\0';
	if (t->expect && !strncmp(t->name, "owner-died", 10))
		ok = WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT && strstr(buf, t->expect);
	else if (t->expect && g_conv)
		ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(buf, t->expect);
	else
		ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && !strstr(buf, "futexlock-preload:");
	printf("%sok %d - %s: %s", ok ? "" : "not ", n, t->name, t->desc);
	if (!ok) {
		if (WIFSIGNALED(st))
			printf(" (killed by signal %d%s)", WTERMSIG(st),
			       WTERMSIG(st) == SIGALRM ? ": hang guard" : "");
		else
			printf(" (exit %d)", WEXITSTATUS(st));
	}
	printf("\n");
	if (!ok || getenv("FL_PRELOAD_VERBOSE")) {
		char *l = buf, *e;

		while (*l && (e = strchr(l, '\n'))) {
			*e = '\0';
			printf("#   stderr: %s\n", l);
			l = e + 1;
		}
	}
	return ok;
}

int main(int argc, char **argv)
{
	const char *(*modefn)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT,
								     "futexlock_preload_mode");
	const char *expect = NULL, *g = getenv("FL_PRELOAD_GUARD");
	int n = 0, fails = 0, i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (g && atoi(g) > 0)
		g_guard = (unsigned)atoi(g);
	if (modefn)
		g_mode = modefn();
	g_conv = !strcmp(g_mode, "lock") || !strcmp(g_mode, "adaptive") ||
		 !strcmp(g_mode, "emulate");
	if (argc > 2 && !strcmp(argv[1], "--expect-mode")) {
		expect = argv[2];
		i = 3;
	}
	/* one test in this process, no fork: it exits through exit(), so
	 * that the preload prints its stats (FUTEXLOCK_PRELOAD_STATS=1);
	 * --in-process-_exit: through _exit(), as stress-ng's stressors do
	 * (the preload must print them there too) */
	if (argc == 3 && (!strcmp(argv[1], "--in-process") ||
			  !strcmp(argv[1], "--in-process-_exit"))) {
		for (size_t k = 0; k < NTESTS; k++)
			if (!strcmp(argv[2], tests[k].name)) {
				int rc;

				alarm(g_guard);
				rc = tests[k].fn() ? 1 : 0;
				if (strcmp(argv[1], "--in-process"))	/* -_exit */
					_exit(rc);
				return rc;
			}
		fprintf(stderr, "test_preload: no test %s\n", argv[2]);
		return 2;
	}
	printf("TAP version 13\n# preload mode: %s (mutexes %s), hang guard %u s\n",
	       g_mode, g_conv ? "converted" : "glibc's", g_guard);
	if (expect) {
		n++;
		if (!strcmp(expect, g_mode)) {
			printf("ok %d - preload mode is %s\n", n, expect);
		} else {
			printf("not ok %d - preload mode is %s (it is %s)\n", n, expect, g_mode);
			fails++;
		}
	}
	for (size_t k = 0; k < NTESTS; k++) {
		const struct test *t = &tests[k];

		if (i < argc) {
			int want = 0;

			for (int j = i; j < argc; j++)
				want |= !strcmp(argv[j], t->name);
			if (!want)
				continue;
		}
		n++;
		if (t->when == CONV && !g_conv) {
			printf("ok %d - %s: %s # SKIP mutexes are glibc's (mode %s)\n",
			       n, t->name, t->desc, g_mode);
			continue;
		}
		if (!run_one(t, n))
			fails++;
	}
	printf("1..%d\n", n);
	return fails ? 1 : 0;
}
