// SPDX-License-Identifier: GPL-2.0
/*
 * The lock implementations. Every benchmark of the project uses these, so
 * this file is the one place that says how each lock works.
 *
 * Memory order: acquire on every successful lock, release on unlock.
 * Counters: see struct fl_counters in futexlock.h.
 */
#include "futexlock.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static void fl_die(const char *what, int err)
{
	fprintf(stderr, "futexlock: %s failed: %s\n", what, strerror(err));
	abort();
}

#define FL_PRIV(op) ((op) | FUTEX_PRIVATE_FLAG)
/* private unless the lock was set up shared (futex_lock -S) */
#define FL_FOP(l, op) ((op) | (l)->futex_private)

static inline bool cas_acq(_Atomic uint32_t *w, uint32_t *expected, uint32_t v)
{
	return atomic_compare_exchange_strong_explicit(w, expected, v,
			memory_order_acquire, memory_order_relaxed);
}

static int word_init(struct fl_lock *l)
{
	atomic_store_explicit(&l->word, 0, memory_order_relaxed);
	atomic_store_explicit(&l->woken, 0, memory_order_relaxed);
	atomic_store_explicit(&l->uspin_hist, 0, memory_order_relaxed);
	return 0;
}

static void word_destroy(struct fl_lock *l)
{
	(void)l;
}

/*
 * TID-owner locks (FUTEX_LOCK, FUTEX_LOCK_ADAPTIVE, FUTEX_LOCK_PI): the
 * fast paths are fl_tid_lock() / fl_tid_unlock() in futexlock.h (inline,
 * so that the perf-loop engine runs them without a call); the slow paths
 * are here. Lock: one futex(2) that returns owning the lock. Unlock:
 * FUTEX_WAITERS is set, the kernel hands the lock over.
 */
static const char *tid_op_name(int op)
{
	switch (op) {
	case FUTEX_LOCK:		return "FUTEX_LOCK";
	case FUTEX_LOCK_ADAPTIVE:	return "FUTEX_LOCK_ADAPTIVE";
	case FUTEX_LOCK_PI:		return "FUTEX_LOCK_PI";
	case FUTEX_UNLOCK:		return "FUTEX_UNLOCK";
	case FUTEX_UNLOCK_PI:		return "FUTEX_UNLOCK_PI";
	default:			return "futex";
	}
}

/*
 * A slow path entered with tid 0 (the fast path did not know the TID, so
 * its cmpxchg expected ~0 and failed): find the TID and make the fast
 * path's cmpxchg.  true: that took the lock.
 */
static bool tid_resolve_and_try(struct fl_lock *l, uint32_t *tid)
{
	uint32_t w = 0;

	if (*tid)
		return false;
	*tid = (uint32_t)fl_gettid();
	return cas_acq(&l->word, &w, *tid);
}

void fl_tid_lock_slow(struct fl_lock *l, struct fl_counters *c, uint32_t tid,
		      int op)
{
	uint32_t w;

	if (tid_resolve_and_try(l, &tid))
		return;
	for (;;) {
		c->lock_syscalls++;
		if (fl_futex(&l->word, FL_FOP(l, op), 0, NULL, NULL, 0) == 0)
			break;
		if (errno == EINTR || errno == EAGAIN)
			continue;	/* retry, as the ABI asks */
		if (errno == EOWNERDEAD)
			break;		/* acquired; previous owner died */
		fl_die(tid_op_name(op), errno);
	}
	atomic_thread_fence(memory_order_acquire);
	/* the kernel said we own it: the word must name us (cheap, slow path only) */
	w = atomic_load_explicit(&l->word, memory_order_relaxed);
	if ((w & FUTEX_TID_MASK) != tid) {
		fprintf(stderr, "futexlock: %s returned 0 but the futex word is 0x%08x, not tid %u\n",
			tid_op_name(op), w, tid);
		abort();
	}
}

/* the lock's slow path spins in user space now (default or knob) */
static bool tid_spins(const struct fl_lock *l)
{
	return l->ops->user_spin != FL_USPIN_NEVER &&
	       fl_user_spin_limit(l->ops->user_spin == FL_USPIN_ON);
}

void fl_tid_unlock_slow(struct fl_lock *l, struct fl_counters *c, uint32_t tid,
			int op)
{
	if (!tid) {	/* the fast path did not know the TID: its cmpxchg */
		uint32_t exp = (uint32_t)fl_gettid();

		if (atomic_compare_exchange_strong_explicit(&l->word, &exp, 0,
				memory_order_release, memory_order_relaxed))
			return;
	}
	c->unlock_syscalls++;
	if (op == FUTEX_UNLOCK && tid_spins(l))	/* the woken mark */
		fl_woken_mark(&l->woken);
	while (fl_futex(&l->word, FL_FOP(l, op), 0, NULL, NULL, 0) != 0) {
		if (errno != EINTR)
			fl_die(tid_op_name(op), errno);
		c->unlock_syscalls++;
	}
}

/*
 * futex_lock and adaptive: the fast path (fl_tid_trylock()), then, if
 * the user-space spin is on for this lock (adaptive by default, futex_lock
 * with the knob user_spin=1; lib/userspin.c), fl_user_spin() for at most
 * one kernel round trip unless the lock carries the woken mark
 * (fl_woken_mark(): a waiter woken by FUTEX_UNLOCK may be on its way) or,
 * with the knob user_spin_backoff=1, the lock's recent spins kept failing
 * (the preload's back-off, futexlock.h), then the lock op, after which
 * the mark is cleared.  The perf-loop engine runs the
 * fast path and the op only (perf's loop).
 */
static int tid_spin_init(struct fl_lock *l)
{
	fl_user_spin_calibrate();	/* now, not inside a timed run */
	return word_init(l);
}

static void tid_lock_spin_slow(struct fl_lock *l, struct fl_counters *c,
			       uint32_t tid, int op, bool dflt)
{
	uint32_t limit = fl_user_spin_limit(dflt), budget = limit;
	bool backoff;
	int r;

	if (!limit) {
		fl_tid_lock_slow(l, c, tid, op);
		return;
	}
	backoff = fl_user_spin_backoff();
	if (tid_resolve_and_try(l, &tid))
		return;
	if (fl_woken_marked(&l->woken) && fl_user_spin_woken()) {
		c->user_spin_skipped++;	/* a woken waiter may be on its way */
	} else if (backoff && !fl_uspin_backoff_spin(&l->uspin_hist)) {
		c->user_spin_backed_off++;	/* its recent spins failed */
	} else {
		r = fl_user_spin(&l->word, tid, &budget);
		c->user_spins++;
		c->user_spin_iters += limit - budget;
		if (backoff)
			fl_uspin_backoff_done(&l->uspin_hist, r);
		if (r == FL_USPIN_TAKEN) {
			c->user_spin_acquired++;
			return;
		}
		c->user_spin_to_kernel += r == FL_USPIN_KERNEL;
	}
	fl_tid_lock_slow(l, c, tid, op);
	fl_woken_clear(&l->woken);
}

static void futex_lock_lock(struct fl_lock *l, struct fl_counters *c)
{
	uint32_t tid = fl_tid_peek();

	c->lock_calls++;
	if (fl_tid_trylock(l, tid))
		return;
	/* the baseline's slow path is 77bbaba's unless user_spin=1 */
	if (atomic_load_explicit(&fl_user_spin_knob, memory_order_relaxed) > 0)
		tid_lock_spin_slow(l, c, tid, FUTEX_LOCK, false);
	else
		fl_tid_lock_slow(l, c, tid, FUTEX_LOCK);
}

static void futex_lock_unlock(struct fl_lock *l, struct fl_counters *c)
{
	c->unlock_calls++;
	fl_tid_unlock(l, c, fl_tid_peek(), FUTEX_UNLOCK);
}

static void adaptive_lock(struct fl_lock *l, struct fl_counters *c)
{
	uint32_t tid = fl_tid_peek();

	c->lock_calls++;
	if (!fl_tid_trylock(l, tid))
		tid_lock_spin_slow(l, c, tid, FUTEX_LOCK_ADAPTIVE, true);
}

/*
 * futex_lock, adaptive and pi: the fast path's cmpxchg 0 -> tid alone.
 * While the engine samples latency (the default, and every matrix run)
 * it tries every acquire first (bench.c, ITER_TRY()), so with
 * nothing contending this, not fl_tid_lock(), is the lock half of the
 * fast path.  It has fl_tid_lock()'s shape: the cached TID without a
 * test, one conditional branch on success; a thread whose TID is not
 * cached yet fails the cmpxchg (fl_tid_trylock() expects ~0 then) and
 * only then is the TID asked for (tid_trylock_uncached()).  Before
 * 2026-11-30 it called fl_gettid() first: a test of the TID, a second
 * branch and a stack frame on every try of the TID locks alone, which
 * the wait/wake locks' try does not pay.  (The preload has its own fast
 * path and does not use this.)
 */
static __attribute__((noinline)) bool
tid_trylock_uncached(struct fl_lock *l, struct fl_counters *c)
{
	if (!fl_tid_trylock(l, (uint32_t)fl_gettid()))
		return false;
	c->lock_calls++;
	return true;
}

static bool tid_trylock(struct fl_lock *l, struct fl_counters *c)
{
	uint32_t tid = fl_tid_peek();

	if (fl_tid_trylock(l, tid)) {
		c->lock_calls++;
		return true;
	}
	return tid ? false : tid_trylock_uncached(l, c);
}

static void pi_lock(struct fl_lock *l, struct fl_counters *c)
{
	c->lock_calls++;
	fl_tid_lock(l, c, fl_tid_peek(), FUTEX_LOCK_PI);
}

static void pi_unlock(struct fl_lock *l, struct fl_counters *c)
{
	c->unlock_calls++;
	fl_tid_unlock(l, c, fl_tid_peek(), FUTEX_UNLOCK_PI);
}

/*
 * waitwake: the three-state mutex of Drepper, "Futexes Are Tricky"
 * (mutex3): 0 unlocked, 1 locked, 2 locked with (possible) waiters.
 */
static inline void ww_wait(struct fl_lock *l, struct fl_counters *c)
{
	c->lock_syscalls++;
	if (fl_futex(&l->word, FL_FOP(l, FUTEX_WAIT), 2, NULL, NULL, 0) != 0 &&
	    errno != EAGAIN && errno != EINTR)
		fl_die("FUTEX_WAIT", errno);
}

static void waitwake_lock(struct fl_lock *l, struct fl_counters *c)
{
	uint32_t s = 0;

	c->lock_calls++;
	if (cas_acq(&l->word, &s, 1))
		return;
	if (s != 2)
		s = atomic_exchange_explicit(&l->word, 2, memory_order_acquire);
	while (s != 0) {
		ww_wait(l, c);
		s = atomic_exchange_explicit(&l->word, 2, memory_order_acquire);
	}
}

/* waitwake and waitwake-spin: 0 -> 1 */
static bool ww_trylock(struct fl_lock *l, struct fl_counters *c)
{
	uint32_t s = 0;

	if (!cas_acq(&l->word, &s, 1))
		return false;
	c->lock_calls++;
	return true;
}

static void waitwake_unlock(struct fl_lock *l, struct fl_counters *c)
{
	c->unlock_calls++;
	if (atomic_fetch_sub_explicit(&l->word, 1, memory_order_release) != 1) {
		atomic_store_explicit(&l->word, 0, memory_order_release);
		c->unlock_syscalls++;
		if (fl_futex(&l->word, FL_FOP(l, FUTEX_WAKE), 1, NULL, NULL, 0) < 0)
			fl_die("FUTEX_WAKE", errno);
	}
}

/*
 * waitwake-spin: the same three states with the contended path of Rust
 * std's futex mutex: spin up to FL_SPIN_LIMIT times while the word is
 * plain "locked", then mark it contended and wait. Unlock is a swap to 0
 * and a wake if it was contended.
 */
static inline uint32_t wws_spin(struct fl_lock *l)
{
	for (int spin = FL_SPIN_LIMIT;; spin--) {
		uint32_t s = atomic_load_explicit(&l->word, memory_order_relaxed);

		if (s != 1 || spin == 0)
			return s;
		fl_cpu_relax();
	}
}

static void wws_lock(struct fl_lock *l, struct fl_counters *c)
{
	uint32_t s = 0;

	c->lock_calls++;
	if (cas_acq(&l->word, &s, 1))
		return;
	s = wws_spin(l);
	if (s == 0) {
		if (cas_acq(&l->word, &s, 1))
			return;
	}
	for (;;) {
		if (s != 2 &&
		    atomic_exchange_explicit(&l->word, 2, memory_order_acquire) == 0)
			return;
		ww_wait(l, c);
		s = wws_spin(l);
	}
}

static void wws_unlock(struct fl_lock *l, struct fl_counters *c)
{
	c->unlock_calls++;
	if (atomic_exchange_explicit(&l->word, 0, memory_order_release) == 2) {
		c->unlock_syscalls++;
		if (fl_futex(&l->word, FL_FOP(l, FUTEX_WAKE), 1, NULL, NULL, 0) < 0)
			fl_die("FUTEX_WAKE", errno);
	}
}

/* pthread mutexes: glibc decides; its syscalls are not visible to us. */
static int pthread_init_type(struct fl_lock *l, int type)
{
	pthread_mutexattr_t a;
	int r;

	r = pthread_mutexattr_init(&a);
	if (r)
		return r;
	r = pthread_mutexattr_settype(&a, type);
	if (!r && !l->futex_private)
		r = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (!r)
		r = pthread_mutex_init(&l->mutex, &a);
	pthread_mutexattr_destroy(&a);
	return r;
}

static int pthread_default_init(struct fl_lock *l)
{
	return pthread_init_type(l, PTHREAD_MUTEX_DEFAULT);
}

static int pthread_adaptive_init(struct fl_lock *l)
{
	return pthread_init_type(l, PTHREAD_MUTEX_ADAPTIVE_NP);
}

static void pthread_destroy(struct fl_lock *l)
{
	pthread_mutex_destroy(&l->mutex);
}

static void pthread_lock(struct fl_lock *l, struct fl_counters *c)
{
	int r;

	c->lock_calls++;
	r = pthread_mutex_lock(&l->mutex);
	if (r)
		fl_die("pthread_mutex_lock", r);
}

static bool pthread_trylock(struct fl_lock *l, struct fl_counters *c)
{
	int r = pthread_mutex_trylock(&l->mutex);

	if (r == EBUSY)
		return false;
	if (r)
		fl_die("pthread_mutex_trylock", r);
	c->lock_calls++;
	return true;
}

static void pthread_unlock(struct fl_lock *l, struct fl_counters *c)
{
	int r;

	c->unlock_calls++;
	r = pthread_mutex_unlock(&l->mutex);
	if (r)
		fl_die("pthread_mutex_unlock", r);
}

/*
 * spin: test-and-test-and-set with pause; after FL_SPIN_LIMIT pauses on a
 * held lock it calls sched_yield() (counted as a lock syscall).
 */
static void spin_lock(struct fl_lock *l, struct fl_counters *c)
{
	c->lock_calls++;
	for (;;) {
		int spins = 0;

		if (atomic_load_explicit(&l->word, memory_order_relaxed) == 0 &&
		    atomic_exchange_explicit(&l->word, 1, memory_order_acquire) == 0)
			return;
		while (atomic_load_explicit(&l->word, memory_order_relaxed) != 0) {
			fl_cpu_relax();
			if (++spins >= FL_SPIN_LIMIT) {
				c->lock_syscalls++;
				sched_yield();
				spins = 0;
			}
		}
	}
}

static bool spin_trylock(struct fl_lock *l, struct fl_counters *c)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != 0 ||
	    atomic_exchange_explicit(&l->word, 1, memory_order_acquire) != 0)
		return false;
	c->lock_calls++;
	return true;
}

static void spin_unlock(struct fl_lock *l, struct fl_counters *c)
{
	c->unlock_calls++;
	atomic_store_explicit(&l->word, 0, memory_order_release);
}

static const struct fl_lock_ops ops_futex_lock = {
	.name = "futex_lock",
	.desc = "FUTEX_LOCK: cmpxchg 0->tid fast path, kernel slow path (RFC)",
	.needs_futex_lock = true, .counts_syscalls = true,
	.user_spin = FL_USPIN_OFF, .init = tid_spin_init, .destroy = word_destroy,
	.lock = futex_lock_lock, .trylock = tid_trylock,
	.unlock = futex_lock_unlock,
	.tid_lock_op = FUTEX_LOCK, .tid_unlock_op = FUTEX_UNLOCK,
};

static const struct fl_lock_ops ops_adaptive = {
	.name = "adaptive",
	.desc = "FUTEX_LOCK_ADAPTIVE: user spin up to a syscall's cost, then kernel spins on a running owner",
	.needs_futex_lock = true, .counts_syscalls = true,
	.user_spin = FL_USPIN_ON, .init = tid_spin_init, .destroy = word_destroy,
	.lock = adaptive_lock, .trylock = tid_trylock,
	.unlock = futex_lock_unlock,
	.tid_lock_op = FUTEX_LOCK_ADAPTIVE, .tid_unlock_op = FUTEX_UNLOCK,
};

static const struct fl_lock_ops ops_pi = {
	.name = "pi",
	.desc = "FUTEX_LOCK_PI/FUTEX_UNLOCK_PI with the same userspace fast path",
	.counts_syscalls = true,
	.init = word_init, .destroy = word_destroy,
	.lock = pi_lock, .trylock = tid_trylock, .unlock = pi_unlock,
	.tid_lock_op = FUTEX_LOCK_PI, .tid_unlock_op = FUTEX_UNLOCK_PI,
};

static const struct fl_lock_ops ops_waitwake = {
	.name = "waitwake",
	.desc = "3-state 0/1/2 mutex, FUTEX_WAIT/WAKE (Drepper, Futexes Are Tricky)",
	.counts_syscalls = true,
	.init = word_init, .destroy = word_destroy,
	.lock = waitwake_lock, .trylock = ww_trylock,
	.unlock = waitwake_unlock,
};

static const struct fl_lock_ops ops_waitwake_spin = {
	.name = "waitwake-spin",
	.desc = "waitwake with ~100 userspace spins before waiting (Rust std)",
	.counts_syscalls = true,
	.init = word_init, .destroy = word_destroy,
	.lock = wws_lock, .trylock = ww_trylock, .unlock = wws_unlock,
};

static const struct fl_lock_ops ops_pthread = {
	.name = "pthread",
	.desc = "glibc pthread_mutex_t, default type (syscalls not countable)",
	.init = pthread_default_init, .destroy = pthread_destroy,
	.lock = pthread_lock, .trylock = pthread_trylock,
	.unlock = pthread_unlock,
};

static const struct fl_lock_ops ops_pthread_adaptive = {
	.name = "pthread-adaptive",
	.desc = "glibc PTHREAD_MUTEX_ADAPTIVE_NP (syscalls not countable)",
	.init = pthread_adaptive_init, .destroy = pthread_destroy,
	.lock = pthread_lock, .trylock = pthread_trylock,
	.unlock = pthread_unlock,
};

static const struct fl_lock_ops ops_spin = {
	.name = "spin",
	.desc = "TTAS spin lock, pause, sched_yield() after 100 spins (counted)",
	.counts_syscalls = true,
	.init = word_init, .destroy = word_destroy,
	.lock = spin_lock, .trylock = spin_trylock, .unlock = spin_unlock,
};

/*
 * TEST ONLY (see futexlock.h): counts calls, excludes nobody.  Exists so
 * that the tests can show their exclusion checks catch a lock that does
 * not lock; never listed in fl_lock_modes[].
 */
static void broken_lock(struct fl_lock *l, struct fl_counters *c)
{
	(void)l;
	c->lock_calls++;
}

static bool broken_trylock(struct fl_lock *l, struct fl_counters *c)
{
	broken_lock(l, c);
	return true;
}

static void broken_unlock(struct fl_lock *l, struct fl_counters *c)
{
	(void)l;
	c->unlock_calls++;
}

const struct fl_lock_ops fl_lock_test_broken = {
	.name = "test-broken",
	.desc = "TEST ONLY: no mutual exclusion at all",
	.init = word_init, .destroy = word_destroy,
	.lock = broken_lock, .trylock = broken_trylock,
	.unlock = broken_unlock,
};

const struct fl_lock_ops *const fl_lock_modes[] = {
	&ops_futex_lock, &ops_adaptive, &ops_pi, &ops_waitwake,
	&ops_waitwake_spin, &ops_pthread, &ops_pthread_adaptive, &ops_spin,
};
const size_t fl_lock_nmodes = sizeof(fl_lock_modes) / sizeof(fl_lock_modes[0]);

const struct fl_lock_ops *fl_lock_find(const char *name)
{
	for (size_t i = 0; i < fl_lock_nmodes; i++)
		if (!strcmp(fl_lock_modes[i]->name, name))
			return fl_lock_modes[i];
	return NULL;
}

bool fl_lock_available(const struct fl_lock_ops *ops)
{
	return !ops->needs_futex_lock || fl_futex_lock_probe(NULL);
}

int fl_lock_init_shared(struct fl_lock *l, const struct fl_lock_ops *ops,
			bool shared)
{
	memset(l, 0, sizeof(*l));
	l->ops = ops;
	l->futex_private = shared ? 0 : FUTEX_PRIVATE_FLAG;
	return ops->init(l);
}

int fl_lock_init(struct fl_lock *l, const struct fl_lock_ops *ops)
{
	return fl_lock_init_shared(l, ops, false);
}

void fl_lock_destroy(struct fl_lock *l)
{
	l->ops->destroy(l);
}
