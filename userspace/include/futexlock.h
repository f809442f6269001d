/* SPDX-License-Identifier: GPL-2.0 */
/*
 * futexlock.h - shared userspace library of the futex-lock project.
 *
 * One header for: futex(2) wrappers and the FUTEX_LOCK feature probe,
 * clocks, the lock implementations that every benchmark uses (the single
 * source of truth for how each lock works), a lock-throughput benchmark
 * engine, small statistics helpers, strict argument parsing and the
 * debugfs statistics and spin knobs of the patched kernel.
 *
 * The ABI of the new ops is fixed in CONTRACT.md: FUTEX_LOCK = 14,
 * FUTEX_LOCK_ADAPTIVE = 15, FUTEX_UNLOCK = 16; word = owner TID |
 * FUTEX_WAITERS; fast paths are cmpxchg 0 <-> tid in userspace.
 */
#ifndef FUTEXLOCK_H
#define FUTEXLOCK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- futex ops (fallbacks for headers that predate the patch) ---------- */
#ifndef FUTEX_LOCK
#define FUTEX_LOCK		14
#endif
#ifndef FUTEX_LOCK_ADAPTIVE
#define FUTEX_LOCK_ADAPTIVE	15
#endif
#ifndef FUTEX_UNLOCK
#define FUTEX_UNLOCK		16
#endif
#ifndef FUTEX_PRIVATE_FLAG
#define FUTEX_PRIVATE_FLAG	128
#endif
#ifndef FUTEX_WAITERS
#define FUTEX_WAITERS		0x80000000u
#endif
#ifndef FUTEX_OWNER_DIED
#define FUTEX_OWNER_DIED	0x40000000u
#endif
#ifndef FUTEX_TID_MASK
#define FUTEX_TID_MASK		0x3fffffffu
#endif

#define FL_CACHELINE 64

/* Raw futex(2); returns the syscall's return value, errno set on -1. */
static inline long fl_futex(_Atomic uint32_t *uaddr, int op, uint32_t val,
			    const struct timespec *ts, uint32_t *uaddr2,
			    uint32_t val3)
{
	return syscall(SYS_futex, (uint32_t *)uaddr, op, val, ts, uaddr2, val3);
}

/*
 * Kernel thread id of the caller, cached per thread.  Inline: the TID
 * locks call it on every lock and unlock, and a call there would make
 * their fast path dearer than the wait/wake locks' (most of all under
 * TCG, where every return is an indirect-branch lookup).  A fork() child
 * starts with an empty cache (pthread_atfork); a vfork() or raw clone()
 * child must not call it.  C only (_Thread_local).
 */
extern _Thread_local pid_t fl_tid_cache;
pid_t fl_gettid_slow(void);

static inline pid_t fl_gettid(void)
{
	pid_t tid = fl_tid_cache;

	return __builtin_expect(tid != 0, 1) ? tid : fl_gettid_slow();
}

/* The cached TID, or 0 while this thread has not asked for it (no call). */
static inline uint32_t fl_tid_peek(void)
{
	return (uint32_t)fl_tid_cache;
}

/*
 * Feature probe: FUTEX_UNLOCK on a private word that holds 0.
 * Unpatched kernel -> ENOSYS, patched kernel -> EPERM (not the owner).
 * Returns 1 when the new ops exist, 0 when not; *err gets the errno seen
 * (0 if the call unexpectedly succeeded). The result is cached.
 */
int fl_futex_lock_probe(int *err);
/* One human line describing the probe result (static storage). */
const char *fl_futex_lock_probe_line(void);
#define FL_NO_FUTEX_LOCK_MSG \
	"this kernel has no FUTEX_LOCK: boot the patched kernel, see README"

/* ---- clocks ------------------------------------------------------------ */
static inline uint64_t fl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Cheap timestamp for per-operation measurements. On x86 this is rdtsc
 * (never a syscall, even where the guest's clocksource makes
 * clock_gettime() fall back to one); callers calibrate against
 * fl_now_ns() over the whole run. Elsewhere it is fl_now_ns().
 */
static inline uint64_t fl_cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	return fl_now_ns();
#endif
}

static inline void fl_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/* The RFC's delay: LOOPS empty iterations the compiler cannot remove. */
static inline void fl_delay(unsigned long loops)
{
	for (unsigned long i = 0; i < loops; i++)
		__asm__ volatile("" ::: "memory");
}

/* ---- locks ------------------------------------------------------------- */
/*
 * Per-thread counters. A lock call is one acquire by the application, a
 * lock syscall one kernel entry made on that acquire path (futex(2), or
 * sched_yield() for the spin lock); same for unlock. Each thread owns
 * its struct, so these are plain increments; the caller sums them.
 */
struct fl_counters {
	uint64_t lock_calls;
	uint64_t lock_syscalls;
	uint64_t unlock_calls;
	uint64_t unlock_syscalls;
	/* the user-space spin (fl_user_spin()): locks that spun, those
	 * that took the lock so, those that left it to the kernel on a
	 * flag or their own TID, and the words read */
	uint64_t user_spins;
	uint64_t user_spin_acquired;
	uint64_t user_spin_to_kernel;
	uint64_t user_spin_iters;
	/* slow locks that did not spin: the lock's woken mark was set
	 * (fl_woken_marked()) */
	uint64_t user_spin_skipped;
	/* ... or the back-off skipped the spin (knob user_spin_backoff,
	 * fl_uspin_backoff_spin()) */
	uint64_t user_spin_backed_off;
};

struct fl_lock;

enum { FL_USPIN_NEVER, FL_USPIN_OFF, FL_USPIN_ON };

struct fl_lock_ops {
	const char *name;	/* mode name used on the command line */
	const char *desc;	/* one line for --help and reports */
	bool needs_futex_lock;	/* needs FUTEX_LOCK/_ADAPTIVE/UNLOCK */
	bool counts_syscalls;	/* false: library lock, syscalls invisible */
	/* fl_user_spin() before the lock op: FL_USPIN_NEVER (the knob
	 * user_spin is refused), FL_USPIN_OFF (unless user_spin=1),
	 * FL_USPIN_ON (unless user_spin=0) */
	int user_spin;
	int (*init)(struct fl_lock *l);
	void (*destroy)(struct fl_lock *l);
	void (*lock)(struct fl_lock *l, struct fl_counters *c);
	/* one attempt that never waits: true if it took the lock, counted
	 * as a lock call only then (the engine's first attempt of every
	 * acquire while it samples latency, lib/bench.c) */
	bool (*trylock)(struct fl_lock *l, struct fl_counters *c);
	void (*unlock)(struct fl_lock *l, struct fl_counters *c);
	/* TID-owner locks (fl_tid_lock()): the futex ops of their slow
	 * paths, e.g. FUTEX_LOCK and FUTEX_UNLOCK; 0 for the other locks */
	int tid_lock_op, tid_unlock_op;
};

struct fl_lock {
	_Alignas(FL_CACHELINE) _Atomic uint32_t word;
	_Atomic uint32_t woken;	/* the woken mark (fl_woken_mark()), the
				 * word's line, in the padding before mutex */
	pthread_mutex_t mutex;
	const struct fl_lock_ops *ops;
	int futex_private;	/* FUTEX_PRIVATE_FLAG, or 0 for shared (-S) */
	_Atomic uint32_t uspin_hist;	/* the user spin's back-off history
					 * (knob user_spin_backoff) */
};
#ifdef __x86_64__
/* one line, the history on the word's (as the preload has it) */
_Static_assert(sizeof(struct fl_lock) == FL_CACHELINE, "struct fl_lock is one cache line");
#endif

/* the lock spins in user space (or may, by the knob): not in --perf-loop,
 * which runs perf's loop, the fast path and the op only */
static inline bool fl_user_spin_applies(const struct fl_lock_ops *ops, bool perf_loop)
{
	return ops->user_spin != FL_USPIN_NEVER && !perf_loop;
}

/* All modes, in the order --compare runs and prints them. */
extern const struct fl_lock_ops *const fl_lock_modes[];
extern const size_t fl_lock_nmodes;
const struct fl_lock_ops *fl_lock_find(const char *name);
/* true when the mode can run on this kernel (probe for FUTEX_LOCK modes) */
bool fl_lock_available(const struct fl_lock_ops *ops);

/* 0 on success, else an errno value. */
int fl_lock_init(struct fl_lock *l, const struct fl_lock_ops *ops);
/* Same; shared: non-private futex ops, PTHREAD_PROCESS_SHARED mutexes. */
int fl_lock_init_shared(struct fl_lock *l, const struct fl_lock_ops *ops,
			bool shared);
/*
 * TEST ONLY: a "lock" that does not exclude (lock and unlock only count).
 * Never in fl_lock_modes[]; test_locks uses it to show that its exclusion
 * check catches a broken lock, futex_lock accepts -m test-broken only with
 * FUTEXLOCK_TEST_BROKEN_LOCK=1 in the environment.
 */
extern const struct fl_lock_ops fl_lock_test_broken;
void fl_lock_destroy(struct fl_lock *l);

static inline void fl_lock(struct fl_lock *l, struct fl_counters *c)
{
	l->ops->lock(l, c);
}

static inline bool fl_trylock(struct fl_lock *l, struct fl_counters *c)
{
	return l->ops->trylock(l, c);
}

static inline void fl_unlock(struct fl_lock *l, struct fl_counters *c)
{
	l->ops->unlock(l, c);
}

/*
 * The user-space protocol of the TID-owner locks (futex_lock, adaptive,
 * pi), the one implementation: lock is cmpxchg 0 -> tid, and only when
 * that fails the lock op (tid_lock_op), which returns owning the lock;
 * unlock is cmpxchg tid -> 0, and only when that fails (FUTEX_WAITERS
 * set) the unlock op.  The fast paths are inline and count nothing (the
 * modes' lock()/unlock() count the calls, the perf-loop engine counts
 * its iterations); the slow paths (lib/locks.c) count the syscalls in c.
 *
 * tid may be 0, "not known yet" (fl_tid_peek() of a thread that has not
 * asked for its TID): then the fast path's cmpxchg fails and the slow path
 * finds the TID and makes it again.  That keeps every call out of the
 * fast paths, so they need no stack frame (before it, the lock+unlock
 * pair was 22 instructions against the wait/wake mutex's 10 by
 * callgrind, and under TCG the benchmark's loop ran 0.94x as fast; since
 * 58a317e each is 7 instructions and one conditional branch before ret,
 * against wait/wake's 5 and 3, by objdump).  The modes' trylock
 * (lib/locks.c, tid_trylock()), the engine's first attempt at every
 * acquire while it samples latency, has the same shape since 2026-11-30.
 */
void fl_tid_lock_slow(struct fl_lock *l, struct fl_counters *c, uint32_t tid,
		      int op);
void fl_tid_unlock_slow(struct fl_lock *l, struct fl_counters *c, uint32_t tid,
			int op);

/*
 * The fast path: true if the cmpxchg 0 -> tid took the lock.  For tid 0
 * (not cached yet) it expects ~0, which no word holds: its TID field,
 * 0x3fffffff, is above PID_MAX_LIMIT (0x400000) whatever the flag bits,
 * so only corrupted memory could (and then the cmpxchg would write 0 and
 * report the lock taken).  So the cmpxchg fails and the slow path finds
 * the TID.  The caller's one conditional branch is then the jump on the
 * cmpxchg's result, where a test of tid would be a second one (under TCG
 * every conditional branch ends a translation block).
 */
static inline bool fl_tid_trylock(struct fl_lock *l, uint32_t tid)
{
	uint32_t exp = -(uint32_t)(tid == 0);

	return atomic_compare_exchange_strong_explicit(&l->word, &exp, tid,
			memory_order_acquire, memory_order_relaxed);
}

static inline void fl_tid_lock(struct fl_lock *l, struct fl_counters *c,
			       uint32_t tid, int op)
{
	if (!fl_tid_trylock(l, tid))
		fl_tid_lock_slow(l, c, tid, op);
}

/*
 * No test of tid: a thread whose TID is not cached (0) has taken no lock
 * since it began (or forked), so its cmpxchg 0 -> 0 fails on any held
 * word and the slow path finds the TID.  Unlocking a free word is a
 * caller's bug; a thread with its TID cached gets FUTEX_UNLOCK's EPERM
 * for it (fl_die()), one without it now succeeds silently (0 -> 0), so
 * the bug is caught only in the first case.  The engine's workers cache
 * their TID before the first lock.
 */
static inline void fl_tid_unlock(struct fl_lock *l, struct fl_counters *c,
				 uint32_t tid, int op)
{
	uint32_t exp = tid;

	if (!atomic_compare_exchange_strong_explicit(&l->word, &exp, 0,
			memory_order_release, memory_order_relaxed))
		fl_tid_unlock_slow(l, c, tid, op);
}

/*
 * The user-space spin of the TID-owner locks (lib/userspin.c; on by
 * default in futex_lock -m adaptive and the preload's adaptive mode):
 * after the fast path's cmpxchg failed and before the lock op, read the
 * word while it names another owner and no flag, and take it with a
 * cmpxchg once it has read 0 twice in a row.  A word free for one read
 * only is an owner dropping and retaking its lock (critical sections
 * back to back): taking it then only moves the lock to this CPU, which
 * cost v9's kernel spin its 2-thread gains until patch 12 read slowly at
 * first; a word that stays free for an iteration was left.
 * A flag (FUTEX_WAITERS, FUTEX_OWNER_DIED) or our own TID leaves the
 * lock to the kernel at once.  FUTEX_WAITERS clear does not mean nobody
 * sleeps: after FUTEX_UNLOCK woke a waiter the word reads 0 or a TID
 * while others may still be queued (lock.c's table), and the spin may
 * take the lock before the woken waiter (the kernel counts that waiter
 * in lost_after_wake), as the fast path may; the caller does not spin
 * while the lock carries the woken mark (below), which covers part of it.
 * At most *budget reads; each read is taken off *budget.  tid must be
 * the caller's TID, never 0.  Returns FL_USPIN_TAKEN (acquire order),
 * FL_USPIN_SPENT (the budget ran out) or FL_USPIN_KERNEL (a flag or our
 * own TID: the kernel's to decide).  fl_user_spin_step() is the rule for
 * one read, apart so that tests can feed it sequences.
 */
enum { FL_USPIN_SPENT, FL_USPIN_TAKEN, FL_USPIN_KERNEL };
enum { FL_USPIN_READ_ON, FL_USPIN_TRY };	/* and FL_USPIN_KERNEL */

static inline int fl_user_spin_step(uint32_t v, uint32_t tid, bool *was_free)
{
	if ((v & ~FUTEX_TID_MASK) || (v && v == tid))
		return FL_USPIN_KERNEL;
	if (!v && *was_free)
		return FL_USPIN_TRY;
	*was_free = !v;
	return FL_USPIN_READ_ON;
}

static inline int fl_user_spin(_Atomic uint32_t *w, uint32_t tid, uint32_t *budget)
{
	bool was_free = false;

	while (*budget) {
		uint32_t v = atomic_load_explicit(w, memory_order_relaxed);

		--*budget;
		switch (fl_user_spin_step(v, tid, &was_free)) {
		case FL_USPIN_KERNEL:
			return FL_USPIN_KERNEL;
		case FL_USPIN_TRY:
			if (atomic_compare_exchange_strong_explicit(w, &v, tid,
					memory_order_acquire, memory_order_relaxed))
				return FL_USPIN_TAKEN;
			was_free = false;	/* taken by another meanwhile */
			break;
		}
		fl_cpu_relax();
	}
	return FL_USPIN_SPENT;
}

/*
 * The woken mark: a waiter woken for this lock may be on its way.
 *
 * FUTEX_UNLOCK writes 0 and wakes the first waiter; until that waiter is
 * back with the lock, the word reads 0 or a TID with FUTEX_WAITERS clear
 * although others may still be queued (lock.c's table: "0, queued,
 * [woken]").  The kernel's spinner does not spin while anybody is queued
 * (spin_check_waiters); the user spin cannot see the queue and may take
 * the lock from the woken waiter, which then sleeps again, while the lock
 * stays with the threads that are running (a likely mechanism, consistent
 * with the counters, not shown).  Measured where threads
 * outnumber CPUs, in one guest probe (QEMU TCG, 2 vCPUs, 256 threads,
 * hold 1000, outside 10000, 20 pairs): ADAPTIVE 0.95 [0.95-0.97] of
 * FUTEX_LOCK, the kernel op alone 0.98 [0.95-1.01], and the per-thread
 * iteration counts' coefficient of variation 229 % against 129 %.
 *
 * So an owner whose unlock goes to FUTEX_UNLOCK (FUTEX_WAITERS was set:
 * somebody is or was queued) marks the lock first, a locker that finds
 * the mark does not spin in user space but goes to the lock op, and any
 * acquisition through the lock op clears it (the woken waiter's, or a
 * newcomer's that took the word first: then the spin comes back while
 * the woken waiter is still on its way).  When the woken waiter was the
 * only one, nobody is queued and a locker in the kernel may take the
 * free word as well (futex_lock_take_free()): the mark then trades a
 * user-space spin for a system call that can take the lock the same way.
 *
 * The mark is a hint: a word of its own, never read for exclusion, set
 * and cleared only by owners.  Relaxed: the unlocker's store precedes its
 * FUTEX_UNLOCK, whose cmpxchg on the word orders it in practice (x86:
 * a locked instruction; arm64: the kernel's barriers); a locker that sees
 * the new word without the mark spins as before.  A mark left set costs
 * every contended lock its user spin until the next acquisition through
 * the lock op clears it.  In struct fl_lock it shares the word's cache
 * line; in the preload (glibc's __nusers, 12 bytes after the word) it
 * does for most placements of a mutex.  Only locks whose slow path
 * spins mark, so FUTEX_LOCK's own paths are unchanged; the knob
 * user_spin_woken=0 makes lockers ignore the mark (still set and
 * cleared: the ablation differs in behaviour only).
 */
static inline void fl_woken_mark(_Atomic uint32_t *m)
{
	atomic_store_explicit(m, 1, memory_order_relaxed);
}

static inline bool fl_woken_marked(_Atomic uint32_t *m)
{
	return atomic_load_explicit(m, memory_order_relaxed) != 0;
}

/* after an acquisition through the lock op; no write if not marked */
static inline void fl_woken_clear(_Atomic uint32_t *m)
{
	if (fl_woken_marked(m))
		atomic_store_explicit(m, 0, memory_order_relaxed);
}

/*
 * The user spin's back-off: learn from failure, per lock.
 *
 * The user spin bets that the owner releases within one kernel round
 * trip.  Where owners hold longer, every spin loses the bet and adds that
 * round trip to a lock that goes to the kernel anyway: in stress-ng
 * --mutex (the holder yields and changes its priority inside the lock)
 * make apps' stats run counted 0 locks taken in 100,697 user spins (QEMU
 * TCG, 2 vCPUs, 2026-11-29; Documentation/results/apps-stressng-trials-*).
 * The two mistakes do not cost the same: a spin that fails costs about
 * one round trip, a spin skipped that would have won may cost a sleep
 * and a wake-up, many round trips.  So the back-off waits for a run of
 * failures before it skips anything: after FL_USPIN_BACKOFF_AFTER
 * consecutive spins that ran out of budget (FL_USPIN_SPENT) the next
 * failure makes the lock's next contended lock skip the spin, the one
 * after two, then 4, ... up to 64; a spin that takes the lock forgets
 * the history.  A lock whose spins never win spins on one contended lock
 * in 65 once there; one whose spins win half the time reaches a skip
 * only after four failures in a row.  A spin that stopped on a flag or
 * on our own TID (FL_USPIN_KERNEL) cost a read or two and leaves the
 * history alone.  The window counts contended locks, not time.
 *
 * One word per lock: the low 16 bits count the skips left, the bits above
 * them the level (consecutive failures, capped).  Relaxed loads and
 * stores, no read-modify-write: the history is a hint, never read for
 * exclusion, and a lost update between two lockers (one preempted
 * between its load and its store) can at worst restore an older history,
 * up to 64 skips and any level; it never blocks a lock.  The level is
 * clamped on every update, so a history overwritten from outside (a
 * mutex copied while in use) cannot push the shift out of range.  Only
 * slow paths of locks that spin touch it.
 */
#define FL_USPIN_BACKOFF_AFTER	3
#define FL_USPIN_BACKOFF_LEVELS	(FL_USPIN_BACKOFF_AFTER + 7)	/* 64 skips */
#define FL_USPIN_BACKOFF_SKIPS	0xffffu

/* true: spin this time; false: skip the spin (one skip is used up) */
static inline bool fl_uspin_backoff_spin(_Atomic uint32_t *h)
{
	uint32_t v = atomic_load_explicit(h, memory_order_relaxed);

	if (!(v & FL_USPIN_BACKOFF_SKIPS))
		return true;
	atomic_store_explicit(h, v - 1, memory_order_relaxed);
	return false;
}

/* after a spin: r is what fl_user_spin() returned */
static inline void fl_uspin_backoff_done(_Atomic uint32_t *h, int r)
{
	uint32_t v = atomic_load_explicit(h, memory_order_relaxed), lvl = v >> 16;

	if (r == FL_USPIN_TAKEN) {
		if (v)
			atomic_store_explicit(h, 0, memory_order_relaxed);
	} else if (r == FL_USPIN_SPENT) {
		lvl = lvl < FL_USPIN_BACKOFF_LEVELS ? lvl + 1 : FL_USPIN_BACKOFF_LEVELS;
		atomic_store_explicit(h, lvl << 16 |
				      (lvl > FL_USPIN_BACKOFF_AFTER ?
				       1u << (lvl - FL_USPIN_BACKOFF_AFTER - 1) : 0),
				      memory_order_relaxed);
	}
}

/* the calibration: one kernel acquisition, one spin iteration, the limit */
struct fl_user_spin_cal {
	double syscall_ns;	/* median of FUTEX_LOCK_ADAPTIVE on a free word + release */
	double iter_ns;		/* median of one fl_user_spin() iteration */
	uint32_t limit;		/* syscall_ns / iter_ns, rounded up, 2..FL_USER_SPIN_MAX */
	unsigned calls;		/* FUTEX_LOCK_ADAPTIVE calls it made (debugfs counts them) */
};
#define FL_USER_SPIN_MAX 4096
#define FL_USER_SPIN_CAL_CALLS (31 * 8)	/* lib/userspin.c's batches */
/* calibrates once per process (thread-safe); later calls return the same */
const struct fl_user_spin_cal *fl_user_spin_calibrate(void);
/*
 * The limit in force for a lock whose default is dflt (adaptive: on;
 * futex_lock: off), or 0 while off.  The knob user_spin overrides the
 * default: fl_user_spin_set(0 or 1); -1 restores the defaults.
 */
uint32_t fl_user_spin_limit(bool dflt);
void fl_user_spin_set(int on);
int fl_user_spin_get(void);
extern _Atomic int fl_user_spin_knob;	/* fl_user_spin_get(), inline */
/* the knob user_spin_woken: lockers honour the woken mark (1, default)
 * or ignore it (0); -1 restores the default */
void fl_user_spin_woken_set(int on);
int fl_user_spin_woken_get(void);
bool fl_user_spin_woken(void);	/* the mark is honoured now */
/* the knob user_spin_backoff: the user spin backs off on a lock whose
 * spins keep failing (1; the preload's default) or not (0, futex_lock's
 * default, the runs published before it existed); -1 restores that */
void fl_user_spin_backoff_set(int on);
int fl_user_spin_backoff_get(void);
bool fl_user_spin_backoff(void);	/* the back-off is on now */

/* Spin iterations before sleeping in waitwake-spin / yielding in spin. */
#define FL_SPIN_LIMIT 100

/* ---- statistics --------------------------------------------------------- */
double fl_median(const double *v, size_t n);	/* copies, does not sort v */
/* sorts v in place, no allocation (the preload's calibration, inside
 * pthread_mutex_lock, must not call malloc) */
double fl_median_sort(double *v, size_t n);
double fl_mean(const double *v, size_t n);
double fl_stddev(const double *v, size_t n);	/* population stddev */
double fl_min(const double *v, size_t n);
double fl_max(const double *v, size_t n);
/* (max - min) / median in percent; 0 if median is 0 */
double fl_spread_pct(const double *v, size_t n);
/* q-quantile (0..1, linear interpolation) of v; copies, does not sort v */
double fl_quantile(const double *v, size_t n, double q);

/*
 * The paired-comparison engine (lib/compare.c), one for every tool.
 * r[i] = x[i] / base[i] for every repetition i where both are > 0; the
 * figure is the median of r with a 95% percentile-bootstrap interval of
 * that median (FL_BOOT_RESAMPLES resamples of the pairs, the fixed seed
 * FL_BOOT_SEED: the same data always give the same interval; quantiles
 * of fl_quantile()).
 * Every metric declares whether lower or higher is better.  The verdict:
 *   FL_NO_DATA            fewer than 2 pairs ("-")
 *   FL_INSUFFICIENT       fewer than FL_MIN_VERDICT_PAIRS pairs, in this row
 *                         or in the table's A/A row ("insufficient data")
 *   FL_FASTER / FL_SLOWER the interval excludes 1 AND is disjoint from the
 *                         table's A/A band [min(lo, 1/hi), max(hi, 1/lo)]
 *                         (the A/A interval and its reciprocal: which of two
 *                         identical instances is the baseline is arbitrary);
 *                         "faster" is the better side (a time 2.5x the
 *                         baseline is "slower")
 *   FL_INDISTINGUISHABLE  otherwise
 *   FL_CONTROL            the A/A row itself: it is the band, not a claim
 *   FL_FAILED             a run of this row failed (fl_fail()): no ratio
 * The verdict is the median's.  Beside it the JSON gives the ratio of the
 * means (mean_ratio) and tail_disagrees when that points the other way.
 */
#define FL_BOOT_RESAMPLES 10000	/* verdicts hinge on the endpoints */
#define FL_BOOT_SEED 0x9e3779b97f4a7c15ull
/* a bootstrap of the median of 2-4 values is about their range: too
 * narrow to decide anything (seen: A/A 1.10-1.15 from 3 pairs) */
#define FL_MIN_VERDICT_PAIRS 5
/* version of the JSON/CSV layout every tool writes (fl_json_provenance) */
#define FL_SCHEMA_VERSION 3	/* 3: control, failed, handoffs, *_reps */
enum fl_better { FL_HIGHER_IS_BETTER, FL_LOWER_IS_BETTER };
enum fl_verdict { FL_NO_DATA, FL_INSUFFICIENT, FL_INDISTINGUISHABLE,
		  FL_FASTER, FL_SLOWER, FL_CONTROL, FL_FAILED };
struct fl_ratio_ci {
	size_t n;		/* pairs used */
	double median, lo, hi;	/* median ratio and its 95% interval */
	enum fl_better better;
	bool has_aa;		/* decided against an A/A band */
	size_t aa_n;
	double aa_median, aa_lo, aa_hi;
	enum fl_verdict verdict;
	/* sum(x) / sum(base) over the same pairs (fl_ratio_ci; 0: none):
	 * the ratio of the means, which a few slow repetitions move and the
	 * median does not; no interval, reported beside the median */
	double mean_ratio;
	/* faster/slower by the median, but the mean ratio on the other side
	 * of 1 (a skewed metric: read both) */
	bool tail_disagrees;
};
/* the one PRNG (xorshift64*, a zero state is replaced) */
uint64_t fl_rng_next(uint64_t *s);
/* Fisher-Yates with fl_rng_next() */
void fl_shuffle(unsigned *v, size_t n, uint64_t *seed);
/* Interval of the ratios of n pairs; returns 0, or -1 (FL_NO_DATA) if < 2
 * pairs.  The verdict is left FL_INDISTINGUISHABLE: use fl_decide(). */
int fl_ratio_ci(const double *x, const double *base, size_t n,
		struct fl_ratio_ci *r);
/* Same for ratios already formed (r[i] > 0 used, others skipped). */
int fl_median_ci(const double *ratios, size_t n, struct fl_ratio_ci *r);
/*
 * The band of an A/A interval [aa_lo, aa_hi], symmetric in log space:
 * which of two identical instances is the baseline is arbitrary, so the
 * interval says identical code measured up to 1/lo faster and 1/hi slower
 * as well.  A verdict needs an interval clear of
 * [*down, *up] = [min(1, lo, 1/hi), max(1, hi, 1/lo)] ([1, 1] when an
 * edge is not positive).
 */
void fl_aa_band(double aa_lo, double aa_hi, double *down, double *up);
/* The verdict of r with the A/A band aa (NULL: the A/A row itself, or no
 * A/A: compared with 1 only).  Records the direction and the band in r. */
void fl_decide(struct fl_ratio_ci *r, enum fl_better better,
	       const struct fl_ratio_ci *aa);
/* fl_ratio_ci(x, base) + fl_decide() against the band of aa / base; aa is
 * the A/A column's series (aa == x: this is the A/A row, FL_CONTROL;
 * NULL: none, against 1 only). */
int fl_compare(const double *x, const double *base, const double *aa,
	       size_t n, enum fl_better better, struct fl_ratio_ci *r);
/* a run of this row failed: FL_FAILED, the JSON carries no ratio */
void fl_fail(struct fl_ratio_ci *r);
/* the A/A interval contains 1 */
bool fl_aa_ok(const struct fl_ratio_ci *aa);
/* "faster", "slower", "indistinguishable", "insufficient data",
 * "control", "failed" or "-" */
const char *fl_verdict_name(enum fl_verdict v);
const char *fl_better_name(enum fl_better b);	/* "lower" / "higher" */
/* git describe of the build (-DFL_GIT_COMMIT), else "unknown" */
const char *fl_git_commit(void);
void fl_json_str(FILE *f, const char *s);
/* {n, median, lo, hi, better, aa{..}, aa_ok, min_pairs, insufficient,
 * verdict}, or null with fewer than 2 pairs */
void fl_json_ci(FILE *f, const struct fl_ratio_ci *r);
/* "1.02 [0.98,1.05]" or "-" */
const char *fl_ci_str(const struct fl_ratio_ci *r, char *buf, size_t len);
/* the per-repetition values of a series, times scale; null where a
 * repetition gave none (<= 0): so anyone can recompute an interval */
void fl_json_series(FILE *f, const double *v, size_t n, double scale);
/* "schema_version": .., "git_commit": .., "seed": .., "min_pairs": .. */
void fl_json_provenance(FILE *f, uint64_t seed);

/*
 * Log-bucket latency histogram (nanoseconds): 8 sub-buckets per power of
 * two, so any quantile is within 1/8 (12.5%) of the true value; exact
 * min/max/count/sum.  Each thread fills its own; fl_hist_merge() sums.
 */
#define FL_HIST_SUB 8
#define FL_HIST_BUCKETS (64 * FL_HIST_SUB)
struct fl_hist {
	uint64_t count, sum_ns, min_ns, max_ns;
	uint64_t bucket[FL_HIST_BUCKETS];
};
void fl_hist_init(struct fl_hist *h);
void fl_hist_add(struct fl_hist *h, uint64_t ns);
/* n samples of 0 ns at once (the engine counts its no-wait acquires inline) */
void fl_hist_add_zeros(struct fl_hist *h, uint64_t n);
void fl_hist_merge(struct fl_hist *into, const struct fl_hist *from);
/* q in 0..1; the upper edge of the bucket holding the q-th sample (max for q = 1) */
uint64_t fl_hist_quantile(const struct fl_hist *h, double q);

/* ---- strict argument parsing -------------------------------------------- */
/*
 * Decimal unsigned integer in [min, max]: no sign, no spaces, no suffix,
 * no overflow. Returns 0 and stores *out, or -1.
 */
int fl_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Finite decimal number in [min, max] (no sign accepted). */
int fl_parse_double(const char *s, double min, double max, double *out);

/* ---- kernel statistics (debugfs of the patched kernel) ------------------ */
#define FL_KSTATS_PATH "/sys/kernel/debug/futex_lock/stats"
#define FL_KSTATS_MAX 64
struct fl_kstats {
	int n;			/* -1: file not readable */
	char name[FL_KSTATS_MAX][48];
	uint64_t value[FL_KSTATS_MAX];
};
/* FL_KSTATS_PATH, or $FUTEXLOCK_KSTATS if set (tests use a fake file) */
const char *fl_kstats_path(void);
/* Reads "name: value" lines; returns 0 if readable, -1 if not (n = -1). */
int fl_kstats_read(struct fl_kstats *k);
/* the same from a saved copy of the file */
int fl_kstats_read_file(const char *path, struct fl_kstats *k);
/* a value now (the spin budget, a knob), not a count: deltas keep it */
int fl_kstats_is_gauge(const char *name);
/* out = after - before, per name of 'after' (missing in before = 0;
 * a gauge is after's value). */
void fl_kstats_delta(const struct fl_kstats *before,
		     const struct fl_kstats *after, struct fl_kstats *out);

/* ---- spin-policy knobs (debugfs of the patched kernel, lib/knobs.c) ----- */
#define FL_KNOB_DIR "/sys/kernel/debug/futex_lock"
#define FL_KNOBS_MAX 15		/* the allowed knobs, each at most once */
/*
 * Knob settings, "name=value[,name=value...]": spin_check_runnable,
 * spin_calibrate, spin_backoff, spin_check_waiters, spin_check_overload,
 * spin_check_first_wake, spin_check_queue, spin_quiet_start,
 * spin_charge_call, spin_charge_check_overload (booleans: 0 or 1),
 * spin_max_ns (u64), handoff_threshold (u32); values in decimal.
 * user_spin, user_spin_woken and user_spin_backoff (0 or 1) are no
 * kernel files: fl_user_spin_set(), fl_user_spin_woken_set() and
 * fl_user_spin_backoff_set() of this process.
 */
struct fl_knobs {
	int n;
	const char *name[FL_KNOBS_MAX];
	int def[FL_KNOBS_MAX];		/* index in lib/knobs.c's allowlist */
	uint64_t value[FL_KNOBS_MAX];
};
/* FL_KNOB_DIR, or $FUTEXLOCK_KNOB_DIR if set (tests use fake files) */
const char *fl_knob_dir(void);
/* 0, or -1: unknown knob, one twice, bad value, malformed list */
int fl_knobs_parse(const char *list, struct fl_knobs *k);
/* knob i of k is this process's setting (user_spin, user_spin_woken,
 * user_spin_backoff) */
bool fl_knob_is_user(const struct fl_knobs *k, int i);
/*
 * Per knob: save the file's content, write the value, read it back (a
 * boolean reads back Y/N from debugfs, 1/0 from a plain file).  0, or -1
 * with err[] naming the file and the errno, everything already restored.
 * One set at a time: until fl_knobs_restore(), SIGINT/SIGTERM/SIGHUP
 * restore it before they end the process.
 */
int fl_knobs_apply(const struct fl_knobs *k, char *err, size_t len);
/* write the saved content back: 0, or -1 with err[] */
int fl_knobs_restore(char *err, size_t len);

/* ---- lock-throughput benchmark engine ------------------------------------ */
enum fl_sched { FL_SCHED_DEFAULT, FL_SCHED_OTHER, FL_SCHED_FIFO, FL_SCHED_RR };

struct fl_bench_cfg {
	const struct fl_lock_ops *ops;
	unsigned threads;
	uint64_t iterations;	/* total over all threads; 0 = time-bounded */
	double duration_s;	/* used when iterations == 0 */
	uint64_t hold_loops;	/* fl_delay() inside the lock */
	uint64_t wait_loops;	/* fl_delay() outside the lock */
	bool pin;		/* thread i -> i-th allowed CPU, round-robin */
	enum fl_sched sched;
	bool read_kstats;
	/* time every Nth acquire into res->lat, from a random phase per
	 * thread (0: no timestamps at all) */
	unsigned latency_every;
#define FL_DEF_LATENCY_EVERY 1024
	bool shared;		/* non-private futexes (perf bench -S) */
	bool multi;		/* one lock per thread (perf bench -M) */
	/*
	 * perf bench futex lock's loop instead of the engine's (futex_lock
	 * --perf-loop): a TID-owner lock (ops->tid_lock_op) only, time-bounded
	 * only; per iteration fl_tid_lock(), hold_loops fl_delay() loops,
	 * fl_tid_unlock(), a count in a register, the stop flag; no exclusion
	 * check, no timestamps, no outside loops (wait_loops and
	 * latency_every are ignored).  res->perf_* give perf's ops/s.
	 */
	bool perf_loop;
};

struct fl_bench_result {
	uint64_t iterations;		/* executed, all threads */
	struct fl_counters total;	/* summed per-thread counters */
	/* locks with a user-space spin (ops->user_spin, not perf_loop):
	 * fl_user_spin_limit() in force during the run, 0 while off */
	uint32_t user_spin_limit;
	bool user_spin_woken;		/* spinning, and honouring the woken mark */
	bool user_spin_backoff;		/* spinning, and backing off */
	double elapsed_s;		/* first thread start -> last thread end */
	double user_s, sys_s;		/* summed RUSAGE_THREAD of the workers */
	double cpu_s;			/* summed CLOCK_THREAD_CPUTIME_ID (exact) */
	double kiter_s;			/* iterations / elapsed / 1000 */
	double kiter_per_cpu_s;		/* iterations / cpu_s / 1000 */
	double longest_wait_us;		/* longest sampled fl_lock() call */
	double mean_wait_us;		/* mean sampled fl_lock() duration */
	uint64_t thr_min, thr_max;	/* per-thread iterations */
	double thr_mean, thr_stddev;
	uint64_t protected_counter;	/* incremented inside the lock */
	/* entries into the critical section that found another owner in it,
	 * and exits that found another owner had entered (the owner word,
	 * lib/bench.c) */
	uint64_t overlaps;
	/* entries that followed another thread's (fewer than
	 * FL_MIN_HANDOFFS: the check was not exercised) */
	uint64_t handoffs;
	/* protected_counter == iterations and overlaps == 0 */
	bool mutex_ok;
	struct fl_kstats kstats;	/* deltas; n = -1 if not readable */
	char error[160];		/* non-empty: the run failed */
	bool setup_failed;		/* error[] is a set-up error, nothing ran */
	uint64_t nvcsw, nivcsw;		/* summed RUSAGE_THREAD context switches */
	struct fl_hist lat;		/* sampled acquire latency (ns) */
	/* threads with at least one sample, and the min / median / max over
	 * them of each thread's worst sampled wait */
	unsigned lat_threads;
	double thr_worst_min_us, thr_worst_med_us, thr_worst_max_us;
	/* false: the run had no exclusion check (perf_loop); mutex_ok then
	 * says only that nothing failed */
	bool exclusion_checked;
	/*
	 * perf_loop runs: perf bench's figures.  perf_secs is perf's "total
	 * secs", the whole seconds from before the threads are created to
	 * the stop; perf_ops_s the mean over the threads of their iterations
	 * / perf_secs (integer division, as perf), perf_se_ops_s its standard
	 * error (sample stddev / sqrt(threads); 0 for one thread).
	 */
	unsigned perf_secs;
	double perf_runtime_s;	/* the same span, not truncated */
	double perf_ops_s, perf_se_ops_s;
};

/*
 * The exclusion check's window inside every critical section: the
 * protected counter is loaded, FL_CHECK_WINDOW_LOOPS fl_delay() loops run,
 * the counter + 1 is stored (the hold delay -d follows).  So even -d 0
 * holds the lock for this long; overhead reports what it costs.
 */
#define FL_CHECK_WINDOW_LOOPS 64

/*
 * The owner word of the exclusion check (futex_lock's engine and
 * lockbench), on a cache line of its own, not the protected data's:
 * fl_owner_enter() right after the lock is taken checks that the word is
 * 0 and stores the caller's TID; fl_owner_leave() right before the unlock
 * checks that it still holds that TID and clears it.  Plain loads and
 * stores, no locked instruction: a correct lock orders them by its own
 * acquire/release.  Two owners whose windows overlap in any way are
 * caught, by the one that entered second on entry or by the first on
 * exit.  Each returns the overlaps it saw (0 or 1).  'last' holds the TID
 * of the latest entry: an entry that finds another thread's TID there is
 * a hand-off (*handoffs, may be NULL); a run without one never had two
 * threads take the lock in turn, so it checked nothing.
 */
struct fl_owner {
	_Alignas(FL_CACHELINE) _Atomic uint32_t owner;
	_Atomic uint32_t last;
};
/*
 * "ok" needs this many hand-offs; fewer is "not exercised".  A lock that
 * excludes nobody, run by threads that take turns only when the scheduler
 * switches them, is caught at a hand-off with the probability that the
 * switch lands inside the window (most of a -d 0 iteration): seen missed
 * with 2 hand-offs in 2000000 iterations on a loaded host, caught in every
 * run with 3 or more.  100 leaves no realistic chance of a miss.
 */
#define FL_MIN_HANDOFFS 100

static inline unsigned fl_owner_enter(struct fl_owner *o, uint32_t me,
				      uint64_t *handoffs)
{
	uint32_t prev = atomic_load_explicit(&o->last, memory_order_relaxed);
	unsigned seen = atomic_load_explicit(&o->owner, memory_order_relaxed) != 0;

	atomic_store_explicit(&o->owner, me, memory_order_relaxed);
	if (prev != me) {
		if (handoffs)
			*handoffs += prev != 0;
		atomic_store_explicit(&o->last, me, memory_order_relaxed);
	}
	return seen;
}

static inline unsigned fl_owner_leave(struct fl_owner *o, uint32_t me)
{
	unsigned seen = atomic_load_explicit(&o->owner, memory_order_relaxed) != me;

	atomic_store_explicit(&o->owner, 0, memory_order_relaxed);
	return seen;
}

/* Runs one benchmark. Returns 0, or -1 with res->error set. */
int fl_bench_run(const struct fl_bench_cfg *cfg, struct fl_bench_result *res);

/* Iterations thread idx runs when 'total' is split over 'threads':
 * total / threads each, the first (total % threads) threads one more. */
static inline uint64_t fl_split(uint64_t total, unsigned threads, unsigned idx)
{
	return total / threads + (idx < total % threads ? 1 : 0);
}

static inline double fl_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---- seed write-up benchmarks: lockbench, wakebench, queuebench --------- */
/* The spin locks of Skarupke (2019), lib/spinlocks.c; not in fl_lock_modes[]. */
extern const struct fl_lock_ops *const fl_spinlock_modes[];
extern const size_t fl_spinlock_nmodes;
/* TEST ONLY: a spin lock that does not exclude (FUTEXLOCK_TEST_BROKEN_LOCK=1) */
extern const struct fl_lock_ops fl_spinlock_test_broken;
/* fl_lock_find(), else a spin lock of fl_spinlock_modes[], else NULL */
const struct fl_lock_ops *fl_lock_find_any(const char *name);

/* lib/seedlib.c */
int fl_parse_sched(const char *s, enum fl_sched *out);	/* other|fifo|rr */
const char *fl_sched_name(enum fl_sched s);
unsigned fl_online_cpus(void);
/* pin the caller to the idx-th allowed CPU (round-robin), set the policy
 * (priority min + prio for fifo/rr); 0, else an errno and err[] */
int fl_thread_setup(unsigned idx, bool pin, enum fl_sched sched, int prio,
		    char *err, size_t errlen);
/*
 * The pause of a polling loop of the main thread: a 20 us sleep, never a
 * sched_yield(), which under SCHED_FIFO would not let a lower-priority
 * worker on the same CPU run (a livelock seen in the TCG guest).
 */
void fl_poll_pause(void);
/* state letter of one of our threads (/proc/self/task/TID/stat), -1 */
int fl_task_state(pid_t tid);
/* 0 once every tid sleeps (S or D), -1 after timeout_ns */
int fl_wait_asleep(const pid_t *tids, unsigned n, uint64_t timeout_ns);
/* "tool": ..., fl_json_provenance(seed), "meta": {cpu, ncpus, kernel,
 * futex_lock} (no braces) */
void fl_json_meta(FILE *f, const char *tool, uint64_t seed);
/* --json-file PATH: truncate it; between begin and end stdout appends to it */
int fl_json_file_open(const char *path);
void fl_json_begin(void);
void fl_json_end(void);

#endif /* FUTEXLOCK_H */
