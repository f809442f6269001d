// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests for FUTEX_LOCK (14), FUTEX_LOCK_ADAPTIVE (15) and
 * FUTEX_UNLOCK (16).  One behaviour per test; see
 * Documentation/locking/futex-lock.rst in the kernel series (patches/ in
 * the futex-lock repository) for the ABI being tested.
 *
 * Every test SKIPs when the running kernel lacks the ops (the probe,
 * FUTEX_UNLOCK on a private word holding 0, returns ENOSYS there).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#ifndef FUTEX_LOCK
#define FUTEX_LOCK		14
#endif
#ifndef FUTEX_LOCK_ADAPTIVE
#define FUTEX_LOCK_ADAPTIVE	15
#endif
#ifndef FUTEX_UNLOCK
#define FUTEX_UNLOCK		16
#endif

#define STATS_DIR	"/sys/kernel/debug/futex_lock/"
#define PRIV		FUTEX_PRIVATE_FLAG

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

static long futex_sys(uint32_t *uaddr, int op, uint32_t val,
		      const struct timespec *ts, uint32_t *uaddr2, uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3);
}

/* Returns 0 or -errno, like the kernel. op: FUTEX_LOCK[_ADAPTIVE] | flags */
static int flock(uint32_t *w, int op, const struct timespec *abs)
{
	uint32_t zero = 0;

	if (atomic_compare_exchange_strong((_Atomic uint32_t *)w, &zero,
					   (uint32_t)gettid_()))
		return 0;
	if (futex_sys(w, op, 0, abs, NULL, 0))
		return -errno;
	return 0;
}

/* flags: 0 or FUTEX_PRIVATE_FLAG */
static int funlock(uint32_t *w, int flags)
{
	uint32_t tid = gettid_();

	if (atomic_compare_exchange_strong((_Atomic uint32_t *)w, &tid, 0))
		return 0;
	if (futex_sys(w, FUTEX_UNLOCK | flags, 0, NULL, NULL, 0))
		return -errno;
	return 0;
}

static int have_ops = -1;

static int probe_ops(void)
{
	uint32_t w = 0;

	if (have_ops < 0) {
		long r = futex_sys(&w, FUTEX_UNLOCK | PRIV, 0, NULL, NULL, 0);

		have_ops = !(r == -1 && errno == ENOSYS);
	}
	return have_ops;
}

#define REQUIRE_OPS() do {						\
	if (!probe_ops())						\
		SKIP(return, "kernel lacks FUTEX_LOCK/FUTEX_UNLOCK (probe: ENOSYS)"); \
} while (0)

/* Read one counter from the debugfs stats file; -1 if unavailable. */
static long long stat_get(const char *name)
{
	char line[128];
	long long v = -1;
	size_t n = strlen(name);
	FILE *f = fopen(STATS_DIR "stats", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, n) && line[n] == ':') {
			v = atoll(line + n + 1);
			break;
		}
	}
	fclose(f);
	return v;
}

static long long knob_get(const char *name)
{
	char path[128], buf[64];
	FILE *f;

	snprintf(path, sizeof(path), STATS_DIR "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return atoll(buf);
}

static int knob_set(const char *name, long long v)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), STATS_DIR "%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%lld\n", v);
	return fclose(f);
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static struct timespec abs_in(clockid_t clk, uint64_t ns)
{
	uint64_t t = now_ns(clk) + ns;
	struct timespec ts = { t / 1000000000ull, t % 1000000000ull };

	return ts;
}

static void busy_ns(uint64_t ns)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + ns;

	while (now_ns(CLOCK_MONOTONIC) < end)
		;
}

/* ------------------------------------------------------------------ */
/* mutual exclusion */

struct mx {
	uint32_t word;
	int op, flags, iters;
	volatile int inside;
	volatile long counter;
	volatile int errors;
};

static void mx_loop(struct mx *m)
{
	for (int i = 0; i < m->iters; i++) {
		if (flock(&m->word, m->op | m->flags, NULL)) {
			m->errors++;
			continue;
		}
		if (m->inside++)
			m->errors++;
		m->counter++;
		for (volatile int j = 0; j < 50; j++)
			;
		m->inside--;
		if (funlock(&m->word, m->flags))
			m->errors++;
	}
}

static void *mx_thread(void *arg)
{
	mx_loop(arg);
	return NULL;
}

static void run_threads(struct __test_metadata *_metadata, int op,
			int nthreads, int iters)
{
	pthread_t th[64];
	struct mx m = { .op = op, .flags = PRIV, .iters = iters };

	for (int i = 0; i < nthreads; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, mx_thread, &m));
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	EXPECT_EQ(0, m.errors);
	EXPECT_EQ((long)nthreads * iters, m.counter);
	EXPECT_EQ(0, m.word);
}

static void run_procs(struct __test_metadata *_metadata, int op,
		      int nprocs, int iters)
{
	struct mx *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;

	ASSERT_NE(MAP_FAILED, m);
	memset(m, 0, sizeof(*m));
	m->op = op;
	m->flags = 0;	/* shared futex */
	m->iters = iters;
	for (int i = 0; i < nprocs; i++) {
		if (fork() == 0) {
			mx_loop(m);
			_exit(0);
		}
	}
	for (int i = 0; i < nprocs; i++) {
		ASSERT_GT(wait(&status), 0);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	EXPECT_EQ(0, m->errors);
	EXPECT_EQ((long)nprocs * iters, m->counter);
	EXPECT_EQ(0, m->word);
	munmap(m, 4096);
}

TEST(probe_unlock_unowned_eperm)
{
	uint32_t w = 0;

	REQUIRE_OPS();
	ASSERT_EQ(-1, futex_sys(&w, FUTEX_UNLOCK | PRIV, 0, NULL, NULL, 0));
	ASSERT_EQ(EPERM, errno);
}

TEST(mutex_private_lock)
{
	REQUIRE_OPS();
	run_threads(_metadata, FUTEX_LOCK, 4, 2000);
}

TEST(mutex_private_adaptive)
{
	REQUIRE_OPS();
	run_threads(_metadata, FUTEX_LOCK_ADAPTIVE, 4, 2000);
}

TEST(mutex_shared_lock)
{
	REQUIRE_OPS();
	run_procs(_metadata, FUTEX_LOCK, 3, 1500);
}

TEST(mutex_shared_adaptive)
{
	REQUIRE_OPS();
	run_procs(_metadata, FUTEX_LOCK_ADAPTIVE, 3, 1500);
}

TEST(oversubscribed_lock)
{
	REQUIRE_OPS();
	run_threads(_metadata, FUTEX_LOCK, 16, 300);
}

TEST(oversubscribed_adaptive)
{
	REQUIRE_OPS();
	run_threads(_metadata, FUTEX_LOCK_ADAPTIVE, 16, 300);
}

/* ------------------------------------------------------------------ */
/* errno */

TEST(einval_reserved_args)
{
	uint32_t w = 0, w2 = 0;

	REQUIRE_OPS();
	/* val, uaddr2, val3 must be 0 */
	EXPECT_EQ(-1, futex_sys(&w, FUTEX_LOCK | PRIV, 1, NULL, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, futex_sys(&w, FUTEX_LOCK_ADAPTIVE | PRIV, 0, NULL, &w2, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, futex_sys(&w, FUTEX_LOCK | PRIV, 0, NULL, NULL, 7));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, futex_sys(&w, FUTEX_UNLOCK | PRIV, 3, NULL, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	/* FUTEX_UNLOCK takes no clock */
	EXPECT_EQ(-1, futex_sys(&w, FUTEX_UNLOCK | PRIV | FUTEX_CLOCK_REALTIME,
				0, NULL, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, w);
}

TEST(einval_unaligned)
{
	uint32_t w[2] = { 0, 0 };
	uint32_t *odd = (uint32_t *)((char *)w + 1);

	REQUIRE_OPS();
	EXPECT_EQ(-1, futex_sys(odd, FUTEX_LOCK | PRIV, 0, NULL, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, futex_sys(odd, FUTEX_UNLOCK, 0, NULL, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST(einval_bad_timespec)
{
	uint32_t w = 0;
	struct timespec ts = { 0, 1000000000 };

	REQUIRE_OPS();
	EXPECT_EQ(-1, futex_sys(&w, FUTEX_LOCK | PRIV, 0, &ts, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, w);
}

TEST(efault_bad_address)
{
	uint32_t *ro, w = 0;

	REQUIRE_OPS();
	EXPECT_EQ(-1, futex_sys((uint32_t *)16, FUTEX_LOCK | PRIV, 0, NULL, NULL, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, futex_sys((uint32_t *)16, FUTEX_LOCK_ADAPTIVE, 0, NULL, NULL, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, futex_sys((uint32_t *)16, FUTEX_UNLOCK | PRIV, 0, NULL, NULL, 0));
	EXPECT_EQ(EFAULT, errno);
	/* read-only word: the kernel must be able to write it */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(-1, futex_sys(ro, FUTEX_LOCK | PRIV, 0, NULL, NULL, 0));
	EXPECT_EQ(EFAULT, errno);
	/* bad timeout pointer */
	EXPECT_EQ(-1, futex_sys(&w, FUTEX_LOCK | PRIV, 0,
				(struct timespec *)16, NULL, 0));
	EXPECT_EQ(EFAULT, errno);
	munmap(ro, 4096);
}

TEST(edeadlk_self)
{
	uint32_t w = 0;

	REQUIRE_OPS();
	ASSERT_EQ(0, flock(&w, FUTEX_LOCK | PRIV, NULL));
	EXPECT_EQ(-EDEADLK, flock(&w, FUTEX_LOCK | PRIV, NULL));
	EXPECT_EQ(-EDEADLK, flock(&w, FUTEX_LOCK_ADAPTIVE | PRIV, NULL));
	EXPECT_EQ(0, funlock(&w, PRIV));
	EXPECT_EQ(0, w);
}

/* A helper thread that owns a lock until told to release it. */
struct holder {
	uint32_t *word;
	int flags;
	volatile int locked, release, sleep_not_spin;
	pthread_t th;
};

static void *holder_fn(void *arg)
{
	struct holder *h = arg;

	if (flock(h->word, FUTEX_LOCK | h->flags, NULL))
		return (void *)1;
	h->locked = 1;
	while (!h->release) {
		if (h->sleep_not_spin)
			usleep(1000);
	}
	funlock(h->word, h->flags);
	return NULL;
}

static void holder_start(struct holder *h, uint32_t *w, int sleepy)
{
	memset(h, 0, sizeof(*h));
	h->word = w;
	h->flags = PRIV;
	h->sleep_not_spin = sleepy;
	pthread_create(&h->th, NULL, holder_fn, h);
	while (!h->locked)
		usleep(100);
}

static void holder_stop(struct holder *h)
{
	h->release = 1;
	pthread_join(h->th, NULL);
}

TEST(eperm_unlock_non_owner)
{
	uint32_t w = 0;
	struct holder h;

	REQUIRE_OPS();
	holder_start(&h, &w, 1);
	EXPECT_EQ(-1, futex_sys(&w, FUTEX_UNLOCK | PRIV, 0, NULL, NULL, 0));
	EXPECT_EQ(EPERM, errno);
	holder_stop(&h);
	EXPECT_EQ(0, w);
}

static void timeout_case(struct __test_metadata *_metadata, int op,
			 clockid_t clk)
{
	uint32_t w = 0;
	struct holder h;
	struct timespec ts;
	uint64_t t0;

	holder_start(&h, &w, 1);
	t0 = now_ns(clk);
	ts = abs_in(clk, 50 * 1000000ull);
	EXPECT_EQ(-ETIMEDOUT, flock(&w, op | PRIV | (clk == CLOCK_REALTIME ?
						     FUTEX_CLOCK_REALTIME : 0), &ts));
	EXPECT_GE(now_ns(clk) - t0, 49 * 1000000ull);
	/* already expired */
	ts = abs_in(clk, 0);
	EXPECT_EQ(-ETIMEDOUT, flock(&w, op | PRIV | (clk == CLOCK_REALTIME ?
						     FUTEX_CLOCK_REALTIME : 0), &ts));
	holder_stop(&h);
	EXPECT_EQ(0, w);
}

TEST(etimedout_monotonic)
{
	REQUIRE_OPS();
	timeout_case(_metadata, FUTEX_LOCK, CLOCK_MONOTONIC);
}

TEST(etimedout_realtime)
{
	REQUIRE_OPS();
	timeout_case(_metadata, FUTEX_LOCK, CLOCK_REALTIME);
}

TEST(etimedout_adaptive_monotonic)
{
	REQUIRE_OPS();
	timeout_case(_metadata, FUTEX_LOCK_ADAPTIVE, CLOCK_MONOTONIC);
}

TEST(timeout_not_hit_when_free)
{
	uint32_t w = 0;
	struct timespec ts;

	REQUIRE_OPS();
	/* the lock is free: the syscall takes it even with a past timeout */
	ts = abs_in(CLOCK_MONOTONIC, 0);
	EXPECT_EQ(0, futex_sys(&w, FUTEX_LOCK | PRIV, 0, &ts, NULL, 0));
	EXPECT_EQ((uint32_t)gettid_(), w);
	EXPECT_EQ(0, funlock(&w, PRIV));
}

static volatile int sig_hits;

static void sig_handler(int sig)
{
	sig_hits++;
}

/*
 * Signal the target every delay_ms until it is done (EINTR case), or
 * three times and then make the holder release the lock (restart case).
 * Repeating makes the test independent of when the target blocks.
 */
struct killer {
	pthread_t target;
	int delay_ms;
	struct holder *release;
	volatile int done;
};

static void *killer_fn(void *arg)
{
	struct killer *k = arg;

	for (int i = 0; !k->done && (!k->release || i < 3); i++) {
		usleep(k->delay_ms * 1000);
		pthread_kill(k->target, SIGUSR1);
	}
	if (k->release) {
		usleep(k->delay_ms * 1000);
		k->release->release = 1;
	}
	return NULL;
}

TEST(signal_eintr_without_sa_restart)
{
	struct sigaction sa = { .sa_handler = sig_handler };	/* no SA_RESTART */
	struct killer k = { .delay_ms = 50 };
	uint32_t w = 0;
	struct holder h;
	pthread_t kt;

	REQUIRE_OPS();
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	holder_start(&h, &w, 1);
	sig_hits = 0;
	k.target = pthread_self();
	pthread_create(&kt, NULL, killer_fn, &k);
	EXPECT_EQ(-EINTR, flock(&w, FUTEX_LOCK | PRIV, NULL));
	EXPECT_GE(sig_hits, 1);
	k.done = 1;
	pthread_join(kt, NULL);
	holder_stop(&h);
	EXPECT_EQ(0, w);
}

TEST(signal_restart_with_sa_restart)
{
	struct sigaction sa = { .sa_handler = sig_handler, .sa_flags = SA_RESTART };
	struct killer k = { .delay_ms = 50 };
	uint32_t w = 0;
	struct holder h;
	pthread_t kt;

	REQUIRE_OPS();
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	holder_start(&h, &w, 1);
	sig_hits = 0;
	k.target = pthread_self();
	k.release = &h;
	pthread_create(&kt, NULL, killer_fn, &k);
	/* the handler runs, the syscall restarts, the lock is acquired */
	EXPECT_EQ(0, flock(&w, FUTEX_LOCK_ADAPTIVE | PRIV, NULL));
	EXPECT_EQ(3, sig_hits);
	EXPECT_EQ((uint32_t)gettid_(), w & FUTEX_TID_MASK);
	EXPECT_EQ(0, funlock(&w, PRIV));
	pthread_join(kt, NULL);
	pthread_join(h.th, NULL);
}

/* ------------------------------------------------------------------ */
/* robust list / dead owners */

struct robust_obj {
	struct robust_list list;
	uint32_t word;
	int pipefd[2];
};

static void child_take_robust_and_die(struct robust_obj *o, int linger_ms)
{
	static struct robust_list_head head;

	head.list.next = &o->list;
	o->list.next = &head.list;
	head.futex_offset = offsetof(struct robust_obj, word) -
			    offsetof(struct robust_obj, list);
	head.list_op_pending = NULL;
	if (syscall(SYS_set_robust_list, &head, sizeof(head)))
		_exit(2);
	if (flock(&o->word, FUTEX_LOCK, NULL))	/* shared: robust wakes are shared */
		_exit(3);
	if (write(o->pipefd[1], "x", 1) != 1)
		_exit(4);
	usleep(linger_ms * 1000);
	_exit(0);	/* dies holding the lock */
}

static void robust_case(struct __test_metadata *_metadata, int op, int block)
{
	struct robust_obj *o = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	char c;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, o);
	memset(o, 0, sizeof(*o));
	ASSERT_EQ(0, pipe(o->pipefd));
	pid = fork();
	if (!pid)
		child_take_robust_and_die(o, block ? 100 : 0);
	ASSERT_EQ(1, read(o->pipefd[0], &c, 1));
	if (!block) {
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_EQ(FUTEX_OWNER_DIED, o->word);
	}
	/* blocks (block=1) until the child dies; then owns with EOWNERDEAD */
	EXPECT_EQ(-EOWNERDEAD, flock(&o->word, op, NULL));
	EXPECT_EQ((uint32_t)gettid_(), o->word & ~FUTEX_WAITERS);
	EXPECT_EQ(0, funlock(&o->word, 0));
	EXPECT_EQ(0, o->word);
	if (block)
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	munmap(o, 4096);
}

TEST(eownerdead_robust_owner_exited)
{
	REQUIRE_OPS();
	robust_case(_metadata, FUTEX_LOCK, 0);
}

TEST(eownerdead_robust_waiter_blocked)
{
	REQUIRE_OPS();
	robust_case(_metadata, FUTEX_LOCK, 1);
}

TEST(eownerdead_robust_adaptive_blocked)
{
	REQUIRE_OPS();
	robust_case(_metadata, FUTEX_LOCK_ADAPTIVE, 1);
}

TEST(esrch_dead_tid)
{
	uint32_t w;
	int status;
	pid_t pid;

	REQUIRE_OPS();
	pid = fork();
	if (!pid)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	w = pid;	/* reaped: the TID names no task */
	EXPECT_EQ(-ESRCH, flock(&w, FUTEX_LOCK, NULL));
	EXPECT_EQ(-ESRCH, flock(&w, FUTEX_LOCK_ADAPTIVE | PRIV, NULL));
	EXPECT_EQ((uint32_t)pid, w);
}

TEST(esrch_garbage_tid)
{
	uint32_t w = 0x3ffffff0;	/* above any pid_max */

	REQUIRE_OPS();
	EXPECT_EQ(-ESRCH, flock(&w, FUTEX_LOCK | PRIV, NULL));
	EXPECT_EQ(-ESRCH, flock(&w, FUTEX_LOCK_ADAPTIVE | PRIV, NULL));
	w |= FUTEX_WAITERS;
	EXPECT_EQ(-ESRCH, flock(&w, FUTEX_LOCK | PRIV, NULL));
}

TEST(esrch_private_foreign_tid)
{
	/* A private futex cannot be owned by a thread of another process. */
	uint32_t w = getppid();

	REQUIRE_OPS();
	EXPECT_EQ(-ESRCH, flock(&w, FUTEX_LOCK | PRIV, NULL));
}

TEST(esrch_zombie_owner)
{
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	REQUIRE_OPS();
	ASSERT_NE(MAP_FAILED, w);
	*w = 0;
	pid = fork();
	if (!pid) {
		flock(w, FUTEX_LOCK, NULL);
		_exit(0);	/* no robust list: the lock stays "held" */
	}
	/* wait for it to become a zombie without reaping it */
	ASSERT_EQ(0, waitid(P_PID, pid, NULL, WEXITED | WNOWAIT));
	EXPECT_EQ((uint32_t)pid, *w);
	EXPECT_EQ(-ESRCH, flock(w, FUTEX_LOCK, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	munmap(w, 4096);
}

/* ------------------------------------------------------------------ */
/* adaptive spinning */

struct spin_owner {
	uint32_t word;
	volatile int go, locked, calling;
	uint64_t hold_ns;
	int sleep_in_cs, rounds;
};

static void *spin_owner_fn(void *arg)
{
	struct spin_owner *s = arg;

	for (int i = 0; i < s->rounds; i++) {
		flock(&s->word, FUTEX_LOCK | PRIV, NULL);
		s->locked = i + 1;
		if (s->sleep_in_cs) {
			usleep(s->hold_ns / 1000);
		} else {
			/* hold until the other thread is about to lock */
			while (s->calling != i + 1)
				;
			busy_ns(s->hold_ns);
		}
		funlock(&s->word, PRIV);
		while (s->go != i + 1)
			;
	}
	return NULL;
}

static void spin_case(struct __test_metadata *_metadata, int sleepy,
		      uint64_t hold_ns, int rounds, const char *expect,
		      long long *delta)
{
	struct spin_owner s = { .hold_ns = hold_ns, .sleep_in_cs = sleepy,
				.rounds = rounds };
	long long before = stat_get(expect);
	long long spins = stat_get("spin_attempts");
	long long tmo = stat_get("spin_stop_timeout");
	long long slp = stat_get("spin_stop_owner_sleeping");
	long long rs = stat_get("spin_stop_need_resched");
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&th, NULL, spin_owner_fn, &s));
	for (int i = 0; i < rounds; i++) {
		while (s.locked != i + 1)
			;
		s.calling = i + 1;
		ASSERT_EQ(0, flock(&s.word, FUTEX_LOCK_ADAPTIVE | PRIV, NULL));
		ASSERT_EQ((uint32_t)gettid_(), s.word & FUTEX_TID_MASK);
		ASSERT_EQ(0, funlock(&s.word, PRIV));
		s.go = i + 1;
	}
	pthread_join(th, NULL);
	EXPECT_EQ(0, s.word);
	*delta = -1;
	if (before >= 0) {
		*delta = stat_get(expect) - before;
		TH_LOG("%s: +%lld, spin_attempts +%lld over %d rounds", expect,
		       *delta, stat_get("spin_attempts") - spins, rounds);
		TH_LOG("spin_stop_timeout +%lld owner_sleeping +%lld need_resched +%lld",
		       stat_get("spin_stop_timeout") - tmo,
		       stat_get("spin_stop_owner_sleeping") - slp,
		       stat_get("spin_stop_need_resched") - rs);
	}
}

TEST(adaptive_owner_running)
{
	long long old = knob_get("spin_max_ns"), acq, sleeping, delta;

	REQUIRE_OPS();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs for the owner to run while we spin");
	/*
	 * The owner keeps the lock 200us after we start locking and stays on
	 * its CPU; we may spin up to 1ms.  Natively (and under KVM) the
	 * spinner takes the lock in most rounds.  Under TCG on a loaded host
	 * the owner's vCPU thread is often descheduled by the host, which the
	 * guest cannot see (vcpu_is_preempted() is false), so spins end on
	 * the time budget instead.  What must hold everywhere: the spinner
	 * sees the owner running (it does not stop with "owner sleeping"
	 * in most rounds) and the result is correct.
	 */
	if (old >= 0)
		knob_set("spin_max_ns", 1000000);
	acq = stat_get("spin_acquired");
	sleeping = stat_get("spin_stop_owner_sleeping");
	spin_case(_metadata, 0, 200000, 40, "spin_attempts", &delta);
	if (old >= 0)
		knob_set("spin_max_ns", old);
	if (delta >= 0) {
		acq = stat_get("spin_acquired") - acq;
		sleeping = stat_get("spin_stop_owner_sleeping") - sleeping;
		TH_LOG("spin_acquired +%lld owner_sleeping +%lld of %lld spins",
		       acq, sleeping, delta);
		EXPECT_GE(delta, 20);
		EXPECT_LE(sleeping, delta / 2);
	}
}

TEST(adaptive_owner_sleeping)
{
	long long delta;

	REQUIRE_OPS();
	/* the owner sleeps 20ms with the lock held: spinners must give up */
	spin_case(_metadata, 1, 20000000, 5, "spin_stop_owner_sleeping", &delta);
	if (delta >= 0)
		EXPECT_GE(delta, 1);
}

/* ------------------------------------------------------------------ */
/* hand-off and starvation */

#define STARVE_THREADS	6

struct starve {
	uint32_t word;
	int op;
	volatile int stop;
	volatile long counter;
	long count[STARVE_THREADS];
	uint64_t max_wait_ns[STARVE_THREADS];
	volatile int errors;
	int inside;
};

struct starve_arg {
	struct starve *s;
	int idx;
};

static void *starve_fn(void *arg)
{
	struct starve_arg *a = arg;
	struct starve *s = a->s;

	while (!s->stop) {
		uint64_t t0 = now_ns(CLOCK_MONOTONIC), dt;

		if (flock(&s->word, s->op | PRIV, NULL)) {
			s->errors++;
			break;
		}
		dt = now_ns(CLOCK_MONOTONIC) - t0;
		if (dt > s->max_wait_ns[a->idx])
			s->max_wait_ns[a->idx] = dt;
		if (s->inside++)
			s->errors++;
		s->counter++;
		s->count[a->idx]++;
		for (volatile int j = 0; j < 200; j++)
			;
		s->inside--;
		funlock(&s->word, PRIV);
	}
	return NULL;
}

static void starve_run(struct __test_metadata *_metadata, int op,
		       int run_ms, struct starve *s)
{
	struct starve_arg args[STARVE_THREADS];
	pthread_t th[STARVE_THREADS];

	memset(s, 0, sizeof(*s));
	s->op = op;
	for (int i = 0; i < STARVE_THREADS; i++) {
		args[i].s = s;
		args[i].idx = i;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, starve_fn, &args[i]));
	}
	usleep(run_ms * 1000);
	s->stop = 1;
	for (int i = 0; i < STARVE_THREADS; i++)
		pthread_join(th[i], NULL);
	EXPECT_EQ(0, s->errors);
}

static void starvation_case(struct __test_metadata *_metadata, int op)
{
	long long lost0 = stat_get("lost_after_wake");
	long long ho0 = stat_get("handoffs");
	long long thr = knob_get("handoff_threshold");
	uint64_t worst = 0;
	long min = -1, max = 0;
	struct starve s;

	starve_run(_metadata, op, 1500, &s);
	for (int i = 0; i < STARVE_THREADS; i++) {
		if (min < 0 || s.count[i] < min)
			min = s.count[i];
		if (s.count[i] > max)
			max = s.count[i];
		if (s.max_wait_ns[i] > worst)
			worst = s.max_wait_ns[i];
	}
	TH_LOG("acquisitions min %ld max %ld total %ld, worst wait %llu us",
	       min, max, s.counter, (unsigned long long)worst / 1000);
	if (lost0 >= 0)
		TH_LOG("lost_after_wake +%lld handoffs +%lld lost_max %lld (threshold %lld)",
		       stat_get("lost_after_wake") - lost0,
		       stat_get("handoffs") - ho0, stat_get("lost_max"), thr);
	/*
	 * Bound: a woken waiter loses at most handoff_threshold races before
	 * FUTEX_UNLOCK hands it the lock, so no thread can be locked out while
	 * the others make progress.  Every thread must get the lock, at least
	 * 1/20 of the fair share, and no single acquisition may take longer
	 * than 2s (TCG, 2 vCPUs, 6 threads).
	 */
	EXPECT_GT(min, 0);
	EXPECT_GE(min * 20 * STARVE_THREADS, s.counter);
	EXPECT_LT(worst, 2000000000ull);
	if (thr >= 0)
		EXPECT_LE(stat_get("lost_max"), thr);
}

TEST(starvation_bound_lock)
{
	REQUIRE_OPS();
	starvation_case(_metadata, FUTEX_LOCK);
}

TEST(starvation_bound_adaptive)
{
	REQUIRE_OPS();
	starvation_case(_metadata, FUTEX_LOCK_ADAPTIVE);
}

TEST(handoff_always)
{
	long long old = knob_get("handoff_threshold");
	long long ho0 = stat_get("handoffs");
	struct starve s;

	REQUIRE_OPS();
	if (old < 0)
		SKIP(return, "no debugfs " STATS_DIR "handoff_threshold");
	/* threshold 0: every FUTEX_UNLOCK that wakes a waiter hands off */
	ASSERT_EQ(0, knob_set("handoff_threshold", 0));
	starve_run(_metadata, FUTEX_LOCK, 500, &s);
	knob_set("handoff_threshold", old);
	TH_LOG("handoffs +%lld, total %ld", stat_get("handoffs") - ho0, s.counter);
	EXPECT_GT(stat_get("handoffs") - ho0, 0);
	EXPECT_EQ(0, s.word);
}

TEST_HARNESS_MAIN
