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
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "kselftest_harness.h"

/*
 * No test compares a measured time with a bound: a test that waits for
 * something (a thread asleep in the kernel, a flag) waits for that event
 * itself, and gives up only after HANG_NS, which merely turns a hang into
 * a failure.  The harness's own per-test alarm (30 s by default) would be
 * such a bound on the work of a test, so it is raised to a hang guard.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT	600
#define HANG_NS			(60 * 1000000000ull)

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

/* The first line of a debugfs file of STATS_DIR; -1 if absent. */
static int knob_read(const char *name, char *buf, int size)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), STATS_DIR "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, size, f))
		buf[0] = 0;
	fclose(f);
	return 0;
}

static long long knob_get(const char *name)
{
	char buf[64];

	return knob_read(name, buf, sizeof(buf)) ? -1 : atoll(buf);
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

/* A Y/N debugfs file: 1, 0, or -1 if absent. */
static int knob_get_bool(const char *name)
{
	char buf[8];

	if (knob_read(name, buf, sizeof(buf)))
		return -1;
	return buf[0] == 'Y' ? 1 : buf[0] == 'N' ? 0 : -1;
}

/*
 * The spin policy: the fixed budget and the rules that can be switched
 * off (absent on a kernel without them: -1, left alone).  Tests that need
 * a known budget use spin_policy_fixed(): the fixed spin_max_ns, no
 * calibration, no back-off (a spin that runs out would skip later ones),
 * no overload check (a test's own busy threads overcommit a small guest).
 */
static const char * const spin_rules[] = {
	"spin_check_runnable", "spin_calibrate", "spin_backoff",
	"spin_check_waiters", "spin_check_overload", "spin_check_first_wake",
	"spin_check_queue", "spin_quiet_start", "spin_charge_call",
	"spin_charge_check_overload",
};
#define NR_SPIN_RULES	(sizeof(spin_rules) / sizeof(spin_rules[0]))

struct spin_policy {
	long long max_ns;
	int rule[NR_SPIN_RULES];
};

static void spin_policy_save(struct spin_policy *p)
{
	p->max_ns = knob_get("spin_max_ns");
	for (size_t i = 0; i < NR_SPIN_RULES; i++)
		p->rule[i] = knob_get_bool(spin_rules[i]);
}

static void spin_policy_restore(const struct spin_policy *p)
{
	if (p->max_ns >= 0)
		knob_set("spin_max_ns", p->max_ns);
	for (size_t i = 0; i < NR_SPIN_RULES; i++)
		if (p->rule[i] >= 0)
			knob_set(spin_rules[i], p->rule[i]);
}

static int spin_policy_fixed(long long max_ns)
{
	if (knob_get_bool("spin_calibrate") >= 0)
		knob_set("spin_calibrate", 0);
	if (knob_get_bool("spin_backoff") >= 0)
		knob_set("spin_backoff", 0);
	if (knob_get_bool("spin_check_overload") >= 0)
		knob_set("spin_check_overload", 0);
	return knob_set("spin_max_ns", max_ns);
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

/*
 * Poll cond (every 100 us, sleeping) until it holds; false if it still
 * does not after HANG_NS, which only a hang can take.
 */
#define WAIT_FOR(cond) ({						\
	uint64_t __end = now_ns(CLOCK_MONOTONIC) + HANG_NS;		\
	int __ok;							\
									\
	while (!(__ok = !!(cond)) && now_ns(CLOCK_MONOTONIC) < __end)	\
		usleep(100);						\
	__ok;								\
})

/* State letter of a task ("R", "S", ...) from /proc; 0 if it is gone. */
static char task_state(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : 0;
}

/* The syscall number the task is in (/proc/.../syscall), or -1. */
static long task_syscall(pid_t pid, pid_t tid)
{
	char path[64];
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr;
}

/* Does the task sleep (state S), in syscall nr unless nr is -1? */
static int task_sleeping_in(pid_t pid, pid_t tid, long nr)
{
	return task_state(pid, tid) == 'S' &&
	       (nr < 0 || task_syscall(pid, tid) == nr);
}

/*
 * Wait until the task sleeps, in syscall nr unless nr is -1; false if it
 * does not within HANG_NS (a hang guard, not an expectation).
 */
static int wait_sleeping_in(pid_t pid, pid_t tid, long nr)
{
	return WAIT_FOR(task_sleeping_in(pid, tid, nr));
}

static int wait_sleeping(pid_t pid, pid_t tid)
{
	return wait_sleeping_in(pid, tid, -1);
}

static int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
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
	/* FUTEX_UNLOCK takes no clock: ENOSYS, as every op without one */
	EXPECT_EQ(-1, futex_sys(&w, FUTEX_UNLOCK | PRIV | FUTEX_CLOCK_REALTIME,
				0, NULL, NULL, 0));
	EXPECT_EQ(ENOSYS, errno);
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
 * Signal the target three times, each time once it sleeps in futex(2)
 * (the lock call) and has run the handler for the previous signal, then
 * make the holder release the lock.  ok is cleared if the target never
 * got there (a hang).
 */
struct killer {
	pthread_t target;
	pid_t target_tid;
	struct holder *release;
	volatile int ok;
};

static void *killer_fn(void *arg)
{
	struct killer *k = arg;

	k->ok = 1;
	for (int i = 0; i < 3; i++) {
		if (!wait_sleeping_in(getpid(), k->target_tid, SYS_futex)) {
			k->ok = 0;
			break;
		}
		pthread_kill(k->target, SIGUSR1);
		if (!WAIT_FOR(sig_hits == i + 1)) {
			k->ok = 0;
			break;
		}
	}
	k->release->release = 1;
	return NULL;
}

/*
 * A handler without SA_RESTART runs, and the lock call resumes: like
 * FUTEX_LOCK_PI, the ops never fail with EINTR (pthread_mutex_lock() must
 * not), the timeout being absolute.
 */
TEST(signal_no_eintr_without_sa_restart)
{
	struct sigaction sa = { .sa_handler = sig_handler };	/* no SA_RESTART */
	struct killer k = { .target_tid = gettid_() };
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
	EXPECT_EQ(0, flock(&w, FUTEX_LOCK | PRIV, NULL));
	pthread_join(kt, NULL);
	EXPECT_TRUE(k.ok);
	EXPECT_EQ(3, sig_hits);
	EXPECT_EQ((uint32_t)gettid_(), w & FUTEX_TID_MASK);
	EXPECT_EQ(0, funlock(&w, PRIV));
	pthread_join(h.th, NULL);
	EXPECT_EQ(0, w);
}

TEST(signal_restart_with_sa_restart)
{
	struct sigaction sa = { .sa_handler = sig_handler, .sa_flags = SA_RESTART };
	struct killer k = { .target_tid = gettid_() };
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
	pthread_join(kt, NULL);
	EXPECT_TRUE(k.ok);
	EXPECT_EQ(3, sig_hits);
	EXPECT_EQ((uint32_t)gettid_(), w & FUTEX_TID_MASK);
	EXPECT_EQ(0, funlock(&w, PRIV));
	pthread_join(h.th, NULL);
}

/* ------------------------------------------------------------------ */
/* robust list / dead owners */

struct robust_obj {
	struct robust_list list;
	uint32_t word;
	int pipefd[2];
};

/* block: die only once the parent (the test) sleeps in its lock call */
static void child_take_robust_and_die(struct robust_obj *o, int block)
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
	if (block && !wait_sleeping_in(getppid(), getppid(), SYS_futex))
		_exit(5);
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
		child_take_robust_and_die(o, block);
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
	volatile pid_t tid;
	pid_t locker;		/* the thread that calls FUTEX_LOCK_ADAPTIVE */
	volatile int go, locked, calling;
	uint64_t hold_ns;
	int sleep_in_cs, rounds;
	int at_call;		/* hold_ns from the locker's call, not its spin */
	int unlocked;		/* the round unlocked_ns is of */
	uint64_t unlocked_ns;	/* CLOCK_MONOTONIC after that FUTEX_UNLOCK */
};

/*
 * Each round the owner keeps the lock until the locker is in its lock
 * call: spinning (spin_attempts moved) or asleep in futex(2), so that the
 * spinner meets an owner that is still there whatever the speed of the
 * machine.  A running owner keeps its CPU meanwhile (and hold_ns longer);
 * a sleeping owner looks only every 2 ms and sleeps in between.
 */
static void *spin_owner_fn(void *arg)
{
	struct spin_owner *s = arg;
	pid_t pid = getpid();

	s->tid = gettid_();
	pin_cpu(0);
	for (int i = 0; i < s->rounds; i++) {
		uint64_t end = now_ns(CLOCK_MONOTONIC) + HANG_NS;
		long long sp0;

		flock(&s->word, FUTEX_LOCK | PRIV, NULL);
		sp0 = stat_get("spin_attempts");
		s->locked = i + 1;
		if (s->sleep_in_cs) {
			while (!task_sleeping_in(pid, s->locker, SYS_futex) &&
			       now_ns(CLOCK_MONOTONIC) < end)
				usleep(2000);
		} else {
			while (s->calling != i + 1)
				;
			while (!s->at_call &&
			       !(sp0 >= 0 && stat_get("spin_attempts") > sp0) &&
			       !task_sleeping_in(pid, s->locker, SYS_futex) &&
			       now_ns(CLOCK_MONOTONIC) < end)
				;
			busy_ns(s->hold_ns);
		}
		funlock(&s->word, PRIV);
		s->unlocked_ns = now_ns(CLOCK_MONOTONIC);
		__atomic_store_n(&s->unlocked, i + 1, __ATOMIC_RELEASE);
		while (s->go != i + 1)
			;
	}
	return NULL;
}

/*
 * How the spins of a spin_case() ended (counter deltas; -1: no stats):
 * started, out of budget, cut short by another task wanting our CPU.
 */
struct spin_ends {
	long long spins, timeouts, cut;
};

static void spin_case(struct __test_metadata *_metadata, int sleepy,
		      uint64_t hold_ns, int rounds, const char *expect,
		      long long *delta, struct spin_ends *ends)
{
	struct spin_owner s = { .hold_ns = hold_ns, .sleep_in_cs = sleepy,
				.rounds = rounds, .locker = gettid_() };
	long long before = stat_get(expect);
	long long spins = stat_get("spin_attempts");
	long long tmo = stat_get("spin_stop_timeout");
	long long slp = stat_get("spin_stop_owner_sleeping");
	long long rs = stat_get("spin_stop_need_resched");
	long long rn = stat_get("spin_stop_runnable");
	pthread_t th;

	if (ends)
		*ends = (struct spin_ends){ -1, -1, -1 };
	/*
	 * A sleeping owner shares CPU 0 with us: while we run there it is
	 * off its CPU for certain.  A task seen asleep in /proc may still be
	 * on_cpu until its context switch completes, and under TCG on a
	 * loaded host its vCPU can be descheduled in between for longer
	 * than a spin budget, which the guest cannot see.
	 */
	pin_cpu(sleepy ? 0 : 1);
	ASSERT_EQ(0, pthread_create(&th, NULL, spin_owner_fn, &s));
	for (int i = 0; i < rounds; i++) {
		while (s.locked != i + 1)
			;
		/* a sleeping owner: call only once it sleeps */
		if (sleepy)
			while (task_state(getpid(), s.tid) != 'S')
				usleep(100);
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
		spins = stat_get("spin_attempts") - spins;
		tmo = stat_get("spin_stop_timeout") - tmo;
		rs = stat_get("spin_stop_need_resched") - rs;
		rn = stat_get("spin_stop_runnable") - rn;
		if (ends)
			*ends = (struct spin_ends){ spins, tmo, rs + rn };
		TH_LOG("%s: +%lld, spin_attempts +%lld over %d rounds", expect,
		       *delta, spins, rounds);
		TH_LOG("spin_stop_timeout +%lld owner_sleeping +%lld need_resched +%lld runnable +%lld",
		       tmo, stat_get("spin_stop_owner_sleeping") - slp, rs, rn);
	}
}

TEST(adaptive_owner_running)
{
	long long old = knob_get("spin_max_ns"), acq, sleeping, delta, skipped;
	struct spin_policy pol;

	REQUIRE_OPS();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs for the owner to run while we spin");
	/*
	 * The owner (pinned to CPU 0, we to CPU 1) keeps the lock and its CPU
	 * until we are spinning, then 200us more; we may spin up to 1ms.
	 * Natively (and under KVM) the spinner takes the lock in most rounds.
	 * Under TCG on a loaded host the owner's vCPU thread is often
	 * descheduled by the host, which the guest cannot see
	 * (vcpu_is_preempted() is false), so spins end on the time budget
	 * instead: how a spin ends is logged, not asserted.  What must hold
	 * everywhere: every round spins (the owner waits for it) unless
	 * another task was runnable on our CPU when we came to spin (v5: the
	 * caller then blocks at once, spin_skipped_runnable), the spinner
	 * sees the owner running (it does not stop with "owner sleeping" in
	 * most rounds) and the result is correct.
	 */
	spin_policy_save(&pol);
	if (old >= 0)
		spin_policy_fixed(1000000);
	acq = stat_get("spin_acquired");
	sleeping = stat_get("spin_stop_owner_sleeping");
	skipped = stat_get("spin_skipped_runnable");
	spin_case(_metadata, 0, 200000, 40, "spin_attempts", &delta, NULL);
	spin_policy_restore(&pol);
	if (delta >= 0) {
		acq = stat_get("spin_acquired") - acq;
		sleeping = stat_get("spin_stop_owner_sleeping") - sleeping;
		skipped = skipped < 0 ? 0 : stat_get("spin_skipped_runnable") - skipped;
		TH_LOG("spin_acquired +%lld owner_sleeping +%lld of %lld spins; %lld rounds skipped (runnable)",
		       acq, sleeping, delta, skipped);
		EXPECT_GE(delta + skipped, 40);
		EXPECT_LE(sleeping, delta / 2);
	}
}

/*
 * A kernel built without CONFIG_SMP never spins in FUTEX_LOCK_ADAPTIVE
 * (the owner cannot run while the caller does), so no spin counter moves
 * there.  uname's version says "SMP" for a CONFIG_SMP kernel.
 */
static int kernel_smp(void)
{
	struct utsname u;

	return uname(&u) || strstr(u.version, " SMP ") != NULL;
}

TEST(adaptive_owner_sleeping)
{
	struct spin_ends ends;
	long long delta;

	REQUIRE_OPS();
	if (!kernel_smp())
		SKIP(return, "kernel without CONFIG_SMP: ADAPTIVE does not spin");
	/*
	 * The owner sleeps with the lock held until we sleep in the lock
	 * call: spinners must give up on it, never run out their budget on
	 * it.  A round may not spin at all, or its spin may be cut short,
	 * by another task runnable on our CPU (such as the owner polling):
	 * with no other spin there is nothing to judge.
	 */
	spin_case(_metadata, 1, 0, 5, "spin_stop_owner_sleeping", &delta, &ends);
	if (delta < 0)
		return;
	if (ends.spins == ends.cut)
		SKIP(return, "no spin ran to a decision (another task wanted our CPU)");
	EXPECT_EQ(0, ends.timeouts);
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

#define STARVE_MIN	50	/* acquisitions every thread must reach */

static int starve_all_reached(struct starve *s, long n)
{
	for (int i = 0; i < STARVE_THREADS; i++)
		if (s->count[i] < n)
			return 0;
	return 1;
}

/*
 * Run for at least run_ms (to exercise the lock), then until every thread
 * has taken it STARVE_MIN times and, with ho0 >= 0, until the handoffs
 * counter has moved past ho0.  HANG_NS ends a run that never gets there:
 * a thread locked out while the others go on.
 */
static void starve_run(struct __test_metadata *_metadata, int op,
		       int run_ms, long long ho0, struct starve *s)
{
	struct starve_arg args[STARVE_THREADS];
	pthread_t th[STARVE_THREADS];
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	memset(s, 0, sizeof(*s));
	s->op = op;
	for (int i = 0; i < STARVE_THREADS; i++) {
		args[i].s = s;
		args[i].idx = i;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, starve_fn, &args[i]));
	}
	usleep(run_ms * 1000);
	WAIT_FOR(s->errors || (starve_all_reached(s, STARVE_MIN) &&
			       (ho0 < 0 || stat_get("handoffs") > ho0)));
	s->stop = 1;
	TH_LOG("ran %llu ms", (unsigned long long)(now_ns(CLOCK_MONOTONIC) - t0) / 1000000);
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

	starve_run(_metadata, op, 1500, -1, &s);
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
	 * the others make progress: every thread reaches STARVE_MIN
	 * acquisitions (starve_run() waits for that; only a lock-out fails
	 * it), and the kernel's longest loss streak stays within the
	 * threshold.  The shares and the worst wait are logged, not judged:
	 * they measure the scheduler and the machine.
	 */
	EXPECT_GE(min, STARVE_MIN);
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
	starve_run(_metadata, FUTEX_LOCK, 500, ho0, &s);
	knob_set("handoff_threshold", old);
	TH_LOG("handoffs +%lld, total %ld", stat_get("handoffs") - ho0, s.counter);
	EXPECT_GT(stat_get("handoffs") - ho0, 0);
	EXPECT_EQ(0, s.word);
}

/* ------------------------------------------------------------------ */
/* helpers for the race tests below */

/* Debug knobs (CONFIG_FUTEX_LOCK_DEBUG); -1 when absent. */
#define REQUIRE_KNOB(name) do {						\
	if (knob_get(name) < 0)						\
		SKIP(return, "no " STATS_DIR name " (CONFIG_FUTEX_LOCK_DEBUG)"); \
} while (0)

/* ------------------------------------------------------------------ */
/* F1: a spinner preempted while registered must not stall relay sleepers */

struct relay {
	uint32_t word;
	int efd_h, efd_r;
	uint64_t hold_ns;
	long long spins0;
	volatile int o_locked, o_done, s_go, rt_fail, seen, s_preempted;
	volatile int r_got, stalled, capped;
	int entry;
	volatile int s_calling;
	volatile pid_t s_tid, h_tid, r_tid;
	int s_ret, r_ret;
	uint64_t r_wait_ns;
};

/*
 * O owns the lock and keeps running on CPU 0.  It watches spin_attempts:
 * when S has started spinning (or has gone to sleep in the lock call
 * instead) it wakes the hog H on S's CPU, then holds the lock until R
 * sleeps in its lock call, plus hold_ns, and unlocks.
 */
static void *relay_owner(void *arg)
{
	struct relay *r = arg;
	uint64_t one = 1, end;
	pid_t pid = getpid();

	pin_cpu(0);
	flock(&r->word, FUTEX_LOCK | PRIV, NULL);
	r->o_locked = 1;
	end = now_ns(CLOCK_MONOTONIC) + HANG_NS;
	/*
	 * Entry window: S sits in delay_check_owner_us under the hb lock,
	 * right before it would register; H woken now cannot preempt it
	 * there, so S is preempted at the first preemption point after it.
	 * (/proc's syscall file names no syscall of a running task: S says
	 * when it calls, and its delay of 5 ms covers the next 1 ms.)
	 */
	while (r->entry) {
		if (r->s_calling) {
			busy_ns(1000000);
			r->seen = 1;
			break;
		}
		if (now_ns(CLOCK_MONOTONIC) > end)
			break;
	}
	while (!r->entry && (!r->s_tid || !task_sleeping_in(pid, r->s_tid, SYS_futex))) {
		if (stat_get("spin_attempts") > r->spins0) {
			r->seen = 1;
			break;
		}
		if (now_ns(CLOCK_MONOTONIC) > end)
			break;
	}
	if (write(r->efd_h, &one, sizeof(one)) != sizeof(one))
		r->rt_fail = 2;
	while (!r->r_tid)
		usleep(100);
	wait_sleeping_in(pid, r->r_tid, SYS_futex);
	busy_ns(r->hold_ns);
#ifdef RELAY_BROKEN_UNLOCK
	/*
	 * Negative control of the stall detector (-DRELAY_BROKEN_UNLOCK):
	 * in a round that tests F1, unlock by a blind store that drops
	 * FUTEX_WAITERS, the lost wake-up F1 caused.  The test must fail.
	 */
	if (r->s_preempted) {
		__atomic_store_n(&r->word, 0, __ATOMIC_SEQ_CST);
		r->o_done = 1;
		return NULL;
	}
#endif
	funlock(&r->word, PRIV);
	r->o_done = 1;
	return NULL;
}

static void *relay_spinner(void *arg)
{
	struct relay *r = arg;

	pin_cpu(1);
	r->s_tid = gettid_();
	while (!r->s_go)
		usleep(100);
	r->s_calling = 1;
	r->s_ret = flock(&r->word, FUTEX_LOCK_ADAPTIVE | PRIV, NULL);
	if (!r->s_ret)
		funlock(&r->word, PRIV);
	return NULL;
}

/*
 * R asleep in its lock call on a free lock after O's unlock has returned:
 * O has woken nobody (a woken R would be runnable, and nobody but the
 * preempted S could take the lock and put it back to sleep), and S, which
 * could, cannot run while H does.  Seen twice, 1 ms apart (busy: H must
 * keep its CPU), to be sure of the reads.
 */
static int relay_stalled(struct relay *r)
{
	pid_t pid = getpid();

	for (int i = 0; i < 2; i++) {
		if (i)
			busy_ns(1000000);	/* H must not sleep: S would run */
		if (!r->o_done || r->r_got ||
		    (__atomic_load_n(&r->word, __ATOMIC_SEQ_CST) & FUTEX_TID_MASK) ||
		    !task_sleeping_in(pid, r->r_tid, SYS_futex) ||
		    (__atomic_load_n(&r->word, __ATOMIC_SEQ_CST) & FUTEX_TID_MASK) ||
		    r->r_got)
			return 0;
	}
	return 1;
}

/*
 * H runs only once S is off CPU 1: then R may call, and H hogs CPU 1.  If
 * S was preempted in the lock call, H keeps it off its CPU until R has
 * the lock, or until R sleeps on the free lock after O's unlock (the bug,
 * see relay_stalled()), or, as a hang guard, HANG_NS.  Otherwise (S slept
 * in the queue: O's unlock wakes S, which a hog would keep from running
 * and R behind it, a stall of any wake-one lock) H stops at once.
 */
static void *relay_hog(void *arg)
{
	struct sched_param sp = { .sched_priority = 50 };
	struct relay *r = arg;
	uint64_t v, end;

	pin_cpu(1);
	r->h_tid = gettid_();
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		r->rt_fail = 1;
		return NULL;
	}
	if (read(r->efd_h, &v, sizeof(v)) != sizeof(v))
		return NULL;
	/* S runnable: preempted in the lock call (else it sleeps queued) */
	r->s_preempted = task_state(getpid(), r->s_tid) == 'R';
	v = 1;
	if (write(r->efd_r, &v, sizeof(v)) != sizeof(v))
		return NULL;
	if (!r->s_preempted)
		return NULL;
	end = now_ns(CLOCK_MONOTONIC) + HANG_NS;
	while (!r->r_got) {
		if (relay_stalled(r)) {
			r->stalled = 1;
			break;
		}
		if (now_ns(CLOCK_MONOTONIC) > end) {
			r->capped = 1;
			break;
		}
	}
	return NULL;
}

static void *relay_sleeper(void *arg)
{
	struct relay *r = arg;
	uint64_t t0, v;

	pin_cpu(0);
	r->r_tid = gettid_();
	if (read(r->efd_r, &v, sizeof(v)) != sizeof(v))
		return NULL;
	t0 = now_ns(CLOCK_MONOTONIC);
	r->r_ret = flock(&r->word, FUTEX_LOCK | PRIV, NULL);
	r->r_got = 1;
	r->r_wait_ns = now_ns(CLOCK_MONOTONIC) - t0;
	if (!r->r_ret)
		funlock(&r->word, PRIV);
	return NULL;
}

/*
 * S spins (FUTEX_LOCK_ADAPTIVE) on O, which runs on CPU 0 holding the
 * lock.  Once S spins, a SCHED_FIFO hog H wakes on S's CPU, so S stops on
 * need_resched and is preempted there (on a preemptible kernel).  R then
 * calls FUTEX_LOCK, and O unlocks once R sleeps.  R must get the lock
 * while H keeps S off its CPU: before the fix S stayed registered as the
 * spinner, R slept as a relay sleeper without FUTEX_WAITERS, O's unlock
 * stayed in user space and R slept on the free lock until S ran again
 * (with RT throttling, after up to a second; without, never) (review
 * F1).  The test judges no time: H runs until R has the lock, and the
 * failure is the state itself (R asleep in futex(2) on a free lock after
 * O's unlock, relay_stalled()), or a hang of HANG_NS.  Rounds in which S
 * was not preempted in the lock call prove nothing but must not stall
 * either.
 */
#define RELAY_ROUNDS	24

static void relay_rounds(struct __test_metadata *_metadata, int entry)
{
	long long old = knob_get("spin_max_ns");
	long long old_delay = knob_get("delay_check_owner_us");
	long long nr0 = stat_get("spin_stop_need_resched"), hits = 0, nrs = 0;
	struct spin_policy pol;
	int rounds;

	REQUIRE_OPS();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs");
	if (old < 0 || nr0 < 0)
		SKIP(return, "needs debugfs spin_max_ns and stats");
	if (entry && old_delay < 0)
		SKIP(return, "no " STATS_DIR "delay_check_owner_us (CONFIG_FUTEX_LOCK_DEBUG)");
	if (entry)
		knob_set("delay_check_owner_us", 5000);
	spin_policy_save(&pol);
	spin_policy_fixed(1000000);
	pin_cpu(0);
	/*
	 * Under TCG the spinner is preempted inside the call in about 1 of
	 * 8 rounds (base kernel booted preempt=full; fewer on the slower
	 * debug kernel): 8 rounds, then up to RELAY_ROUNDS until one hit.
	 */
	for (rounds = 0; rounds < RELAY_ROUNDS && (rounds < 8 || !hits); rounds++) {
		struct relay r = { .hold_ns = 1000000ull, .entry = entry };
		long long nr = stat_get("spin_stop_need_resched");
		pthread_t o, s, h, rs;

		r.efd_h = eventfd(0, 0);
		r.efd_r = eventfd(0, 0);
		ASSERT_GE(r.efd_h, 0);
		ASSERT_GE(r.efd_r, 0);
		/* H and R block in read(2) on their eventfds */
		ASSERT_EQ(0, pthread_create(&h, NULL, relay_hog, &r));
		ASSERT_TRUE(WAIT_FOR(r.rt_fail || (r.h_tid &&
				     task_sleeping_in(getpid(), r.h_tid, SYS_read))));
		if (r.rt_fail) {
			pthread_join(h, NULL);
			spin_policy_restore(&pol);
			if (entry)
				knob_set("delay_check_owner_us", old_delay);
			SKIP(return, "cannot use SCHED_FIFO");
		}
		ASSERT_EQ(0, pthread_create(&rs, NULL, relay_sleeper, &r));
		ASSERT_TRUE(WAIT_FOR(r.r_tid));
		ASSERT_TRUE(wait_sleeping_in(getpid(), r.r_tid, SYS_read));
		r.spins0 = stat_get("spin_attempts");
		ASSERT_EQ(0, pthread_create(&o, NULL, relay_owner, &r));
		while (!r.o_locked)
			usleep(100);
		ASSERT_EQ(0, pthread_create(&s, NULL, relay_spinner, &r));
		r.s_go = 1;
		pthread_join(h, NULL);
		pthread_join(rs, NULL);
		pthread_join(s, NULL);
		pthread_join(o, NULL);
		close(r.efd_h);
		close(r.efd_r);
		if (stat_get("spin_stop_need_resched") > nr)
			nrs++;
		TH_LOG("round %d: S %d, R %d, spin seen %d, S preempted %d, R stalled on the free lock %d, hang %d (R waited %llu us)",
		       rounds, r.s_ret, r.r_ret, r.seen, r.s_preempted,
		       r.stalled, r.capped, (unsigned long long)r.r_wait_ns / 1000);
		EXPECT_EQ(0, r.s_ret);
		EXPECT_EQ(0, r.r_ret);
		EXPECT_EQ(0, r.word);
		EXPECT_EQ(0, r.stalled);
		EXPECT_EQ(0, r.capped);
		/*
		 * Only a round in which S was preempted in the lock call
		 * tests F1.  In the others S's spin had ended (TCG: O saw
		 * it late) and S slept first in the queue.
		 */
		if (r.s_preempted && r.seen)
			hits++;
	}
	spin_policy_restore(&pol);
	if (entry)
		knob_set("delay_check_owner_us", old_delay);
	TH_LOG("S preempted %s in %lld of %d rounds; need_resched stops in %lld rounds",
	       entry ? "on its way to the spin" : "while spinning", hits, rounds, nrs);
	if (!hits)
		SKIP(return, "the spinner was never preempted in the lock call");
}

TEST(relay_stall_preempted_spinner)
{
	relay_rounds(_metadata, 0);
}

/*
 * The same with S preempted on its way into the spin rather than in it:
 * S is held in delay_check_owner_us under the hb lock when H wakes, so
 * it is preempted at the first preemption point after the owner check,
 * where v2 had already registered it as the spinner (review N2).
 */
TEST(relay_stall_preempted_spinner_entry)
{
	relay_rounds(_metadata, 1);
}

/* ------------------------------------------------------------------ */
/* F2: requeue of a FUTEX_LOCK waiter must fail */

struct rq_waiter {
	uint32_t *a;
	pid_t tid;
	volatile int done;
	int ret;
	uint32_t a_at_return;
};

static void *rq_waiter_fn(void *arg)
{
	struct rq_waiter *r = arg;

	r->tid = gettid_();
	r->ret = flock(r->a, FUTEX_LOCK | PRIV, NULL);
	r->a_at_return = *r->a;
	if (!r->ret)
		funlock(r->a, PRIV);
	r->done = 1;
	return NULL;
}

#ifndef SYS_futex_requeue
#define SYS_futex_requeue	456
#endif
#ifndef FUTEX2_SIZE_U32
#define FUTEX2_SIZE_U32		0x02
#endif
#ifndef FUTEX2_PRIVATE
#define FUTEX2_PRIVATE		FUTEX_PRIVATE_FLAG
#endif

struct waitv_ {
	uint64_t val, uaddr;
	uint32_t flags, reserved;
};

/*
 * W1 sleeps in FUTEX_LOCK(A), A owned by T0.  Moving W1 to B with
 * FUTEX_CMP_REQUEUE, FUTEX_REQUEUE or futex_requeue(2) must fail with
 * EINVAL: a FUTEX_UNLOCK(B) hand-off would otherwise return 0 to W1's
 * FUTEX_LOCK(A) while T0 owns A (review F2).
 */
TEST(requeue_lock_waiter_einval)
{
	long long old = knob_get("handoff_threshold");
	uint32_t a = 0, b;
	struct rq_waiter r = { .a = &a };
	struct waitv_ wv[2];
	struct holder h;
	pthread_t th;
	long ret;

	REQUIRE_OPS();
	if (old >= 0)
		knob_set("handoff_threshold", 0);	/* every unlock hands off */
	holder_start(&h, &a, 1);
	ASSERT_EQ(0, pthread_create(&th, NULL, rq_waiter_fn, &r));
	while (!r.tid)
		usleep(100);
	ASSERT_TRUE(wait_sleeping_in(getpid(), r.tid, SYS_futex));
	while (!(a & FUTEX_WAITERS))
		usleep(100);
	b = gettid_();	/* we own B */

	ret = futex_sys(&a, FUTEX_CMP_REQUEUE | PRIV, 0, (void *)1, &b, a);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EINVAL, errno);
	ret = futex_sys(&a, FUTEX_REQUEUE | PRIV, 0, (void *)1, &b, 0);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EINVAL, errno);
	memset(wv, 0, sizeof(wv));
	wv[0].uaddr = (uintptr_t)&a;
	wv[0].val = a;
	wv[0].flags = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE;
	wv[1].uaddr = (uintptr_t)&b;
	wv[1].flags = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE;
	ret = syscall(SYS_futex_requeue, wv, 0, 0, 1);
	if (!(ret == -1 && errno == ENOSYS)) {
		EXPECT_EQ(-1, ret);
		EXPECT_EQ(EINVAL, errno);
	}

	/*
	 * If W1 was moved to B, this hands B (not A) to it: B would then
	 * name W1, and W1 would return from FUTEX_LOCK(A) with A still
	 * held by the holder (a_at_return below).  Both are states, read
	 * without waiting for W1 to run.
	 */
	EXPECT_EQ(0, futex_sys(&b, FUTEX_UNLOCK | PRIV, 0, NULL, NULL, 0));
	EXPECT_EQ(0, b);	/* nobody waited on B: nobody was handed it */
	EXPECT_EQ(0, r.done);
	holder_stop(&h);
	pthread_join(th, NULL);
	if (old >= 0)
		knob_set("handoff_threshold", old);
	EXPECT_EQ(0, r.ret);
	EXPECT_EQ((uint32_t)r.tid, r.a_at_return & FUTEX_TID_MASK);
	EXPECT_EQ(0, a);
}

/*
 * The F2 check must leave plain requeue alone.  This is upstream's
 * futex_requeue "many" case (10 FUTEX_WAIT waiters on f1: wake 3, requeue
 * 7 to f2, then FUTEX_WAKE on f2 finds exactly 7) without its fixed 10 ms
 * sleep: it waits until every waiter sleeps in futex(2), which a TCG guest
 * running the debug kernel needs far longer than 10 ms to reach.
 */
#define RQ_PLAIN_N	10

struct plain_waiter {
	uint32_t *f1;
	volatile pid_t tid;
	int ret;
};

static void *plain_waiter_fn(void *arg)
{
	struct plain_waiter *p = arg;

	p->tid = gettid_();
	p->ret = futex_sys(p->f1, FUTEX_WAIT | PRIV, 0, NULL, NULL, 0) ?
		 -errno : 0;
	return NULL;
}

TEST(requeue_plain_waiters_wake3_requeue7)
{
	struct plain_waiter w[RQ_PLAIN_N];
	pthread_t th[RQ_PLAIN_N];
	uint32_t f1 = 0, f2 = 0;
	int i;

	for (i = 0; i < RQ_PLAIN_N; i++) {
		w[i] = (struct plain_waiter){ .f1 = &f1, .ret = 1 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, plain_waiter_fn, &w[i]));
	}
	for (i = 0; i < RQ_PLAIN_N; i++) {
		while (!w[i].tid)
			usleep(100);
		ASSERT_TRUE(wait_sleeping_in(getpid(), w[i].tid, SYS_futex));
	}
	EXPECT_EQ(RQ_PLAIN_N,
		  futex_sys(&f1, FUTEX_CMP_REQUEUE | PRIV, 3, (void *)7, &f2, 0));
	EXPECT_EQ(RQ_PLAIN_N - 3,
		  futex_sys(&f2, FUTEX_WAKE | PRIV, INT32_MAX, NULL, NULL, 0));
	/* whatever happened, let every waiter go before joining */
	futex_sys(&f1, FUTEX_WAKE | PRIV, INT32_MAX, NULL, NULL, 0);
	futex_sys(&f2, FUTEX_WAKE | PRIV, INT32_MAX, NULL, NULL, 0);
	for (i = 0; i < RQ_PLAIN_N; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, w[i].ret);
	}
}

/* ------------------------------------------------------------------ */
/* F3: an owner exiting between reading the word and the lookup */

struct exit_owner {
	uint32_t *word;
	int robust;
	volatile int locked, go, late;
	volatile pid_t tid;
	pid_t locker;
	struct robust_list_head head;
	struct robust_list node;
};

/* CPU time (utime + stime, clock ticks) of a task from /proc; -1 if gone */
static long task_cpu_ticks(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *p;
	unsigned long ut, st;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* after "comm)": state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime
	 */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return -1;
	return ut + st;
}

static void *exit_owner_fn(void *arg)
{
	struct exit_owner *e = arg;
	uint32_t tid = gettid_();
	uint64_t end;
	long ticks;

	if (e->robust) {
		/* the word is right after the node: futex_offset */
		e->head.list.next = &e->node;
		e->node.next = &e->head.list;
		e->head.futex_offset = (char *)e->word - (char *)&e->node;
		e->head.list_op_pending = NULL;
		if (syscall(SYS_set_robust_list, &e->head, sizeof(e->head)))
			return (void *)1;
	}
	e->tid = tid;
	if (flock(e->word, FUTEX_LOCK | PRIV, NULL))
		return (void *)2;
	e->locked = 1;
	while (!e->go)
		;
	/*
	 * The locker is in its delay (a busy wait in the kernel) once it has
	 * used 2 clock ticks of CPU since go: nothing else it does there
	 * takes that long.  Hang guard: HANG_NS.
	 */
	ticks = task_cpu_ticks(getpid(), e->locker);
	end = now_ns(CLOCK_MONOTONIC) + HANG_NS;
	while (task_cpu_ticks(getpid(), e->locker) < ticks + 2 &&
	       now_ns(CLOCK_MONOTONIC) < end)
		;
	/*
	 * If the locker is past its delay already (it set FUTEX_WAITERS),
	 * this round missed the window: unlock in the kernel (or, robust,
	 * die: the robust list wakes it) instead of leaving it asleep
	 * behind a dead owner.
	 */
	if (!e->robust &&
	    !atomic_compare_exchange_strong((_Atomic uint32_t *)e->word,
					    &tid, 0)) {
		e->late = 1;
		futex_sys(e->word, FUTEX_UNLOCK | PRIV, 0, NULL, NULL, 0);
	}
	syscall(SYS_exit, 0);	/* robust: dies holding the lock */
	return NULL;
}

/*
 * The locker reads the owner's TID, then (delay_check_owner_us) the owner
 * exits: robust (the word becomes OWNER_DIED, expect EOWNERDEAD) or after
 * unlocking (the word becomes 0, expect 0).  Reporting ESRCH there is the
 * exit race handle_exit_race() fixed for PI (review F3).
 */
static void exit_race_case(struct __test_metadata *_metadata, int robust)
{
	long long old = knob_get("delay_check_owner_us");
	int esrch = 0, late = 0, rounds = 4;

	/* the kernel's maximum: the owner exits within it unless descheduled */
	ASSERT_EQ(0, knob_set("delay_check_owner_us", 100000));
	for (int i = 0; i < rounds; i++) {
		struct exit_owner *e = calloc(1, sizeof(*e) + 64);
		uint32_t *word = (uint32_t *)(e + 1);
		pthread_t th;
		int ret;

		e->word = word;
		e->robust = robust;
		e->locker = gettid_();
		ASSERT_EQ(0, pthread_create(&th, NULL, exit_owner_fn, e));
		pthread_detach(th);
		while (!e->locked)
			usleep(100);
		e->go = 1;
		ret = flock(word, FUTEX_LOCK | PRIV, NULL);
		TH_LOG("round %d: %s (word %#x)", i, ret ? strerror(-ret) : "0",
		       *word);
		if (ret == -ESRCH)
			esrch++;
		EXPECT_EQ(robust ? -EOWNERDEAD : 0, ret);
		if (ret == 0 || ret == -EOWNERDEAD) {
			EXPECT_EQ((uint32_t)gettid_(), *word & FUTEX_TID_MASK);
			*word = 0;
		}
		/* the owner is gone before its struct is freed */
		EXPECT_TRUE(WAIT_FOR(e->tid && !task_state(getpid(), e->tid)));
		late += e->late;
		free(e);
	}
	knob_set("delay_check_owner_us", old);
	TH_LOG("ESRCH in %d of %d rounds; the owner unlocked after the delay in %d",
	       esrch, rounds, late);
}

TEST(exit_race_robust_owner_eownerdead)
{
	REQUIRE_OPS();
	REQUIRE_KNOB("delay_check_owner_us");
	exit_race_case(_metadata, 1);
}

TEST(exit_race_unlock_exit_no_esrch)
{
	REQUIRE_OPS();
	REQUIRE_KNOB("delay_check_owner_us");
	exit_race_case(_metadata, 0);
}

/* ------------------------------------------------------------------ */
/* F6 / F7: a woken waiter that leaves must pass the wake-up on */

struct w2 {
	uint32_t *word;
	int flags;
	pid_t tid;
	int ret;
	uint64_t t_done;
	struct timespec to;
};

static void *w2_fn(void *arg)
{
	struct w2 *x = arg;

	x->tid = gettid_();
	x->ret = flock(x->word, FUTEX_LOCK | x->flags, &x->to);
	x->t_done = now_ns(CLOCK_MONOTONIC);
	return NULL;
}

/*
 * Owner P, sleepers W1 (child process, first in the queue) and W2 (thread).
 * FUTEX_UNLOCK wakes W1 and leaves the word 0; W1 is SIGKILLed while it
 * is held in delay_after_wake_ms (state D in futex(2): the kill is sent
 * once W1 is seen there, and the round counts only if W1 is still there
 * after the kill).  W1 must not take the free lock and die holding it: W2
 * gets it (review F6).  Before the fix W2 slept until its timeout and
 * then got ESRCH (owner: dead W1); the timeout (HANG_NS) is a hang guard.
 */
TEST(fatal_signal_woken_waiter_passes_on)
{
	long long old = knob_get("delay_after_wake_ms");
	uint32_t *word = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct w2 x = { .word = word, .flags = 0 };
	long long thr;
	uint64_t t0;
	pthread_t th;
	int status, in_delay;
	pid_t pid;

	REQUIRE_OPS();
	REQUIRE_KNOB("delay_after_wake_ms");
	ASSERT_NE(MAP_FAILED, word);
	*word = gettid_();
	pid = fork();
	if (!pid) {
		flock(word, FUTEX_LOCK, NULL);
		_exit(0);
	}
	ASSERT_TRUE(wait_sleeping_in(pid, pid, SYS_futex));
	ASSERT_TRUE(WAIT_FOR(*word & FUTEX_WAITERS));
	x.to = abs_in(CLOCK_MONOTONIC, HANG_NS);
	ASSERT_EQ(0, pthread_create(&th, NULL, w2_fn, &x));
	ASSERT_TRUE(WAIT_FOR(x.tid));
	ASSERT_TRUE(wait_sleeping_in(getpid(), x.tid, SYS_futex));

	thr = knob_get("handoff_threshold");
	knob_set("handoff_threshold", 1000);	/* wake W1, no hand-off */
	/* the kernel's maximum: W1 is still in it after the kill */
	ASSERT_EQ(0, knob_set("delay_after_wake_ms", 1000));
	t0 = now_ns(CLOCK_MONOTONIC);
	EXPECT_EQ(0, funlock(word, 0));		/* wakes W1 */
	in_delay = WAIT_FOR(task_state(pid, pid) == 'D' ||
			    task_state(pid, pid) == 'Z' || !task_state(pid, pid)) &&
		   task_state(pid, pid) == 'D';
	kill(pid, SIGKILL);
	in_delay = in_delay && task_state(pid, pid) == 'D';
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	pthread_join(th, NULL);
	knob_set("delay_after_wake_ms", old);
	if (thr >= 0)
		knob_set("handoff_threshold", thr);
	TH_LOG("W2: %s after %llu ms, word %#x (W1 %d, killed in its delay %d)",
	       x.ret ? strerror(-x.ret) : "0",
	       (unsigned long long)(x.t_done - t0) / 1000000, *word, pid,
	       in_delay);
	if (!in_delay) {
		munmap(word, 4096);
		SKIP(return, "W1 was not in its delay when killed");
	}
	EXPECT_EQ(0, x.ret);
	EXPECT_EQ((uint32_t)x.tid, *word & FUTEX_TID_MASK);
	munmap(word, 4096);
}

/*
 * As above, but W1 (a thread) faults: the page is made PROT_NONE while W1
 * sits in delay_after_wake_ms (state D in futex(2), seen before and after
 * the mprotect()), so W1 returns EFAULT.  It must pass the wake-up on:
 * W2 returns (EFAULT, or 0 once the page is back).  Before the fix
 * nobody woke W2: it returned ETIMEDOUT at its timeout, here HANG_NS, a
 * hang guard (review F7).
 */
TEST(efault_woken_waiter_passes_on)
{
	long long old = knob_get("delay_after_wake_ms");
	uint32_t *word = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct w2 x1 = { .word = word, .flags = PRIV };
	struct w2 x2 = { .word = word, .flags = PRIV };
	pthread_t t1, t2;
	long long thr;
	int in_delay;
	uint64_t t0;

	REQUIRE_OPS();
	REQUIRE_KNOB("delay_after_wake_ms");
	ASSERT_NE(MAP_FAILED, word);
	*word = gettid_();
	x1.to = abs_in(CLOCK_MONOTONIC, 2 * HANG_NS);
	ASSERT_EQ(0, pthread_create(&t1, NULL, w2_fn, &x1));
	ASSERT_TRUE(WAIT_FOR(x1.tid));
	ASSERT_TRUE(wait_sleeping_in(getpid(), x1.tid, SYS_futex));
	x2.to = abs_in(CLOCK_MONOTONIC, HANG_NS);
	ASSERT_EQ(0, pthread_create(&t2, NULL, w2_fn, &x2));
	ASSERT_TRUE(WAIT_FOR(x2.tid));
	ASSERT_TRUE(wait_sleeping_in(getpid(), x2.tid, SYS_futex));

	thr = knob_get("handoff_threshold");
	knob_set("handoff_threshold", 1000);	/* wake W1, no hand-off */
	/* the kernel's maximum: W1 is still in it after the mprotect() */
	ASSERT_EQ(0, knob_set("delay_after_wake_ms", 1000));
	EXPECT_EQ(0, funlock(word, PRIV));	/* wakes W1 */
	in_delay = WAIT_FOR(task_state(getpid(), x1.tid) == 'D' || x1.t_done) &&
		   task_state(getpid(), x1.tid) == 'D';
	ASSERT_EQ(0, mprotect(word, 4096, PROT_NONE));
	in_delay = in_delay && task_state(getpid(), x1.tid) == 'D';
	pthread_join(t1, NULL);
	t0 = now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, mprotect(word, 4096, PROT_READ | PROT_WRITE));
	knob_set("delay_after_wake_ms", old);
	if (thr >= 0)
		knob_set("handoff_threshold", thr);
	pthread_join(t2, NULL);
	TH_LOG("W1 %s (faulted in its delay %d); W2 %s %llu ms after W1 returned",
	       x1.ret ? strerror(-x1.ret) : "0", in_delay,
	       x2.ret ? strerror(-x2.ret) : "0",
	       (unsigned long long)(x2.t_done - t0) / 1000000);
	munmap(word, 4096);
	if (!in_delay)
		SKIP(return, "W1 was not in its delay when the page went");
	EXPECT_EQ(-EFAULT, x1.ret);
	EXPECT_NE(-ETIMEDOUT, x2.ret);
}

/* ------------------------------------------------------------------ */
/* F8: an expired timeout */

/*
 * A deadline that has passed on a lock held by a running owner: ETIMEDOUT
 * without setting FUTEX_WAITERS (which would send the owner's unlock into
 * the kernel for nothing) and, for ADAPTIVE, without spinning (review F8).
 */
TEST(timeout_expired_no_waiters_bit)
{
	uint32_t w = 0;
	struct timespec ts;
	struct holder h;

	REQUIRE_OPS();
	holder_start(&h, &w, 0);
	ts = abs_in(CLOCK_MONOTONIC, 0);
	EXPECT_EQ(-ETIMEDOUT, flock(&w, FUTEX_LOCK | PRIV, &ts));
	EXPECT_EQ(0, w & FUTEX_WAITERS);
	EXPECT_EQ(-ETIMEDOUT, flock(&w, FUTEX_LOCK_ADAPTIVE | PRIV, &ts));
	EXPECT_EQ(0, w & FUTEX_WAITERS);
	ts = abs_in(CLOCK_REALTIME, 0);
	EXPECT_EQ(-ETIMEDOUT, flock(&w, FUTEX_LOCK_ADAPTIVE | PRIV |
				    FUTEX_CLOCK_REALTIME, &ts));
	EXPECT_EQ(0, w & FUTEX_WAITERS);
	holder_stop(&h);
	EXPECT_EQ(0, w);
}

TEST(timeout_expired_adaptive_no_spin)
{
	long long old = knob_get("spin_max_ns");
	long long sp0 = stat_get("spin_attempts");
	struct timespec ts;
	struct holder h;
	uint32_t w = 0;
	struct spin_policy pol;
	uint64_t t0, dt;

	REQUIRE_OPS();
	if (old < 0 || sp0 < 0)
		SKIP(return, "no debugfs spin_max_ns / stats");
	spin_policy_save(&pol);
	spin_policy_fixed(1000000);
	holder_start(&h, &w, 0);	/* owner keeps running */
	ts = abs_in(CLOCK_MONOTONIC, 0);
	sp0 = stat_get("spin_attempts");
	t0 = now_ns(CLOCK_MONOTONIC);
	EXPECT_EQ(-ETIMEDOUT, flock(&w, FUTEX_LOCK_ADAPTIVE | PRIV, &ts));
	dt = now_ns(CLOCK_MONOTONIC) - t0;
	EXPECT_EQ(0, stat_get("spin_attempts") - sp0);
	holder_stop(&h);
	spin_policy_restore(&pol);
	TH_LOG("ETIMEDOUT after %llu us", (unsigned long long)dt / 1000);
}

/* ------------------------------------------------------------------ */
/* F12: debugfs shows what the kernel uses */

TEST(spin_max_ns_shows_effective_value)
{
	long long old = knob_get("spin_max_ns");

	REQUIRE_OPS();
	if (old < 0)
		SKIP(return, "no debugfs spin_max_ns");
	knob_set("spin_max_ns", 10000000);	/* 10 ms, above the 1 ms cap */
	EXPECT_EQ(1000000, knob_get("spin_max_ns"));
	if (stat_get("spin_max_ns") >= 0)
		EXPECT_EQ(1000000, stat_get("spin_max_ns"));
	knob_set("spin_max_ns", 50000);
	EXPECT_EQ(50000, knob_get("spin_max_ns"));
	knob_set("spin_max_ns", old);
}

/* ------------------------------------------------------------------ */
/*
 * The spin policy (issue 17): each rule is a debugfs switch and its
 * effect a counter.  These skip without the stats file, but fail on a
 * kernel that has stats and not the policy (the v4 series).
 */
#define REQUIRE_SPIN_POLICY() do {					\
	REQUIRE_OPS();							\
	if (stat_get("spin_attempts") < 0)				\
		SKIP(return, "no " STATS_DIR "stats (CONFIG_FUTEX_LOCK_STATS)"); \
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || !kernel_smp())	\
		SKIP(return, "spinning needs 2 CPUs and an SMP kernel");	\
	ASSERT_GE(0, knob_get("fake_nr_running"))			\
		TH_LOG("fake_nr_running left set (by a test that failed?)"); \
} while (0)

TEST(spin_policy_rules_are_switches)
{
	REQUIRE_SPIN_POLICY();
	for (size_t i = 0; i < NR_SPIN_RULES; i++) {
		char path[128];
		int v = knob_get_bool(spin_rules[i]), fd;

		TH_LOG("%s: %d", spin_rules[i], v);
		ASSERT_NE(-1, v);
		ASSERT_EQ(0, knob_set(spin_rules[i], 0));
		EXPECT_EQ(0, knob_get_bool(spin_rules[i]));
		ASSERT_EQ(0, knob_set(spin_rules[i], 1));
		EXPECT_EQ(1, knob_get_bool(spin_rules[i]));
		/* not a boolean: debugfs ignores it (and says 6 bytes written) */
		snprintf(path, sizeof(path), STATS_DIR "%s", spin_rules[i]);
		fd = open(path, O_WRONLY);
		ASSERT_LE(0, fd);
		EXPECT_EQ(6, write(fd, "maybe\n", 6));
		close(fd);
		EXPECT_EQ(1, knob_get_bool(spin_rules[i]));
		knob_set(spin_rules[i], v);
	}
}

/*
 * The budget is the measured cost of blocking: FUTEX_UNLOCK's wake-ups
 * (a sleeping owner, 8 rounds) move wake_latency_ns, and spin_budget_ns
 * is that (capped at 1 ms), or the fixed spin_max_ns with spin_calibrate
 * off.  No value is asserted: only that it is measured and used.
 */
TEST(spin_budget_follows_wake_latency)
{
	long long lat0, lat1, delta, samples;
	struct spin_policy pol;

	REQUIRE_SPIN_POLICY();
	spin_policy_save(&pol);
	ASSERT_NE(-1, pol.rule[1]);
	knob_set("spin_calibrate", 1);
	samples = stat_get("wake_samples");
	ASSERT_LE(0, samples);
	lat0 = stat_get("wake_latency_ns");
	ASSERT_LE(0, lat0);
	EXPECT_EQ(lat0 < 1000000 ? lat0 : 1000000, stat_get("spin_budget_ns"));
	spin_case(_metadata, 1, 0, 8, "wakeups_unlock", &delta, NULL);
	lat1 = stat_get("wake_latency_ns");
	samples = stat_get("wake_samples") - samples;
	TH_LOG("wake_latency_ns %lld -> %lld after %lld wake-ups, %lld timed",
	       lat0, lat1, delta, samples);
	EXPECT_GE(delta, 8);
	EXPECT_GE(samples, 8);
	EXPECT_NE(lat0, lat1);
	EXPECT_EQ(lat1 < 1000000 ? lat1 : 1000000, stat_get("spin_budget_ns"));
	knob_set("spin_calibrate", 0);
	knob_set("spin_max_ns", 54321);
	EXPECT_EQ(54321, stat_get("spin_budget_ns"));
	spin_policy_restore(&pol);
}

/*
 * A thread that keeps one CPU busy until told to stop (the spin rules'
 * tests); with @idle at SCHED_IDLE, runnable but yielding to everybody.
 */
struct cpu_hog {
	volatile int stop;
	int cpu;
	bool idle;
};

static void *cpu_hog_fn(void *arg)
{
	struct cpu_hog *h = arg;
	struct sched_param sp = { 0 };

	pin_cpu(h->cpu);
	if (h->idle)
		sched_setscheduler(0, SCHED_IDLE, &sp);
	while (!h->stop)
		;
	return NULL;
}

#define MAX_HOGS	64

/* Start up to @n hogs (at most MAX_HOGS) sharing @h; return how many started. */
static int cpu_hogs_start(pthread_t *t, int n, struct cpu_hog *h)
{
	int i;

	for (i = 0; i < n && i < MAX_HOGS; i++)
		if (pthread_create(&t[i], NULL, cpu_hog_fn, h))
			break;
	return i;
}

/* Stop the @n hogs of cpu_hogs_start() and wait for them. */
static void cpu_hogs_stop(pthread_t *t, int n, struct cpu_hog *h)
{
	h->stop = 1;
	while (n)
		pthread_join(t[--n], NULL);
}

/*
 * A thread that never sleeps shares the spinner's CPU: it is runnable
 * whenever the spinner runs.  With spin_check_runnable no spin starts
 * (spin_skipped_runnable) or one stops (spin_stop_runnable, if the hog
 * was not on the run queue when the spin started); without it, neither
 * counter moves.  The budget is the fixed 1 ms, so that the rule, not a
 * short budget, decides.
 */
static void runnable_case(struct __test_metadata *_metadata, int rule,
			  long long *stops, long long *spins)
{
	long long r0 = stat_get("spin_stop_runnable");
	long long k0 = stat_get("spin_skipped_runnable");
	struct spin_policy pol;
	struct cpu_hog hog_arg = { .stop = 0, .cpu = 1 };
	pthread_t hog;

	spin_policy_save(&pol);
	ASSERT_NE(-1, pol.rule[0]);
	ASSERT_LE(0, r0);
	ASSERT_LE(0, k0);
	knob_set("spin_check_runnable", rule);
	spin_policy_fixed(1000000);
	ASSERT_EQ(0, pthread_create(&hog, NULL, cpu_hog_fn, &hog_arg));
	spin_case(_metadata, 0, 0, 8, "spin_attempts", spins, NULL);
	hog_arg.stop = 1;
	pthread_join(hog, NULL);
	k0 = stat_get("spin_skipped_runnable") - k0;
	r0 = stat_get("spin_stop_runnable") - r0;
	*stops = k0 + r0;
	spin_policy_restore(&pol);
	TH_LOG("spin_check_runnable %d: spin_skipped_runnable +%lld, spin_stop_runnable +%lld, spins %lld, over 8 rounds",
	       rule, k0, r0, *spins);
}

TEST(spin_stops_when_another_task_is_runnable)
{
	long long stops, spins;

	REQUIRE_SPIN_POLICY();
	runnable_case(_metadata, 1, &stops, &spins);
	EXPECT_GE(stops, 1);
}

TEST(spin_rule_runnable_off_never_stops_for_it)
{
	long long stops, spins;

	REQUIRE_SPIN_POLICY();
	runnable_case(_metadata, 0, &stops, &spins);
	EXPECT_GE(spins, 1);
	EXPECT_EQ(0, stops);
}

/*
 * The owner keeps running on CPU 0 and holds the lock throughout; we call
 * FUTEX_LOCK_ADAPTIVE on CPU 1 with a 400 us timeout, 50 times, with a
 * fixed 100 us budget: every spin runs out on one running owner
 * (spin_backoff_started), and as the back-off doubles with each, later
 * calls fall into it and skip the spin (spin_backoff_skipped).  A call
 * whose spin stopped for another reason proves nothing: with no spin run
 * out at all the test skips.
 */
struct busy_owner {
	uint32_t word;
	volatile int locked, release;
};

static void *busy_owner_fn(void *arg)
{
	struct busy_owner *o = arg;

	pin_cpu(0);
	if (flock(&o->word, FUTEX_LOCK | PRIV, NULL))
		return (void *)1;
	o->locked = 1;
	while (!o->release)
		;
	funlock(&o->word, PRIV);
	return NULL;
}

static void backoff_case(struct __test_metadata *_metadata, int rule,
			 long long *started, long long *skipped,
			 long long *timeouts)
{
	long long b0 = stat_get("spin_backoff_started");
	long long s0 = stat_get("spin_backoff_skipped");
	long long t0 = stat_get("spin_stop_timeout");
	struct busy_owner o = { 0 };
	struct spin_policy pol;
	int etimedout = 0;
	pthread_t th;

	spin_policy_save(&pol);
	ASSERT_NE(-1, pol.rule[2]);
	ASSERT_LE(0, b0);
	ASSERT_LE(0, s0);
	spin_policy_fixed(100000);
	knob_set("spin_backoff", rule);
	pin_cpu(1);
	ASSERT_EQ(0, pthread_create(&th, NULL, busy_owner_fn, &o));
	while (!o.locked)
		usleep(100);
	for (int i = 0; i < 50; i++) {
		struct timespec ts = abs_in(CLOCK_MONOTONIC, 400000);

		etimedout += flock(&o.word, FUTEX_LOCK_ADAPTIVE | PRIV, &ts) == -ETIMEDOUT;
	}
	o.release = 1;
	pthread_join(th, NULL);
	*started = stat_get("spin_backoff_started") - b0;
	*skipped = stat_get("spin_backoff_skipped") - s0;
	*timeouts = stat_get("spin_stop_timeout") - t0;
	spin_policy_restore(&pol);
	TH_LOG("spin_backoff %d: 50 calls, %d ETIMEDOUT; spin_stop_timeout +%lld spin_backoff_started +%lld spin_backoff_skipped +%lld",
	       rule, etimedout, *timeouts, *started, *skipped);
	EXPECT_EQ(50, etimedout);
	EXPECT_EQ(0, o.word);
}

TEST(spin_backs_off_after_spins_run_out)
{
	long long started, skipped, timeouts;

	REQUIRE_SPIN_POLICY();
	backoff_case(_metadata, 1, &started, &skipped, &timeouts);
	if (timeouts == 0)
		SKIP(return, "no spin ran out of its budget");
	EXPECT_GE(started, 1);
	EXPECT_LE(started, timeouts);
	EXPECT_GE(skipped, 1);
}

TEST(spin_rule_backoff_off_skips_nothing)
{
	long long started, skipped, timeouts;

	REQUIRE_SPIN_POLICY();
	backoff_case(_metadata, 0, &started, &skipped, &timeouts);
	if (timeouts == 0)
		SKIP(return, "no spin ran out of its budget");
	EXPECT_EQ(0, started);
	EXPECT_EQ(0, skipped);
}

/*
 * A caller that was not woken does not spin past sleeping waiters: with a
 * FUTEX_LOCK waiter queued behind an owner that keeps running on CPU 0,
 * no FUTEX_LOCK_ADAPTIVE call (10, each with a 2 ms timeout) spins with
 * spin_check_waiters on: they block at once (spin_skipped_waiters; a call
 * that reaches the kernel after its timeout under a loaded emulator
 * neither spins nor skips); with it off they may spin (unless another
 * task was runnable on our CPU).  With @stale the word gets W by hand
 * instead and nobody is queued: W left behind by a woken waiter that took
 * the word says nothing about sleepers, and the calls spin with the rule
 * on as well.
 */
struct waiters_sleeper {
	struct busy_owner *o;
	int ret;
};

static void *waiters_sleeper_fn(void *arg)
{
	struct waiters_sleeper *sl = arg;

	sl->ret = flock(&sl->o->word, FUTEX_LOCK | PRIV, NULL);
	if (!sl->ret)
		sl->ret = funlock(&sl->o->word, PRIV);
	return NULL;
}

static void waiters_skip_case(struct __test_metadata *_metadata, int rule,
			      bool stale, long long *skipped, long long *spins)
{
	long long k0 = stat_get("spin_skipped_waiters");
	long long a0 = stat_get("spin_attempts");
	struct busy_owner o = { 0 };
	struct waiters_sleeper sl = { .o = &o, .ret = -1 };
	struct spin_policy pol;
	pthread_t th, sth;
	int etimedout = 0;

	spin_policy_save(&pol);
	ASSERT_NE(-1, pol.rule[3]);
	ASSERT_LE(0, k0);
	spin_policy_fixed(100000);
	knob_set("spin_check_waiters", rule);
	pin_cpu(1);
	ASSERT_EQ(0, pthread_create(&th, NULL, busy_owner_fn, &o));
	while (!o.locked)
		usleep(100);
	if (stale) {
		__atomic_fetch_or(&o.word, FUTEX_WAITERS, __ATOMIC_SEQ_CST);
	} else {
		/* W is set under the hb lock that also queues the sleeper */
		ASSERT_EQ(0, pthread_create(&sth, NULL, waiters_sleeper_fn, &sl));
		while (!(__atomic_load_n(&o.word, __ATOMIC_SEQ_CST) & FUTEX_WAITERS))
			usleep(100);
	}
	for (int i = 0; i < 10; i++) {
		struct timespec ts = abs_in(CLOCK_MONOTONIC, 2000000);

		etimedout += flock(&o.word, FUTEX_LOCK_ADAPTIVE | PRIV, &ts) == -ETIMEDOUT;
	}
	*skipped = stat_get("spin_skipped_waiters") - k0;
	*spins = stat_get("spin_attempts") - a0;
	o.release = 1;
	pthread_join(th, NULL);
	if (!stale) {
		pthread_join(sth, NULL);
		EXPECT_EQ(0, sl.ret);
	}
	spin_policy_restore(&pol);
	TH_LOG("spin_check_waiters %d, %s: 10 calls, %d ETIMEDOUT; spin_skipped_waiters +%lld, spin_attempts +%lld",
	       rule, stale ? "stale W, nobody queued" : "one sleeper queued",
	       etimedout, *skipped, *spins);
	EXPECT_EQ(10, etimedout);
	EXPECT_EQ(0, o.word);
}

TEST(spin_skipped_past_sleeping_waiters)
{
	long long skipped, spins;

	REQUIRE_SPIN_POLICY();
	waiters_skip_case(_metadata, 1, false, &skipped, &spins);
	EXPECT_GE(skipped, 1);
	EXPECT_EQ(0, spins);
}

TEST(spin_rule_waiters_off_spins_past_them)
{
	long long skipped, spins;

	REQUIRE_SPIN_POLICY();
	waiters_skip_case(_metadata, 0, false, &skipped, &spins);
	EXPECT_EQ(0, skipped);
	EXPECT_GE(spins, 1);
}

TEST(spin_not_skipped_for_stale_waiters_bit)
{
	long long skipped, spins;

	REQUIRE_SPIN_POLICY();
	waiters_skip_case(_metadata, 1, true, &skipped, &spins);
	EXPECT_EQ(0, skipped);
	EXPECT_GE(spins, 1);
}

/*
 * No spin starts while the machine has more runnable tasks than CPUs: the
 * owner keeps running on CPU 0 and holds the lock, as many busy threads
 * as there are CPUs share CPU 0 with it, and we call FUTEX_LOCK_ADAPTIVE
 * on CPU 1 (alone there) 10 times with a 2 ms timeout.  With
 * spin_check_overload on no call spins (spin_skipped_overload); with it
 * off they may.  The runnable rule is switched off, so that a busy
 * thread that strays onto CPU 1 cannot decide instead.
 *
 * @fake (CONFIG_FUTEX_LOCK_DEBUG): no busy threads; fake_nr_running
 * stands in for the count instead, so that the rule is met exactly at
 * its boundary whatever else the machine runs: as many runnable tasks as
 * CPUs is not overcommitted, one more is.
 */
static void overload_case(struct __test_metadata *_metadata, int rule,
			  long fake, long long *skipped, long long *spins)
{
	long long k0 = stat_get("spin_skipped_overload");
	long long a0 = stat_get("spin_attempts");
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct busy_owner o = { 0 };
	struct spin_policy pol;
	struct cpu_hog hog_arg = { .stop = 0, .cpu = 0 };
	pthread_t th, hogs[MAX_HOGS];
	int etimedout = 0, nhogs = 0, want_hogs = fake ? 0 : ncpus;

	spin_policy_save(&pol);
	ASSERT_NE(-1, pol.rule[4]);
	ASSERT_LE(0, k0);
	spin_policy_fixed(100000);
	knob_set("spin_check_runnable", 0);
	knob_set("spin_check_overload", rule);
	pin_cpu(1);
	ASSERT_EQ(0, pthread_create(&th, NULL, busy_owner_fn, &o));
	while (!o.locked)
		usleep(100);
	nhogs = cpu_hogs_start(hogs, want_hogs, &hog_arg);
	ASSERT_EQ(want_hogs < MAX_HOGS ? want_hogs : MAX_HOGS, nhogs);
	usleep(20000);
	/* the fake only around the calls: no ASSERT between set and reset */
	if (fake)
		knob_set("fake_nr_running", fake);
	for (int i = 0; i < 10; i++) {
		struct timespec ts = abs_in(CLOCK_MONOTONIC, 2000000);

		etimedout += flock(&o.word, FUTEX_LOCK_ADAPTIVE | PRIV, &ts) == -ETIMEDOUT;
	}
	if (fake)
		knob_set("fake_nr_running", 0);
	*skipped = stat_get("spin_skipped_overload") - k0;
	*spins = stat_get("spin_attempts") - a0;
	cpu_hogs_stop(hogs, nhogs, &hog_arg);
	o.release = 1;
	pthread_join(th, NULL);
	spin_policy_restore(&pol);
	TH_LOG("spin_check_overload %d: %d busy threads beside the owner, fake_nr_running %ld (%ld CPUs); 10 calls, %d ETIMEDOUT; spin_skipped_overload +%lld, spin_attempts +%lld",
	       rule, nhogs, fake, ncpus, etimedout, *skipped, *spins);
	EXPECT_EQ(10, etimedout);
	EXPECT_EQ(0, o.word);
}

TEST(spin_skipped_while_overcommitted)
{
	long long skipped, spins;

	REQUIRE_SPIN_POLICY();
	overload_case(_metadata, 1, 0, &skipped, &spins);
	EXPECT_GE(skipped, 1);
	EXPECT_EQ(0, spins);
}

TEST(spin_check_overload_as_many_runnable_as_cpus_spins)
{
	long long skipped, spins;

	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("fake_nr_running");
	overload_case(_metadata, 1, sysconf(_SC_NPROCESSORS_ONLN), &skipped, &spins);
	EXPECT_EQ(0, skipped);
	EXPECT_GE(spins, 1);
}

TEST(spin_check_overload_one_more_runnable_than_cpus_skips)
{
	long long skipped, spins;

	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("fake_nr_running");
	overload_case(_metadata, 1, sysconf(_SC_NPROCESSORS_ONLN) + 1, &skipped, &spins);
	EXPECT_GE(skipped, 1);
	EXPECT_EQ(0, spins);
}

TEST(spin_rule_overload_off_spins_anyway)
{
	long long skipped, spins;

	REQUIRE_SPIN_POLICY();
	overload_case(_metadata, 0, 0, &skipped, &spins);
	EXPECT_EQ(0, skipped);
	EXPECT_GE(spins, 1);
}

/*
 * With waiters queued behind it, a woken waiter spins only after it has
 * lost the lock once, and then past at most QUEUE_MAX of them.  W1
 * (FUTEX_LOCK_ADAPTIVE) sleeps on CPU 1 behind us, the owner (on CPU 0,
 * asleep in usleep() meanwhile, so that W1 cannot spin on us), and
 * FUTEX_LOCK waiters W2... (CPU 1) behind it: some before round 1, some
 * between the rounds.  Each round we unlock with FUTEX_UNLOCK, which
 * wakes W1 into delay_after_wake_ms, take the word back in user space and
 * run on CPU 0 holding it until FUTEX_WAITERS is back, which W1 sets
 * under the hb lock after its spin, if any, ended (the fixed 100 us
 * budget): in round 1 W1 has not lost yet, in round 2 it has.  W1 sleeps
 * again at the back of the queue, so in round 2 the unlock wakes a waiter
 * queued before round 1 first; that one takes the lock and leaves, and
 * its unlock wakes W1, with those queued between the rounds behind it.
 * A round in which W1 ran before we took the word back proves nothing
 * (skip).  Per round the counters spin_skipped_first_wake,
 * spin_skipped_queue, spin_attempts, and what else can keep W1 from
 * spinning (spin_skipped_runnable, spin_busy) are read; they are
 * system-wide, so nothing else may use the ops meanwhile.  At the end our
 * unlock finds W1, and the waiters behind it follow, and the word is
 * free.
 */
/*
 * A thread that locks @word with @op (on CPU @cpu, unless it is -1),
 * waiting at most HANG_NS, unlocks it and says so in @done.
 */
struct lock_waiter {
	uint32_t *word;
	int op, cpu;
	pid_t tid;
	int ret;
	_Atomic int done;
};

static void *lock_waiter_fn(void *arg)
{
	struct lock_waiter *x = arg;
	struct timespec to = abs_in(CLOCK_MONOTONIC, HANG_NS);

	x->tid = gettid_();
	x->ret = x->cpu >= 0 && pin_cpu(x->cpu) ? -errno :
		 flock(x->word, x->op | PRIV, &to);
	if (!x->ret)
		x->ret = funlock(x->word, PRIV);
	atomic_store(&x->done, 1);
	return NULL;
}

struct first_wake_round {
	int valid;
	long long skipped, queue, spins, other;
};

static int spin_rule_index(const char *name)
{
	for (size_t i = 0; i < NR_SPIN_RULES; i++)
		if (!strcmp(spin_rules[i], name))
			return (int)i;
	return -1;
}

/* One round: wake W1 by FUTEX_UNLOCK with the word taken back meanwhile. */
static void first_wake_round(uint32_t *word, pid_t w1, struct first_wake_round *r)
{
	long long k0 = stat_get("spin_skipped_first_wake");
	long long q0 = stat_get("spin_skipped_queue");
	long long a0 = stat_get("spin_attempts");
	long long o0 = stat_get("spin_skipped_runnable") + stat_get("spin_busy");
	uint32_t zero = 0, tid = gettid_();
	uint64_t end;

	memset(r, 0, sizeof(*r));
	if (futex_sys(word, FUTEX_UNLOCK | PRIV, 0, NULL, NULL, 0) ||
	    !WAIT_FOR(task_state(getpid(), w1) == 'D'))
		return;
	/* the owner takes the lock back before W1 runs, and keeps running */
	r->valid = atomic_compare_exchange_strong((_Atomic uint32_t *)word,
						  &zero, tid);
	if (!r->valid)
		return;
	end = now_ns(CLOCK_MONOTONIC) + HANG_NS;
	while (!(__atomic_load_n(word, __ATOMIC_SEQ_CST) & FUTEX_WAITERS) &&
	       now_ns(CLOCK_MONOTONIC) < end)
		;
	r->valid = !!(__atomic_load_n(word, __ATOMIC_SEQ_CST) & FUTEX_WAITERS);
	r->skipped = stat_get("spin_skipped_first_wake") - k0;
	r->queue = stat_get("spin_skipped_queue") - q0;
	r->spins = stat_get("spin_attempts") - a0;
	r->other = stat_get("spin_skipped_runnable") + stat_get("spin_busy") - o0;
}

/*
 * At most this many FUTEX_LOCK waiters queue behind W1; a woken waiter
 * spins past at most QUEUE_MAX (the kernel's FUTEX_LOCK_SPIN_QUEUE_MAX).
 */
#define MAX_BEHIND	4
#define QUEUE_MAX	2

/*
 * Start FUTEX_LOCK waiters on CPU 1 until *@started reaches @upto, one at
 * a time, so that they queue in this order.  Return whether each went to
 * sleep in the call; no assertion here, as the caller may have knobs to
 * restore.
 */
static bool queue_behind(uint32_t *word, struct lock_waiter *wb,
			 pthread_t *tb, int *started, int upto)
{
	pid_t pid = getpid();

	while (*started < upto) {
		struct lock_waiter *x = &wb[*started];

		*x = (struct lock_waiter){ .word = word, .op = FUTEX_LOCK, .cpu = 1 };
		if (pthread_create(&tb[*started], NULL, lock_waiter_fn, x))
			return false;
		(*started)++;
		if (!WAIT_FOR(x->tid) ||
		    !wait_sleeping_in(pid, x->tid, SYS_futex))
			return false;
	}
	return true;
}

/*
 * FUTEX_LOCK waiters (W2...) queue behind W1: @behind of them before
 * round 1, @later between the rounds.  A waiter that sleeps again goes
 * to the back of the queue, so in round 2 W1 is first only if nobody was
 * queued behind it in round 1 (then those queued before have taken the
 * lock and left by round 2).  @queue_rule sets spin_check_queue (-1: as
 * it is).  Return whether the caller may judge the rounds: false once
 * the test failed or skipped here, so that a later SKIP cannot hide a
 * failure.
 */
static bool first_wake_case(struct __test_metadata *_metadata, int rule,
			    int behind, int later, int queue_rule,
			    struct first_wake_round r[2])
{
	long long old_delay = knob_get("delay_after_wake_ms");
	long long thr = knob_get("handoff_threshold");
	int idx = spin_rule_index("spin_check_first_wake");
	uint32_t word, tid = gettid_();
	struct lock_waiter w1 = { .word = &word, .op = FUTEX_LOCK_ADAPTIVE, .cpu = 1 };
	struct lock_waiter wb[MAX_BEHIND];
	struct spin_policy pol;
	pid_t pid = getpid();
	pthread_t t1, tb[MAX_BEHIND];
	int queued, started = 0;

	memset(r, 0, 2 * sizeof(*r));
	spin_policy_save(&pol);
	ASSERT_LE(0, idx);
	ASSERT_NE(-1, pol.rule[idx]);
	ASSERT_LE(0, thr);
	ASSERT_GE(MAX_BEHIND, behind + later);
	if (queue_rule >= 0)
		ASSERT_NE(-1, pol.rule[spin_rule_index("spin_check_queue")]);
	if (pin_cpu(0))
		SKIP(return false, "cannot pin to CPU 0: %s", strerror(errno));
	word = tid;
	ASSERT_EQ(0, pthread_create(&t1, NULL, lock_waiter_fn, &w1));
	queued = WAIT_FOR(w1.tid) && wait_sleeping_in(pid, w1.tid, SYS_futex);
	if (queued)
		queued = queue_behind(&word, wb, tb, &started, behind);
	/* knobs only now: nothing below returns before they are restored */
	spin_policy_fixed(100000);
	knob_set("spin_check_first_wake", rule);
	if (queue_rule >= 0)
		knob_set("spin_check_queue", queue_rule);
	knob_set("handoff_threshold", 1000);	/* W1 is woken, not handed it */
	knob_set("delay_after_wake_ms", 1000);
	for (int i = 0; queued && i < 2; i++) {
		if (i)
			queued = queue_behind(&word, wb, tb, &started,
					      behind + later);
		if (!queued)
			break;
		first_wake_round(&word, w1.tid, &r[i]);
		if (!r[i].valid)
			break;
	}
	knob_set("delay_after_wake_ms", old_delay);
	knob_set("handoff_threshold", thr);
	spin_policy_restore(&pol);
	if ((__atomic_load_n(&word, __ATOMIC_SEQ_CST) & FUTEX_TID_MASK) == tid)
		EXPECT_EQ(0, funlock(&word, PRIV));
	pthread_join(t1, NULL);
	for (int i = 0; i < started; i++)
		pthread_join(tb[i], NULL);
	for (int i = 0; i < 2; i++)
		TH_LOG("spin_check_first_wake %d, spin_check_queue %d, %d queued behind W1, round %d (W1 %s): %s; spin_skipped_first_wake +%lld, spin_skipped_queue +%lld, spin_attempts +%lld, spin_skipped_runnable/spin_busy +%lld",
		       rule, queue_rule, i ? later : behind, i + 1,
		       i ? "lost once" : "not lost yet",
		       r[i].valid ? "valid" : "W1 ran first, not counted",
		       r[i].skipped, r[i].queue, r[i].spins, r[i].other);
	ASSERT_TRUE(queued);	/* the knobs are restored by now */
	EXPECT_EQ(0, w1.ret);
	for (int i = 0; i < started; i++)
		EXPECT_EQ(0, wb[i].ret);
	EXPECT_EQ(0, word);
	return _metadata->exit_code == KSFT_PASS;
}

/*
 * Whether round 2 is there to judge; skip if W1 ran first, unless the
 * test failed already (a SKIP would hide that).
 */
static bool round_two(struct __test_metadata *_metadata,
		      const struct first_wake_round r[2])
{
	if (r[1].valid)
		return true;
	if (_metadata->exit_code == KSFT_PASS)
		SKIP(return false, "round 2: W1 ran before the owner took the word back");
	return false;
}

/* A round judged on spins: one spin, or none and something else stopped it. */
#define EXPECT_SPIN(r) do {						\
	EXPECT_EQ(0, (r).skipped);					\
	EXPECT_EQ(0, (r).queue);					\
	if ((r).spins || !(r).other)					\
		EXPECT_EQ(1, (r).spins);				\
} while (0)

TEST(spin_woken_spins_only_after_a_loss)
{
	struct first_wake_round r[2];

	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	if (!first_wake_case(_metadata, 1, 1, 1, -1, r))
		return;
	if (!r[0].valid)
		SKIP(return, "W1 ran before the owner took the word back");
	EXPECT_EQ(1, r[0].skipped);
	EXPECT_EQ(0, r[0].spins);
	if (!round_two(_metadata, r))
		return;
	EXPECT_SPIN(r[1]);
}

/* The first wake-up of W1 spins: nobody behind it, or the rule off. */
static void first_wake_spins(struct __test_metadata *_metadata, int rule,
			     int behind)
{
	struct first_wake_round r[2];

	if (!first_wake_case(_metadata, rule, behind, 0, -1, r))
		return;
	if (!r[0].valid)
		SKIP(return, "W1 ran before the owner took the word back");
	EXPECT_SPIN(r[0]);
}

TEST(spin_woken_spins_with_nobody_behind)
{
	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	first_wake_spins(_metadata, 1, 0);
}

TEST(spin_rule_first_wake_off_spins)
{
	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	first_wake_spins(_metadata, 0, 1);
}

/*
 * After its loss, W1 spins past QUEUE_MAX waiters and not past more (a
 * convoy).  Round 1 with nobody behind: W1 spins on us, the owner, for
 * its budget, blocks and has lost once.  Then @behind FUTEX_LOCK waiters
 * queue behind it, and round 2 is judged, with the queue rule on or off.
 * Return whether round 2 is there to judge.
 */
static bool queue_case(struct __test_metadata *_metadata, int behind,
		       int queue_rule, struct first_wake_round r[2])
{
	if (!first_wake_case(_metadata, 1, 0, behind, queue_rule, r))
		return false;
	if (!r[0].valid)
		SKIP(return false, "W1 ran before the owner took the word back");
	EXPECT_SPIN(r[0]);
	return round_two(_metadata, r);
}

TEST(spin_woken_not_past_more_than_queue_max)
{
	struct first_wake_round r[2];

	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	if (!queue_case(_metadata, QUEUE_MAX + 1, 1, r))
		return;
	EXPECT_EQ(0, r[1].skipped);
	EXPECT_EQ(1, r[1].queue);
	EXPECT_EQ(0, r[1].spins);
}

TEST(spin_woken_past_queue_max)
{
	struct first_wake_round r[2];

	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	if (!queue_case(_metadata, QUEUE_MAX, 1, r))
		return;
	EXPECT_SPIN(r[1]);
}

TEST(spin_rule_queue_off_spins)
{
	struct first_wake_round r[2];

	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	if (!queue_case(_metadata, QUEUE_MAX + 1, 0, r))
		return;
	EXPECT_SPIN(r[1]);
}

/*
 * The quiet start: in the first quarter of its budget a spin reads the
 * word less often, and spin_acquired_quiet counts the spins that took
 * the lock in it.  To make a spin take a free word in its first round,
 * the caller sits in delay_check_owner_us (3 ms, after it read the word
 * held and before it decides to spin) while the owner (running on CPU 0)
 * unlocks, 1 ms after our call; the budget is the fixed 1 ms, and the
 * runnable rule is off (the delay keeps the CPU from whatever became
 * runnable meanwhile, which is not what is tested).
 *
 * Not every round is such a round, and only the rounds that are prove
 * anything.  A call that reaches the word after the unlock takes it
 * without a spin; a spin may stop at once on need_resched(); and on a
 * loaded host the owner's vCPU can run late, so that the spin meets a
 * held word (once a run's one acquiring spin was not counted quiet, most
 * likely so).  So the counters are read around each round, and the owner
 * notes when its unlock had returned: a round is an early proof when its
 * spin took the lock and the unlock had returned before our call plus
 * half the delay (a margin for two clocks), so before the spin began.
 * Such a spin finds the word free at its first read: with
 * spin_quiet_start on, in the quiet start, unless its vCPU stalled for a
 * quarter of the budget between the spin's start and that read; so "on"
 * is asserted as at least one early proof, not as all of them.  With it
 * off no acquisition may count.  Runs are pooled (at most QUIET_TRIES,
 * half a second apart: a load spike need not last) until a test has the
 * proof it needs; a test without any skips.  The counters are global:
 * another FUTEX_LOCK_ADAPTIVE user running meanwhile can move them (run
 * the suite on an otherwise idle guest, as vm-test.sh does).
 */
#define QUIET_ROUNDS	10
#define QUIET_TRIES	5

/*
 * A late proof: a round of one spin (spin_attempts +1) that took the lock
 * after more than QUIET_LATE_ROUNDS rounds (spin_rounds).  Quiet rounds
 * are at least budget/64 apart (preemption is off, and a wait cut short
 * by need_resched() ends the spin), and the quiet start lasts budget/4:
 * a spin has at most 16 quiet rounds, and one of more than 24 took the
 * lock past its quiet start.  A stall only lowers the count.
 */
#define QUIET_LATE_ROUNDS	24

struct quiet_run {
	long long acquired, quiet;	/* the counters' moves, all rounds */
	int early, early_quiet;		/* early proofs; of them quiet */
	int late, late_quiet;		/* late proofs; of them quiet */
};

/* The counters a round reads, before it and after. */
struct quiet_stats {
	long long spins, rounds, acquired, quiet;
};

static void quiet_stats_get(struct quiet_stats *q)
{
	q->spins = stat_get("spin_attempts");
	q->rounds = stat_get("spin_rounds");
	q->acquired = stat_get("spin_acquired");
	q->quiet = stat_get("spin_acquired_quiet");
}

/* One round; the owner holds the lock and waits for s->calling. */
static void quiet_round(struct __test_metadata *_metadata,
			struct spin_owner *s, int i, long long delay_us,
			struct quiet_run *r)
{
	struct quiet_stats a, b;
	uint64_t t0;

	quiet_stats_get(&a);
	s->calling = i + 1;
	t0 = now_ns(CLOCK_MONOTONIC);
	EXPECT_EQ(0, flock(&s->word, FUTEX_LOCK_ADAPTIVE | PRIV, NULL));
	EXPECT_EQ(0, funlock(&s->word, PRIV));
	quiet_stats_get(&b);
	while (__atomic_load_n(&s->unlocked, __ATOMIC_ACQUIRE) != i + 1)
		;
	b.acquired -= a.acquired;
	b.quiet -= a.quiet;
	r->acquired += b.acquired;
	r->quiet += b.quiet;
	if (b.acquired > 0 && s->unlocked_ns < t0 + delay_us * 500) {
		r->early++;
		r->early_quiet += b.quiet > 0;
	}
	if (b.spins - a.spins == 1 && b.acquired == 1 &&
	    b.rounds - a.rounds > QUIET_LATE_ROUNDS) {
		r->late++;
		r->late_quiet += b.quiet > 0;
	}
}

/* QUIET_ROUNDS rounds, the owner unlocking hold_ns after our call. */
static void quiet_case(struct __test_metadata *_metadata, int on,
		       long long delay_us, uint64_t hold_ns,
		       struct quiet_run *r)
{
	struct spin_owner s = { .hold_ns = hold_ns, .at_call = 1,
				.rounds = QUIET_ROUNDS, .locker = gettid_() };
	long long delay = knob_get("delay_check_owner_us");
	long long spins = stat_get("spin_attempts");
	struct quiet_run run = { 0 };
	struct spin_policy pol;
	int i = 0, ok;
	pthread_t th;

	spin_policy_save(&pol);
	spin_policy_fixed(1000000);
	knob_set("spin_quiet_start", on);
	knob_set("delay_check_owner_us", delay_us);
	knob_set("spin_check_runnable", 0);
	ok = !pin_cpu(1) && !pthread_create(&th, NULL, spin_owner_fn, &s);
	EXPECT_TRUE(ok);
	for (; ok && i < s.rounds; i++) {
		while (s.locked != i + 1)
			;
		quiet_round(_metadata, &s, i, delay_us, &run);
		s.go = i + 1;
	}
	if (ok)
		pthread_join(th, NULL);
	knob_set("delay_check_owner_us", delay);
	spin_policy_restore(&pol);
	TH_LOG("spin_quiet_start %d: spin_acquired +%lld, spin_acquired_quiet +%lld",
	       on, run.acquired, run.quiet);
	TH_LOG("of %lld spins in %d rounds; proofs (quiet): early %d (%d), late %d (%d)",
	       stat_get("spin_attempts") - spins, i, run.early,
	       run.early_quiet, run.late, run.late_quiet);
	r->acquired += run.acquired;
	r->quiet += run.quiet;
	r->early += run.early;
	r->early_quiet += run.early_quiet;
	r->late += run.late;
	r->late_quiet += run.late_quiet;
}

/* Up to QUIET_TRIES runs of quiet_case(), until enough() holds of the pool. */
static void quiet_pool(struct __test_metadata *_metadata, int on,
		       long long delay_us, uint64_t hold_ns,
		       int (*enough)(const struct quiet_run *),
		       struct quiet_run *r)
{
	int t;

	*r = (struct quiet_run){ 0 };
	for (t = 0; t < QUIET_TRIES && !enough(r); t++) {
		if (t)
			usleep(500000);
		quiet_case(_metadata, on, delay_us, hold_ns, r);
	}
	TH_LOG("%d run(s): spin_acquired +%lld, spin_acquired_quiet +%lld",
	       t, r->acquired, r->quiet);
}

static int quiet_have_early(const struct quiet_run *r)
{
	return r->early > 0;
}

static int quiet_have_early_quiet(const struct quiet_run *r)
{
	return r->early_quiet > 0;
}

static int quiet_have_late(const struct quiet_run *r)
{
	return r->late > 0;
}

/* The quiet-start tests' prologue: the switch, its counters, the delay. */
#define REQUIRE_QUIET_START() do {					\
	REQUIRE_SPIN_POLICY();						\
	REQUIRE_KNOB("delay_check_owner_us");				\
	ASSERT_NE(-1, knob_get_bool("spin_quiet_start"));		\
	ASSERT_LE(0, stat_get("spin_acquired_quiet"));			\
	ASSERT_LE(0, stat_get("spin_rounds"));				\
} while (0)

TEST(spin_quiet_start_counts_its_acquisitions)
{
	struct quiet_run r;

	REQUIRE_QUIET_START();
	quiet_pool(_metadata, 1, 3000, 1000000, quiet_have_early_quiet, &r);
	if (!r.early)
		SKIP(return, "no spin found the word freed before it began");
	EXPECT_GE(r.early_quiet, 1);
	EXPECT_LE(r.quiet, r.acquired);
}

TEST(spin_quiet_start_off_counts_none)
{
	struct quiet_run r;

	REQUIRE_QUIET_START();
	quiet_pool(_metadata, 0, 3000, 1000000, quiet_have_early, &r);
	if (!r.early)
		SKIP(return, "no spin found the word freed before it began");
	EXPECT_EQ(0, r.quiet);
}

/*
 * The quiet start ends after a quarter of the budget: a spin that takes
 * the lock later is not counted in it.  The caller's delay is 1 ms and
 * the owner unlocks 1.6 ms after our call: the spin starts after the
 * delay, so the unlock comes some 600 us into it (about 38 rounds of a
 * quiet start that never ends), past its 250 us quiet start and before
 * its 1 ms budget ends, unless our way into the kernel took more than
 * 350 us (under load it can, in every round of a run).  So the test
 * asserts on late proofs only: none may count as quiet.  Runs are pooled
 * until one round is a late proof; without one the test skips.
 */
TEST(spin_quiet_start_ends_after_a_quarter)
{
	struct quiet_run r;

	REQUIRE_QUIET_START();
	quiet_pool(_metadata, 1, 1000, 1600000, quiet_have_late, &r);
	if (!r.late)
		SKIP(return, "no spin took the lock past its quiet start");
	EXPECT_EQ(0, r.late_quiet);
}

/*
 * spin_charge_call: a call that FUTEX_UNLOCK wakes three times (it loses
 * the word to us twice, as in first_wake_round(), then takes it) feeds
 * its CPU's average one value, the sum of its three wake-up samples, with
 * the switch on, and three values, the samples, with it off.  Counters
 * only, no timing: wake_samples (+3 either way), wake_charges,
 * wake_ns_sum and wake_charge_ns_sum (the sum, capped as a charge is).
 * They are system-wide: if the lock and unlock counts show another user
 * of the ops meanwhile, the test skips.  W1 (FUTEX_LOCK_ADAPTIVE) sleeps
 * on CPU 1 behind us on CPU 0, with the switch set before its call; the
 * hand-off is put out of reach, so that W1 is woken, not handed the
 * lock.  A round in which W1 ran before we took the word back proves
 * nothing (skip).  What the charge does to the average is not seen here
 * (only the mean over CPUs is shown).
 *
 * spin_charge_check_overload: with more runnable tasks than CPUs at one
 * of the wake-ups the call is charged the mean of its samples instead
 * (wake_charges_overloaded +1).  Busy threads on CPU 0 at SCHED_IDLE,
 * one more than there are CPUs, make the machine overcommitted
 * throughout (@hogs) while barely slowing us.  Where the guard must not
 * fire, the machine cannot be kept quiet (a kworker, RCU or softirq work
 * runnable at the instant W1 runs again makes it fire); fake_nr_running
 * (CONFIG_FUTEX_LOCK_DEBUG) stands in for the count there (@fake),
 * exactly at the boundary: as many runnable tasks as CPUs must not make
 * it fire, one more must.  If every sample was capped, mean and sum are
 * both the cap: the case skips after checking the counts (whether the
 * guard fired among them), not the charge.
 */
#define CHARGE_LOSSES		2
#define CHARGE_CAP_NS		1000000LL	/* FUTEX_LOCK_SPIN_LIMIT_NS */

struct charge_counts {
	long long samples, charges, ns, charge_ns, locks, unlocks, overloaded;
};

static void charge_counts_get(struct charge_counts *c)
{
	c->samples = stat_get("wake_samples");
	c->charges = stat_get("wake_charges");
	c->ns = stat_get("wake_ns_sum");
	c->charge_ns = stat_get("wake_charge_ns_sum");
	c->locks = stat_get("lock_syscalls") + stat_get("lock_adaptive_syscalls");
	c->unlocks = stat_get("unlock_syscalls");
	c->overloaded = stat_get("wake_charges_overloaded");
}

static void charge_counts_sub(struct charge_counts *c, const struct charge_counts *c0)
{
	c->samples -= c0->samples;
	c->charges -= c0->charges;
	c->ns -= c0->ns;
	c->charge_ns -= c0->charge_ns;
	c->locks -= c0->locks;
	c->unlocks -= c0->unlocks;
	c->overloaded -= c0->overloaded;
}

/*
 * @on: spin_charge_call; @guard: spin_charge_check_overload (-1: a kernel
 * without it, left alone); @hogs: overcommit the machine meanwhile;
 * @fake: the count fake_nr_running stands in for nr_running() (0: none).
 */
static void charge_case(struct __test_metadata *_metadata, int on, int guard,
			bool hogs, long fake)
{
	long long old_delay = knob_get("delay_after_wake_ms");
	long long thr = knob_get("handoff_threshold");
	int cal = knob_get_bool("spin_calibrate");
	int charge = knob_get_bool("spin_charge_call");
	int old_guard = knob_get_bool("spin_charge_check_overload");
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nhogs = 0, want_hogs = hogs ? (int)ncpus + 1 : 0;
	bool over = guard > 0 && (fake ? fake > ncpus : hogs);
	struct cpu_hog hog_arg = { .stop = 0, .cpu = 0, .idle = true };
	pthread_t hog[MAX_HOGS];
	uint32_t word, tid = gettid_();
	struct lock_waiter w1 = { .word = &word, .op = FUTEX_LOCK_ADAPTIVE, .cpu = 1 };
	struct charge_counts c0, c1;
	struct first_wake_round r;
	long long mean;
	pid_t pid = getpid();
	int created, queued, losses = 0;
	pthread_t t1;

	ASSERT_NE(-1, cal);
	ASSERT_NE(-1, charge);
	ASSERT_LE(0, thr);
	ASSERT_TRUE(guard < 0 || old_guard >= 0);
	if (want_hogs > MAX_HOGS)
		SKIP(return, "more than %d CPUs", MAX_HOGS - 1);
	charge_counts_get(&c0);
	ASSERT_LE(0, c0.charges);
	ASSERT_LE(0, c0.charge_ns);
	if (pin_cpu(0))
		SKIP(return, "cannot pin to CPU 0: %s", strerror(errno));
	word = tid;
	/* knobs from here: nothing below returns before they are restored */
	knob_set("spin_calibrate", 1);
	knob_set("spin_charge_call", on);
	if (guard >= 0)
		knob_set("spin_charge_check_overload", guard);
	knob_set("handoff_threshold", 1000);
	if (fake)
		knob_set("fake_nr_running", fake);
	nhogs = cpu_hogs_start(hog, want_hogs, &hog_arg);
	charge_counts_get(&c0);
	created = !pthread_create(&t1, NULL, lock_waiter_fn, &w1);
	queued = created && WAIT_FOR(w1.tid) &&
		 wait_sleeping_in(pid, w1.tid, SYS_futex);
	knob_set("delay_after_wake_ms", 1000);
	for (int i = 0; queued && i < CHARGE_LOSSES; i++) {
		first_wake_round(&word, w1.tid, &r);
		if (!r.valid)
			break;
		losses++;
	}
	knob_set("delay_after_wake_ms", old_delay);
	if ((__atomic_load_n(&word, __ATOMIC_SEQ_CST) & FUTEX_TID_MASK) == tid)
		EXPECT_EQ(0, funlock(&word, PRIV));
	if (created)
		pthread_join(t1, NULL);
	charge_counts_get(&c1);
	cpu_hogs_stop(hog, nhogs, &hog_arg);
	if (fake)
		knob_set("fake_nr_running", 0);
	knob_set("handoff_threshold", thr);
	if (guard >= 0)
		knob_set("spin_charge_check_overload", old_guard);
	knob_set("spin_charge_call", charge);
	knob_set("spin_calibrate", cal);
	charge_counts_sub(&c1, &c0);
	TH_LOG("spin_charge_call %d, spin_charge_check_overload %d, %d busy threads, fake_nr_running %ld (%ld CPUs): %d losses; wake_samples +%lld, wake_charges +%lld, wake_ns_sum +%lld, wake_charge_ns_sum +%lld, wake_charges_overloaded +%lld; lock calls +%lld, unlock calls +%lld",
	       on, guard, nhogs, fake, ncpus, losses, c1.samples, c1.charges, c1.ns,
	       c1.charge_ns, c1.overloaded, c1.locks, c1.unlocks);
	ASSERT_EQ(want_hogs, nhogs);
	ASSERT_TRUE(created);
	ASSERT_TRUE(queued);	/* the knobs are restored by now */
	EXPECT_EQ(0, w1.ret);
	EXPECT_EQ(0, word);
	if (losses < CHARGE_LOSSES) {
		if (_metadata->exit_code == KSFT_PASS)
			SKIP(return, "W1 ran before the owner took the word back");
		return;
	}
	/*
	 * W1's lock call, our unlocks in the rounds and at the end (W1,
	 * alone by then, unlocks in user space)
	 */
	if (c1.locks != 1 || c1.unlocks != CHARGE_LOSSES + 1) {
		if (_metadata->exit_code == KSFT_PASS)
			SKIP(return, "another task used the ops meanwhile");
		return;
	}
	EXPECT_EQ(CHARGE_LOSSES + 1, c1.samples);
	if (!on) {
		EXPECT_EQ(c1.samples, c1.charges);
		EXPECT_EQ(c1.ns, c1.charge_ns);
		EXPECT_EQ(0, c1.overloaded);
		return;
	}
	EXPECT_EQ(1, c1.charges);
	EXPECT_EQ(over ? 1 : 0, c1.overloaded);
	mean = c1.samples ? c1.ns / c1.samples : 0;
	if (mean >= CHARGE_CAP_NS) {
		if (_metadata->exit_code == KSFT_PASS)
			SKIP(return, "every sample was capped: mean and sum are the cap (the counts were checked)");
		return;
	}
	if (over) {
		EXPECT_EQ(mean, c1.charge_ns);
	} else {
		EXPECT_EQ(c1.ns < CHARGE_CAP_NS ? c1.ns : CHARGE_CAP_NS, c1.charge_ns);
	}
}

TEST(spin_charge_call_charges_a_call_once)
{
	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	/* the guard off where there is one: the sum, whatever the load */
	charge_case(_metadata, 1,
		    knob_get_bool("spin_charge_check_overload") < 0 ? -1 : 0, false, 0);
}

/*
 * The guard at its boundary: as many runnable tasks as CPUs is not an
 * overcommitted machine (the sum), one more is (the mean).
 */
TEST(spin_charge_check_overload_as_many_runnable_as_cpus_charges_the_sum)
{
	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	REQUIRE_KNOB("spin_charge_check_overload");
	REQUIRE_KNOB("fake_nr_running");
	charge_case(_metadata, 1, 1, false, sysconf(_SC_NPROCESSORS_ONLN));
}

TEST(spin_charge_check_overload_one_more_runnable_than_cpus_charges_the_mean)
{
	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	REQUIRE_KNOB("spin_charge_check_overload");
	REQUIRE_KNOB("fake_nr_running");
	charge_case(_metadata, 1, 1, false, sysconf(_SC_NPROCESSORS_ONLN) + 1);
}

TEST(spin_rule_charge_call_off_charges_each_wake_up)
{
	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	charge_case(_metadata, 0, -1, false, 0);
}

TEST(spin_charge_call_charges_an_overcommitted_call_its_mean)
{
	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	REQUIRE_KNOB("spin_charge_check_overload");
	charge_case(_metadata, 1, 1, true, 0);
}

TEST(spin_charge_check_overload_acts_only_with_the_charge)
{
	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	REQUIRE_KNOB("spin_charge_check_overload");
	charge_case(_metadata, 0, 1, true, 0);
}

TEST(spin_rule_charge_check_overload_off_charges_the_sum)
{
	REQUIRE_SPIN_POLICY();
	REQUIRE_KNOB("delay_after_wake_ms");
	REQUIRE_KNOB("spin_charge_check_overload");
	charge_case(_metadata, 1, 0, true, 0);
}

/*
 * FUTEX_WAITERS appearing during the spin of a caller that was not woken
 * ends it (spin_stop_waiters).  Each round the owner (running on CPU 0)
 * waits until we spin (spin_attempts moved; at most 500 ms), sets W, and
 * keeps the lock 300 us more; the budget is the fixed 1 ms, so that with
 * the rule off the spin outlasts the owner and takes the lock.  The
 * runnable rule is switched off, so that every call spins.  A round in
 * which the owner saw the spin only after it had ended (ran out, or
 * stopped for another reason), or had no spin, proves nothing.  A spin
 * alive when W appears ends in spin_stop_waiters with the rule and can
 * only take the lock (spin_acquired) without it: if no spin did either,
 * the test skips.
 */
#define WAITERS_SPIN_WAIT_NS	(500 * 1000000ull)

struct waiters_owner {
	uint32_t word;
	volatile int round, locked, calling, done, spun;
};

static void *waiters_owner_fn(void *arg)
{
	struct waiters_owner *o = arg;

	pin_cpu(0);
	for (int i = 1; i <= o->round; i++) {
		uint64_t end;
		long long sp0;

		flock(&o->word, FUTEX_LOCK | PRIV, NULL);
		sp0 = stat_get("spin_attempts");
		o->locked = i;
		while (o->calling != i)
			;
		/*
		 * A call that does not spin (the spinner slot was taken, a
		 * signal) sleeps: W then appears anyway, so do not wait long.
		 */
		end = now_ns(CLOCK_MONOTONIC) + WAITERS_SPIN_WAIT_NS;
		while (stat_get("spin_attempts") <= sp0 &&
		       now_ns(CLOCK_MONOTONIC) < end)
			;
		o->spun += stat_get("spin_attempts") > sp0;
		__atomic_fetch_or(&o->word, FUTEX_WAITERS, __ATOMIC_SEQ_CST);
		busy_ns(300000);
		funlock(&o->word, PRIV);
		while (o->done != i)
			;
	}
	return NULL;
}

static void waiters_stop_case(struct __test_metadata *_metadata, int rule,
			      long long *stops, long long *acquired,
			      long long *timeouts)
{
	long long w0 = stat_get("spin_stop_waiters");
	long long q0 = stat_get("spin_acquired");
	long long t0 = stat_get("spin_stop_timeout");
	struct waiters_owner o = { .round = 10 };
	struct spin_policy pol;
	int errors = 0;
	pthread_t th;

	spin_policy_save(&pol);
	ASSERT_NE(-1, pol.rule[3]);
	ASSERT_LE(0, w0);
	spin_policy_fixed(1000000);
	knob_set("spin_check_runnable", 0);
	knob_set("spin_check_waiters", rule);
	pin_cpu(1);
	ASSERT_EQ(0, pthread_create(&th, NULL, waiters_owner_fn, &o));
	for (int i = 1; i <= o.round; i++) {
		while (o.locked != i)
			;
		o.calling = i;
		errors += flock(&o.word, FUTEX_LOCK_ADAPTIVE | PRIV, NULL) != 0;
		errors += (o.word & FUTEX_TID_MASK) != (uint32_t)gettid_();
		errors += funlock(&o.word, PRIV) != 0;
		o.done = i;
	}
	pthread_join(th, NULL);
	*stops = stat_get("spin_stop_waiters") - w0;
	*acquired = stat_get("spin_acquired") - q0;
	*timeouts = stat_get("spin_stop_timeout") - t0;
	spin_policy_restore(&pol);
	TH_LOG("spin_check_waiters %d: 10 rounds, %d with a spin; spin_stop_waiters +%lld, spin_acquired +%lld, spin_stop_timeout +%lld",
	       rule, o.spun, *stops, *acquired, *timeouts);
	EXPECT_EQ(0, errors);
	EXPECT_EQ(0, o.word);
}

TEST(spin_stops_when_waiters_bit_appears)
{
	long long stops, acquired, timeouts;

	REQUIRE_SPIN_POLICY();
	waiters_stop_case(_metadata, 1, &stops, &acquired, &timeouts);
	if (!stops && !acquired)
		SKIP(return, "no spin lived until the owner set W (%lld ran out)",
		     timeouts);
	EXPECT_GE(stops, 1);
	EXPECT_EQ(0, acquired);
}

TEST(spin_rule_waiters_off_never_stops_for_them)
{
	long long stops, acquired, timeouts;

	REQUIRE_SPIN_POLICY();
	waiters_stop_case(_metadata, 0, &stops, &acquired, &timeouts);
	EXPECT_EQ(0, stops);
}

/* ------------------------------------------------------------------ */
/* F5 (not fixed, pinned): a sleeper behind an owner that dies without a
 * robust list is not woken by the death.  A future fix flips this test.
 */

TEST(dead_owner_no_robust_sleeper_waits_for_timeout)
{
	uint32_t *word = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct w2 x = { .word = word, .flags = 0 };
	int go[2], status;
	uint64_t t_dead;
	pthread_t th;
	pid_t pid;
	char c;

	REQUIRE_OPS();
	ASSERT_NE(MAP_FAILED, word);
	ASSERT_EQ(0, pipe(go));
	*word = 0;
	pid = fork();
	if (!pid) {
		flock(word, FUTEX_LOCK, NULL);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(0);	/* no robust list: dies holding the lock */
	}
	while ((*word & FUTEX_TID_MASK) != (uint32_t)pid)
		usleep(100);
	x.to = abs_in(CLOCK_MONOTONIC, 1000000000ull);
	ASSERT_EQ(0, pthread_create(&th, NULL, w2_fn, &x));
	while (!x.tid)
		usleep(100);
	ASSERT_TRUE(wait_sleeping(getpid(), x.tid));
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	t_dead = now_ns(CLOCK_MONOTONIC);
	pthread_join(th, NULL);
	TH_LOG("sleeper: %s %llu ms after the owner died",
	       x.ret ? strerror(-x.ret) : "0",
	       (unsigned long long)(x.t_done - t_dead) / 1000000);
	/* today: not woken by the death; at its timeout it finds the dead owner */
	EXPECT_EQ(-ESRCH, x.ret);
	EXPECT_GE(x.t_done + 50000000ull, x.to.tv_sec * 1000000000ull + x.to.tv_nsec);
	close(go[0]);
	close(go[1]);
	munmap(word, 4096);
}

/* ------------------------------------------------------------------ */
/* F4: lost wake-ups per lock call, relay and signal restarts included */

#define STREAK_THREADS	6
#define STREAK_HIST	8
#define STREAK_HOLD_NS	100000	/* held most of the time: a queue forms */
#define STREAK_STACK	(256 << 10)	/* locked in: small */

struct streak {
	uint32_t word;
	int op, sigprof;
	long thr;
	volatile int stop, inside, errors;
	pthread_t tids[STREAK_THREADS];
	long calls[STREAK_THREADS], slept[STREAK_THREADS];
	long sigs[STREAK_THREADS], max_loss[STREAK_THREADS], faults[STREAK_THREADS];
	long minflt[STREAK_THREADS], allowed[STREAK_THREADS];
	long rescued[STREAK_THREADS], max_raw[STREAK_THREADS];
	/* its sleeps, signals, stale wake-up allowance, major, minor faults */
	long worst_call[STREAK_THREADS][5];
	long hist[STREAK_THREADS][STREAK_HIST];
};

struct streak_arg {
	struct streak *s;
	int idx;
};

static __thread volatile long streak_sigs, streak_sig_nvcsw;
static __thread volatile int streak_in_call;

/*
 * Count the signals that came during the lock call: those that
 * interrupted it (to be restarted: on x86-64 the interrupted context then
 * is the syscall instruction, with the syscall number back in rax) and
 * those still pending when it returned (the context is just after a
 * syscall instruction): a signal that ends a sleep when the lock is free
 * lets the waiter take it, and is handled only after the call returns.
 * Elsewhere count every signal in the call, which can only make the
 * measured losses smaller (as can a signal pending at the exit of the
 * gettid() before the futex call).
 */
static void streak_sig(int sig __attribute__((unused)), siginfo_t *si
		       __attribute__((unused)), void *uc_)
{
#ifdef __x86_64__
	ucontext_t *uc = uc_;
	const unsigned char *ip = (void *)uc->uc_mcontext.gregs[REG_RIP];
	int restart = uc->uc_mcontext.gregs[REG_RAX] == SYS_futex &&
		      ip[0] == 0x0f && ip[1] == 0x05;
	int at_exit = ip[-2] == 0x0f && ip[-1] == 0x05;
#else
	int restart = 1, at_exit = 1;

	(void)uc_;
#endif
	if (streak_in_call && (restart || at_exit)) {
		struct rusage ru;
		int err = errno;

		streak_sigs++;
		/* did the call sleep again after this signal? (streak_fn()) */
		if (!getrusage(RUSAGE_THREAD, &ru))
			streak_sig_nvcsw = ru.ru_nvcsw;
		errno = err;
	}
}

/* this thread's voluntary context switches, major and minor faults */
static void csw_self(long *nvcsw, long *majflt, long *minflt)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru)) {
		*nvcsw = *majflt = *minflt = 0;
		return;
	}
	*nvcsw = ru.ru_nvcsw;
	*majflt = ru.ru_majflt;
	*minflt = ru.ru_minflt;
}

/*
 * Every sleep in a lock call is a voluntary context switch.  A call that
 * slept n times and got g signals meanwhile was woken for the lock and
 * lost it n - 1 - g - c times: the first sleep is the queueing, and a
 * signal wakes the sleeper once for its handler, after which the
 * restarted call queues again.
 *
 * c (0 or 1) allows for a stale wake-up left by an earlier call.  A
 * waker (an unlocker, or a waiter passing its wake-up on) marks the first
 * waiter under the hb lock and wakes it after dropping the lock
 * (wake_q).  If a signal wakes the waiter in between, the waiter leaves
 * with the lock (handed over, or taking the free word at once or after a
 * restart) and the waker's wake-up, still on its way, ends the thread's
 * next sleep that a signal does not end: a spurious wake-up, which the
 * kernel rightly does not count as a loss.  Within the same call the
 * two counts balance (the kernel counts the marked wake-up the signal cut
 * short as lost and not the stale one; this count does the reverse).
 * Across calls they do not, so a call that got a signal and did not sleep
 * after it may leave one for a later call: c is 1 for the first sleeping
 * call after such a call.  One at most: a task is on one wake_q at a
 * time, and a second mark meanwhile relies on the first waker's wake-up.
 * Not allowed for: a waiter marked between queueing and sleeping
 * (futex_wait_queue()) that takes the lock without sleeping, with its
 * waker's wake-up still on its way; a window of a few instructions, which
 * the debugging patch below never saw (no spurious wake-up without a
 * signal, the waker stalled 300 us before every wake-up).
 *
 * A page read in during the window sleeps too and is not a loss:
 * streak_case() locks the test's pages in first, and m major faults in a
 * call, should any remain, are taken off (counted in faults).  Minor
 * faults are only logged: most do not sleep, and one taken off could hide
 * a loss.
 */
static void *streak_fn(void *arg)
{
	struct streak_arg *a = arg;
	struct streak *s = a->s;
	int carry = 0;	/* a stale wake-up may be on its way (c) */

	s->tids[a->idx] = pthread_self();
	while (!s->stop) {
		long v0, m0, n0, g0, v1, m1, n1, g1, raw, loss;
		int c, source;
		int ret;

		csw_self(&v0, &m0, &n0);
		g0 = streak_sigs;
		streak_in_call = 1;
		ret = flock(&s->word, s->op | PRIV, NULL);
		streak_in_call = 0;
		g1 = streak_sigs;
		if (ret) {
			s->errors++;
			break;
		}
		if (s->inside++)
			s->errors++;
		csw_self(&v1, &m1, &n1);
		busy_ns(s->sigprof ? STREAK_HOLD_NS : STREAK_HOLD_NS / 5);
		s->inside--;
		if (funlock(&s->word, PRIV))
			s->errors++;
		s->faults[a->idx] += m1 - m0;
		s->minflt[a->idx] += n1 - n0;
		/* a signal after which this call did not sleep */
		source = g1 > g0 && streak_sig_nvcsw == v1;
		c = v1 > v0 && carry;
		raw = v1 > v0 ? v1 - v0 - 1 - (g1 - g0) - (m1 - m0) : 0;
		if (raw < 0)
			raw = 0;
		loss = raw > c ? raw - c : 0;
		carry = (v1 > v0 ? 0 : carry) || source;
		s->allowed[a->idx] += c;
		s->rescued[a->idx] += raw > s->thr && loss <= s->thr;
		if (raw > s->max_raw[a->idx])
			s->max_raw[a->idx] = raw;
		s->calls[a->idx]++;
		s->slept[a->idx] += v1 > v0;
		s->sigs[a->idx] += g1 - g0;
		s->hist[a->idx][loss < STREAK_HIST ? loss : STREAK_HIST - 1]++;
		if (loss > s->max_loss[a->idx]) {
			s->max_loss[a->idx] = loss;
			s->worst_call[a->idx][0] = v1 - v0;
			s->worst_call[a->idx][1] = g1 - g0;
			s->worst_call[a->idx][2] = c;
			s->worst_call[a->idx][3] = m1 - m0;
			s->worst_call[a->idx][4] = n1 - n0;
		}
	}
	return NULL;
}

static int streak_all_called(struct streak *s)
{
	for (int i = 0; i < STREAK_THREADS; i++)
		if (!s->calls[i] || s->errors)
			return s->errors;
	return 1;
}

/*
 * 1 kHz SIGPROF, to the workers in turn (a per-thread 1 kHz timer makes
 * a TCG guest spend its time delivering signals, and a process-wide
 * ITIMER_PROF signal goes to a running thread, rarely to a sleeper).
 */
static void *streak_signaller(void *arg)
{
	struct streak *s = arg;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	for (int i = 0; !s->stop; i++) {
		t.tv_nsec += 1000000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_nsec -= 1000000000;
			t.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		pthread_kill(s->tids[i % STREAK_THREADS], SIGPROF);
	}
	return NULL;
}

/*
 * Review F4: the hand-off bound ("a woken waiter loses at most
 * handoff_threshold times, then an unlock hands it the lock") counted
 * only wake-ups by FUTEX_UNLOCK, and a signal restart reset the count.
 * With FUTEX_LOCK_ADAPTIVE the owners unlock in user space and waiters
 * are woken by a pass-on (the spinner that took the lock wakes the first
 * waiter), which was never counted: a waiter could lose without limit.
 *
 * STREAK_THREADS threads (more than CPUs) take the lock for 2 s, holding
 * it 20 us (100 us with signals, so that a queue forms).  For each call
 * the lost wake-ups are measured from user space (voluntary context
 * switches minus the first sleep, the restarts, the pages read in and a
 * stale wake-up left by an earlier call, see streak_fn()), so relay
 * losses count whatever the kernel counts.  No call may lose
 * more than handoff_threshold wake-ups.  The _sigprof variants add
 * 1 kHz SIGPROF (SA_RESTART), sent to the workers in turn.
 *
 * v2 without the fix (14/14), QEMU TCG, 2 vCPUs, threshold 4, longest
 * streak: debug kernel: loss_streak_lock 4 (the bound held for
 * FUTEX_LOCK), loss_streak_adaptive 6 and 8 in two runs, 4 in two
 * others, loss_streak_lock_sigprof 8, loss_streak_adaptive_sigprof 13,
 * while the kernel's own lost_max said 4; base kernel: 6, 19, 33 and 9.
 * With the fix: 4 in every variant on both kernels.
 *
 * 2026-11-29: the _sigprof variants read 5 now and then while the
 * kernel's lost_max said 4 (debug kernel: 3 of 30 standalone runs of
 * lock_sigprof; base kernel: 8 and 9 of 25, worst calls of 6 sleeps and
 * no signal; the rate varied between sessions, a third to two thirds of
 * the runs).  Three causes found, all in the count, none in the kernel:
 * - a signal that wakes a sleeper when the lock is free lets it take the
 *   lock (futex_lock_attempt() tries the word before it looks for
 *   signals), so the signal is handled after the call returned; such
 *   signals are counted since (streak_sig());
 * - page faults: the test's text is read in over 9p as the threads
 *   first run a path (the futex call in their second call, mostly), and
 *   the threads that fault on a page being read in sleep on it, once or
 *   twice, counted as minor faults or not at all.  A debugging patch
 *   (not kept) showed it: the kernel's count of sleeps in the lock calls
 *   was the user-space sum less one per thread, each such sleep was an
 *   instruction fetch fault on the test binary, and no wake-up left a
 *   waiter without the lock's reason (signal, FUTEX_UNLOCK, pass-on or
 *   hand-off).  The test's pages are locked in (mlockall(), with small
 *   thread stacks) since; the _sigprof variants SKIP where they cannot
 *   be (a fault that sleeps and then finds a signal pending returns
 *   without being counted at all);
 * - a stale wake-up that a signal leaves for a later call (streak_fn()).
 *   With mlockall() the base kernel still failed 1 of 40 runs of
 *   lock_sigprof, twice (worst call: 7 sleeps, 1 signal, no fault; the
 *   CONFIG_FUTEX_LOCK_DEBUG kernel: adaptive_sigprof 1 of 40, 8 sleeps
 *   with 2 signals).  A second debugging patch (not kept either) made
 *   the unlocker sleep at least a jiffy between dropping the hb lock and
 *   its wake_up_q() whenever the task it woke had a signal pending, and
 *   logged every FUTEX_LOCK call.  The count without the allowance then
 *   failed 10 of 10 runs of the two _sigprof variants (streaks of 5
 *   against lost_max 4); each failing call began with a sleep ended with
 *   the waiter still queued and no signal pending, after a call that
 *   ended with a hand-off or a restart (the signal inferred from the
 *   patch's trigger).  With the allowance 0 of 30 failed.  Without the
 *   delay and without signals the patch saw no such wake-up (8 runs,
 *   also with the unlocker stalled 300 us before every wake-up).
 *   Mutant kernels still fail with the allowance: a count dropped over a
 *   restart (the bug above) 10 of 10 (streaks of 10 to 32), a count
 *   that loses one over a restart 10 of 10 (6 to 9, lost_max 4), a
 *   hand-off one loss late (> for >=) 12 of 12, all four variants (5).
 *   With the allowance, standalone: base kernel 0 of 40 in each of the
 *   four variants, CONFIG_FUTEX_LOCK_DEBUG kernel 0 of 20 in each
 *   _sigprof variant.
 *
 * On PREEMPT_RT a contended hb->lock sleeps, which is counted as a
 * voluntary context switch: the count would read such sleeps as losses.
 */
static void streak_case(struct __test_metadata *_metadata, int op,
			int sigprof)
{
	struct sigaction sa = { .sa_sigaction = streak_sig,
				.sa_flags = SA_RESTART | SA_SIGINFO };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	long long thr = knob_get("handoff_threshold");
	long long ho0 = stat_get("handoffs"), lost0 = stat_get("lost_after_wake");
	struct streak_arg args[STREAK_THREADS];
	pthread_t th[STREAK_THREADS], sig_th;
	pthread_attr_t attr;
	struct rlimit rl;
	long hist[STREAK_HIST] = { 0 }, calls = 0, slept = 0, sigs = 0, faults = 0;
	long minflt = 0, allowed = 0, rescued = 0;
	long worst = 0, min_calls = -1;
	struct streak *s;
	char line[256];
	int n = 0;

	REQUIRE_OPS();
	if (thr < 0)
		thr = 4;	/* the documented default */
	/*
	 * No page read in during a measured call (see the comment above):
	 * lock the pages in, the threads' small stacks (MCL_FUTURE) too.
	 * Each TEST runs in a child of its own, which the lock ends with.
	 */
	if (!getrlimit(RLIMIT_MEMLOCK, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_MEMLOCK, &rl);
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		if (sigprof)
			SKIP(return, "mlockall: %s: page faults would read as lost wake-ups",
			     strerror(errno));
		TH_LOG("mlockall: %s: page faults may read as lost wake-ups",
		       strerror(errno));
	}
	s = calloc(1, sizeof(*s));
	ASSERT_NE(NULL, s);
	s->op = op;
	s->sigprof = sigprof;
	s->thr = thr;
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setstacksize(&attr, STREAK_STACK));
	if (sigprof)
		ASSERT_EQ(0, sigaction(SIGPROF, &sa, NULL));
	for (int i = 0; i < STREAK_THREADS; i++) {
		args[i].s = s;
		args[i].idx = i;
		ASSERT_EQ(0, pthread_create(&th[i], &attr, streak_fn, &args[i]));
	}
	for (int i = 0; i < STREAK_THREADS; i++)
		while (!s->tids[i])
			usleep(1000);
	if (sigprof)
		ASSERT_EQ(0, pthread_create(&sig_th, &attr, streak_signaller, s));
	/* 2 s of exercise, then until every thread has made a call */
	usleep(2000000);
	WAIT_FOR(streak_all_called(s));
	s->stop = 1;
	if (sigprof)
		pthread_join(sig_th, NULL);
	for (int i = 0; i < STREAK_THREADS; i++)
		pthread_join(th[i], NULL);
	if (sigprof)
		sigaction(SIGPROF, &ign, NULL);
	pthread_attr_destroy(&attr);
	EXPECT_EQ(0, s->errors);

	for (int i = 0; i < STREAK_THREADS; i++) {
		calls += s->calls[i];
		slept += s->slept[i];
		sigs += s->sigs[i];
		faults += s->faults[i];
		minflt += s->minflt[i];
		allowed += s->allowed[i];
		rescued += s->rescued[i];
		if (min_calls < 0 || s->calls[i] < min_calls)
			min_calls = s->calls[i];
		if (s->max_loss[i] > worst)
			worst = s->max_loss[i];
		for (int j = 0; j < STREAK_HIST; j++)
			hist[j] += s->hist[i][j];
	}
	TH_LOG("%s%s: %ld calls (fewest per thread %ld), %ld slept, %ld signals, %ld major and %ld minor faults in calls; threshold %lld",
	       op == FUTEX_LOCK ? "FUTEX_LOCK" : "FUTEX_LOCK_ADAPTIVE",
	       sigprof ? " + 1 kHz SIGPROF" : "", calls, min_calls, slept,
	       sigs, faults, minflt, thr);
	TH_LOG("stale wake-up allowed for %ld sleeping calls, %ld of them over the threshold without it",
	       allowed, rescued);
	for (int j = 0; j < STREAK_HIST; j++)
		n += snprintf(line + n, sizeof(line) - n, " %s%d:%ld",
			      j == STREAK_HIST - 1 ? ">=" : "", j, hist[j]);
	TH_LOG("calls by lost wake-ups:%s", line);
	n = 0;
	for (int i = 0; i < STREAK_THREADS; i++)
		n += snprintf(line + n, sizeof(line) - n, " %ld", s->max_loss[i]);
	TH_LOG("longest loss streak per thread:%s", line);
	n = 0;
	for (int i = 0; i < STREAK_THREADS; i++)
		n += snprintf(line + n, sizeof(line) - n, " %ld", s->max_raw[i]);
	TH_LOG("the same without the allowance:%s", line);
	n = 0;
	for (int i = 0; i < STREAK_THREADS; i++)
		n += snprintf(line + n, sizeof(line) - n, " %ld/%ld/%ld/%ld/%ld",
			      s->worst_call[i][0], s->worst_call[i][1],
			      s->worst_call[i][2], s->worst_call[i][3],
			      s->worst_call[i][4]);
	TH_LOG("that call's sleeps/signals/stale allowance/major/minor faults per thread:%s", line);
	if (ho0 >= 0)
		TH_LOG("kernel: handoffs +%lld lost_after_wake +%lld lost_max %lld",
		       stat_get("handoffs") - ho0,
		       stat_get("lost_after_wake") - lost0, stat_get("lost_max"));
	EXPECT_GT(min_calls, 0);
	EXPECT_LE(worst, thr);
	free(s);
}

TEST(loss_streak_lock)
{
	streak_case(_metadata, FUTEX_LOCK, 0);
}

TEST(loss_streak_adaptive)
{
	streak_case(_metadata, FUTEX_LOCK_ADAPTIVE, 0);
}

TEST(loss_streak_lock_sigprof)
{
	streak_case(_metadata, FUTEX_LOCK, 1);
}

TEST(loss_streak_adaptive_sigprof)
{
	streak_case(_metadata, FUTEX_LOCK_ADAPTIVE, 1);
}

/* ------------------------------------------------------------------ */
/* F10 (not fixed, pinned): one spinner per global futex hash bucket */

#ifndef F10_SPIN_NS
#define F10_SPIN_NS	1000000	/* A's spin budget: the 1 ms cap */
#endif
#define F10_WORDS	4096	/* candidate words of B: 4 pages */
#define F10_CLEAR	8	/* refusals of the colliding word to see */
#define F10_TRIES	4	/* probes of a candidate before the next one */

enum { F10_SPUN, F10_REFUSED, F10_UNCLEAR };

struct f10_shared {
	uint32_t la;		/* A's lock word, held by B's prober P */
	volatile int ready;
	volatile long calls;	/* A's lock calls started */
};

/* Process A: one thread that spins on la for as long as its owner runs. */
static void f10_spinner(struct f10_shared *sh)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pin_cpu(1);
	sh->ready = 1;
	for (;;) {
		struct timespec to = abs_in(CLOCK_MONOTONIC, F10_SPIN_NS + 200000);

		sh->calls++;
		futex_sys(&sh->la, FUTEX_LOCK_ADAPTIVE, 0, &to, NULL, 0);
	}
}

/* B's holder of the candidate words: asleep, so a spin on it stops at once */
static void *f10_holder(void *arg)
{
	int *fds = arg;
	char c;

	fds[2] = gettid_();
	if (read(fds[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static long long f10_spin_busy(void)
{
	return stat_get("spin_busy");
}


/*
 * Wait (running, so that A keeps spinning on P) until A has started a new
 * lock call and registered as the spinner (spin_attempts moved: only A
 * and P use FUTEX_LOCK_ADAPTIVE, and P is not in a lock call), then try
 * FUTEX_LOCK_ADAPTIVE on *w, held by the sleeping holder, with a 1 ms
 * timeout.  spin_busy moved: the two words share a bucket (P found A's
 * spin or, rarely, A found P's), F10_REFUSED, a proof.  Otherwise
 * F10_SPUN: no proof of anything, as A's spin (1 ms at most) may have
 * ended before P's call (under TCG, reading the counters alone takes
 * about that long).  *busy is the last spin_busy seen.
 */
static int f10_probe(struct f10_shared *sh, uint32_t *w,
		     uint32_t holder, long long *busy)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + HANG_NS;
	long calls = sh->calls;
	long long a0, a1, b;
	struct timespec to;

	while (sh->calls == calls && now_ns(CLOCK_MONOTONIC) < end)
		;
	a0 = stat_get("spin_attempts");
	while ((a1 = stat_get("spin_attempts")) == a0 &&
	       now_ns(CLOCK_MONOTONIC) < end)
		;
	if (a1 == a0)
		return F10_UNCLEAR;
	*w = holder;
	to = abs_in(CLOCK_MONOTONIC, 1000000);
	futex_sys(w, FUTEX_LOCK_ADAPTIVE | PRIV, 0, &to, NULL, 0);
	*w = 0;
	b = f10_spin_busy();
	if (b > *busy) {
		*busy = b;
		return F10_REFUSED;
	}
	return F10_SPUN;
}

/*
 * Review F10: the spinner slot is per hash bucket and the hash is global,
 * so a spinning FUTEX_LOCK_ADAPTIVE caller of one process makes callers
 * of any other process whose futex key hashes to the same bucket sleep
 * without spinning (spin_busy).  Not fixed: this test pins today's
 * behaviour, and a per-futex spinner would flip it (the colliding word
 * would no longer be refused).
 *
 * Process A spins on its word la (held by B's prober P, see below) with
 * the spin budget raised to 1 ms.  B's prober P tries FUTEX_LOCK_ADAPTIVE
 * on private words of B, held by a sleeping thread of B, while A spins
 * (f10_probe()): the first word for which spin_busy moves shares A's
 * bucket (only P and A use ADAPTIVE during the test; the hash of a
 * private key mixes in the mm, so the search is empirical).  Then P
 * probes that word and a word that did not collide, alternately,
 * F10_ROUNDS times each.
 *
 * On two vCPUs A's spinner and A's lock owner cannot both run while P
 * runs too, so la is a MAP_SHARED word (shared futex, no mm check on
 * the owner) and its owner is P itself: A spins while P runs, and stops
 * whenever P sleeps.  P's own words are private to B.
 *
 * Each probe waits for A to register as the spinner; a refusal
 * (f10_probe()) proves a shared bucket, a spin proves nothing (A's spin
 * may have ended).  A candidate is probed up to F10_TRIES times; the
 * first one refused is the colliding word, the first one never refused
 * the control word.  Then both are probed until the colliding word has
 * been refused F10_CLEAR times: the control word must never be (it is in
 * another bucket unless it was picked by bad luck: a colliding word
 * whose F10_TRIES probes all fell after A's spin, while one word in 512
 * collides).  No time is judged; HANG_NS bounds each wait and the search
 * only as a hang guard.
 *
 * Measured before the probes were judged by the counters (debug kernel,
 * QEMU TCG, 2 vCPUs, 512 hash buckets, host loaded by two kernel
 * builds): a colliding word was found after 185 and after 544
 * candidates.  With A's spin budget 0 (-DF10_SPIN_NS=0: A registers and
 * stops at once) no word was refused and the test failed, as it will
 * after a fix.
 */
TEST(cross_process_bucket_spinner_busy_f10)
{
	struct f10_shared *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long long old = knob_get("spin_max_ns");
	int hit = -1, ctl = -1, searched = 0, unclear = 0;
	int res_hit[3] = { 0 }, res_ctl[3] = { 0 };
	uint32_t *words = NULL;
	int fds[3] = { -1, -1, 0 };
	long long busy, st0[6];
	struct spin_policy pol;
	uint64_t end;
	pthread_t th;
	pid_t pid;

	REQUIRE_OPS();
	if (stat_get("spin_busy") < 0)
		SKIP(return, "no " STATS_DIR "stats (CONFIG_FUTEX_LOCK_STATS)");
	if (old < 0)
		SKIP(return, "no debugfs " STATS_DIR "spin_max_ns");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs: A spins while its owner runs");
	ASSERT_NE(MAP_FAILED, sh);
	words = mmap(NULL, F10_WORDS * sizeof(*words), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, words);
	memset(words, 0, F10_WORDS * sizeof(*words));
	ASSERT_EQ(0, pipe(fds));
	ASSERT_EQ(0, pthread_create(&th, NULL, f10_holder, fds));
	while (!fds[2])
		usleep(100);
	ASSERT_TRUE(wait_sleeping(getpid(), fds[2]));

	pin_cpu(0);
	ASSERT_EQ(0, flock(&sh->la, FUTEX_LOCK, NULL));	/* P owns la */
	spin_policy_save(&pol);
	ASSERT_EQ(0, spin_policy_fixed(F10_SPIN_NS));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		f10_spinner(sh);
	while (!sh->ready)
		usleep(100);

	/*
	 * search: up to F10_WORDS candidates.  One word in 512 collides, so
	 * a search cut short by time would fail on a slow, loaded machine:
	 * the bound is the count, and 30 x HANG_NS only guards a hang.
	 */
	busy = f10_spin_busy();
	st0[0] = stat_get("spin_attempts");
	st0[1] = stat_get("spin_stop_timeout");
	st0[2] = stat_get("spin_stop_owner_sleeping");
	st0[3] = stat_get("spin_stop_need_resched");
	st0[4] = stat_get("spin_stop_owner_gone");
	st0[5] = stat_get("err_etimedout");
	end = now_ns(CLOCK_MONOTONIC) + 30 * HANG_NS;
	for (int i = 0; i < F10_WORDS && hit < 0 && now_ns(CLOCK_MONOTONIC) < end; i++) {
		int r = F10_UNCLEAR;

		searched++;
		for (int t = 0; t < F10_TRIES && r != F10_REFUSED; t++) {
			r = f10_probe(sh, &words[i], fds[2], &busy);
			unclear += r == F10_UNCLEAR;
		}
		if (r == F10_REFUSED)
			hit = i;
		if (r == F10_SPUN && ctl < 0)
			ctl = i;
	}
	TH_LOG("during the search: spin_attempts +%lld, stops: timeout +%lld owner_sleeping +%lld need_resched +%lld owner_gone +%lld; etimedout +%lld",
	       stat_get("spin_attempts") - st0[0], stat_get("spin_stop_timeout") - st0[1],
	       stat_get("spin_stop_owner_sleeping") - st0[2],
	       stat_get("spin_stop_need_resched") - st0[3],
	       stat_get("spin_stop_owner_gone") - st0[4], stat_get("err_etimedout") - st0[5]);
	end = now_ns(CLOCK_MONOTONIC) + HANG_NS;
	while (hit >= 0 && ctl >= 0 && now_ns(CLOCK_MONOTONIC) < end &&
	       res_hit[F10_REFUSED] < F10_CLEAR) {
		res_hit[f10_probe(sh, &words[hit], fds[2], &busy)]++;
		res_ctl[f10_probe(sh, &words[ctl], fds[2], &busy)]++;
	}

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	spin_policy_restore(&pol);
	close(fds[1]);
	pthread_join(th, NULL);
	close(fds[0]);
	munmap(words, F10_WORDS * sizeof(*words));
	munmap(sh, 4096);

	TH_LOG("search: %d candidate words probed (%d unclear), colliding word %d, control word %d",
	       searched, unclear, hit, ctl);
	TH_LOG("colliding word: refused %d, spun %d, unclear %d",
	       res_hit[F10_REFUSED], res_hit[F10_SPUN], res_hit[F10_UNCLEAR]);
	TH_LOG("control word:   refused %d, spun %d, unclear %d",
	       res_ctl[F10_REFUSED], res_ctl[F10_SPUN], res_ctl[F10_UNCLEAR]);
	/* today: some word of B shares A's bucket and is refused the slot */
	ASSERT_LE(0, hit) {
		TH_LOG("no word of B was refused spinning while A spun (F10 fixed?)");
	}
	ASSERT_LE(0, ctl);
	/* else only the hang guard ended the probing */
	EXPECT_LE(F10_CLEAR, res_hit[F10_REFUSED]);
	EXPECT_EQ(0, res_ctl[F10_REFUSED]);
}

/* ------------------------------------------------------------------ */
/* lost wake-ups after an ADAPTIVE waiter (review N1: uniprocessor) */

/*
 * One waiter thread, one owner (the test's thread), rounds of: the owner
 * takes the word, the waiter blocks in op, the owner unlocks as user space
 * does (cmpxchg TID -> 0, FUTEX_UNLOCK only when that fails on W).
 */
struct lw_round {
	uint32_t word;
	pid_t tid;			/* the waiter's */
	_Atomic int go, done, op;	/* round number to run / finished */
	volatile int errors;
};

static void lw_nop(int sig)
{
}

static void *lw_waiter(void *arg)
{
	struct lw_round *r = arg;
	int round = 0;

	r->tid = gettid_();
	for (;;) {
		/* wait by polling, so futex(2) means the lock call */
		while (atomic_load(&r->go) == round)
			usleep(100);
		round = atomic_load(&r->go);
		if (round < 0)
			return NULL;
		if (flock(&r->word, atomic_load(&r->op) | PRIV, NULL) ||
		    funlock(&r->word, PRIV))
			r->errors++;
		atomic_store(&r->done, round);
	}
}

/*
 * The waiter still sleeps in futex(2) while the word is free after the
 * owner's unlock: nobody will ever wake it (a woken waiter is runnable
 * before the unlock returns, and takes a free word before it sleeps).
 */
static int lw_lost(struct lw_round *r, int round)
{
	return atomic_load(&r->done) != round &&
	       __atomic_load_n(&r->word, __ATOMIC_SEQ_CST) == 0 &&
	       task_sleeping_in(getpid(), r->tid, SYS_futex) &&
	       __atomic_load_n(&r->word, __ATOMIC_SEQ_CST) == 0 &&
	       atomic_load(&r->done) != round;
}

/*
 * After one FUTEX_LOCK_ADAPTIVE waiter, neither it nor the plain
 * FUTEX_LOCK waiters of the later rounds may sleep on a free lock.  On a
 * CONFIG_SMP=n kernel a spinner slot left registered makes every waiter
 * sleep without FUTEX_WAITERS, so the owner's user-space unlock wakes
 * nobody.  No time is judged: a lost round is the state "waiter asleep in
 * futex(2), word 0" after the unlock; a signal then lets it retry and take
 * the word, and the next round runs.
 */
#define LW_ROUNDS	20

TEST(adaptive_then_lock_no_lost_wakeup_up)
{
	struct sigaction sa = { .sa_handler = lw_nop, .sa_flags = SA_RESTART };
	struct lw_round r = { };
	uint32_t me = gettid_();
	int lost = 0;
	pthread_t th;

	REQUIRE_OPS();
	ASSERT_EQ(0, sigaction(SIGUSR2, &sa, NULL));
	ASSERT_EQ(0, pthread_create(&th, NULL, lw_waiter, &r));
	ASSERT_TRUE(WAIT_FOR(__atomic_load_n(&r.tid, __ATOMIC_SEQ_CST)));
	for (int round = 1; round <= LW_ROUNDS; round++) {
		uint32_t tid = me;

		ASSERT_EQ(0, flock(&r.word, FUTEX_LOCK | PRIV, NULL));
		atomic_store(&r.op, round == 1 ? FUTEX_LOCK_ADAPTIVE :
						 FUTEX_LOCK);
		atomic_store(&r.go, round);
		ASSERT_TRUE(wait_sleeping_in(getpid(), r.tid, SYS_futex));
		/* user space's unlock */
		if (!atomic_compare_exchange_strong((_Atomic uint32_t *)&r.word,
						    &tid, 0))
			ASSERT_EQ(0, futex_sys(&r.word, FUTEX_UNLOCK | PRIV, 0,
					       NULL, NULL, 0));
		ASSERT_TRUE(WAIT_FOR(atomic_load(&r.done) == round ||
				     lw_lost(&r, round)));
		if (atomic_load(&r.done) != round) {
			lost++;
			pthread_kill(th, SIGUSR2);
			ASSERT_TRUE(WAIT_FOR(atomic_load(&r.done) == round));
		}
	}
	atomic_store(&r.go, -1);
	pthread_join(th, NULL);
	if (lost)
		TH_LOG("%d of %d rounds lost the wake-up (waiter asleep, word 0)",
		       lost, LW_ROUNDS);
	EXPECT_EQ(0, lost);
	EXPECT_EQ(0, r.errors);
	EXPECT_EQ(0, r.word);
}


/* ------------------------------------------------------------------ */
/* FUTEX_UNLOCK with a FUTEX_WAIT task first in the queue (review N7) */

struct n7_shared {
	uint32_t word;
	pid_t a_tid, b_tid;
	_Atomic int a_done, b_done;
	volatile long a_ret;
	volatile int b_ret;
};

static void *n7_waiter(void *arg)
{
	struct n7_shared *s = arg;
	uint32_t owner = __atomic_load_n(&s->word, __ATOMIC_SEQ_CST);

	s->a_tid = gettid_();
	s->a_ret = futex_sys(&s->word, FUTEX_WAIT | PRIV, owner, NULL, NULL, 0);
	atomic_store(&s->a_done, 1);
	return NULL;
}

static void *n7_locker(void *arg)
{
	struct n7_shared *s = arg;

	s->b_tid = gettid_();
	s->b_ret = flock(&s->word, FUTEX_LOCK | PRIV, NULL);
	if (!s->b_ret)
		s->b_ret = funlock(&s->word, PRIV);
	atomic_store(&s->b_done, 1);
	return NULL;
}

static void n7_nop(int sig)
{
}

/*
 * A FUTEX_WAIT task queued first, a FUTEX_LOCK waiter second: the
 * owner's FUTEX_UNLOCK wakes the FUTEX_WAIT task, which will not retry
 * the lock, so it must wake the lock waiter too.  Lost is a state, not a
 * time: after the unlock returned, B still asleep in futex(2) with no
 * owner in the word (W|0); a signal then lets B retry.
 */
TEST(unlock_wait_task_top_wakes_lock_waiter)
{
	struct sigaction sa = { .sa_handler = n7_nop, .sa_flags = SA_RESTART };
	struct n7_shared s = { };
	pid_t pid = getpid();
	pthread_t a, b;
	uint32_t tid = gettid_();
	int lost;

	REQUIRE_OPS();
	ASSERT_EQ(0, sigaction(SIGUSR2, &sa, NULL));
	ASSERT_EQ(0, flock(&s.word, FUTEX_LOCK | PRIV, NULL));
	ASSERT_EQ(0, pthread_create(&a, NULL, n7_waiter, &s));
	ASSERT_TRUE(WAIT_FOR(__atomic_load_n(&s.a_tid, __ATOMIC_SEQ_CST)));
	ASSERT_TRUE(wait_sleeping_in(pid, s.a_tid, SYS_futex));
	ASSERT_EQ(0, pthread_create(&b, NULL, n7_locker, &s));
	ASSERT_TRUE(WAIT_FOR(__atomic_load_n(&s.b_tid, __ATOMIC_SEQ_CST)));
	ASSERT_TRUE(wait_sleeping_in(pid, s.b_tid, SYS_futex));
	/* B set FUTEX_WAITERS: user space's unlock enters the kernel */
	ASSERT_FALSE(atomic_compare_exchange_strong((_Atomic uint32_t *)&s.word,
						    &tid, 0));
	ASSERT_EQ(0, futex_sys(&s.word, FUTEX_UNLOCK | PRIV, 0, NULL, NULL, 0));
	ASSERT_TRUE(WAIT_FOR(atomic_load(&s.b_done) ||
			     (!(__atomic_load_n(&s.word, __ATOMIC_SEQ_CST) &
				FUTEX_TID_MASK) &&
			      task_sleeping_in(pid, s.b_tid, SYS_futex) &&
			      !(__atomic_load_n(&s.word, __ATOMIC_SEQ_CST) &
				FUTEX_TID_MASK) &&
			      !atomic_load(&s.b_done))));
	lost = !atomic_load(&s.b_done);
	if (lost) {
		TH_LOG("lock waiter asleep after FUTEX_UNLOCK, word %#x",
		       __atomic_load_n(&s.word, __ATOMIC_SEQ_CST));
		pthread_kill(b, SIGUSR2);
	}
	pthread_join(b, NULL);
	pthread_join(a, NULL);
	EXPECT_EQ(0, lost);
	EXPECT_EQ(0, s.a_ret);
	EXPECT_EQ(0, s.b_ret);
	EXPECT_EQ(0, s.word & FUTEX_TID_MASK);
}

/* ------------------------------------------------------------------ */
/* N5: a caller that owes nobody a wake-up passes none on */

/* Voluntary context switches of a task, from /proc; -1 if unknown. */
static long task_nvcsw(pid_t pid, pid_t tid)
{
	char path[64], line[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

struct n5_try {
	uint32_t *word;
	int op, ret;
};

static void *n5_try_fn(void *arg)
{
	struct n5_try *t = arg;
	struct timespec ts = abs_in(CLOCK_MONOTONIC, 0);

	t->ret = flock(t->word, t->op | PRIV, &ts);
	return NULL;
}

/*
 * The steady state of the 0-after-wake policy: FUTEX_UNLOCK wrote 0 and
 * woke W1 (held here in delay_after_wake_ms), the owner took the lock
 * again in user space (word = TID, FUTEX_WAITERS clear), W2 sleeps.  A
 * trylock (expired deadline) by X owes nobody anything: it must return
 * ETIMEDOUT with the word unchanged and wake nobody.  W2 not woken is a
 * state: still asleep in futex(2) with the same voluntary context switch
 * count after X's call returned (a wake-up inside X's call makes it
 * runnable before X returns).  With @due, handoff_threshold is 0 for X's
 * call, so W2 is due a hand-off: X must not set FUTEX_WAITERS for it
 * either.  Before the fix X woke W2 (or set W) from its error exit
 * (review N5).  The round counts only if W1 is still in its delay after
 * the checks.
 */
static void n5_case(struct __test_metadata *_metadata, int op, int due)
{
	long long old_delay = knob_get("delay_after_wake_ms");
	long long thr = knob_get("handoff_threshold");
	uint32_t word, tid = gettid_();
	struct lock_waiter w1 = { .word = &word, .op = FUTEX_LOCK, .cpu = -1 };
	struct lock_waiter w2 = { .word = &word, .op = FUTEX_LOCK, .cpu = -1 };
	struct n5_try x = { .word = &word, .op = op };
	pid_t pid = getpid();
	pthread_t t1, t2, tx;
	long cs0, cs1;
	char st;
	int valid;
	uint32_t after, zero = 0;

	REQUIRE_OPS();
	REQUIRE_KNOB("delay_after_wake_ms");
	if (thr < 0)
		SKIP(return, "no debugfs handoff_threshold");
	word = tid;
	ASSERT_EQ(0, pthread_create(&t1, NULL, lock_waiter_fn, &w1));
	ASSERT_TRUE(WAIT_FOR(w1.tid));
	ASSERT_TRUE(wait_sleeping_in(pid, w1.tid, SYS_futex));
	ASSERT_EQ(0, pthread_create(&t2, NULL, lock_waiter_fn, &w2));
	ASSERT_TRUE(WAIT_FOR(w2.tid));
	ASSERT_TRUE(wait_sleeping_in(pid, w2.tid, SYS_futex));
	ASSERT_TRUE(__atomic_load_n(&word, __ATOMIC_SEQ_CST) & FUTEX_WAITERS);

	knob_set("handoff_threshold", 1000);	/* wake W1, no hand-off */
	ASSERT_EQ(0, knob_set("delay_after_wake_ms", 1000));
	ASSERT_EQ(0, futex_sys(&word, FUTEX_UNLOCK | PRIV, 0, NULL, NULL, 0));
	ASSERT_TRUE(WAIT_FOR(task_state(pid, w1.tid) == 'D' || atomic_load(&w1.done)));
	/* take it back in user space: word = TID, W clear, W2 asleep */
	ASSERT_TRUE(atomic_compare_exchange_strong((_Atomic uint32_t *)&word,
						   &zero, tid));
	ASSERT_TRUE(task_sleeping_in(pid, w2.tid, SYS_futex));
	if (due)
		knob_set("handoff_threshold", 0);
	cs0 = task_nvcsw(pid, w2.tid);
	ASSERT_EQ(0, pthread_create(&tx, NULL, n5_try_fn, &x));
	pthread_join(tx, NULL);
	st = task_state(pid, w2.tid);
	cs1 = task_nvcsw(pid, w2.tid);
	after = __atomic_load_n(&word, __ATOMIC_SEQ_CST);
	valid = task_state(pid, w1.tid) == 'D';
	knob_set("handoff_threshold", 1000);
	knob_set("delay_after_wake_ms", old_delay);
	TH_LOG("X: %s; word %#x (was %#x); W2 state %c, nvcsw %ld -> %ld; W1 in its delay %d",
	       x.ret ? strerror(-x.ret) : "0", after, tid, st, cs0, cs1, valid);
	/* release: W1 comes back and sets W, or the unlock finds W2 */
	ASSERT_EQ(0, funlock(&word, PRIV));
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	knob_set("handoff_threshold", thr);
	EXPECT_EQ(0, w1.ret);
	EXPECT_EQ(0, w2.ret);
	if (!valid)
		SKIP(return, "W1 left its delay before the checks");
	EXPECT_EQ(-ETIMEDOUT, x.ret);
	EXPECT_EQ(tid, after);
	EXPECT_EQ('S', st);
	EXPECT_EQ(cs0, cs1);
}

TEST(trylock_owes_nothing_wakes_nobody)
{
	n5_case(_metadata, FUTEX_LOCK, 0);
}

TEST(trylock_adaptive_owes_nothing_wakes_nobody)
{
	n5_case(_metadata, FUTEX_LOCK_ADAPTIVE, 0);
}

TEST(trylock_owes_nothing_sets_no_waiters_bit_for_due_top)
{
	n5_case(_metadata, FUTEX_LOCK, 1);
}

/* ------------------------------------------------------------------ */
/* N4: a waiter handed the lock with a fatal signal pending */

struct n4_shared {
	volatile int hog_go, hog_stop, hog_running, rt_fail;
	volatile int zap_go, zapped;
};

struct n4_zapper {
	struct n4_shared *s;
	uint32_t *word;
};

/* In W1's process: drop W1's page table entry of the word's page. */
static void *n4_zap_fn(void *arg)
{
	struct n4_zapper *z = arg;

	pin_cpu(0);
	while (!z->s->zap_go)
		usleep(100);
	if (madvise(z->word, 4096, MADV_DONTNEED))
		z->s->zapped = -errno;
	else
		z->s->zapped = 1;
	for (;;)
		pause();
	return NULL;
}

/*
 * O owns a shared lock; W1 (pinned to CPU 1) and W2 (another process)
 * sleep in FUTEX_LOCK, W1 first.  A SCHED_FIFO hog takes CPU 1, W1 is
 * SIGKILLed (it is woken but cannot run, so it stays queued first), and
 * O's FUTEX_UNLOCK with handoff_threshold 0 hands the lock to W1.  The
 * hog stops, W1 runs and dies.  A handed-over lock must not die with W1:
 * W2 must get it.  Before the fix W1 returned 0 and died owning the lock
 * (no robust list), and W2 slept until its timeout, HANG_NS here, a hang
 * guard (review N4).  The round counts only if the hand-off went to W1
 * (the word named W1 after FUTEX_UNLOCK returned).
 *
 * With @zap, a thread of W1's process first drops W1's page table entry
 * of the word (madvise(MADV_DONTNEED) of the shared page), so that W1's
 * give-back faults with page faults disabled: it must fault the page in
 * and retry.  Before that fix the give-back was a single try, and W1 died
 * owning the lock as above (review of v3, R1).
 */
static void n4_case(struct __test_metadata *_metadata, int zap)
{
	struct sched_param sp = { .sched_priority = 50 };
	long long thr = knob_get("handoff_threshold");
	struct n4_shared *s = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint32_t *word = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t w1, w2, hog;
	uint32_t handed;
	int status, w2_status = -1;

	REQUIRE_OPS();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs");
	if (thr < 0)
		SKIP(return, "no debugfs handoff_threshold");
	ASSERT_NE(MAP_FAILED, s);
	ASSERT_NE(MAP_FAILED, word);
	pin_cpu(0);
	*word = gettid_();
	hog = fork();
	if (!hog) {
		pin_cpu(1);
		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			s->rt_fail = 1;
			_exit(0);
		}
		while (!s->hog_go)
			usleep(100);
		s->hog_running = 1;
		while (!s->hog_stop)
			;
		_exit(0);
	}
	w1 = fork();
	if (!w1) {
		struct n4_zapper z = { .s = s, .word = word };
		pthread_t zt;

		pin_cpu(1);
		if (zap && pthread_create(&zt, NULL, n4_zap_fn, &z))
			s->zapped = -1;
		flock(word, FUTEX_LOCK, NULL);
		_exit(0);
	}
	ASSERT_TRUE(wait_sleeping_in(w1, w1, SYS_futex));
	w2 = fork();
	if (!w2) {
		struct timespec to = abs_in(CLOCK_MONOTONIC, HANG_NS);
		int r = flock(word, FUTEX_LOCK, &to);

		if (!r)
			funlock(word, 0);
		_exit(r ? 1 : 0);
	}
	ASSERT_TRUE(wait_sleeping_in(w2, w2, SYS_futex));
	if (s->rt_fail) {
		kill(w1, SIGKILL);
		kill(w2, SIGKILL);
		waitpid(hog, NULL, 0);
		SKIP(return, "cannot use SCHED_FIFO");
	}
	s->hog_go = 1;
	ASSERT_TRUE(WAIT_FOR(s->hog_running));
	if (zap) {
		s->zap_go = 1;
		ASSERT_TRUE(WAIT_FOR(s->zapped));
		ASSERT_EQ(1, s->zapped);
	}
	knob_set("handoff_threshold", 0);
	kill(w1, SIGKILL);
	ASSERT_EQ(0, funlock(word, 0));
	handed = __atomic_load_n(word, __ATOMIC_SEQ_CST);
	knob_set("handoff_threshold", thr);
	s->hog_stop = 1;
	ASSERT_EQ(hog, waitpid(hog, &status, 0));
	ASSERT_EQ(w1, waitpid(w1, &status, 0));
	ASSERT_EQ(w2, waitpid(w2, &w2_status, 0));
	TH_LOG("word after FUTEX_UNLOCK %#x (W1 %d, W2 %d), W2 exit %d, word now %#x",
	       handed, w1, w2, WIFEXITED(w2_status) ? WEXITSTATUS(w2_status) : -1,
	       *word);
	if ((handed & FUTEX_TID_MASK) != (uint32_t)w1) {
		munmap(s, 4096);
		munmap(word, 4096);
		SKIP(return, "the hand-off did not go to the killed W1");
	}
	EXPECT_TRUE(WIFEXITED(w2_status) && WEXITSTATUS(w2_status) == 0);
	EXPECT_EQ(0, *word & FUTEX_TID_MASK);
	munmap(s, 4096);
	munmap(word, 4096);
}

TEST(handoff_to_killed_waiter_passes_on)
{
	n4_case(_metadata, 0);
}

TEST(handoff_to_killed_waiter_unmapped_pte_passes_on)
{
	n4_case(_metadata, 1);
}

/* ------------------------------------------------------------------ */
/* N6: a spinner that took the lock wakes nobody to lose it */

struct n6 {
	uint32_t word;
	int iters;
	volatile long counter;
	volatile int errors;
};

static void *n6_fn(void *arg, int op)
{
	struct n6 *m = arg;

	for (int i = 0; i < m->iters; i++) {
		if (flock(&m->word, op | PRIV, NULL)) {
			m->errors++;
			continue;
		}
		m->counter++;
		for (volatile int j = 0; j < 200; j++)
			;
		if (funlock(&m->word, PRIV))
			m->errors++;
	}
	return NULL;
}

static void *n6_adaptive(void *arg)
{
	return n6_fn(arg, FUTEX_LOCK_ADAPTIVE);
}

static void *n6_plain(void *arg)
{
	return n6_fn(arg, FUTEX_LOCK);
}

/* the counter of pass-on wake-ups (named wakeups_relay before v3) */
static long long n6_pass_on_wakes(void)
{
	long long v = stat_get("wakeups_pass_on");

	return v >= 0 ? v : stat_get("wakeups_relay");
}

/*
 * One FUTEX_LOCK_ADAPTIVE thread and three FUTEX_LOCK threads, no errors,
 * no signals, no timeouts: nobody leaves a lock call without the lock, so
 * nobody owes a pass-on wake-up.  A spinner that takes the lock must not
 * wake a waiter that can only find it held again (and count a loss).
 * Before the fix every spin acquisition with sleepers queued behind the
 * spinner woke one of them (review N6).
 */
TEST(spinner_take_wakes_nobody)
{
	long long p0 = n6_pass_on_wakes(), sp0 = stat_get("spin_acquired");
	struct n6 m = { .iters = 3000 };
	pthread_t th[4];

	REQUIRE_OPS();
	if (p0 < 0 || sp0 < 0)
		SKIP(return, "no debugfs stats");
	ASSERT_EQ(0, pthread_create(&th[0], NULL, n6_adaptive, &m));
	for (int i = 1; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, n6_plain, &m));
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	TH_LOG("pass-on wake-ups +%lld, spin acquisitions +%lld",
	       n6_pass_on_wakes() - p0, stat_get("spin_acquired") - sp0);
	EXPECT_EQ(0, m.errors);
	EXPECT_EQ(0, m.word);
	EXPECT_EQ(0, n6_pass_on_wakes() - p0);
}

/* ------------------------------------------------------------------ */
/* Review of v3, R2: a restart count left behind by a longjmp */

struct r2 {
	uint32_t word;
	volatile pid_t tid;
	volatile int phase, jumped, ret;
	sigjmp_buf env;
};

static struct r2 *r2_cur;

static void r2_jump(int sig __attribute__((unused)))
{
	r2_cur->jumped = 1;
	siglongjmp(r2_cur->env, 1);
}

/* Lock from a deeper stack frame than the interrupted call. */
static __attribute__((noinline)) int r2_lock_deeper(struct r2 *r)
{
	volatile char pad[512];
	int ret;

	pad[0] = 0;
	ret = flock(&r->word, FUTEX_LOCK | PRIV, NULL);
	return ret + pad[0];
}

static void *r2_fn(void *arg)
{
	struct r2 *r = arg;

	r->tid = gettid_();
	if (!sigsetjmp(r->env, 1)) {
		flock(&r->word, FUTEX_LOCK | PRIV, NULL);
		r->ret = -1;	/* not reached: the handler jumps out */
		return NULL;
	}
	while (r->phase < 1)
		usleep(100);
	r->ret = r2_lock_deeper(r);
	if (!r->ret)
		funlock(&r->word, PRIV);
	return NULL;
}

/*
 * T loses one wake-up (handoff_threshold 1: one more loss makes it due a
 * hand-off): woken by FUTEX_UNLOCK, it finds the lock retaken by the main
 * thread in user space (delay_after_wake_ms) and sleeps again.  A signal
 * handler then siglongjmp()s out of the call.  Later T blocks in a new
 * FUTEX_LOCK on the same word, from another stack frame: that call must
 * start with no losses, so FUTEX_UNLOCK wakes T instead of handing the
 * lock over.  Before the fix the count of the abandoned call, kept in the
 * task for a signal restart and keyed by the address only, was taken up
 * by the new call, which got a hand-off (the handoffs counter moved).
 */
TEST(restart_count_not_inherited_after_longjmp)
{
	struct sigaction sa = { .sa_handler = r2_jump };
	long long thr = knob_get("handoff_threshold");
	long long daw = knob_get("delay_after_wake_ms");
	long long ho0, lost0;
	struct r2 *r = calloc(1, sizeof(*r));
	pthread_t th;
	uint32_t me = gettid_(), zero;

	REQUIRE_OPS();
	if (thr < 0 || daw < 0 || stat_get("handoffs") < 0)
		SKIP(return, "needs the debug kernel's debugfs knobs and stats");
	ASSERT_NE(NULL, r);
	r2_cur = r;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	r->word = me;
	knob_set("handoff_threshold", 1);
	ASSERT_EQ(0, pthread_create(&th, NULL, r2_fn, r));
	ASSERT_TRUE(WAIT_FOR(r->tid));
	ASSERT_TRUE(wait_sleeping_in(getpid(), r->tid, SYS_futex));
	/* T loses once: woken, then finds the lock taken again. */
	lost0 = stat_get("lost_after_wake");
	knob_set("delay_after_wake_ms", 200);
	ASSERT_EQ(0, funlock(&r->word, PRIV));
	zero = 0;
	ASSERT_TRUE(WAIT_FOR(atomic_compare_exchange_strong(
			(_Atomic uint32_t *)&r->word, &zero, me) ||
		    (zero = 0)));
	ASSERT_TRUE(WAIT_FOR(stat_get("lost_after_wake") > lost0 &&
			     task_sleeping_in(getpid(), r->tid, SYS_futex)));
	knob_set("delay_after_wake_ms", daw);
	/* Jump out of the call, then block again from another frame. */
	pthread_kill(th, SIGUSR1);
	ASSERT_TRUE(WAIT_FOR(r->jumped));
	r->phase = 1;
	ASSERT_TRUE(WAIT_FOR(task_sleeping_in(getpid(), r->tid, SYS_futex) &&
			     (r->word & FUTEX_WAITERS)));
	ho0 = stat_get("handoffs");
	ASSERT_EQ(0, funlock(&r->word, PRIV));
	pthread_join(th, NULL);
	knob_set("handoff_threshold", thr);
	TH_LOG("new call: ret %d, handoffs +%lld", r->ret,
	       stat_get("handoffs") - ho0);
	EXPECT_EQ(0, r->ret);
	EXPECT_EQ(0, stat_get("handoffs") - ho0);
	signal(SIGUSR1, SIG_DFL);
	free(r);
}

/* ------------------------------------------------------------------ */
/* Review of v3, R4: a loss counted before FUTEX_WAITERS is set */

struct r4 {
	uint32_t word;
	volatile pid_t t_tid;
	volatile int go, x_phase, x_user, ret;
	int x_delay_us;
	uint64_t t0, x_took, x_run, x_rel, t_ret;
};

static void *r4_t(void *arg)
{
	struct r4 *r = arg;

	r->t_tid = gettid_();
	r->ret = flock(&r->word, FUTEX_LOCK | PRIV, NULL);
	r->t_ret = now_ns(CLOCK_MONOTONIC);
	if (!r->ret)
		funlock(&r->word, PRIV);
	return NULL;
}

/*
 * X takes the lock in user space while T, just woken by FUTEX_UNLOCK,
 * sleeps in delay_after_wake_ms; once T runs again (it then reads the word
 * and sits in delay_check_owner_us, 100 ms, before it sets FUTEX_WAITERS),
 * X waits x_delay_us and unlocks.  x_user tells whether that unlock was a
 * user space one (T had not set W yet) or went to FUTEX_UNLOCK.
 */
static void *r4_x(void *arg)
{
	struct r4 *r = arg;
	uint32_t zero = 0, me = gettid_();

	while (!r->go)
		usleep(100);
	while (!atomic_compare_exchange_strong((_Atomic uint32_t *)&r->word,
					       &zero, me))
		zero = 0;
	r->x_took = now_ns(CLOCK_MONOTONIC);
	/* T sleeps in the delay (D), then runs into the word check. */
	r->x_phase = WAIT_FOR(task_state(getpid(), r->t_tid) == 'D') ? 1 : -1;
	if (r->x_phase > 0)
		r->x_phase = WAIT_FOR(task_state(getpid(), r->t_tid) != 'D') ? 2 : -2;
	r->x_run = now_ns(CLOCK_MONOTONIC);
	usleep(r->x_delay_us);
	r->x_rel = now_ns(CLOCK_MONOTONIC);
	r->x_user = atomic_compare_exchange_strong((_Atomic uint32_t *)&r->word,
						   &me, 0);
	if (!r->x_user)
		funlock(&r->word, PRIV);
	return NULL;
}

/*
 * A waiter that is woken, finds the word held without FUTEX_WAITERS and
 * fails to set W because the holder released in the meantime has lost
 * nothing: it takes the lock on the next pass.  Rounds in which X released
 * in user space are such rounds, or rounds in which T read the word after
 * the release; in neither may a loss be counted.  (A round in which T set
 * W first is a real loss, and not judged.)  Before the fix the loss was
 * counted before the cmpxchg: lost_after_wake moved in the judged rounds,
 * bringing the waiter's hand-off closer for a race it won.
 */
TEST(loss_counted_only_after_waiters_bit)
{
	static const int x_delay_ms[] = { 5, 20, 40, 60, 80 };
	long long daw = knob_get("delay_after_wake_ms");
	long long dco = knob_get("delay_check_owner_us");
	long long lost0, lost = 0;
	int judged = 0;
	pthread_t t, x;

	REQUIRE_OPS();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs");
	if (daw < 0 || dco < 0 || stat_get("lost_after_wake") < 0)
		SKIP(return, "needs the debug kernel's delay knobs and stats");
	for (unsigned int i = 0; i < sizeof(x_delay_ms) / sizeof(x_delay_ms[0]); i++) {
		struct r4 r = { .word = gettid_(), .x_delay_us = x_delay_ms[i] * 1000 };
		long long d;

		ASSERT_EQ(0, pthread_create(&t, NULL, r4_t, &r));
		ASSERT_TRUE(WAIT_FOR(r.t_tid));
		ASSERT_TRUE(wait_sleeping_in(getpid(), r.t_tid, SYS_futex));
		ASSERT_EQ(0, pthread_create(&x, NULL, r4_x, &r));
		knob_set("delay_after_wake_ms", 300);
		knob_set("delay_check_owner_us", 100000);
		lost0 = stat_get("lost_after_wake");
		r.t0 = now_ns(CLOCK_MONOTONIC);
		r.go = 1;
		ASSERT_EQ(0, funlock(&r.word, PRIV));
		pthread_join(x, NULL);
		pthread_join(t, NULL);
		knob_set("delay_after_wake_ms", daw);
		knob_set("delay_check_owner_us", dco);
		d = stat_get("lost_after_wake") - lost0;
		TH_LOG("X unlocked %d ms after T woke, %s: lost_after_wake +%lld",
		       x_delay_ms[i], r.x_user ? "in user space" : "by FUTEX_UNLOCK (not judged)", d);
		TH_LOG("  ms from the unlock: X took %.1f, T ran %.1f, X released %.1f, T returned %.1f",
		       (r.x_took - r.t0) / 1e6, (r.x_run - r.t0) / 1e6,
		       (r.x_rel - r.t0) / 1e6, (r.t_ret - r.t0) / 1e6);
		EXPECT_EQ(0, r.ret);
		EXPECT_EQ(2, r.x_phase);
		if (r.x_user) {
			judged++;
			lost += d;
		}
	}
	TH_LOG("%d judged rounds: lost_after_wake +%lld", judged, lost);
	EXPECT_EQ(0, lost);
}

/* ------------------------------------------------------------------ */
/* Review N11: FUTEX_UNLOCK's reserved timeout, all 64 bits of it */

/*
 * The timeout argument of FUTEX_UNLOCK is reserved and must be NULL.
 * Before the fix only its low 32 bits were checked (do_futex() takes a
 * u32 val2), so a pointer like 1 << 32 unlocked the lock.
 */
TEST(einval_unlock_timeout_high_bits)
{
	uint32_t w = gettid_();
	long ret;

	REQUIRE_OPS();
	if (sizeof(void *) < 8)
		SKIP(return, "32-bit: no high bits");
	ret = syscall(SYS_futex, &w, FUTEX_UNLOCK | PRIV, 0,
		      (void *)(1UL << 32), NULL, 0);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ((uint32_t)gettid_(), w);
}

TEST_HARNESS_MAIN
