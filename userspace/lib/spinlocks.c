// SPDX-License-Identifier: GPL-2.0
/*
 * The four spin locks of Skarupke, "Measuring Mutexes, Spinlocks and how
 * Bad the Linux Scheduler Really is" (2019), as struct fl_lock_ops so that
 * lockbench and queuebench drive them exactly like the futex locks of
 * lib/locks.c.  None of them ever sleeps in the kernel; sched_yield() is
 * counted as a lock syscall (as for the "spin" mode of locks.c).
 *
 *   terrible_spinlock  test-and-set (exchange) in a loop, no pause
 *   spinlock_amd       test-and-test-and-set + pause (AMD GDC 2019 advice)
 *   spinlock           exchange try_lock; 16 pauses, then sched_yield()
 *   ticket_spinlock    ticket lock; pause x16 then sched_yield(); unlock is
 *                      a plain release store of "now serving" + 1
 */
#include "futexlock.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

static int sl_init(struct fl_lock *l)
{
	atomic_store_explicit(&l->word, 0, memory_order_relaxed);
	return 0;
}

static void sl_destroy(struct fl_lock *l)
{
	(void)l;
}

static void sl_unlock(struct fl_lock *l, struct fl_counters *c)
{
	c->unlock_calls++;
	atomic_store_explicit(&l->word, 0, memory_order_release);
}

static void terrible_lock(struct fl_lock *l, struct fl_counters *c)
{
	c->lock_calls++;
	while (atomic_exchange_explicit(&l->word, 1, memory_order_acquire))
		;
}

static bool terrible_trylock(struct fl_lock *l, struct fl_counters *c)
{
	if (atomic_exchange_explicit(&l->word, 1, memory_order_acquire))
		return false;
	c->lock_calls++;
	return true;
}

static void amd_lock(struct fl_lock *l, struct fl_counters *c)
{
	c->lock_calls++;
	for (;;) {
		uint32_t was = atomic_load_explicit(&l->word, memory_order_relaxed);

		if (!was && atomic_compare_exchange_weak_explicit(&l->word, &was, 1,
				memory_order_acquire, memory_order_relaxed))
			return;
		fl_cpu_relax();
	}
}

#define SL_PAUSES 16	/* Skarupke: "I tried a lot of options, this did well" */

static inline bool sl_try(struct fl_lock *l)
{
	return !atomic_load_explicit(&l->word, memory_order_relaxed) &&
	       !atomic_exchange_explicit(&l->word, 1, memory_order_acquire);
}

static inline void sl_backoff(int *spins, struct fl_counters *c)
{
	if (++*spins < SL_PAUSES) {
		fl_cpu_relax();
	} else {
		c->lock_syscalls++;
		sched_yield();
		*spins = 0;
	}
}

/* amd and yield: one test-and-test-and-set */
static bool sl_trylock(struct fl_lock *l, struct fl_counters *c)
{
	if (!sl_try(l))
		return false;
	c->lock_calls++;
	return true;
}

static void yield_lock(struct fl_lock *l, struct fl_counters *c)
{
	int spins = 0;

	c->lock_calls++;
	while (!sl_try(l))
		sl_backoff(&spins, c);
}

/*
 * Ticket lock in the one 32-bit word: "next ticket" in the high half,
 * "now serving" in the low half (the layout of the kernel's x86 ticket
 * spinlock).  The unlock stores only the low half, a plain release store
 * as the write-up asks, never a read-modify-write.
 */
static inline _Atomic uint16_t *ticket_serving(struct fl_lock *l)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (_Atomic uint16_t *)&l->word;
#else
	return (_Atomic uint16_t *)&l->word + 1;
#endif
}

static void ticket_lock(struct fl_lock *l, struct fl_counters *c)
{
	uint16_t my = (uint16_t)(atomic_fetch_add_explicit(&l->word, 1u << 16,
					memory_order_relaxed) >> 16);
	int spins = 0;

	c->lock_calls++;
	while (atomic_load_explicit(ticket_serving(l), memory_order_acquire) != my)
		sl_backoff(&spins, c);
}

/* a ticket only when it would be served at once: next == serving */
static bool ticket_trylock(struct fl_lock *l, struct fl_counters *c)
{
	uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed);

	if ((w >> 16) != (w & 0xffff) ||
	    !atomic_compare_exchange_strong_explicit(&l->word, &w, w + (1u << 16),
			memory_order_acquire, memory_order_relaxed))
		return false;
	c->lock_calls++;
	return true;
}

static void ticket_unlock(struct fl_lock *l, struct fl_counters *c)
{
	_Atomic uint16_t *s = ticket_serving(l);

	c->unlock_calls++;
	atomic_store_explicit(s, (uint16_t)(atomic_load_explicit(s,
				memory_order_relaxed) + 1), memory_order_release);
}

/*
 * TEST ONLY: a test-and-set that ignores a failed set, i.e. a spin lock
 * with its loop forgotten.  Excludes sometimes, so exclusion checks must
 * count to notice.  Never in fl_spinlock_modes[].
 */
static void broken_lock(struct fl_lock *l, struct fl_counters *c)
{
	c->lock_calls++;
	(void)atomic_exchange_explicit(&l->word, 1, memory_order_acquire);
}

static bool broken_trylock(struct fl_lock *l, struct fl_counters *c)
{
	broken_lock(l, c);
	return true;
}

static const struct fl_lock_ops ops_terrible = {
	.name = "terrible_spinlock",
	.desc = "test-and-set loop, no pause (Skarupke's terrible_spinlock)",
	.counts_syscalls = true,
	.init = sl_init, .destroy = sl_destroy,
	.lock = terrible_lock, .trylock = terrible_trylock,
	.unlock = sl_unlock,
};

static const struct fl_lock_ops ops_amd = {
	.name = "spinlock_amd",
	.desc = "test-and-test-and-set + pause, never yields (AMD's advice)",
	.counts_syscalls = true,
	.init = sl_init, .destroy = sl_destroy,
	.lock = amd_lock, .trylock = sl_trylock, .unlock = sl_unlock,
};

static const struct fl_lock_ops ops_yield = {
	.name = "spinlock",
	.desc = "TTAS exchange, pause x16 then sched_yield() (Skarupke's spinlock)",
	.counts_syscalls = true,
	.init = sl_init, .destroy = sl_destroy,
	.lock = yield_lock, .trylock = sl_trylock, .unlock = sl_unlock,
};

static const struct fl_lock_ops ops_ticket = {
	.name = "ticket_spinlock",
	.desc = "ticket lock, pause x16 then sched_yield(), release-store unlock",
	.counts_syscalls = true,
	.init = sl_init, .destroy = sl_destroy,
	.lock = ticket_lock, .trylock = ticket_trylock,
	.unlock = ticket_unlock,
};

const struct fl_lock_ops fl_spinlock_test_broken = {
	.name = "test-broken-spinlock",
	.desc = "TEST ONLY: test-and-set without the loop (does not exclude)",
	.init = sl_init, .destroy = sl_destroy,
	.lock = broken_lock, .trylock = broken_trylock, .unlock = sl_unlock,
};

const struct fl_lock_ops *const fl_spinlock_modes[] = {
	&ops_terrible, &ops_amd, &ops_yield, &ops_ticket,
};
const size_t fl_spinlock_nmodes =
	sizeof(fl_spinlock_modes) / sizeof(fl_spinlock_modes[0]);

const struct fl_lock_ops *fl_lock_find_any(const char *name)
{
	const struct fl_lock_ops *o = fl_lock_find(name);

	if (o)
		return o;
	for (size_t i = 0; i < fl_spinlock_nmodes; i++)
		if (!strcmp(fl_spinlock_modes[i]->name, name))
			return fl_spinlock_modes[i];
	if (!strcmp(name, fl_spinlock_test_broken.name) &&
	    getenv("FUTEXLOCK_TEST_BROKEN_LOCK"))
		return &fl_spinlock_test_broken;
	return NULL;
}
