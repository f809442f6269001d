// SPDX-License-Identifier: GPL-2.0
/*
 * libfutexlock-preload.so - run unmodified pthread programs on FUTEX_LOCK.
 *
 *   LD_PRELOAD=.../libfutexlock-preload.so FUTEXLOCK_PRELOAD=lock program
 *
 * FUTEXLOCK_PRELOAD (default "lock"):
 *   lock      NORMAL (= DEFAULT), ADAPTIVE_NP, RECURSIVE and ERRORCHECK
 *             mutexes use FUTEX_LOCK / FUTEX_UNLOCK (word = owner TID |
 *             FUTEX_WAITERS);
 *   adaptive  the same with FUTEX_LOCK_ADAPTIVE, after a user-space spin
 *             of at most one kernel round trip (lib/userspin.c; not with
 *             FUTEXLOCK_PRELOAD_USER_SPIN=0);
 *   off       everything goes to glibc (the baseline, same command line);
 *   emulate   test mode: the same preload logic with the kernel ops
 *             replaced by a FUTEX_WAIT/FUTEX_WAKE emulation of the TID
 *             protocol, so that the logic can be tested on kernels without
 *             the ops.  Not for measurements.
 * Robust, priority-inheritance, priority-protect and process-shared
 * mutexes always pass through to glibc.  If the kernel lacks the ops (probe
 * FUTEX_UNLOCK on a free word: ENOSYS) one line goes to stderr and
 * everything passes through.  FUTEXLOCK_PRELOAD_STATS=1 prints counters at
 * exit() or _exit() (stderr).  Details: userspace/preload/README.md.
 *
 * Design: the lock word is glibc's own __data.__lock, the recursion count
 * glibc's __data.__count, the woken mark (adaptive) __data.__nusers,
 * the user spin's back-off history (adaptive) __data.__spins (with
 * __data.__elision on x86-64: one 32-bit word),
 * "seen" (not a static initialiser) __data.__owner, the kind stays in
 * __data.__kind as glibc's
 * pthread_mutex_init wrote it (all-zero static initialisers are NORMAL
 * mutexes), so no side table is needed: whether a mutex is converted is a
 * function of its kind and of the mode, which is fixed at the first call.
 * Process-private condition variables are always ours (a sequence word, as
 * Rust std's futex condvar), whatever mutex they are used with, because
 * glibc's condvar unlocks and re-locks the mutex through internal calls
 * that would write glibc's 0/1/2 into a TID word; process-shared ones go
 * to glibc (a peer process need not be preloaded).
 *
 * -DFL_PRELOAD_BROKEN=n builds a deliberately broken variant (tests only;
 * the list is in userspace/preload/README.md).
 */
#include "futexlock.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#ifndef FL_PRELOAD_BROKEN
#define FL_PRELOAD_BROKEN 0
#endif
#define BROKEN(n) (FL_PRELOAD_BROKEN == (n))

/* glibc __kind bits (nptl/pthreadP.h) */
#define K_TYPE_MASK	3
#define K_ROBUST	16
#define K_PI		32
#define K_PP		64
#define K_PSHARED	128
#define K_ELISION	(256 | 512)

/* glibc __wrefs bits of a condvar (nptl/pthread_cond_common.c) */
#define C_PSHARED	1u
#define C_MONOTONIC	2u

enum { M_UNINIT, M_OFF, M_LOCK, M_ADAPTIVE, M_EMULATE };
static const char *const mode_name[] = { "uninit", "off", "lock", "adaptive", "emulate" };

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- state ------------------------------------------------------------- */
static _Atomic int g_mode;	/* M_*; M_UNINIT until the first call */
static _Atomic int g_init;	/* 0 not started, 1 running, 2 done */
static int g_stats;
static int g_lock_op;		/* FUTEX_LOCK or FUTEX_LOCK_ADAPTIVE */
/*
 * adaptive mode (and emulate, its test stand-in): the user-space spin
 * before FUTEX_LOCK_ADAPTIVE, as futex_lock -m adaptive (lib/userspin.c;
 * with a back-off futex_lock does not have, below), unless
 * FUTEXLOCK_PRELOAD_USER_SPIN=0.  Calibrated at the first contended lock
 * (a process that never contends makes no calibration calls);
 * g_cal_pid: the process that made those calls (a fork child did not).
 */
static int g_user_spin;
static _Atomic pid_t g_cal_pid;
/*
 * The woken mark (futexlock.h, fl_woken_mark()) in glibc's __nusers,
 * which converted mutexes do not use; only where the preload spins
 * (g_user_spin): an unlock through the kernel marks, a locker that finds
 * the mark goes to the lock op without spinning and any acquisition there
 * clears it.  FUTEXLOCK_PRELOAD_USER_SPIN_WOKEN=0: the mark is ignored
 * (the lever's ablation, as futex_lock's user_spin_woken=0).
 */
static int g_user_spin_woken = 1;
/*
 * The user spin's back-off (futexlock.h, fl_uspin_backoff_spin()): its
 * history in glibc's __spins and __elision (one 32-bit word), which
 * converted mutexes do not use.  FUTEXLOCK_PRELOAD_USER_SPIN_BACKOFF=0:
 * every contended lock spins (the lever's ablation).
 */
static int g_user_spin_backoff = 1;
static int g_probed;		/* the probe made one FUTEX_UNLOCK syscall */
/*
 * An untimed lock sleeps at most this many seconds at a time (0: forever).
 * A sleeper is not woken when a non-robust owner dies; when its timeout
 * expires the kernel checks the owner and says ESRCH, so the program gets
 * the message instead of hanging forever (FUTEXLOCK_PRELOAD_DEADCHECK).
 */
static int g_deadcheck = 10;
static _Atomic pid_t g_fork_parent_tid;	/* thread that called fork() */

static TLS pid_t t_tid;
/* the process whose counters these are: set at init and in a fork child
 * that ran the atfork handlers; a vfork or _Fork() child prints nothing */
static _Atomic pid_t g_stats_pid;
static _Atomic int g_stats_printed;

/*
 * Per-thread counters.  Each thread counts in a slot of g_slot, claimed at
 * its first count and given back at its exit with its counts left in it
 * (the next thread to claim it adds to them), so that the printout, the
 * sum of every slot ever claimed, counts the threads still running at
 * exit (memcached's workers) and those that have exited alike, with no
 * window in which a count is in two places or none.  Only the owning
 * thread writes a slot (relaxed stores: no lock prefix); a slot is a
 * cache line of its own.  A thread that finds every slot taken counts in
 * t_st, added to g_st at its exit.
 */
struct tstats {
	uint64_t lock_fast, lock_slow, lock_syscalls, trylock_busy,
		 unlock_fast, unlock_syscalls, cond_waits, cond_wake_syscalls,
		 passthrough_calls, user_spins, user_spin_acquired, user_spin_to_kernel,
		 user_spin_skipped, user_spin_backoff;
} __attribute__((aligned(64)));
#define NST (offsetof(struct tstats, user_spin_backoff) / sizeof(uint64_t) + 1)
#define NSLOTS 1024
static struct tstats g_slot[NSLOTS];
static _Atomic unsigned char g_slot_used[NSLOTS];
static _Atomic size_t g_slot_hw;	/* slots [0, g_slot_hw) were ever claimed */
static TLS struct tstats t_st;
static TLS struct tstats *t_stp;	/* &g_slot[i], &t_st, or none yet */
static _Atomic uint64_t g_st[NST];
static _Atomic uint64_t g_init_conv[4], g_init_pass[5], g_static_conv[4],
	g_adopt, g_unlock_unlocked, g_edeadlk_normal, g_destroy_busy;
static pthread_key_t g_st_key;
static _Atomic int g_warned_nonowner, g_warned_unlocked, g_warned_deadlk,
	g_warned_destroy;

static struct tstats *stat_touch(void);
#define STAT(f) do {							\
	if (g_stats) {							\
		struct tstats *p_ = stat_touch();			\
		__atomic_store_n(&p_->f, p_->f + 1, __ATOMIC_RELAXED);	\
	}								\
} while (0)

/* ---- diagnostics (write(2) only: usable from any context) -------------- */
__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(2, buf, n) < 0)
		return;
}

static long sys_futex(void *uaddr, int op, uint32_t val,
		      const struct timespec *ts, uint32_t val3)
{
	return fl_futex(uaddr, op, val, ts, NULL, val3);
}

/* ---- the real (glibc) functions ---------------------------------------- */
static struct {
	int (*mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
	int (*mutex_destroy)(pthread_mutex_t *);
	int (*mutex_lock)(pthread_mutex_t *);
	int (*mutex_trylock)(pthread_mutex_t *);
	int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*mutex_unlock)(pthread_mutex_t *);
	int (*cond_init)(pthread_cond_t *, const pthread_condattr_t *);
	int (*cond_destroy)(pthread_cond_t *);
	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
			      const struct timespec *);
	int (*cond_signal)(pthread_cond_t *);
	int (*cond_broadcast)(pthread_cond_t *);
} real;
static _Atomic int real_done;
static TLS int t_resolving;

static void *resolve(const char *name, const char *ver)
{
	/* versioned where glibc has several: the current ones, never the
	 * LinuxThreads-layout GLIBC_2.2.5 condvar */
	void *p = ver ? dlvsym(RTLD_NEXT, name, ver) : NULL;

	if (!p)
		p = dlsym(RTLD_NEXT, name);
	if (!p) {
		say("futexlock-preload: cannot find glibc's %s; aborting", name);
		abort();
	}
	return p;
}

static void resolve_real(void)
{
	if (atomic_load_explicit(&real_done, memory_order_acquire))
		return;
	if (t_resolving) {
		say("futexlock-preload: a pass-through mutex was used while looking up glibc's functions (dlsym recursion); aborting");
		abort();
	}
	t_resolving = 1;
	real.mutex_init = resolve("pthread_mutex_init", "GLIBC_2.2.5");
	real.mutex_destroy = resolve("pthread_mutex_destroy", "GLIBC_2.2.5");
	real.mutex_lock = resolve("pthread_mutex_lock", "GLIBC_2.2.5");
	real.mutex_trylock = resolve("pthread_mutex_trylock", "GLIBC_2.34");
	real.mutex_timedlock = resolve("pthread_mutex_timedlock", "GLIBC_2.34");
	real.mutex_clocklock = resolve("pthread_mutex_clocklock", "GLIBC_2.34");
	real.mutex_unlock = resolve("pthread_mutex_unlock", "GLIBC_2.2.5");
	real.cond_init = resolve("pthread_cond_init", "GLIBC_2.3.2");
	real.cond_destroy = resolve("pthread_cond_destroy", "GLIBC_2.3.2");
	real.cond_wait = resolve("pthread_cond_wait", "GLIBC_2.3.2");
	real.cond_timedwait = resolve("pthread_cond_timedwait", "GLIBC_2.3.2");
	real.cond_clockwait = resolve("pthread_cond_clockwait", "GLIBC_2.34");
	real.cond_signal = resolve("pthread_cond_signal", "GLIBC_2.3.2");
	real.cond_broadcast = resolve("pthread_cond_broadcast", "GLIBC_2.3.2");
	t_resolving = 0;
	atomic_store_explicit(&real_done, 1, memory_order_release);
}

#define REAL(f) (resolve_real(), real.f)

/* ---- TID cache (reset in the fork child) ------------------------------- */
static inline uint32_t self_tid(void)
{
	if (__builtin_expect(!t_tid, 0))
		t_tid = (pid_t)syscall(SYS_gettid);
	return (uint32_t)t_tid;
}

/*
 * The cache is stale in a child made by a fork that ran no pthread_atfork
 * handlers (_Fork(), a raw clone()).  The fast paths cannot tell; the
 * error paths that a stale TID produces (EPERM, ESRCH, a word holding
 * "our" TID that the kernel says is not ours) call this before they blame
 * the program.  Returns 1 if the cache was stale (and is now fixed).
 */
static int tid_was_stale(void)
{
	pid_t now = (pid_t)syscall(SYS_gettid);

	if (now == t_tid)
		return 0;
	t_tid = now;
	return 1;
}

static void atfork_prepare(void)
{
	atomic_store(&g_fork_parent_tid, (pid_t)self_tid());
}

static void atfork_child(void)
{
#if !BROKEN(2)
	t_tid = 0;	/* the child's only thread has a new TID */
#endif
	/* the child's statistics are its own; its other threads are gone */
	memset(&t_st, 0, sizeof(t_st));
#if !BROKEN(27)
	if (g_stats) {
		size_t hw = atomic_load_explicit(&g_slot_hw, memory_order_relaxed);

		memset(g_slot, 0, hw * sizeof(g_slot[0]));
		for (size_t i = 0; i < hw; i++)
			atomic_store_explicit(&g_slot_used[i], t_stp == &g_slot[i],
					      memory_order_relaxed);
	}
#endif
	for (size_t i = 0; i < NST; i++)
		atomic_store(&g_st[i], 0);
	for (size_t i = 0; i < 4; i++) {
		atomic_store(&g_init_conv[i], 0);
		atomic_store(&g_static_conv[i], 0);
	}
	for (size_t i = 0; i < 5; i++)
		atomic_store(&g_init_pass[i], 0);
	atomic_store(&g_adopt, 0);
	atomic_store(&g_unlock_unlocked, 0);
	atomic_store(&g_edeadlk_normal, 0);
	atomic_store(&g_destroy_busy, 0);
	atomic_store(&g_warned_nonowner, 0);	/* its messages too */
	atomic_store(&g_warned_unlocked, 0);
	atomic_store(&g_warned_deadlk, 0);
	atomic_store(&g_warned_destroy, 0);
	g_probed = 0;
	atomic_store(&g_stats_printed, 0);
	atomic_store(&g_stats_pid, getpid());
}

/* ---- statistics -------------------------------------------------------- */
/* a slot given back, with its counts in it */
static void slot_give_back(struct tstats *p)
{
	atomic_store_explicit(&g_slot_used[p - g_slot], 0, memory_order_release);
}

/*
 * At thread exit (the key's destructor): the slot is given back with its
 * counts in it; counts kept in t_st (no slot was free) go to g_st.
 */
static void stat_flush(void *unused)
{
	uint64_t *p = (uint64_t *)&t_st;

	(void)unused;
	if (t_stp == &t_st) {
		for (size_t i = 0; i < NST; i++)
			atomic_fetch_add(&g_st[i], p[i]);
		memset(&t_st, 0, sizeof(t_st));
	} else if (t_stp) {
		slot_give_back(t_stp);
	}
	t_stp = NULL;
}

/* the first free slot (its counts carry on), or t_st when there is none */
static struct tstats *stat_claim(void)
{
	for (size_t i = 0; i < NSLOTS; i++) {
		unsigned char free_slot = 0;
		size_t hw;

		if (atomic_load_explicit(&g_slot_used[i], memory_order_relaxed))
			continue;
		/* the mark first: a fork child clears every slot it may own */
		hw = atomic_load_explicit(&g_slot_hw, memory_order_relaxed);
		while (hw < i + 1 &&
		       !atomic_compare_exchange_weak_explicit(&g_slot_hw, &hw, i + 1,
							      memory_order_relaxed,
							      memory_order_relaxed))
			;
		if (atomic_compare_exchange_strong_explicit(&g_slot_used[i], &free_slot, 1,
							    memory_order_acquire,
							    memory_order_relaxed))
			return &g_slot[i];
	}
	return &t_st;
}

static struct tstats *stat_touch(void)
{
	struct tstats *p;

	if (__builtin_expect(t_stp != NULL, 1))
		return t_stp;
	p = stat_claim();
	if (__atomic_load_n(&t_stp, __ATOMIC_RELAXED)) {	/* a signal handler counted meanwhile */
		if (p != &t_st)
			slot_give_back(p);
		return t_stp;
	}
	t_stp = p;
	pthread_setspecific(g_st_key, (void *)1);	/* flush at thread exit */
	return p;
}

/* every slot, in use or given back, g_st and the caller's t_st: now */
static void stat_sum(uint64_t s[NST])
{
	size_t hw = atomic_load(&g_slot_hw);

	for (size_t i = 0; i < NST; i++)
		s[i] = atomic_load(&g_st[i]);
	for (size_t j = 0; j < hw; j++) {
		const uint64_t *p = (const uint64_t *)&g_slot[j];

#if BROKEN(26)
		if (atomic_load(&g_slot_used[j]) && &g_slot[j] != t_stp)
			continue;	/* the threads still running skipped */
#endif
		for (size_t i = 0; i < NST; i++)
			s[i] += __atomic_load_n(&p[i], __ATOMIC_RELAXED);
	}
	if (t_stp == &t_st)
		for (size_t i = 0; i < NST; i++)
			s[i] += ((const uint64_t *)&t_st)[i];
}

#define U(x) ((unsigned long)(x))
/*
 * At exit() (atexit) or at _exit() (below), once per process, and only in
 * the process the counters belong to: a vfork child shares the parent's
 * memory (its thread's counters too) and a _Fork() child ran no atfork
 * handler; neither prints.
 */
static void stats_print(void)
{
	int md = atomic_load(&g_mode);
	uint64_t s[NST];

	if (atomic_load(&g_stats_pid) != getpid() || atomic_exchange(&g_stats_printed, 1))
		return;
#if BROKEN(11)
	return;
#endif
	stat_sum(s);
	say("futexlock-preload: stats: pid %d mode %s (%s)", (int)getpid(),
	    mode_name[md], md == M_ADAPTIVE ? "FUTEX_LOCK_ADAPTIVE" :
	    md == M_LOCK ? "FUTEX_LOCK" : md == M_EMULATE ?
	    "emulated with FUTEX_WAIT/FUTEX_WAKE" : "glibc");
	say("futexlock-preload: stats: converted mutexes: normal %lu+%lu recursive %lu+%lu errorcheck %lu+%lu adaptive %lu+%lu (pthread_mutex_init+static initialiser)",
	    U(g_init_conv[0]), U(g_static_conv[0]), U(g_init_conv[1]),
	    U(g_static_conv[1]), U(g_init_conv[2]), U(g_static_conv[2]),
	    U(g_init_conv[3]), U(g_static_conv[3]));
	say("futexlock-preload: stats: passed-through mutexes: robust %lu pi %lu pp %lu pshared %lu mode-off %lu (pthread_mutex_init)",
	    U(g_init_pass[0]), U(g_init_pass[1]), U(g_init_pass[2]),
	    U(g_init_pass[3]), U(g_init_pass[4]));
	say("futexlock-preload: stats: lock fast %lu slow %lu lock-syscalls %lu trylock-busy %lu unlock fast %lu unlock-syscalls %lu probe-syscalls %d",
	    U(s[0]), U(s[1]), U(s[2]), U(s[3]), U(s[4]), U(s[5]), g_probed);
	say("futexlock-preload: stats: cond waits %lu wake-syscalls %lu; pass-through calls %lu",
	    U(s[6]), U(s[7]), U(s[8]));
	{
		pid_t cal_pid = atomic_load(&g_cal_pid);	/* 0: not calibrated */
		const struct fl_user_spin_cal *c = cal_pid ? fl_user_spin_calibrate() : NULL;

		say("futexlock-preload: stats: user-spins %lu user-spin-acquired %lu user-spin-to-kernel %lu user-spin-limit %u (futex(2) round trip %.0f ns, %.1f ns per iteration) calibration-syscalls %u user-spin-skipped %lu (woken mark %s) user-spin-backoff %lu (back-off %s)",
		    U(s[9]), U(s[10]), U(s[11]), c ? c->limit : 0,
		    c ? c->syscall_ns : 0.0, c ? c->iter_ns : 0.0,
		    c && cal_pid == getpid() ? c->calls : 0, U(s[12]),
		    g_user_spin_woken ? "honoured" : "ignored", U(s[13]),
		    g_user_spin_backoff ? "on" : "off");
	}
	say("futexlock-preload: stats: misuse: unlock by non-owner %lu, unlock of unlocked %lu, relock by owner %lu, destroy of locked %lu",
	    U(g_adopt), U(g_unlock_unlocked), U(g_edeadlk_normal),
	    U(g_destroy_busy));
}

/*
 * A process that leaves with _exit() (stress-ng's stressor processes, a
 * fork child) runs no atexit handler: with FUTEXLOCK_PRELOAD_STATS=1 its
 * counts are printed here instead, as at exit(): those of every thread,
 * exited or still running.  glibc's exit() reaches its own _exit internally, not this
 * one; stats_print() prints once either way.  Then exit_group(2), as
 * glibc's _exit does.
 */
#if !BROKEN(24)
EXPORT void _exit(int status)
{
	if (g_stats)
		stats_print();
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT void _Exit(int status)
{
	_exit(status);
}
#endif

/* ---- initialisation ---------------------------------------------------- */
static int probe_ops(int *err)
{
	uint32_t w = 0;
	long r;

#if BROKEN(15)
	*err = 0;
	return 1;
#endif
	r = sys_futex(&w, FUTEX_UNLOCK | FUTEX_PRIVATE_FLAG, 0, NULL, 0);
	g_probed = 1;
	*err = r == -1 ? errno : 0;
	return r == -1 && *err == EPERM;
}

/* a 0/1 switch from the environment (unset or empty: NULL); anything
 * else ends the process with status 2, as a bad FUTEXLOCK_PRELOAD does */
static const char *env_switch(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return NULL;
	if (strcmp(v, "0") && strcmp(v, "1")) {
		say("futexlock-preload: %s=%s: expected 0 or 1", name, v);
		_exit(2);
	}
	return v;
}

static void do_init(void)
{
	const char *m = getenv("FUTEXLOCK_PRELOAD");
	const char *s = getenv("FUTEXLOCK_PRELOAD_STATS"), *u;
	int mode, err;

	if (!m || !*m || !strcmp(m, "lock"))
		mode = M_LOCK;
	else if (!strcmp(m, "adaptive"))
		mode = M_ADAPTIVE;
	else if (!strcmp(m, "off"))
		mode = M_OFF;
	else if (!strcmp(m, "emulate"))
		mode = M_EMULATE;
	else {
		say("futexlock-preload: FUTEXLOCK_PRELOAD=%s: expected lock, adaptive, off or emulate", m);
		_exit(2);
	}
	if ((mode == M_LOCK || mode == M_ADAPTIVE) && !probe_ops(&err)) {
		say("futexlock-preload: this kernel has no FUTEX_LOCK (probe FUTEX_UNLOCK -> %s): all mutexes pass through to glibc",
		    err == ENOSYS ? "ENOSYS" : err ? strerror(err) : "success");
		mode = M_OFF;
	}
	g_lock_op = mode == M_ADAPTIVE ? FUTEX_LOCK_ADAPTIVE : FUTEX_LOCK;
	u = env_switch("FUTEXLOCK_PRELOAD_USER_SPIN");
	/* emulate spins too: the host tests run the spin's path there */
#if !BROKEN(20)
	g_user_spin = (mode == M_ADAPTIVE || mode == M_EMULATE) && !(u && !strcmp(u, "0"));
#else
	g_user_spin = mode == M_ADAPTIVE || mode == M_EMULATE;
#endif
	u = env_switch("FUTEXLOCK_PRELOAD_USER_SPIN_WOKEN");
	g_user_spin_woken = !(u && !strcmp(u, "0")) && !BROKEN(21);
	u = env_switch("FUTEXLOCK_PRELOAD_USER_SPIN_BACKOFF");
	g_user_spin_backoff = !(u && !strcmp(u, "0")) && !BROKEN(25);
	g_stats = s && *s && strcmp(s, "0");
	s = getenv("FUTEXLOCK_PRELOAD_DEADCHECK");
	if (s && *s)
		g_deadcheck = atoi(s) > 0 ? atoi(s) : 0;
#if BROKEN(19)
	g_deadcheck = 0;
#endif
	if (g_stats) {
		atomic_store(&g_stats_pid, getpid());
		pthread_key_create(&g_st_key, stat_flush);
		atexit(stats_print);
	}
	pthread_atfork(atfork_prepare, NULL, atfork_child);
	atomic_store_explicit(&g_mode, mode, memory_order_release);
}

static inline int mode(void)
{
	int m = atomic_load_explicit(&g_mode, memory_order_acquire);
	int z = 0;

	if (__builtin_expect(m != M_UNINIT, 1))
		return m;
	if (atomic_compare_exchange_strong(&g_init, &z, 1)) {
		do_init();
		atomic_store(&g_init, 2);
	} else {
		while (atomic_load(&g_init) != 2)
			sched_yield();
	}
	return atomic_load_explicit(&g_mode, memory_order_acquire);
}

__attribute__((constructor(101))) static void preload_ctor(void)
{
	mode();
	resolve_real();
}

/* For the tests: the mode in effect ("off" on a kernel without the ops). */
EXPORT const char *futexlock_preload_mode(void)
{
	return mode_name[mode()];
}

/* ---- mutex ------------------------------------------------------------- */
static inline _Atomic uint32_t *mword(pthread_mutex_t *m)
{
	return (_Atomic uint32_t *)&m->__data.__lock;
}

/* the woken mark (g_user_spin_woken): glibc's __nusers */
static inline _Atomic uint32_t *mwoken(pthread_mutex_t *m)
{
	return (_Atomic uint32_t *)&m->__data.__nusers;
}

/* the user spin's back-off history (g_user_spin_backoff): glibc's
 * __spins and __elision, two shorts side by side on x86-64; elsewhere
 * this assumes glibc's generic layout, where __spins is an int of its
 * own; a layout with a short __spins there (i386, maybe others) fails
 * the assertion at build time (built and run on x86-64 only) */
#ifdef __x86_64__
_Static_assert(offsetof(struct __pthread_mutex_s, __elision) ==
	       offsetof(struct __pthread_mutex_s, __spins) + 2 &&
	       offsetof(struct __pthread_mutex_s, __spins) % 4 == 0,
	       "__spins and __elision: one aligned 32-bit word");
#else
_Static_assert(sizeof(((struct __pthread_mutex_s *)0)->__spins) == 4,
	       "__spins: a 32-bit word");
#endif
static inline _Atomic uint32_t *mbackoff(pthread_mutex_t *m)
{
	return (_Atomic uint32_t *)(void *)&m->__data.__spins;
}

/* -1: pass through to glibc; else the type (0..3) */
static inline int conv_type(pthread_mutex_t *m)
{
	int k = m->__data.__kind;

	if (mode() == M_OFF)
		return -1;
#if BROKEN(7)	/* glibc's robust mutexes carry the pshared bit as well */
	if (k > 0 && (k & K_ROBUST))
		return k & K_TYPE_MASK;
#endif
#if BROKEN(17)
	if (k < 0 || (k & ~(K_TYPE_MASK | K_ELISION | K_PSHARED)))
#else
	if (k < 0 || (k & ~(K_TYPE_MASK | K_ELISION)))
#endif
		return -1;
	return k & K_TYPE_MASK;
}

static void warn_once(_Atomic int *flag, const char *fmt, pthread_mutex_t *m,
		      unsigned a)
{
	int z = 0;

	if (atomic_compare_exchange_strong(flag, &z, 1))
		say(fmt, (void *)m, a);
}

static void note_static(pthread_mutex_t *m, int type)
{
	/* __owner is unused by converted mutexes: mark "seen" (stats only) */
	_Atomic int *o = (_Atomic int *)&m->__data.__owner;
	int z = 0;

	if (atomic_load_explicit(o, memory_order_relaxed) == 0 &&
	    atomic_compare_exchange_strong(o, &z, -2))
		atomic_fetch_add(&g_static_conv[type], 1);
}

static int valid_ts(const struct timespec *ts)
{
	return ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000L;
}

static _Noreturn void owner_died(pthread_mutex_t *m, uint32_t v)
{
	pid_t ft = atomic_load(&g_fork_parent_tid);

	if (ft && (pid_t)(v & FUTEX_TID_MASK) == ft && getpid() != ft)
		say("futexlock-preload: mutex %p is held by thread %u of the parent process, which locked it before fork(): nobody in this child can unlock it (glibc would hang here forever); aborting",
		    (void *)m, v & FUTEX_TID_MASK);
	else
		say("futexlock-preload: mutex %p is held by thread %u, which has exited without unlocking it (a non-robust mutex whose owner died: a bug in the program; glibc would hang here forever); aborting",
		    (void *)m, v & FUTEX_TID_MASK);
	abort();
}

/*
 * Emulation of the kernel op with FUTEX_WAIT_BITSET (mode emulate): the
 * 0/1/2 mutex of "Futexes Are Tricky" with TID instead of 1 and
 * TID | FUTEX_WAITERS instead of 2.  Same return values as the op.
 */
static int emu_lock(_Atomic uint32_t *w, uint32_t tid,
		    const struct timespec *abs, int realtime)
{
	for (;;) {
		uint32_t v = atomic_load(w), e;

		if ((v & FUTEX_TID_MASK) == 0) {
			/* a woken waiter re-arms the bit, as the kernel's does */
			e = v;
			if (atomic_compare_exchange_strong(w, &e, tid | FUTEX_WAITERS))
				return 0;
			continue;
		}
		if ((v & FUTEX_TID_MASK) == tid)
			return EDEADLK;
		if (syscall(SYS_tgkill, getpid(), v & FUTEX_TID_MASK, 0) == -1 &&
		    errno == ESRCH && atomic_load(w) == v)
			return ESRCH;
		if (!(v & FUTEX_WAITERS)) {
			e = v;
			if (!atomic_compare_exchange_strong(w, &e, v | FUTEX_WAITERS))
				continue;
			v |= FUTEX_WAITERS;
		}
		if (sys_futex(w, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG |
			      (realtime ? FUTEX_CLOCK_REALTIME : 0), v, abs,
			      FUTEX_BITSET_MATCH_ANY) == -1 && errno == ETIMEDOUT)
			return ETIMEDOUT;
	}
}

static const struct timespec ts_expired = { 0, 0 };

/*
 * Acquire a converted mutex of the given type.  try: trylock; abs: NULL
 * or an absolute timeout on clk (REALTIME or MONOTONIC, checked by the
 * caller).  Returns 0 or an errno value.
 */
static int pl_lock(pthread_mutex_t *m, int type, int try,
		   const struct timespec *abs, clockid_t clk)
{
	_Atomic uint32_t *w = mword(m);
	uint32_t tid = self_tid(), e = 0;
	int md = atomic_load_explicit(&g_mode, memory_order_relaxed);

	if (g_stats)
		note_static(m, type);
	if (type != PTHREAD_MUTEX_NORMAL && type != PTHREAD_MUTEX_ADAPTIVE_NP &&
	    (atomic_load_explicit(w, memory_order_relaxed) & FUTEX_TID_MASK) == tid) {
		if (type == PTHREAD_MUTEX_ERRORCHECK)
			return try && !BROKEN(18) ? EBUSY : EDEADLK;
		/* recursive */
#if !BROKEN(3)
		if (m->__data.__count == UINT_MAX)
			return EAGAIN;
		m->__data.__count++;
#endif
		return 0;
	}
	if (atomic_compare_exchange_strong_explicit(w, &e, tid, memory_order_acquire,
						    memory_order_relaxed)) {
		STAT(lock_fast);
		goto acquired;
	}
	if (try) {
		STAT(trylock_busy);
		return EBUSY;
	}
	if (abs) {
		if (!valid_ts(abs))
			return EINVAL;
		if (abs->tv_sec < 0)	/* glibc: ETIMEDOUT, the kernel: EINVAL */
			abs = &ts_expired;
	}
	STAT(lock_slow);
	if (g_user_spin) {	/* adaptive: as futex_lock -m adaptive, with the back-off */
		uint32_t budget;
		int r;

		if (!atomic_load_explicit(&g_cal_pid, memory_order_acquire)) {
			fl_user_spin_calibrate();
			atomic_store(&g_cal_pid, getpid());
		}
		budget = fl_user_spin_limit(true);	/* cached after calibrating */
		if (g_user_spin_woken && fl_woken_marked(mwoken(m))) {
			STAT(user_spin_skipped);	/* a woken waiter may be on its way */
		} else if (g_user_spin_backoff && !fl_uspin_backoff_spin(mbackoff(m))) {
			STAT(user_spin_backoff);	/* its recent spins failed */
		} else {
			STAT(user_spins);
			r = fl_user_spin(w, tid, &budget);
			if (g_user_spin_backoff)
				fl_uspin_backoff_done(mbackoff(m), r);
			if (r == FL_USPIN_TAKEN) {
				STAT(user_spin_acquired);
				goto acquired;
			}
			if (r == FL_USPIN_KERNEL)
				STAT(user_spin_to_kernel);
		}
	}
	for (;;) {
		struct timespec wd;
		int r, watchdog = 0;

		if (!abs && g_deadcheck) {	/* see g_deadcheck */
			clock_gettime(CLOCK_MONOTONIC, &wd);
			wd.tv_sec += g_deadcheck;
			abs = &wd;
			clk = CLOCK_MONOTONIC;
			watchdog = 1;
		}
		STAT(lock_syscalls);
		if (md == M_EMULATE) {
			r = emu_lock(w, tid, abs, abs && clk == CLOCK_REALTIME);
		} else {
			int op = g_lock_op | FUTEX_PRIVATE_FLAG;

			if (abs && clk == CLOCK_REALTIME)
				op |= FUTEX_CLOCK_REALTIME;
			r = sys_futex(w, op, 0, abs, 0) == 0 ? 0 : errno;
		}
		if (watchdog)
			abs = NULL;
		if (r == 0 || r == EOWNERDEAD)
			break;
		if (r == EINTR || r == EAGAIN || (r == ETIMEDOUT && watchdog))
			continue;
		if (r == ETIMEDOUT)
			return ETIMEDOUT;
		if ((r == ESRCH || r == EDEADLK) && tid_was_stale()) {
			tid = self_tid();
			say("futexlock-preload: this process was forked without pthread_atfork handlers (e.g. _Fork()); its cached thread id was stale and is now refreshed");
			continue;
		}
#if !BROKEN(16)
		if (r == ESRCH)
			owner_died(m, atomic_load(w));
#else
		if (r == ESRCH) {
			sched_yield();
			continue;
		}
#endif
		if (r == EDEADLK) {
			/* NORMAL/ADAPTIVE relocked by its owner: glibc hangs */
			atomic_fetch_add(&g_edeadlk_normal, 1);
			warn_once(&g_warned_deadlk,
				  "futexlock-preload: mutex %p locked again by its owner (thread %u): a self-deadlock with glibc; returning EDEADLK (reported once)",
				  m, tid);
			return EDEADLK;
		}
		say("futexlock-preload: futex lock op on mutex %p failed: %s; aborting",
		    (void *)m, strerror(r));
		abort();
	}
	if (g_user_spin && !BROKEN(22))	/* through the lock op: the mark is spent */
		fl_woken_clear(mwoken(m));
acquired:
	if (type == PTHREAD_MUTEX_RECURSIVE)
		m->__data.__count = 1;
	return 0;
}

/* Release a converted mutex of the given type; 0 or an errno value. */
static int pl_unlock(pthread_mutex_t *m, int type)
{
	_Atomic uint32_t *w = mword(m);
	uint32_t tid = self_tid(), v = atomic_load_explicit(w, memory_order_relaxed), e;

	if ((v & FUTEX_TID_MASK) != tid) {
#if !BROKEN(4)
		if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK)
			return EPERM;
#endif
		if ((v & FUTEX_TID_MASK) == 0) {
			atomic_fetch_add(&g_unlock_unlocked, 1);
			warn_once(&g_warned_unlocked,
				  "futexlock-preload: unlock of mutex %p, which is not locked (ignored, returning 0 as glibc does for a normal mutex; reported once)",
				  m, 0);
			return 0;
		}
#if BROKEN(12)
		return EPERM;
#endif
		/*
		 * NORMAL mutex held by another thread: glibc releases it, and
		 * programs rely on that (e.g. pthread_atfork child handlers
		 * unlock what the parent's forking thread locked).  Adopt the
		 * word, then release it as its owner.
		 */
		for (;;) {
			e = v;
			if (atomic_compare_exchange_strong(w, &e, tid | (v & FUTEX_WAITERS)))
				break;
			v = e;
			if ((v & FUTEX_TID_MASK) == 0)
				return 0;
		}
		atomic_fetch_add(&g_adopt, 1);
		/* not worth a word: the fork child releasing the parent's locks */
		if ((pid_t)(v & FUTEX_TID_MASK) != atomic_load(&g_fork_parent_tid) ||
		    getpid() == atomic_load(&g_fork_parent_tid))
			warn_once(&g_warned_nonowner,
				  "futexlock-preload: mutex %p unlocked by a thread that does not own it (owner was thread %u): released as glibc does for a normal mutex (reported once)",
				  m, v & FUTEX_TID_MASK);
	} else if (type == PTHREAD_MUTEX_RECURSIVE && --m->__data.__count != 0) {
		return 0;
	}
	e = tid;
	if (atomic_compare_exchange_strong_explicit(w, &e, 0, memory_order_release,
						    memory_order_relaxed)) {
		STAT(unlock_fast);
		return 0;
	}
	STAT(unlock_syscalls);
	if (g_user_spin && !BROKEN(23))	/* the woken mark */
		fl_woken_mark(mwoken(m));
	if (atomic_load_explicit(&g_mode, memory_order_relaxed) == M_EMULATE) {
		atomic_store(w, 0);
		sys_futex(w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, 0);
		return 0;
	}
	while (sys_futex(w, FUTEX_UNLOCK | FUTEX_PRIVATE_FLAG, 0, NULL, 0) != 0) {
		if (errno == EINTR)
			continue;
		if (errno == EPERM && tid_was_stale()) {
			/* locked with the stale TID: adopt it under the real one */
			uint32_t o = atomic_load(w);

			tid = self_tid();
			if (atomic_compare_exchange_strong(w, &o, tid | (o & FUTEX_WAITERS)))
				continue;
		}
		say("futexlock-preload: FUTEX_UNLOCK on mutex %p (word 0x%08x, thread %u) failed: %s; aborting",
		    (void *)m, atomic_load(w), tid, strerror(errno));
		abort();
	}
	return 0;
}

EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	int r = REAL(mutex_init)(m, a), t;

	if (r || !g_stats)
		return r;
	t = conv_type(m);
	if (t >= 0) {
		atomic_fetch_add(&g_init_conv[t], 1);
		m->__data.__owner = -2;	/* seen: not a static initialiser */
	} else {
		int k = m->__data.__kind;

		atomic_fetch_add(&g_init_pass[mode() == M_OFF ? 4 : k & K_ROBUST ? 0 :
					      k & K_PI ? 1 : k & K_PP ? 2 : 3], 1);
	}
	return r;
}

EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
	uint32_t v;

	if (conv_type(m) < 0)
		return REAL(mutex_destroy)(m);
	v = atomic_load(mword(m));
#if !BROKEN(5)
	if (v != 0) {
		/* glibc returns EBUSY too; say so: callers rarely check */
		atomic_fetch_add(&g_destroy_busy, 1);
		warn_once(&g_warned_destroy,
			  "futexlock-preload: pthread_mutex_destroy of mutex %p, which is locked by thread %u: EBUSY (reported once)",
			  m, v & FUTEX_TID_MASK);
		return EBUSY;
	}
#endif
	m->__data.__owner = 0;
	m->__data.__kind = -1;	/* as glibc: a destroyed mutex is invalid */
	return 0;
}

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	int t = conv_type(m);

	if (t < 0) {
		STAT(passthrough_calls);
		return REAL(mutex_lock)(m);
	}
	return pl_lock(m, t, 0, NULL, 0);
}

EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	int t = conv_type(m);

	if (t < 0) {
		STAT(passthrough_calls);
		return REAL(mutex_trylock)(m);
	}
	return pl_lock(m, t, 1, NULL, 0);
}

EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abs)
{
	int t = conv_type(m);

	if (t < 0) {
		STAT(passthrough_calls);
		return REAL(mutex_timedlock)(m, abs);
	}
#if BROKEN(6)
	return pl_lock(m, t, 0, abs, CLOCK_MONOTONIC);
#endif
	return pl_lock(m, t, 0, abs, CLOCK_REALTIME);
}

EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
				   const struct timespec *abs)
{
	int t = conv_type(m);

	if (t < 0) {
		STAT(passthrough_calls);
		return REAL(mutex_clocklock)(m, clk, abs);
	}
	if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
		return EINVAL;
	return pl_lock(m, t, 0, abs, clk);
}

EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	int t = conv_type(m);

	if (t < 0) {
		STAT(passthrough_calls);
		return REAL(mutex_unlock)(m);
	}
	return pl_unlock(m, t);
}

/* Old symbols that old binaries may still reference (GLIBC_2.2.5). */
EXPORT int __pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	return pthread_mutex_init(m, a);
}

#if !BROKEN(10)
EXPORT int __pthread_mutex_destroy(pthread_mutex_t *m)
{
	return pthread_mutex_destroy(m);
}

EXPORT int __pthread_mutex_lock(pthread_mutex_t *m)
{
	return pthread_mutex_lock(m);
}

EXPORT int __pthread_mutex_trylock(pthread_mutex_t *m)
{
	return pthread_mutex_trylock(m);
}

EXPORT int __pthread_mutex_unlock(pthread_mutex_t *m)
{
	return pthread_mutex_unlock(m);
}
#endif

/* ---- condition variable -------------------------------------------------
 * A process-private condvar is ours for its whole life (when the preload is
 * on): glibc's pthread_cond_init fills it, which records the clock in
 * __wrefs bit 1 (pshared in bit 0; an all-zero static initialiser is
 * private, CLOCK_REALTIME), then only our functions touch it: a sequence
 * word in __g_signals[0] and our waiter count in __g_signals[1] (bit 31:
 * pthread_cond_destroy waits for the count to drop).  Wait = read seq,
 * release the mutex, FUTEX_WAIT_BITSET on seq, re-acquire; signal and
 * broadcast = seq++ and FUTEX_WAKE 1 / all, the syscall only if someone
 * waits.  A process-shared condvar goes to glibc (with a pass-through
 * mutex, as a process-shared mutex is).
 */
struct pl_cond {
	uint32_t glibc[9];	/* __wseq .. __g1_orig_size */
	_Atomic uint32_t wrefs;	/* glibc __wrefs: clock, pshared bits */
	_Atomic uint32_t seq;	/* __g_signals[0] */
	_Atomic uint32_t waiters;	/* __g_signals[1] */
};
_Static_assert(sizeof(struct pl_cond) == sizeof(pthread_cond_t), "cond size");
#define W_DESTROY 0x80000000u

static inline struct pl_cond *C(pthread_cond_t *c)
{
	return (struct pl_cond *)c;
}

/* 1: the condvar is ours */
static inline int cond_ours(pthread_cond_t *c)
{
	return mode() != M_OFF &&
	       !(atomic_load_explicit(&C(c)->wrefs, memory_order_relaxed) & C_PSHARED);
}

static inline clockid_t cond_clock(pthread_cond_t *c)
{
#if BROKEN(8)
	return CLOCK_REALTIME;
#endif
	return (atomic_load_explicit(&C(c)->wrefs, memory_order_relaxed) & C_MONOTONIC) ?
		CLOCK_MONOTONIC : CLOCK_REALTIME;
}

static inline int mutex_unlock_any(pthread_mutex_t *m, int type)
{
	return type < 0 ? pthread_mutex_unlock(m) : pl_unlock(m, type);
}

static inline int mutex_lock_any(pthread_mutex_t *m, int type)
{
	return type < 0 ? pthread_mutex_lock(m) : pl_lock(m, type, 0, NULL, 0);
}

static void cond_leave(struct pl_cond *fc)
{
	uint32_t w = atomic_fetch_sub(&fc->waiters, 1) - 1;

	if (w == W_DESTROY)	/* last one out, pthread_cond_destroy waits */
		sys_futex(&fc->waiters, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, 0);
}

struct wait_ctx {
	struct pl_cond *fc;
	pthread_mutex_t *m;
	int type;
	unsigned count;
};

/* cancelled while blocked: POSIX wants the mutex re-acquired first */
static void cond_cancel_cleanup(void *arg)
{
	struct wait_ctx *x = arg;

	cond_leave(x->fc);
	mutex_lock_any(x->m, x->type);
	if (x->type == PTHREAD_MUTEX_RECURSIVE)
		x->m->__data.__count = x->count;
}

/*
 * Sleep on the sequence word: a cancellation point, as glibc's wait is
 * (asynchronous cancellation only around the syscall, as glibc does it).
 * Returns ETIMEDOUT or 0 (woken, EAGAIN, EINTR: a permitted spurious
 * wake-up).
 */
static int cond_block(struct wait_ctx *x, uint32_t seq,
		      const struct timespec *abs, clockid_t clk)
{
	const int op = FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG |
		(abs && clk == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0);
	int oldtype, err;
	long fr;

	pthread_cleanup_push(cond_cancel_cleanup, x);
#if !BROKEN(14)
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &oldtype);
#endif
	fr = sys_futex(&x->fc->seq, op, seq, abs, FUTEX_BITSET_MATCH_ANY);
	err = errno;
#if !BROKEN(14)
	pthread_setcanceltype(oldtype, NULL);
#else
	(void)oldtype;
#endif
	pthread_cleanup_pop(0);
	return fr == -1 && err == ETIMEDOUT ? ETIMEDOUT : 0;
}

/* type: -1 pass-through mutex, else the converted type */
static int pl_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int type,
			const struct timespec *abs, clockid_t clk)
{
	struct wait_ctx x = { C(c), m, type, 0 };
	uint32_t seq;
	int r, r2;

	if (abs) {
		if (!valid_ts(abs))
			return EINVAL;
		if (abs->tv_sec < 0)	/* expired: glibc does not even unlock */
			return ETIMEDOUT;
	}
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK) {
		if ((atomic_load(mword(m)) & FUTEX_TID_MASK) != self_tid())
			return EPERM;
	}
	STAT(cond_waits);
	atomic_fetch_add(&x.fc->waiters, 1);
	seq = atomic_load(&x.fc->seq);
	if (type == PTHREAD_MUTEX_RECURSIVE) {	/* release all levels */
		x.count = m->__data.__count;
		m->__data.__count = 1;
	}
	r = mutex_unlock_any(m, type);
	if (r) {	/* e.g. EPERM from a pass-through errorcheck/robust mutex */
		if (type == PTHREAD_MUTEX_RECURSIVE)
			m->__data.__count = x.count;
		cond_leave(x.fc);
		return r;
	}
	r = cond_block(&x, seq, abs, clk);
	cond_leave(x.fc);
#if !BROKEN(1)
	r2 = mutex_lock_any(m, type);
#else
	r2 = 0;
#endif
	if (type == PTHREAD_MUTEX_RECURSIVE)
		m->__data.__count = x.count;
	/* EOWNERDEAD/ENOTRECOVERABLE of a robust mutex win, as in glibc */
	return r2 ? r2 : r;
}

EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	return REAL(cond_init)(c, a);
}

EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
	struct pl_cond *fc = C(c);
	uint32_t w;

	if (!cond_ours(c))
		return REAL(cond_destroy)(c);
	/*
	 * Woken waiters still touch the condvar (the waiter count) before
	 * they re-acquire the mutex: wait for them, as glibc does.  Waiters
	 * still blocked make this undefined behaviour; glibc blocks too.
	 */
	w = atomic_fetch_or(&fc->waiters, W_DESTROY) | W_DESTROY;
	while (w != W_DESTROY) {
		sys_futex(&fc->waiters, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, w, NULL, 0);
		w = atomic_load(&fc->waiters);
	}
	atomic_store(&fc->waiters, 0);
	return 0;
}

EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	int t = conv_type(m);

	if (!cond_ours(c))
		goto glibc;
	return pl_cond_wait(c, m, t, NULL, 0);
glibc:
	if (t >= 0)
		goto pshared_private;
	STAT(passthrough_calls);
	return REAL(cond_wait)(c, m);
pshared_private:
	say("futexlock-preload: pthread_cond_wait on process-shared condvar %p with process-private mutex %p: not supported (glibc's condvar would corrupt the converted mutex); make the mutex process-shared; aborting",
	    (void *)c, (void *)m);
	abort();
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				  const struct timespec *abs)
{
	int t = conv_type(m);

	if (!cond_ours(c)) {
		if (t >= 0)
			return pthread_cond_wait(c, m);	/* says why, aborts */
		STAT(passthrough_calls);
		return REAL(cond_timedwait)(c, m, abs);
	}
	return pl_cond_wait(c, m, t, abs, cond_clock(c));
}

EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
				  clockid_t clk, const struct timespec *abs)
{
	int t = conv_type(m);

	if (!cond_ours(c)) {
		if (t >= 0)
			return pthread_cond_wait(c, m);	/* says why, aborts */
		STAT(passthrough_calls);
		return REAL(cond_clockwait)(c, m, clk, abs);
	}
	if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
		return EINVAL;
	return pl_cond_wait(c, m, t, abs, clk);
}

static int pl_cond_wake(pthread_cond_t *c, int n)
{
	struct pl_cond *fc = C(c);

	atomic_fetch_add(&fc->seq, 1);
	if (atomic_load(&fc->waiters) & ~W_DESTROY) {
		STAT(cond_wake_syscalls);
		sys_futex(&fc->seq, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, n, NULL, 0);
	}
	return 0;
}

EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	if (!cond_ours(c))
		return REAL(cond_signal)(c);
	return pl_cond_wake(c, 1);
}

EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	if (!cond_ours(c))
		return REAL(cond_broadcast)(c);
#if BROKEN(13)
	return pl_cond_wake(c, 1);
#endif
	return pl_cond_wake(c, INT_MAX);
}

/* ---- C11 threads (glibc's call the pthread functions internally) ------- */
static int thrd_map(int e)
{
	switch (e) {
	case 0: return thrd_success;
	case EBUSY: return thrd_busy;
	case ETIMEDOUT: return thrd_timedout;
	case ENOMEM: return thrd_nomem;
	default: return thrd_error;
	}
}

EXPORT int mtx_init(mtx_t *m, int type)
{
	pthread_mutexattr_t a;
	int r;

	switch (type) {
	case mtx_plain | mtx_recursive:
	case mtx_timed | mtx_recursive:
		type = PTHREAD_MUTEX_RECURSIVE;
		break;
	case mtx_plain:
	case mtx_timed:
		type = PTHREAD_MUTEX_NORMAL;
		break;
	default:
		return thrd_error;
	}
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	r = pthread_mutex_init((pthread_mutex_t *)m, &a);
	pthread_mutexattr_destroy(&a);
	return thrd_map(r);
}

EXPORT void mtx_destroy(mtx_t *m)
{
	pthread_mutex_destroy((pthread_mutex_t *)m);
}

#if !BROKEN(9)
EXPORT int mtx_lock(mtx_t *m)
{
	return thrd_map(pthread_mutex_lock((pthread_mutex_t *)m));
}
#endif

EXPORT int mtx_trylock(mtx_t *m)
{
	return thrd_map(pthread_mutex_trylock((pthread_mutex_t *)m));
}

EXPORT int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict ts)
{
	return thrd_map(pthread_mutex_timedlock((pthread_mutex_t *)m, ts));
}

EXPORT int mtx_unlock(mtx_t *m)
{
	return thrd_map(pthread_mutex_unlock((pthread_mutex_t *)m));
}

EXPORT int cnd_init(cnd_t *c)
{
	return thrd_map(pthread_cond_init((pthread_cond_t *)c, NULL));
}

EXPORT void cnd_destroy(cnd_t *c)
{
	pthread_cond_destroy((pthread_cond_t *)c);
}

EXPORT int cnd_wait(cnd_t *c, mtx_t *m)
{
	return thrd_map(pthread_cond_wait((pthread_cond_t *)c, (pthread_mutex_t *)m));
}

EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m,
			 const struct timespec *restrict ts)
{
	return thrd_map(pthread_cond_timedwait((pthread_cond_t *)c,
					       (pthread_mutex_t *)m, ts));
}

EXPORT int cnd_signal(cnd_t *c)
{
	return thrd_map(pthread_cond_signal((pthread_cond_t *)c));
}

EXPORT int cnd_broadcast(cnd_t *c)
{
	return thrd_map(pthread_cond_broadcast((pthread_cond_t *)c));
}
