// SPDX-License-Identifier: GPL-2.0
/*
 * futex_fuzz - fuzz FUTEX_LOCK (14), FUTEX_LOCK_ADAPTIVE (15) and
 * FUTEX_UNLOCK (16) and check every return against the errno table of
 * Documentation/locking/futex-lock.rst (patches/0005-*.patch).
 *
 * Each call draws an op (14/15/16, unknown neighbours 17..63, op bits
 * above the flags), the flag bits (FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME),
 * an address (private word, MAP_SHARED memfd word, NULL, unaligned,
 * read-only, PROT_NONE, unmapped, kernel, a page that another thread keeps
 * unmapping/remapping/zapping, a word all fuzz threads share), a word
 * (0, own TID, a live thread of this process - sleeping or running -, a
 * live task of another process, init, a dead TID, kthreadd, garbage; any
 * of them with FUTEX_WAITERS / FUTEX_OWNER_DIED), a timeout (none, past,
 * short, huge, negative, invalid nsec, bad pointer, on either clock) and
 * the reserved arguments.  From the rst it computes the set of returns
 * the call may give (the union over every defect of the call, because
 * the rst gives no precedence) and fails on anything else, and checks the
 * word afterwards where the rst fixes it (a lock taken is TID only, an
 * unlock leaves 0, an already expired timeout returns ETIMEDOUT before
 * the word is touched).  A watchdog fails a call that does not return in
 * time (wakes it with a signal and goes on).  On the word all threads
 * share, a third of the calls are existing futex ops (WAIT, WAKE,
 * CMP_REQUEUE, LOCK_PI, UNLOCK_PI, TRYLOCK_PI, WAIT_BITSET, LOCK_PI2):
 * the mixed-op misuse matrix of the review's test 10.
 *
 * Exit: 0 pass, 1 fail, 2 usage, 4 skip (kernel without FUTEX_LOCK).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/futex.h>

#include "ft_common.h"

#define MAXTHREADS	32
#define NERR		160
#define OKBIT		0		/* success (0) */

/* a set of returns: one bit per errno of the rst (and a few more) */
static const int set_errnos[] = {
	0, EPERM, ESRCH, EINTR, EFAULT, EINVAL, EDEADLK, ENOSYS, ETIMEDOUT,
	EOWNERDEAD, ENOMEM, EAGAIN, EBUSY,
};
#define NSETERR	((int)(sizeof(set_errnos) / sizeof(set_errnos[0])))

static inline uint64_t B(int e)
{
	for (int i = 0; i < NSETERR; i++)
		if (set_errnos[i] == e)
			return 1ull << i;
	return 1ull << 63;	/* any other errno: never in a set */
}

enum addr_kind {
	A_PRIV, A_SHM, A_NULL, A_UNALIGNED, A_RO, A_NONE, A_UNMAPPED, A_KERNEL,
	A_VOLATILE, A_CHAOS, A_NR
};
static const char * const addr_name[A_NR] = {
	"private", "shared-memfd", "NULL", "unaligned", "read-only", "PROT_NONE",
	"unmapped", "kernel", "volatile", "chaos",
};

enum word_kind {
	W_ZERO, W_OWN, W_FOREIGN_SLEEP, W_FOREIGN_BUSY, W_OTHER_PROC, W_INIT,
	W_DEAD, W_KTHREAD, W_GARBAGE, W_NR
};
static const char * const word_name[W_NR] = {
	"0", "own", "live-thread(sleeping)", "live-thread(running)",
	"other-process", "init", "dead", "kthreadd", "garbage",
};

enum tmo_kind {
	T_NULL, T_PAST, T_EPOCH0, T_SHORT, T_HUGE, T_NEG_SEC, T_BAD_NSEC,
	T_NEG_NSEC, T_BADPTR, T_NR
};
static const char * const tmo_name[T_NR] = {
	"none", "past", "epoch0", "short", "huge", "negative-sec", "nsec>=1e9",
	"negative-nsec", "bad-pointer",
};

static struct {
	double duration;
	uint64_t calls, seed;
	int threads, hang_ms, verbose;
	uint64_t drop;		/* errnos removed from the table (selftest) */
} opt = { .duration = 10, .seed = 1, .threads = 4, .hang_ms = 30000 };

/* shared fixtures */
static long pagesz;
static char *ro_page, *none_page, *unmapped_page, *volatile_page, *chaos_page;
/* 16 TiB: far below the mmap area of x86-64 (47-bit) user space */
#define VOLATILE_ADDR	0x100000000000ul
static int memfd;
static pid_t tid_foreign_sleep, tid_foreign_busy, tid_other_proc, tid_dead;
static pid_t other_proc_pid, tid_main;
static _Atomic int stop;

/* statistics */
static _Atomic uint64_t n_calls, n_bad, n_hangs, n_word_bad;
static _Atomic uint64_t n_err[NERR];
static _Atomic uint64_t n_op[5];	/* lock, adaptive, unlock, unknown, misuse */
static _Atomic int n_reports;

struct call {
	int op, cmd;
	enum addr_kind ak;
	enum word_kind wk;
	enum tmo_kind tk;
	bool rt, priv;
	bool misuse;		/* an existing futex op on a FUTEX_LOCK word */
	uint32_t val, val3, word_in;
	void *uaddr2;
	uint32_t *uaddr;
	struct timespec ts;
	const void *tsp;
	uint64_t allowed;
	uint64_t deadline_mono;	/* 0: untimed */
};

struct tslot {
	pthread_t th;
	_Atomic pid_t tid;
	_Atomic uint64_t start;		/* 0 when not in a call */
	_Atomic uint64_t limit;		/* mono ns by which the call must return */
	_Atomic int rescued;
	struct call cur;
	int idx;
};
static struct tslot slots[MAXTHREADS];

/* report categories, each printed at most 12 times */
enum { R_UNDOC, R_WORD, R_WORD_EXPIRED, R_HANG, R_OTHER, R_NR };
static _Atomic int n_cat[R_NR];
static _Atomic uint64_t n_word_expired;

static void report(int cat, const char *fmt, ...)
{
	va_list ap;
	char buf[768];

	if (atomic_fetch_add(&n_cat[cat], 1) >= 12)
		return;
	atomic_fetch_add(&n_reports, 1);
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "# %s\n", buf);
}

static void describe(const struct call *c, char *buf, size_t len)
{
	snprintf(buf, len, "op %#x (cmd %d%s%s) addr %s %p word-in %s %#x timeout %s%s val %#x uaddr2 %p val3 %#x",
		 c->op, c->cmd, c->priv ? " PRIVATE" : "", c->rt ? " CLOCK_REALTIME" : "",
		 addr_name[c->ak], (void *)c->uaddr, word_name[c->wk], c->word_in,
		 tmo_name[c->tk], c->rt ? "(REALTIME)" : "", c->val, c->uaddr2, c->val3);
}

static void set_str(uint64_t set, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < NSETERR && off < len - 20; i++)
		if (set & (1ull << i))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "",
						ft_errname(set_errnos[i]));
}

static void on_sigusr1(int sig)
{
	(void)sig;
}

/* ------------------------------------------------------------------ */
/* helper tasks that provide TIDs */

static void *sleeper_main(void *arg)
{
	(void)arg;
	tid_foreign_sleep = ft_gettid();
	while (!atomic_load(&stop))
		pause();
	return NULL;
}

static void *busy_main(void *arg)
{
	(void)arg;
	tid_foreign_busy = ft_gettid();
	while (!atomic_load(&stop)) {
		uint64_t end = ft_mono_ns() + 1000000;

		while (ft_mono_ns() < end)
			__asm__ __volatile__("pause" ::: "memory");
		usleep(4000);
	}
	return NULL;
}

/*
 * Keeps the volatile page changing under the callers (review test 9).
 *
 * The page lives at VOLATILE_ADDR, far below where mmap(NULL) places
 * anything (top-down from below the stack), so the hole that munmap leaves
 * is never handed to another mapping: a thread stack or a fuzz thread's
 * word that landed there would be mprotect()ed and zapped by the cases
 * below, and the fuzzer would crash on its own memory.  Should the hole
 * still be taken, the mapper stops touching that address at all.
 */
static void *mapper_main(void *arg)
{
	uint64_t r = ft_seed_mix(opt.seed, 0xa11);

	(void)arg;
	while (!atomic_load(&stop)) {
		uint64_t x = ft_rand(&r);

		switch (x % 6) {
		case 0:	/* unmap and map again (another page) */
			if (munmap(volatile_page, (size_t)pagesz))
				break;
			usleep((useconds_t)((x >> 8) % 300));
			if (mmap(volatile_page, (size_t)pagesz, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
				 -1, 0) != volatile_page)
				return NULL;	/* somebody took the hole: hands off */
			break;
		case 1:
			mprotect(volatile_page, (size_t)pagesz, PROT_NONE);
			usleep((useconds_t)((x >> 8) % 300));
			mprotect(volatile_page, (size_t)pagesz, PROT_READ | PROT_WRITE);
			break;
		case 2:
			mprotect(volatile_page, (size_t)pagesz, PROT_READ);
			usleep((useconds_t)((x >> 8) % 300));
			mprotect(volatile_page, (size_t)pagesz, PROT_READ | PROT_WRITE);
			break;
		case 3:
			madvise(volatile_page, (size_t)pagesz, MADV_DONTNEED);
			break;
		default:	/* a live owner, so that lockers spin or sleep */
			__atomic_store_n((uint32_t *)volatile_page,
					 x & 1 ? tid_foreign_busy : tid_foreign_sleep,
					 __ATOMIC_SEQ_CST);
			break;
		}
		usleep((useconds_t)(100 + (x >> 20) % 1000));
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* the table: which returns does the rst allow for this call? */

static uint64_t lock_state_set(const struct call *c, uint32_t w, bool timed)
{
	uint32_t tid = w & FUTEX_TID_MASK;

	if (!tid)	/* free: taken, even with an expired timeout */
		return (w & FUTEX_OWNER_DIED) ? B(EOWNERDEAD) : B(OKBIT);
	switch (c->wk) {
	case W_OWN:
		return B(EDEADLK);
	case W_FOREIGN_SLEEP:
	case W_FOREIGN_BUSY:
		return B(ETIMEDOUT);	/* live owner: waits until the timeout */
	case W_OTHER_PROC:
	case W_INIT:
		/* "a thread of another process (private futex)" is no owner */
		return c->priv ? B(ESRCH) : B(ETIMEDOUT);
	case W_DEAD:
		/* a reused TID would be a live owner */
		return B(ESRCH) | (timed ? B(ETIMEDOUT) : 0);
	case W_KTHREAD:
		return B(ESRCH);
	case W_GARBAGE:
	default:
		return B(ESRCH) | (timed ? B(ETIMEDOUT) : 0);
	}
}

static void compute_allowed(struct call *c, uint32_t w, pid_t me)
{
	uint64_t early = 0, set;
	bool lock = c->cmd == FUTEX_LOCK || c->cmd == FUTEX_LOCK_ADAPTIVE;
	bool timed;

	if (c->misuse) {
		c->allowed = B(OKBIT) | B(EAGAIN) | B(ETIMEDOUT) | B(EINVAL) | B(EPERM) |
			     B(ESRCH) | B(EDEADLK) | B(EOWNERDEAD) | B(ENOMEM);
		c->allowed &= ~opt.drop;
		return;
	}
	if (!lock && c->cmd != FUTEX_UNLOCK) {
		/*
		 * Unknown op.  The rst's table says EINVAL ("unknown op"), futex(2)
		 * and its ENOSYS row say ENOSYS: both are documented (see
		 * abi-doc-review item 2).
		 */
		c->allowed = B(ENOSYS) | B(EINVAL);
		return;
	}
	if (c->val || c->uaddr2 || c->val3)
		early |= B(EINVAL);	/* reserved argument not 0 */
	if (lock) {
		switch (c->tk) {
		case T_NEG_SEC: case T_BAD_NSEC: case T_NEG_NSEC:
			early |= B(EINVAL);	/* invalid timespec */
			break;
		case T_BADPTR:
			early |= B(EFAULT);
			break;
		default:
			break;
		}
	} else {
		if (c->rt)	/* listed under EINVAL and under ENOSYS */
			early |= B(EINVAL) | B(ENOSYS);
		if (c->tsp)
			early |= B(EINVAL);	/* the timeout of FUTEX_UNLOCK is reserved */
	}
	switch (c->ak) {
	case A_NULL: case A_NONE: case A_UNMAPPED: case A_KERNEL:
		early |= B(EFAULT);
		break;
	case A_UNALIGNED:
		early |= B(EINVAL);
		break;
	default:
		break;
	}
	timed = c->tsp && c->tk != T_HUGE;
	if (c->ak == A_CHAOS || c->ak == A_VOLATILE) {
		/* the word changes under us: anything the op can return */
		set = lock ? B(OKBIT) | B(EOWNERDEAD) | B(EDEADLK) | B(ESRCH) | B(ETIMEDOUT)
			   : B(OKBIT) | B(EPERM);
		if (c->ak == A_VOLATILE)
			set |= B(EFAULT);
	} else if (lock) {
		set = lock_state_set(c, w, timed);
	} else {
		set = (w & FUTEX_TID_MASK) == (uint32_t)me ? B(OKBIT) : B(EPERM);
	}
	if (c->ak == A_RO) {
		/* "the word must be writable": no success; errors that need no write may come first */
		set &= ~(B(OKBIT) | B(EOWNERDEAD));
		set |= B(EFAULT);
	}
	c->allowed = early ? early | (c->ak == A_RO ? set : 0) : set;
	c->allowed &= ~opt.drop;
}

/* ------------------------------------------------------------------ */

static uint32_t pick_tid(enum word_kind wk, pid_t me, uint64_t r)
{
	switch (wk) {
	case W_ZERO: return 0;
	case W_OWN: return (uint32_t)me;
	case W_FOREIGN_SLEEP: return (uint32_t)tid_foreign_sleep;
	case W_FOREIGN_BUSY: return (uint32_t)tid_foreign_busy;
	case W_OTHER_PROC: return (uint32_t)tid_other_proc;
	case W_INIT: return 1;
	case W_DEAD: return (uint32_t)tid_dead;
	case W_KTHREAD: return 2;
	case W_GARBAGE:
	default: {
		uint32_t t = (uint32_t)(r & FUTEX_TID_MASK);

		/* keep clear of the tasks we know about */
		if (t <= 2 || t == (uint32_t)me || t == (uint32_t)tid_foreign_sleep ||
		    t == (uint32_t)tid_foreign_busy || t == (uint32_t)tid_other_proc)
			t = 0x3ffffff0u;
		return t;
	}
	}
}

/*
 * Review test 10, mixed-op misuse: existing futex ops on the words the
 * fuzz threads lock concurrently with FUTEX_LOCK[_ADAPTIVE]/UNLOCK.  The
 * rst says FUTEX_UNLOCK gives EINVAL with a PI waiter queued and nothing
 * about the rest, so the set is what futex(2) documents for these ops;
 * what matters is no hang, no splat and no undocumented errno.
 */
static void make_misuse(struct call *c, uint64_t r)
{
	static const int ops[] = {
		FUTEX_WAIT, FUTEX_WAKE, FUTEX_CMP_REQUEUE, FUTEX_LOCK_PI,
		FUTEX_UNLOCK_PI, FUTEX_TRYLOCK_PI, FUTEX_WAIT_BITSET, FUTEX_LOCK_PI2,
	};
	uint64_t now;

	c->misuse = true;
	c->cmd = ops[r % 8];
	c->op = c->cmd | (c->priv ? FUTEX_PRIVATE_FLAG : 0);
	c->val = c->val3 = 0;
	c->uaddr2 = NULL;
	c->tsp = NULL;
	c->tk = T_NULL;
	c->rt = false;
	switch (c->cmd) {
	case FUTEX_WAIT:	/* relative */
		c->val = __atomic_load_n(c->uaddr, __ATOMIC_SEQ_CST);
		c->ts = ft_ns_to_ts(1000000);
		c->tsp = &c->ts;
		c->tk = T_SHORT;
		c->deadline_mono = ft_mono_ns() + 1000000;
		break;
	case FUTEX_WAIT_BITSET:
	case FUTEX_LOCK_PI2:	/* absolute CLOCK_MONOTONIC */
		c->val = __atomic_load_n(c->uaddr, __ATOMIC_SEQ_CST);
		if (c->cmd == FUTEX_LOCK_PI2)
			c->val = 0;
		c->val3 = c->cmd == FUTEX_WAIT_BITSET ? ~0u : 0;
		now = ft_mono_ns();
		c->ts = ft_ns_to_ts(now + 1000000);
		c->tsp = &c->ts;
		c->tk = T_SHORT;
		c->deadline_mono = now + 1000000;
		break;
	case FUTEX_LOCK_PI:	/* absolute CLOCK_REALTIME */
		c->ts = ft_ns_to_ts(ft_now_ns(CLOCK_REALTIME) + 1000000);
		c->tsp = &c->ts;
		c->tk = T_SHORT;
		c->deadline_mono = ft_mono_ns() + 1000000;
		break;
	case FUTEX_WAKE:
		c->val = 1 + (uint32_t)((r >> 8) % 4);
		break;
	case FUTEX_CMP_REQUEUE:	/* wake 1, requeue 1 to the next chaos word */
		c->val = 1;
		c->tsp = (void *)1UL;
		c->uaddr2 = (uint32_t *)(chaos_page + 4 * ((((char *)c->uaddr - chaos_page) / 4 + 1) % 4));
		c->val3 = __atomic_load_n(c->uaddr, __ATOMIC_SEQ_CST);
		break;
	default:
		break;
	}
}

static void make_call(struct call *c, uint64_t *rs, uint32_t *priv_word,
		      uint32_t *shm_word, pid_t me)
{
	uint64_t r = ft_rand(rs), r2 = ft_rand(rs), r3 = ft_rand(rs);
	unsigned int k = r % 100;
	bool may_block;

	memset(c, 0, sizeof(*c));
	/* op */
	if (k < 40)
		c->cmd = FUTEX_LOCK;
	else if (k < 75)
		c->cmd = FUTEX_LOCK_ADAPTIVE;
	else if (k < 93)
		c->cmd = FUTEX_UNLOCK;
	else
		c->cmd = 17 + (int)((r >> 8) % 47);	/* unknown neighbours */
	c->priv = (r >> 16) & 1;
	c->rt = (r >> 17) % 4 == 0;
	c->op = c->cmd | (c->priv ? FUTEX_PRIVATE_FLAG : 0) | (c->rt ? FUTEX_CLOCK_REALTIME : 0);
	if ((r >> 18) % 50 == 0) {	/* an op bit above the flags: unknown op */
		c->op |= 1 << (9 + (r >> 24) % 22);
		c->cmd = c->op & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	}

	/* address: the word kind decides the content */
	k = (r2 >> 0) % 100;
	c->ak = k < 35 ? A_PRIV : k < 60 ? A_SHM : k < 63 ? A_NULL : k < 67 ? A_UNALIGNED :
		k < 72 ? A_RO : k < 75 ? A_NONE : k < 78 ? A_UNMAPPED : k < 80 ? A_KERNEL :
		k < 90 ? A_VOLATILE : A_CHAOS;
	if (c->ak == A_SHM)
		c->priv = false, c->op &= ~FUTEX_PRIVATE_FLAG;

	k = (r2 >> 8) % 100;
	c->wk = k < 25 ? W_ZERO : k < 35 ? W_OWN : k < 47 ? W_FOREIGN_SLEEP :
		k < 57 ? W_FOREIGN_BUSY : k < 67 ? W_OTHER_PROC : k < 72 ? W_INIT :
		k < 82 ? W_DEAD : k < 87 ? W_KTHREAD : W_GARBAGE;
	c->word_in = pick_tid(c->wk, me, r3);
	if ((r2 >> 16) % 4 == 0)
		c->word_in |= FUTEX_WAITERS;
	if ((r2 >> 18) % 4 == 0)
		c->word_in |= FUTEX_OWNER_DIED;

	switch (c->ak) {
	case A_PRIV: c->uaddr = priv_word; break;
	case A_SHM: c->uaddr = shm_word; break;
	case A_NULL: c->uaddr = NULL; break;
	case A_UNALIGNED: c->uaddr = (uint32_t *)((char *)priv_word + 1 + (r2 >> 20) % 3); break;
	case A_RO: c->uaddr = (uint32_t *)(ro_page + 4 * ((r2 >> 22) % 8)); break;
	case A_NONE: c->uaddr = (uint32_t *)none_page; break;
	case A_UNMAPPED: c->uaddr = (uint32_t *)unmapped_page; break;
	case A_KERNEL:	/* kernel text, or just above the user address space */
		c->uaddr = (r2 >> 20) & 1 ? (uint32_t *)0xffffffff81000000ul :
					    (uint32_t *)0x800000000000ul;
		break;
	case A_VOLATILE: c->uaddr = (uint32_t *)volatile_page; break;
	case A_CHAOS: c->uaddr = (uint32_t *)(chaos_page + 4 * ((r2 >> 22) % 4)); break;
	default: break;
	}

	/* reserved arguments */
	if ((r3 >> 32) % 16 == 0)
		c->val = (uint32_t)(r3 >> 40) | 1;
	if ((r3 >> 36) % 16 == 0)
		c->uaddr2 = (r3 >> 44) & 1 ? (void *)priv_word : (void *)0x1000;
	if ((r3 >> 40) % 16 == 0)
		c->val3 = (uint32_t)(r3 >> 8) | 1;

	/* timeout; no unbounded wait where a live owner may hold the word */
	may_block = c->ak == A_VOLATILE || c->ak == A_CHAOS ||
		    c->wk == W_FOREIGN_SLEEP || c->wk == W_FOREIGN_BUSY ||
		    c->wk == W_GARBAGE || c->wk == W_DEAD ||
		    (!c->priv && (c->wk == W_OTHER_PROC || c->wk == W_INIT));
	k = (r3 >> 48) % 100;
	if (c->cmd == FUTEX_UNLOCK)
		c->tk = k < 90 ? T_NULL : T_SHORT;	/* non-NULL is a reserved-arg error */
	else
		c->tk = k < 15 ? T_NULL : k < 30 ? T_PAST : k < 35 ? T_EPOCH0 : k < 75 ? T_SHORT :
			k < 80 ? T_HUGE : k < 85 ? T_NEG_SEC : k < 90 ? T_BAD_NSEC :
			k < 95 ? T_NEG_NSEC : T_BADPTR;
	if (may_block && (c->tk == T_NULL || c->tk == T_HUGE) &&
	    !c->val && !c->uaddr2 && !c->val3 && c->ak != A_UNALIGNED)
		c->tk = T_SHORT;
	{
		clockid_t clk = c->rt ? CLOCK_REALTIME : CLOCK_MONOTONIC;
		uint64_t now = ft_now_ns(clk);
		uint64_t dur = (r3 >> 56) % 4 * 1000000ull + 200000;

		switch (c->tk) {
		case T_NULL: c->tsp = NULL; break;
		case T_PAST: c->ts = ft_ns_to_ts(now - 1000000 - (r3 & 0xfffff)); c->tsp = &c->ts; break;
		case T_EPOCH0: c->ts.tv_sec = 0; c->ts.tv_nsec = 0; c->tsp = &c->ts; break;
		case T_SHORT:
			c->ts = ft_ns_to_ts(now + dur);
			c->tsp = &c->ts;
			c->deadline_mono = ft_mono_ns() + dur;
			break;
		case T_HUGE: c->ts.tv_sec = INT64_MAX / 2; c->ts.tv_nsec = 0; c->tsp = &c->ts; break;
		case T_NEG_SEC: c->ts.tv_sec = -1 - (time_t)(r3 & 0xffff); c->ts.tv_nsec = 0; c->tsp = &c->ts; break;
		case T_BAD_NSEC: c->ts.tv_sec = 1; c->ts.tv_nsec = 1000000000 + (long)(r3 & 0xffff); c->tsp = &c->ts; break;
		case T_NEG_NSEC: c->ts.tv_sec = 1; c->ts.tv_nsec = -1; c->tsp = &c->ts; break;
		case T_BADPTR: c->tsp = (void *)unmapped_page; break;
		default: break;
		}
	}
	if (c->ak == A_CHAOS && (r3 >> 60) % 3 == 0)
		make_misuse(c, r3);
}

static bool word_readable(enum addr_kind ak)
{
	return ak == A_PRIV || ak == A_SHM || ak == A_RO;
}

static void fuzz_one(struct tslot *ts, uint64_t *rs, uint32_t *priv_word, uint32_t *shm_word,
		     pid_t me)
{
	struct call *c = &ts->cur;
	uint32_t w_before = 0, w_after;
	long ret;
	int e;

	make_call(c, rs, priv_word, shm_word, me);
	/* set the word */
	switch (c->ak) {
	case A_PRIV: case A_SHM: case A_UNALIGNED:
		__atomic_store_n(c->ak == A_SHM ? shm_word : priv_word, c->word_in, __ATOMIC_SEQ_CST);
		w_before = c->word_in;
		break;
	case A_RO:
		/* the read-only page is shared by the threads; its words are fixed */
		w_before = __atomic_load_n(c->uaddr, __ATOMIC_SEQ_CST);
		c->word_in = w_before;
		if ((w_before & FUTEX_TID_MASK) == (uint32_t)me)
			c->wk = W_OWN;
		else if ((w_before & FUTEX_TID_MASK) == (uint32_t)tid_main)
			c->wk = W_FOREIGN_SLEEP;
		else if (!(w_before & FUTEX_TID_MASK))
			c->wk = W_ZERO;
		else
			c->wk = W_DEAD;
		break;
	case A_CHAOS:
		if (ft_rand(rs) % 3 == 0)
			__atomic_store_n(c->uaddr, c->word_in, __ATOMIC_SEQ_CST);
		break;
	default:
		break;
	}
	compute_allowed(c, w_before, me);

	atomic_store(&ts->rescued, 0);
	atomic_store(&ts->limit, (c->deadline_mono ? c->deadline_mono : ft_mono_ns()) +
		     (uint64_t)opt.hang_ms * 1000000);
	atomic_store(&ts->start, ft_mono_ns());
	ret = ft_futex(c->uaddr, c->op, c->val, c->tsp, c->uaddr2, c->val3);
	atomic_store(&ts->start, 0);

	e = ret < 0 ? (int)-ret : 0;
	if (ret > 0 && !(c->misuse && (c->cmd == FUTEX_WAKE || c->cmd == FUTEX_CMP_REQUEUE)))
		e = NERR - 1;	/* a positive return is not documented either */
	atomic_fetch_add(&n_calls, 1);
	atomic_fetch_add(&n_err[e < NERR ? e : NERR - 1], 1);
	atomic_fetch_add(&n_op[c->cmd == FUTEX_LOCK ? 0 : c->cmd == FUTEX_LOCK_ADAPTIVE ? 1 :
			      c->cmd == FUTEX_UNLOCK ? 2 : c->misuse ? 4 : 3], 1);
	if (atomic_load(&ts->rescued))
		c->allowed |= B(EINTR);		/* we interrupted it: counted as a hang */
	if (!(c->allowed & B(e))) {
		char d[400], a[200];

		describe(c, d, sizeof(d));
		set_str(c->allowed, a, sizeof(a));
		atomic_fetch_add(&n_bad, 1);
		report(R_UNDOC, "UNDOCUMENTED: %s -> %s (ret %ld), allowed {%s}", d, ft_errname(e), ret, a);
	}

	/* the word afterwards, where the rst fixes it */
	if (!word_readable(c->ak))
		goto release;
	w_after = __atomic_load_n(c->uaddr, __ATOMIC_SEQ_CST);
	if (c->ak == A_RO) {
		if (w_after != w_before) {
			atomic_fetch_add(&n_word_bad, 1);
			report(R_WORD, "WORD: read-only word changed %#x -> %#x", w_before, w_after);
		}
		return;
	}
	if ((e == 0 || e == EOWNERDEAD) && (c->cmd == FUTEX_LOCK || c->cmd == FUTEX_LOCK_ADAPTIVE)) {
		/* taken with nobody queued: the word is our TID, nothing else */
		if (w_after != (uint32_t)me) {
			char d[400];

			describe(c, d, sizeof(d));
			atomic_fetch_add(&n_word_bad, 1);
			report(R_WORD, "WORD: %s -> %s but word %#x (expected TID %#x)", d, ft_errname(e),
			       w_after, me);
		}
	} else if (e == 0 && c->cmd == FUTEX_UNLOCK) {
		if (w_after != 0) {
			atomic_fetch_add(&n_word_bad, 1);
			report(R_WORD, "WORD: FUTEX_UNLOCK -> 0 but word %#x (expected 0)", w_after);
		}
	} else if (e == ETIMEDOUT && (c->tk == T_PAST || c->tk == T_EPOCH0) &&
		   w_after != w_before) {
		/*
		 * rst: "the timeout expired: -ETIMEDOUT" comes before "otherwise
		 * set FUTEX_WAITERS": an expired timeout must not touch the word
		 * (the review's F8).
		 */
		char d[400];

		describe(c, d, sizeof(d));
		atomic_fetch_add(&n_word_bad, 1);
		atomic_fetch_add(&n_word_expired, 1);
		report(R_WORD_EXPIRED, "WORD: %s -> ETIMEDOUT with an expired timeout changed the word %#x -> %#x (review F8)",
		       d, w_before, w_after);
	}
	return;
release:
	/* a lock taken on the shared words: give it back */
	if (c->misuse) {
		uint32_t exp = (uint32_t)me;

		/* a PI lock taken: give it back (the word may have been overwritten) */
		if ((e == 0 || e == EOWNERDEAD) && (c->cmd == FUTEX_LOCK_PI ||
		    c->cmd == FUTEX_TRYLOCK_PI || c->cmd == FUTEX_LOCK_PI2) &&
		    !__atomic_compare_exchange_n(c->uaddr, &exp, 0, false, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			ft_futex(c->uaddr, FUTEX_UNLOCK_PI | (c->priv ? FUTEX_PRIVATE_FLAG : 0),
				 0, NULL, NULL, 0);
		return;
	}
	if ((e == 0 || e == EOWNERDEAD) && c->cmd != FUTEX_UNLOCK &&
	    (c->ak == A_CHAOS || c->ak == A_VOLATILE)) {
		uint32_t exp = (uint32_t)me;

		if (c->ak == A_CHAOS &&
		    !__atomic_compare_exchange_n(c->uaddr, &exp, 0, false, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			ft_futex(c->uaddr, FUTEX_UNLOCK | (c->priv ? FUTEX_PRIVATE_FLAG : 0),
				 0, NULL, NULL, 0);
	}
}

static void *fuzz_main(void *arg)
{
	struct tslot *ts = arg;
	uint64_t rs = ft_seed_mix(opt.seed, (uint64_t)ts->idx);
	pid_t me = ft_gettid();
	uint32_t *priv_word, *shm_word;
	uint64_t end = ft_mono_ns() + (uint64_t)(opt.duration * 1e9);

	atomic_store(&ts->tid, me);
	priv_word = mmap(NULL, (size_t)pagesz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	shm_word = mmap(NULL, (size_t)pagesz, PROT_READ | PROT_WRITE, MAP_SHARED, memfd,
			(off_t)(pagesz * (1 + ts->idx)));
	if (priv_word == MAP_FAILED || shm_word == MAP_FAILED) {
		perror("mmap");
		atomic_fetch_add(&n_bad, 1);
		return NULL;
	}
	while (!atomic_load(&stop) && ft_mono_ns() < end) {
		if (opt.calls && atomic_load(&n_calls) >= opt.calls)
			break;
		fuzz_one(ts, &rs, priv_word, shm_word, me);
	}
	return NULL;
}

/* per-call watchdog: a call that does not return in time is a hang */
static void *watchdog_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		uint64_t now = ft_mono_ns();

		for (int i = 0; i < opt.threads; i++) {
			struct tslot *ts = &slots[i];
			uint64_t st = atomic_load(&ts->start);

			if (!st || now <= atomic_load(&ts->limit) || atomic_load(&ts->rescued) ||
			    atomic_load(&ts->start) != st)
				continue;
			{
				char d[400];

				describe(&ts->cur, d, sizeof(d));
				report(R_HANG, "HANG: %s has not returned after %" PRIu64 " ms; interrupting it",
				       d, (now - st) / 1000000);
			}
			atomic_fetch_add(&n_hangs, 1);
			atomic_store(&ts->rescued, 1);
			syscall(SYS_tgkill, getpid(), atomic_load(&ts->tid), SIGUSR1);
		}
		usleep(50000);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: futex_fuzz [options]\n"
		"  --duration S      run time in seconds (default 10)\n"
		"  --calls N         stop after N calls (default: no limit)\n"
		"  --threads N       fuzzing threads (default 4, max %d)\n"
		"  --seed N          random seed (default 1); each thread's sequence is\n"
		"                    reproducible, their interleaving is not\n"
		"  --hang-ms MS      a call later than its timeout + MS is a hang (default 30000)\n"
		"  --drop-errno NAME remove NAME (e.g. EDEADLK) from the table: checks the\n"
		"                    checker, must FAIL (repeatable)\n"
		"  --verbose\n"
		"  --help\n"
		"exit: 0 pass, 1 fail, 2 usage, 4 skip (no FUTEX_LOCK)\n", MAXTHREADS);
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "calls", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "hang-ms", required_argument, NULL, 'H' },
		{ "drop-errno", required_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char *end;
	long v;
	int c, e;

	while ((c = getopt_long(argc, argv, "d:c:t:s:H:D:vh", lo, NULL)) != -1) {
		errno = 0;
		switch (c) {
		case 'd':
			opt.duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(opt.duration > 0) ||
			    opt.duration > 86400)
				goto bad;
			break;
		case 'c':
			opt.calls = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || !opt.calls || optarg[0] == '-')
				goto bad;
			break;
		case 't':
			v = strtol(optarg, &end, 0);
			if (errno || end == optarg || *end || v < 1 || v > MAXTHREADS)
				goto bad;
			opt.threads = (int)v;
			break;
		case 's':
			opt.seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end)
				goto bad;
			break;
		case 'H':
			v = strtol(optarg, &end, 0);
			if (errno || end == optarg || *end || v < 10 || v > 600000)
				goto bad;
			opt.hang_ms = (int)v;
			break;
		case 'D':
			e = ft_errno_by_name(optarg);
			if (e <= 0 || B(e) == 1ull << 63)
				goto bad;
			opt.drop |= B(e);
			break;
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

static char *map_page(int prot)
{
	char *p = mmap(NULL, (size_t)pagesz, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(FT_EXIT_FAIL);
	}
	return p;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 };	/* no SA_RESTART */
	pthread_t sleeper, busy, mapper, wd;
	uint64_t t0 = ft_mono_ns(), t1;
	int probe, rc = FT_EXIT_PASS, st;
	char errs[1024];
	size_t off = 0;
	pid_t pid;

	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	probe = ft_probe();
	if (probe == 0) {
		printf("1..0 # SKIP futex_fuzz: kernel without FUTEX_LOCK (FUTEX_UNLOCK probe -> ENOSYS)\n");
		return FT_EXIT_SKIP;
	}
	if (probe < 0) {
		printf("# futex_fuzz: FUTEX_UNLOCK probe -> %s (expected EPERM or ENOSYS)\n",
		       ft_errname(-probe));
		return FT_EXIT_FAIL;
	}
	sigaction(SIGUSR1, &sa, NULL);
	pagesz = sysconf(_SC_PAGESIZE);

	/* TIDs: a dead one (a reaped child), a live one in another process */
	tid_main = getpid();
	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, &st, 0);
	tid_dead = pid;
	other_proc_pid = fork();
	if (other_proc_pid == 0) {
		/* it holds our stdout: it must not outlive a crashed fuzzer */
		ft_die_with_parent(tid_main);
		for (;;)
			pause();
	}
	tid_other_proc = other_proc_pid;

	/* fixtures */
	ro_page = map_page(PROT_READ | PROT_WRITE);
	((uint32_t *)ro_page)[1] = (uint32_t)tid_main;	/* main thread: a live owner */
	((uint32_t *)ro_page)[2] = FUTEX_OWNER_DIED;
	((uint32_t *)ro_page)[3] = FUTEX_WAITERS | (uint32_t)tid_dead;
	((uint32_t *)ro_page)[4] = 2;
	mprotect(ro_page, (size_t)pagesz, PROT_READ);
	none_page = map_page(PROT_NONE);
	/*
	 * Unmapped: below mmap_min_addr, where nothing of ours is ever mapped
	 * (a hole left by munmap gets reused by the next mmap).
	 */
	unmapped_page = (char *)0x2000;
	volatile_page = mmap((void *)VOLATILE_ADDR, (size_t)pagesz, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (volatile_page != (char *)VOLATILE_ADDR) {
		perror("mmap volatile page");
		return FT_EXIT_FAIL;
	}
	chaos_page = map_page(PROT_READ | PROT_WRITE);
	memfd = memfd_create("futex_fuzz", 0);
	if (memfd < 0 || ftruncate(memfd, pagesz * (MAXTHREADS + 1))) {
		perror("memfd");
		return FT_EXIT_FAIL;
	}

	pthread_create(&sleeper, NULL, sleeper_main, NULL);
	pthread_create(&busy, NULL, busy_main, NULL);
	while (!__atomic_load_n(&tid_foreign_sleep, __ATOMIC_SEQ_CST) ||
	       !__atomic_load_n(&tid_foreign_busy, __ATOMIC_SEQ_CST))
		usleep(1000);
	pthread_create(&mapper, NULL, mapper_main, NULL);
	pthread_create(&wd, NULL, watchdog_main, NULL);

	printf("# futex_fuzz: seed %" PRIu64 ", %d threads, duration %.1f s%s, calls %" PRIu64
	       ", hang bound %d ms%s\n", opt.seed, opt.threads, opt.duration, "",
	       opt.calls, opt.hang_ms, opt.drop ? ", SELFTEST: errnos dropped from the table" : "");
	for (int i = 0; i < opt.threads; i++) {
		slots[i].idx = i;
		pthread_create(&slots[i].th, NULL, fuzz_main, &slots[i]);
	}
	for (int i = 0; i < opt.threads; i++) {
		/* bounded: a thread stuck in the kernel despite the signal is a hang */
		struct timespec dl;

		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += (time_t)opt.duration + 30 + opt.hang_ms / 1000;
		if (pthread_timedjoin_np(slots[i].th, NULL, &dl)) {
			report(R_HANG, "HANG: fuzz thread %d did not finish", i);
			atomic_fetch_add(&n_hangs, 1);
			rc = FT_EXIT_FAIL;
		}
	}
	t1 = ft_mono_ns();
	atomic_store(&stop, 1);
	kill(other_proc_pid, SIGKILL);
	waitpid(other_proc_pid, &st, 0);

	for (int e = 0; e < NERR; e++) {
		uint64_t n = atomic_load(&n_err[e]);

		if (n && off < sizeof(errs) - 40)
			off += (size_t)snprintf(errs + off, sizeof(errs) - off, "%s%s=%" PRIu64,
						off ? "," : "", e == NERR - 1 ? "other" : ft_errname(e), n);
	}
	if (atomic_load(&n_bad) || atomic_load(&n_hangs) || atomic_load(&n_word_bad))
		rc = FT_EXIT_FAIL;
	printf("futex_fuzz: calls: %" PRIu64 " (lock %" PRIu64 " adaptive %" PRIu64 " unlock %" PRIu64
	       " unknown-op %" PRIu64 " misuse %" PRIu64 ") calls/s: %.0f undocumented: %" PRIu64 " word-errors: %" PRIu64
	       " (expired-timeout-changed-word %" PRIu64 ") hangs: %" PRIu64 " returns: %s seed: %" PRIu64
	       " [%s]\n",
	       atomic_load(&n_calls), atomic_load(&n_op[0]), atomic_load(&n_op[1]),
	       atomic_load(&n_op[2]), atomic_load(&n_op[3]), atomic_load(&n_op[4]),
	       (double)atomic_load(&n_calls) / ((double)(t1 - t0) / 1e9),
	       atomic_load(&n_bad), atomic_load(&n_word_bad), atomic_load(&n_word_expired),
	       atomic_load(&n_hangs), errs,
	       opt.seed, rc ? "FAIL" : "PASS");
	_exit(rc);	/* do not wait for the helper threads */
}
