// SPDX-License-Identifier: GPL-2.0
/*
 * futex_torture - mutual-exclusion and liveness torture of FUTEX_LOCK (14),
 * FUTEX_LOCK_ADAPTIVE (15) and FUTEX_UNLOCK (16), in the manner of
 * kernel/locking/locktorture.c.
 *
 * Threads of --procs processes (fork, MAP_SHARED) hammer one shared lock
 * (shared futex ops) and one private lock per process (FUTEX_PRIVATE_FLAG).
 * Lockers use the user-space fast paths of the ABI (cmpxchg 0 -> TID,
 * TID -> 0) and enter the kernel with FUTEX_LOCK or FUTEX_LOCK_ADAPTIVE
 * chosen at random per call, sometimes with an absolute timeout on
 * CLOCK_MONOTONIC or (FUTEX_CLOCK_REALTIME) CLOCK_REALTIME.  Meanwhile:
 *  - signals with (SIGUSR1) and without (SIGUSR2) SA_RESTART hit workers;
 *  - workers exit after a random number of operations and are replaced
 *    (owners that unlock and exit: the review's F3 window);
 *  - child processes take the shared lock with it on their robust list and
 *    exit holding it: the next locker must get EOWNERDEAD (exactly once
 *    per death) and recovers;
 *  - handoff_threshold and spin_max_ns are changed in debugfs.
 * Inside the critical section: (word & FUTEX_TID_MASK) == gettid(), nobody
 * else is inside, and a non-atomic counter is bumped; at the end every
 * counter must equal the number of acquisitions.  A watchdog reports
 * every waiter that sleeps while its lock stays free for --stall-ms (lost
 * wake-up) and wakes it with a signal instead of hanging; the run ends
 * within a bounded time in any case.  --stall-ms is a hang detector, not
 * a latency bound: a lost wake-up lasts for ever, so the default (10 s)
 * is far above anything a loaded TCG guest makes a woken waiter wait.
 *
 * Exit: 0 pass, 1 fail, 2 usage, 4 skip (kernel without FUTEX_LOCK).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/futex.h>

#include "ft_common.h"

#define MAXPROCS	16
#define MAXTHREADS	64
#define NSLOTS		(MAXPROCS * MAXTHREADS)
#define NDEATHSLOTS	4
/* [0] shared; private locks of proc p: A [1 + 2p], B [2 + 2p] */
#define NLOCKS		(1 + 2 * MAXPROCS)
#define PRIV_A(p)	(1 + 2 * (p))
#define PRIV_B(p)	(2 + 2 * (p))
#define NERR		160
#define MAXREPORT	8

enum { ST_FREE, ST_OUTSIDE, ST_WAITING, ST_INCS };
enum { BROKEN_NONE, BROKEN_NOEXCLUDE, BROKEN_LOSTWAKE };

struct lockrec {
	struct robust_list node;	/* entry on a dying owner's robust list */
	_Atomic uint32_t word;		/* the futex word */
	_Atomic uint32_t holder;	/* TID inside the critical section */
	volatile uint64_t counter;	/* non-atomic, bumped inside */
	_Atomic uint64_t acquisitions;	/* atomic, bumped after */
	_Atomic uint64_t gen;		/* for the watchdog */
	int shared;
} __attribute__((aligned(64)));

struct slot {
	_Atomic int state;
	_Atomic int lock;
	_Atomic pid_t pid, tid;
	_Atomic uint64_t since;		/* waiting since (CLOCK_MONOTONIC ns) */
	_Atomic uint64_t reported;	/* 'since' of the last stall reported */
};

struct shm {
	struct lockrec locks[NLOCKS];
	struct slot slots[NSLOTS + NDEATHSLOTS];
	_Atomic int stop;
	_Atomic int reports[4];
	_Atomic uint64_t ops, ops_fast, ops_kernel_lock, ops_kernel_adaptive;
	_Atomic uint64_t violations, stalls, unexpected, counter_errors;
	_Atomic uint64_t err[NERR];	/* errno counts of lock/unlock calls */
	_Atomic uint64_t longest_wait_ns;
	_Atomic uint64_t deaths, ownerdead, timed_calls, signals_sent;
	_Atomic uint64_t threads_started, tunes, requeue_calls, requeued;
};

static struct shm *S;
static struct {
	double duration;
	int threads, procs, stall_ms, signals, eintr, deaths, churn, tune;
	int rt_hog_ms, broken, verbose, requeue, churn_ops;
	uint64_t seed;
} opt = {
	.duration = 10, .threads = 4, .procs = 2, .stall_ms = 10000,
	.signals = 1, .eintr = 1, .deaths = 1, .churn = 1, .tune = 1, .churn_ops = 3000,
	.seed = 1,
};

static int proc_idx;			/* 0 = parent */
static _Thread_local volatile sig_atomic_t norestart_handled;
static _Thread_local uint64_t rnd;

/* report categories, each printed at most 16 times */
enum { R_VIOLATION, R_UNEXPECTED, R_STALL, R_OTHER, R_NR };

static void report(int cat, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	if (atomic_fetch_add(&S->reports[cat], 1) >= 16)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "# %s\n", buf);
}

static void count_err(int e)
{
	if (e < 0)
		e = -e;
	atomic_fetch_add(&S->err[e < NERR ? e : NERR - 1], 1);
}

static void violation(struct lockrec *L, const char *what, uint32_t word)
{
	atomic_fetch_add(&S->violations, 1);
	report(R_VIOLATION, "VIOLATION lock %d (%s): %s: tid %d word %#x holder %u%s",
	       (int)(L - S->locks), L->shared ? "shared" : "private", what,
	       ft_gettid(), word, atomic_load(&L->holder),
	       opt.requeue && !L->shared ? " (lock waiters requeued: review F2)" : "");
}

static void unexpected(struct lockrec *L, const char *op, long r, uint32_t word)
{
	atomic_fetch_add(&S->unexpected, 1);
	uint32_t now = atomic_load(&L->word);

	report(R_UNEXPECTED, "UNEXPECTED %s on lock %d (%s) -> %s, word before %#x now %#x, tid %d%s",
	       op, (int)(L - S->locks), L->shared ? "shared" : "private",
	       ft_errname((int)-r), word, now, ft_gettid(),
	       r == -ESRCH && !(now & FUTEX_TID_MASK) ?
	       " (the owner is gone but the lock is free: exit race, review F3)" : "");
}

static void on_restart_sig(int sig)
{
	(void)sig;
}

static void on_norestart_sig(int sig)
{
	(void)sig;
	norestart_handled++;
}

static void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

static void max_store(_Atomic uint64_t *p, uint64_t v)
{
	uint64_t old = atomic_load(p);

	while (v > old && !atomic_compare_exchange_weak(p, &old, v))
		;
}

/* ------------------------------------------------------------------ */
/* lock / unlock as the ABI says, with every return checked */

static int lock_lock(struct lockrec *L, struct slot *sl, pid_t tid)
{
	int flags = L->shared ? 0 : FUTEX_PRIVATE_FLAG;
	uint64_t start = ft_mono_ns();
	uint32_t zero = 0, before;
	int bad = 0;

	atomic_store(&sl->lock, (int)(L - S->locks));
	atomic_store(&sl->since, start);
	atomic_store(&sl->state, ST_WAITING);

	if (opt.broken == BROKEN_NOEXCLUDE && ft_rand(&rnd) % 64 == 0)
		goto got;	/* selftest: a "lock" that does not exclude */

	if (atomic_compare_exchange_strong(&L->word, &zero, (uint32_t)tid)) {
		atomic_fetch_add(&S->ops_fast, 1);
		goto got;
	}
	for (;;) {
		uint64_t r = ft_rand(&rnd);
		bool adaptive = r & 1;
		int op = (adaptive ? FUTEX_LOCK_ADAPTIVE : FUTEX_LOCK) | flags;
		struct timespec ts, *tsp = NULL;
		bool timed = (r >> 1) % 4 == 0;
		sig_atomic_t nr0 = norestart_handled;
		long ret;

		if (timed) {
			clockid_t clk = (r >> 4) & 1 ? CLOCK_REALTIME : CLOCK_MONOTONIC;
			int64_t off = (int64_t)((r >> 8) % 3000000) - 500000; /* -0.5..2.5 ms */

			if (clk == CLOCK_REALTIME)
				op |= FUTEX_CLOCK_REALTIME;
			ts = ft_ns_to_ts((uint64_t)((int64_t)ft_now_ns(clk) + off));
			tsp = &ts;
			atomic_fetch_add(&S->timed_calls, 1);
		}
		before = atomic_load(&L->word);
		ret = ft_futex(&L->word, op, 0, tsp, NULL, 0);
		if (ret)
			count_err((int)ret);
		if (ret == 0 || ret == -EOWNERDEAD) {
			atomic_fetch_add(adaptive ? &S->ops_kernel_adaptive :
					 &S->ops_kernel_lock, 1);
			if (ret == -EOWNERDEAD) {
				atomic_fetch_add(&S->ownerdead, 1);
				if (!L->shared || !opt.deaths)
					unexpected(L, "lock", ret, before);
			}
			break;
		}
		if (ret == -ETIMEDOUT && timed)
			continue;
		if (ret == -EINTR && norestart_handled != nr0)
			continue;	/* documented: a non-SA_RESTART handler ran */
		unexpected(L, adaptive ? "FUTEX_LOCK_ADAPTIVE" : "FUTEX_LOCK", ret, before);
		if (++bad > 1000) {
			atomic_store(&sl->state, ST_OUTSIDE);
			return -1;
		}
		sched_yield();
		/* the lock may be free now: the fast path is legal again */
		zero = 0;
		if (atomic_compare_exchange_strong(&L->word, &zero, (uint32_t)tid))
			break;
	}
got:
	atomic_store(&sl->state, ST_INCS);
	max_store(&S->longest_wait_ns, ft_mono_ns() - start);
	return 0;
}

static void lock_unlock(struct lockrec *L, pid_t tid)
{
	int flags = L->shared ? 0 : FUTEX_PRIVATE_FLAG;
	uint32_t exp = (uint32_t)tid, before;
	long ret;

	if (atomic_compare_exchange_strong(&L->word, &exp, 0))
		return;
	if (opt.broken == BROKEN_LOSTWAKE) {
		/* selftest: unlock by a blind store, dropping FUTEX_WAITERS */
		atomic_store(&L->word, 0);
		return;
	}
	before = exp;
	ret = ft_futex(&L->word, FUTEX_UNLOCK | flags, 0, NULL, NULL, 0);
	if (ret) {
		count_err((int)ret);
		if (ret == -EPERM)
			violation(L, "FUTEX_UNLOCK: EPERM, the word is not ours", before);
		else
			unexpected(L, "FUTEX_UNLOCK", ret, before);
	}
}

static void critical_section(struct lockrec *L, pid_t tid)
{
	uint32_t w = atomic_load(&L->word);
	uint32_t prev;
	uint64_t v;
	int spin;

	if ((w & FUTEX_TID_MASK) != (uint32_t)tid)
		violation(L, "word's TID is not the caller's in the critical section", w);
	prev = atomic_exchange(&L->holder, (uint32_t)tid);
	if (prev)
		violation(L, "another task is inside the critical section", w);
	v = L->counter;
	for (spin = (int)(ft_rand(&rnd) % 64); spin > 0; spin--)
		cpu_relax();
	if (ft_rand(&rnd) % 512 == 0)
		usleep(200);	/* a long hold: makes waiters sleep */
	L->counter = v + 1;
	prev = (uint32_t)tid;
	if (!atomic_compare_exchange_strong(&L->holder, &prev, 0))
		violation(L, "holder changed inside the critical section", atomic_load(&L->word));
	atomic_fetch_add(&L->gen, 1);
}

/* ------------------------------------------------------------------ */
/* workers */

struct worker {
	int slot;
	pthread_t th;
	_Atomic int done;
	int used;
};

static struct worker workers[MAXTHREADS];
static _Atomic uint64_t spawn_seq;

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct slot *sl = &S->slots[wk->slot];
	struct lockrec *pa = &S->locks[PRIV_A(proc_idx)];
	struct lockrec *pb = &S->locks[PRIV_B(proc_idx)];
	struct lockrec *shared = &S->locks[0];
	pid_t tid = ft_gettid();
	uint64_t n, limit;

	rnd = ft_seed_mix(opt.seed, ((uint64_t)proc_idx << 40) ^ atomic_fetch_add(&spawn_seq, 1));
	limit = opt.churn ? 1 + ft_rand(&rnd) % (uint64_t)opt.churn_ops : UINT64_MAX;
	atomic_store(&sl->pid, getpid());
	atomic_store(&sl->tid, tid);
	atomic_store(&sl->state, ST_OUTSIDE);
	atomic_fetch_add(&S->threads_started, 1);

	for (n = 0; n < limit && !atomic_load(&S->stop); n++) {
		uint64_t r = ft_rand(&rnd) % 4;
		struct lockrec *L = r < 2 ? shared : r == 2 ? pa : pb;

		if (lock_lock(L, sl, tid))
			continue;
		critical_section(L, tid);
		atomic_store(&sl->state, ST_OUTSIDE);
		lock_unlock(L, tid);
		atomic_fetch_add(&L->acquisitions, 1);
		atomic_fetch_add(&S->ops, 1);
		for (int i = (int)(ft_rand(&rnd) % 256); i > 0; i--)
			cpu_relax();
	}
	/* an owner that unlocked and now exits (F3 window for others) */
	atomic_store(&sl->state, ST_FREE);
	atomic_store(&wk->done, 1);
	return NULL;
}

static void start_worker(int i)
{
	struct worker *wk = &workers[i];

	wk->slot = proc_idx * MAXTHREADS + i;
	atomic_store(&wk->done, 0);
	if (pthread_create(&wk->th, NULL, worker_main, wk)) {
		perror("pthread_create");
		atomic_store(&S->stop, 1);
		return;
	}
	wk->used = 1;
}

/*
 * Misuse (review F2): FUTEX_CMP_REQUEUE of waiters of private lock A to
 * private lock B.  Whatever the kernel does with it, no task may come out
 * of FUTEX_LOCK(A) owning A while another does: the critical-section
 * checks tell.  Allowed returns: >= 0, EAGAIN (word changed), EINVAL
 * (requeue of FUTEX_LOCK waiters refused).
 */
static void requeue_misuse(void)
{
	struct lockrec *A = &S->locks[PRIV_A(proc_idx)], *Bl = &S->locks[PRIV_B(proc_idx)];
	uint32_t cur = atomic_load(&A->word);
	long r;

	r = syscall(SYS_futex, &A->word, FUTEX_CMP_REQUEUE_PRIVATE, 0, (void *)1UL,
		    &Bl->word, cur);
	atomic_fetch_add(&S->requeue_calls, 1);
	if (r > 0)
		atomic_fetch_add(&S->requeued, (uint64_t)r);
	else if (r < 0 && errno != EAGAIN && errno != EINVAL)
		unexpected(A, "FUTEX_CMP_REQUEUE", -errno, cur);
}

/* signals with and without SA_RESTART to this process's workers */
static void *signaller_main(void *arg)
{
	(void)arg;
	rnd = ft_seed_mix(opt.seed, 0x5151 + proc_idx);
	while (!atomic_load(&S->stop)) {
		uint64_t r = ft_rand(&rnd);
		struct slot *sl = &S->slots[proc_idx * MAXTHREADS + r % opt.threads];
		pid_t tid = atomic_load(&sl->tid);
		int sig = opt.eintr && (r >> 20) % 3 == 0 ? SIGUSR2 : SIGUSR1;

		if (opt.signals && tid && atomic_load(&sl->state) != ST_FREE &&
		    !syscall(SYS_tgkill, getpid(), tid, sig))
			atomic_fetch_add(&S->signals_sent, 1);
		if (opt.requeue && (r >> 40) % 4 == 0)
			requeue_misuse();
		usleep(200 + (r >> 32) % 2000);
	}
	return NULL;
}

static int run_workers(void)
{
	pthread_t sig_th;
	int i;

	for (i = 0; i < opt.threads; i++)
		start_worker(i);
	if ((opt.signals || opt.requeue) &&
	    pthread_create(&sig_th, NULL, signaller_main, NULL))
		opt.signals = opt.requeue = 0;
	while (!atomic_load(&S->stop)) {
		usleep(5000);
		for (i = 0; i < opt.threads; i++) {
			if (workers[i].used && atomic_load(&workers[i].done)) {
				pthread_join(workers[i].th, NULL);
				workers[i].used = 0;
				if (!atomic_load(&S->stop))
					start_worker(i);
			}
		}
	}
	for (i = 0; i < opt.threads; i++)
		if (workers[i].used)
			pthread_join(workers[i].th, NULL);
	if (opt.signals || opt.requeue)
		pthread_join(sig_th, NULL);
	return 0;
}

static void *run_workers_th(void *arg)
{
	(void)arg;
	run_workers();
	return NULL;
}

/* ------------------------------------------------------------------ */
/* robust owner death: a child takes the shared lock and exits holding it */

static void dying_owner(struct slot *sl)
{
	struct lockrec *L = &S->locks[0];
	struct robust_list_head head;
	struct sigaction sa = { .sa_handler = on_restart_sig, .sa_flags = SA_RESTART };
	pid_t tid = ft_gettid();
	uint32_t zero = 0;
	long ret = 0;

	sigaction(SIGUSR1, &sa, NULL);	/* the watchdog's wake-up */
	head.list.next = &head.list;
	head.futex_offset = (long)offsetof(struct lockrec, word) -
			    (long)offsetof(struct lockrec, node);
	head.list_op_pending = &L->node;
	if (syscall(SYS_set_robust_list, &head, sizeof(head)))
		_exit(3);
	atomic_store(&sl->pid, getpid());
	atomic_store(&sl->tid, tid);
	atomic_store(&sl->lock, 0);
	atomic_store(&sl->since, ft_mono_ns());
	atomic_store(&sl->state, ST_WAITING);
	if (!atomic_compare_exchange_strong(&L->word, &zero, (uint32_t)tid)) {
		do {
			ret = ft_futex(&L->word, FUTEX_LOCK, 0, NULL, NULL, 0);
		} while (ret == -EINTR);
	}
	if (ret && ret != -EOWNERDEAD) {
		count_err((int)ret);
		unexpected(L, "FUTEX_LOCK (dying owner)", ret, zero);
		_exit(3);
	}
	if (ret == -EOWNERDEAD) {
		count_err((int)ret);
		atomic_fetch_add(&S->ownerdead, 1);
	}
	/* on the robust list, then die holding it */
	L->node.next = &head.list;
	head.list.next = &L->node;
	head.list_op_pending = NULL;
	atomic_fetch_add(&S->deaths, 1);
	atomic_store(&sl->state, ST_FREE);
	syscall(SYS_exit_group, 0);
}

static void *deaths_main(void *arg)
{
	(void)arg;
	rnd = ft_seed_mix(opt.seed, 0xdead);
	while (!atomic_load(&S->stop)) {
		struct slot *sl = &S->slots[NSLOTS];
		int status;
		pid_t pid;

		usleep(20000 + ft_rand(&rnd) % 200000);
		if (atomic_load(&S->stop))
			break;
		pid = fork();
		if (pid == 0)
			dying_owner(sl);
		if (pid < 0)
			continue;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		atomic_store(&sl->state, ST_FREE);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			report(R_OTHER, "dying owner child: status %#x", status);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* debugfs knobs changed while running */

#define DBG "/sys/kernel/debug/futex_lock/"

static int read_knob(const char *name, char *buf, size_t len)
{
	int fd = open(name, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static int write_knob(const char *name, const char *val)
{
	int fd = open(name, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

static void *tuner_main(void *arg)
{
	static const char * const thr[] = { "0", "1", "4", "16", "4294967295" };
	static const char * const spin[] = { "0", "1000", "100000", "1000000", "10000000" };
	char old_thr[64], old_spin[64];

	(void)arg;
	rnd = ft_seed_mix(opt.seed, 0x7e7e);
	if (read_knob(DBG "handoff_threshold", old_thr, sizeof(old_thr)) ||
	    read_knob(DBG "spin_max_ns", old_spin, sizeof(old_spin)) ||
	    write_knob(DBG "handoff_threshold", old_thr)) {
		fprintf(stderr, "# debugfs knobs not writable: not tuning\n");
		return NULL;
	}
	while (!atomic_load(&S->stop)) {
		uint64_t r = ft_rand(&rnd);

		write_knob(DBG "handoff_threshold", thr[r % 5]);
		write_knob(DBG "spin_max_ns", spin[(r >> 8) % 5]);
		atomic_fetch_add(&S->tunes, 1);
		usleep(50000 + (r >> 16) % 100000);
	}
	write_knob(DBG "handoff_threshold", old_thr);
	write_knob(DBG "spin_max_ns", old_spin);
	return NULL;
}

/* an RT hog on the last CPU: preempts spinners (the review's F1 window) */
static void *hog_main(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	cpu_set_t set;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	(void)arg;
	CPU_ZERO(&set);
	CPU_SET(ncpu > 1 ? ncpu - 1 : 0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "# rt hog: cannot become SCHED_FIFO: %s\n", strerror(errno));
		return NULL;
	}
	while (!atomic_load(&S->stop)) {
		uint64_t end;

		usleep(300000);
		end = ft_mono_ns() + (uint64_t)opt.rt_hog_ms * 1000000;
		while (ft_mono_ns() < end && !atomic_load(&S->stop))
			cpu_relax();
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* watchdog: waiters asleep on a free lock */

static char proc_state(pid_t pid, pid_t tid)
{
	char path[64], buf[256], *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

static void *watchdog_main(void *arg)
{
	uint64_t free_since[NLOCKS] = { 0 }, last_gen[NLOCKS] = { 0 };
	uint64_t bound = (uint64_t)opt.stall_ms * 1000000;
	int nlocks = 1 + 2 * opt.procs;

	(void)arg;
	while (!atomic_load(&S->stop) || atomic_load(&S->stop) == 1) {
		uint64_t now = ft_mono_ns();

		for (int l = 0; l < nlocks; l++) {
			struct lockrec *L = &S->locks[l];
			uint32_t w = atomic_load(&L->word);
			uint64_t g = atomic_load(&L->gen);

			if ((w & FUTEX_TID_MASK) || g != last_gen[l]) {
				free_since[l] = 0;
				last_gen[l] = g;
				continue;
			}
			if (!free_since[l])
				free_since[l] = now;
			if (now - free_since[l] < bound)
				continue;
			for (int s = 0; s < NSLOTS + NDEATHSLOTS; s++) {
				struct slot *sl = &S->slots[s];
				uint64_t since = atomic_load(&sl->since);
				pid_t pid = atomic_load(&sl->pid), tid = atomic_load(&sl->tid);

				if (atomic_load(&sl->state) != ST_WAITING ||
				    atomic_load(&sl->lock) != l || since > free_since[l] ||
				    atomic_load(&sl->reported) == since)
					continue;
				if (proc_state(pid, tid) != 'S')
					continue;
				atomic_store(&sl->reported, since);
				atomic_fetch_add(&S->stalls, 1);
				report(R_STALL, "STALL lock %d (%s) free for %" PRIu64 " ms (word %#x), task %d/%d asleep in FUTEX_LOCK for %" PRIu64 " ms: lost wake-up; waking it with a signal",
				       l, L->shared ? "shared" : "private",
				       (now - free_since[l]) / 1000000, w, pid, tid,
				       (now - since) / 1000000);
				syscall(SYS_tgkill, pid, tid, SIGUSR1);
			}
		}
		usleep(20000);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: futex_torture [options]\n"
		"  --duration S     run time in seconds (default 10, fractions allowed)\n"
		"  --threads N      worker threads per process (default 4, max %d)\n"
		"  --procs N        processes (MAP_SHARED) incl. this one (default 2, max %d)\n"
		"  --stall-ms MS    lock free this long with a sleeping waiter = stall (default 10000)\n"
		"  --seed N         random seed (default 1)\n"
		"  --rt-hog MS      SCHED_FIFO busy bursts of MS ms on the last CPU (default off)\n"
		"  --no-signals     no SIGUSR1 (SA_RESTART) / SIGUSR2 (no SA_RESTART)\n"
		"  --no-eintr       only SA_RESTART signals\n"
		"  --no-deaths      no robust owners dying with the shared lock held\n"
		"  --no-churn       workers never exit before the end\n"
		"  --no-tune        do not change debugfs handoff_threshold/spin_max_ns\n"
		"  --churn-ops N    a worker exits after 1..N operations (default 3000)\n"
		"  --requeue        misuse: FUTEX_CMP_REQUEUE lock waiters to another lock\n"
		"  --selftest-broken=noexclude|lostwake\n"
		"                   check the checker: a lock that does not always exclude,\n"
		"                   or an unlock that drops FUTEX_WAITERS (must FAIL)\n"
		"  --help\n"
		"exit: 0 pass, 1 fail, 2 usage, 4 skip (no FUTEX_LOCK)\n",
		MAXTHREADS, MAXPROCS);
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "threads", required_argument, NULL, 't' },
		{ "procs", required_argument, NULL, 'p' },
		{ "stall-ms", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "rt-hog", required_argument, NULL, 'H' },
		{ "no-signals", no_argument, NULL, 1 },
		{ "no-eintr", no_argument, NULL, 2 },
		{ "no-deaths", no_argument, NULL, 3 },
		{ "no-churn", no_argument, NULL, 4 },
		{ "no-tune", no_argument, NULL, 5 },
		{ "selftest-broken", required_argument, NULL, 6 },
		{ "churn-ops", required_argument, NULL, 7 },
		{ "requeue", no_argument, NULL, 8 },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	long v;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "d:t:p:s:S:H:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			errno = 0;
			opt.duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(opt.duration > 0) ||
			    opt.duration > 86400)
				goto bad;
			break;
		case 't':
			if (parse_int(optarg, 1, MAXTHREADS, &v))
				goto bad;
			opt.threads = (int)v;
			break;
		case 'p':
			if (parse_int(optarg, 1, MAXPROCS, &v))
				goto bad;
			opt.procs = (int)v;
			break;
		case 's':
			if (parse_int(optarg, 10, 600000, &v))
				goto bad;
			opt.stall_ms = (int)v;
			break;
		case 'S':
			errno = 0;
			opt.seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end)
				goto bad;
			break;
		case 'H':
			if (parse_int(optarg, 1, 5000, &v))
				goto bad;
			opt.rt_hog_ms = (int)v;
			break;
		case 1: opt.signals = 0; break;
		case 2: opt.eintr = 0; break;
		case 3: opt.deaths = 0; break;
		case 4: opt.churn = 0; break;
		case 5: opt.tune = 0; break;
		case 6:
			if (!strcmp(optarg, "noexclude"))
				opt.broken = BROKEN_NOEXCLUDE;
			else if (!strcmp(optarg, "lostwake"))
				opt.broken = BROKEN_LOSTWAKE;
			else
				goto bad;
			break;
		case 7:
			if (parse_int(optarg, 1, 1000000000, &v))
				goto bad;
			opt.churn_ops = (int)v;
			break;
		case 8: opt.requeue = 1; break;
		case 'v': opt.verbose = 1; break;
		case 'h': usage(stdout); exit(0);
		default: goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	return;
bad:
	usage(stderr);
	exit(FT_EXIT_USAGE);
}

static void install_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_restart_sig, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_norestart_sig;
	sa.sa_flags = 0;
	sigaction(SIGUSR2, &sa, NULL);
}

int main(int argc, char **argv)
{
	pthread_t wd_th, death_th, tune_th, hog_th;
	pid_t kids[MAXPROCS] = { 0 }, parent;
	uint64_t t0, deadline, limit_ns;
	int p, rc = FT_EXIT_PASS, probe, hung = 0;
	uint64_t counter_total = 0;
	char errs[1024];
	size_t off = 0;

	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	probe = ft_probe();
	if (probe == 0) {
		printf("1..0 # SKIP futex_torture: kernel without FUTEX_LOCK (FUTEX_UNLOCK probe -> ENOSYS)\n");
		return FT_EXIT_SKIP;
	}
	if (probe < 0) {
		printf("# futex_torture: FUTEX_UNLOCK probe -> %s (expected EPERM or ENOSYS)\n",
		       ft_errname(-probe));
		return FT_EXIT_FAIL;
	}

	S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (S == MAP_FAILED) {
		perror("mmap");
		return FT_EXIT_FAIL;
	}
	S->locks[0].shared = 1;
	install_handlers();
	printf("# futex_torture: duration %.1f s, %d procs x %d threads, seed %" PRIu64
	       ", stall bound %d ms, signals %s, deaths %s, churn %s, tune %s, rt-hog %d ms, requeue %s%s\n",
	       opt.duration, opt.procs, opt.threads, opt.seed, opt.stall_ms,
	       !opt.signals ? "off" : opt.eintr ? "SA_RESTART+EINTR" : "SA_RESTART",
	       opt.deaths ? "on" : "off", opt.churn ? "on" : "off", opt.tune ? "on" : "off",
	       opt.rt_hog_ms, opt.requeue ? "on" : "off",
	       opt.broken == BROKEN_NOEXCLUDE ? ", SELFTEST: lock does not exclude" :
	       opt.broken == BROKEN_LOSTWAKE ? ", SELFTEST: unlock drops FUTEX_WAITERS" : "");

	/* processes first, before any thread exists */
	parent = getpid();
	for (p = 1; p < opt.procs; p++) {
		pid_t pid = fork();

		if (pid == 0) {
			ft_die_with_parent(parent);
			proc_idx = p;
			run_workers();
			_exit(0);
		}
		if (pid < 0) {
			perror("fork");
			atomic_store(&S->stop, 2);
			break;
		}
		kids[p] = pid;
	}
	pthread_create(&wd_th, NULL, watchdog_main, NULL);
	if (opt.deaths)
		pthread_create(&death_th, NULL, deaths_main, NULL);
	if (opt.tune)
		pthread_create(&tune_th, NULL, tuner_main, NULL);
	if (opt.rt_hog_ms)
		pthread_create(&hog_th, NULL, hog_main, NULL);

	t0 = ft_mono_ns();
	{
		pthread_t run_th;

		/* workers of process 0 run beside the timer in this thread */
		pthread_create(&run_th, NULL, run_workers_th, NULL);
		limit_ns = (uint64_t)(opt.duration * 1e9);
		while (ft_mono_ns() - t0 < limit_ns && !atomic_load(&S->stop))
			usleep(10000);
		atomic_store(&S->stop, 1);
		/* bounded end: workers get stall_ms * 3 + 10 s to finish */
		deadline = ft_mono_ns() + (uint64_t)opt.stall_ms * 3000000 + 10000000000ull;
		for (;;) {
			int alive = 0;

			for (p = 1; p < opt.procs; p++) {
				int st;

				if (kids[p] && waitpid(kids[p], &st, WNOHANG) == kids[p]) {
					if (!WIFEXITED(st) || WEXITSTATUS(st))
						report(R_OTHER, "worker process %d: status %#x", kids[p], st);
					kids[p] = 0;
				}
				alive += kids[p] != 0;
			}
			if (!alive && pthread_tryjoin_np(run_th, NULL) == 0)
				break;
			if (ft_mono_ns() > deadline) {
				hung = 1;
				break;
			}
			usleep(20000);
		}
	}
	if (hung) {
		report(R_OTHER, "HANG: workers did not finish within the end bound; killing them");
		for (p = 1; p < opt.procs; p++)
			if (kids[p])
				kill(kids[p], SIGKILL);
	} else {
		if (opt.deaths)
			pthread_join(death_th, NULL);
		if (opt.tune)
			pthread_join(tune_th, NULL);
		if (opt.rt_hog_ms)
			pthread_join(hog_th, NULL);
	}
	atomic_store(&S->stop, 2);
	if (!hung)
		pthread_join(wd_th, NULL);

	if (!hung) {
		/* the last robust death may be unrecovered: take the lock once */
		struct lockrec *L = &S->locks[0];
		uint32_t w = atomic_load(&L->word);

		if (w & FUTEX_OWNER_DIED) {
			long r = ft_futex(&L->word, FUTEX_LOCK, 0, NULL, NULL, 0);

			if (r)
				count_err((int)r);
			if (r == -EOWNERDEAD)
				atomic_fetch_add(&S->ownerdead, 1);
			else
				unexpected(L, "final FUTEX_LOCK", r, w);
			lock_unlock(L, ft_gettid());
		}
		for (int l = 0; l < 1 + 2 * opt.procs; l++) {
			L = &S->locks[l];
			counter_total += L->counter;
			if (L->counter != atomic_load(&L->acquisitions)) {
				atomic_fetch_add(&S->counter_errors, 1);
				report(R_VIOLATION, "VIOLATION lock %d: counter %" PRIu64 " != acquisitions %" PRIu64,
				       l, L->counter, atomic_load(&L->acquisitions));
			}
			if (atomic_load(&L->word) != 0)
				report(R_OTHER, "note: lock %d word %#x at the end", l, atomic_load(&L->word));
		}
		if (atomic_load(&S->ownerdead) != atomic_load(&S->deaths)) {
			atomic_fetch_add(&S->counter_errors, 1);
			report(R_VIOLATION, "VIOLATION: %" PRIu64 " EOWNERDEAD for %" PRIu64 " robust owner deaths",
			       atomic_load(&S->ownerdead), atomic_load(&S->deaths));
		}
	}

	for (int e = 1; e < NERR; e++) {
		uint64_t n = atomic_load(&S->err[e]);

		if (n && off < sizeof(errs) - 40)
			off += (size_t)snprintf(errs + off, sizeof(errs) - off, "%s%s=%" PRIu64,
						off ? "," : "", ft_errname(e), n);
	}
	if (!off)
		snprintf(errs, sizeof(errs), "none");
	if (atomic_load(&S->violations) || atomic_load(&S->stalls) ||
	    atomic_load(&S->unexpected) || atomic_load(&S->counter_errors) || hung)
		rc = FT_EXIT_FAIL;
	printf("futex_torture: ops: %" PRIu64 " (fast %" PRIu64 " lock %" PRIu64 " adaptive %" PRIu64
	       ") ops/s: %.0f violations: %" PRIu64 " stalls: %" PRIu64 " unexpected: %" PRIu64
	       " errors: %s longest_wait_ms: %.1f deaths: %" PRIu64 " ownerdead: %" PRIu64
	       " signals: %" PRIu64 " timed: %" PRIu64 " threads: %" PRIu64 " tunes: %" PRIu64
	       " requeue: %" PRIu64 "/%" PRIu64 "%s [%s]\n",
	       atomic_load(&S->ops), atomic_load(&S->ops_fast),
	       atomic_load(&S->ops_kernel_lock), atomic_load(&S->ops_kernel_adaptive),
	       (double)atomic_load(&S->ops) / opt.duration,
	       atomic_load(&S->violations) + atomic_load(&S->counter_errors),
	       atomic_load(&S->stalls), atomic_load(&S->unexpected), errs,
	       (double)atomic_load(&S->longest_wait_ns) / 1e6,
	       atomic_load(&S->deaths), atomic_load(&S->ownerdead),
	       atomic_load(&S->signals_sent), atomic_load(&S->timed_calls),
	       atomic_load(&S->threads_started), atomic_load(&S->tunes),
	       atomic_load(&S->requeued), atomic_load(&S->requeue_calls),
	       hung ? " HUNG" : "", rc ? "FAIL" : "PASS");
	(void)counter_total;
	if (hung)
		_exit(rc);
	return rc;
}
