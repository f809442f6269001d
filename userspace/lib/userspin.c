// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space spin of the TID-owner locks: how long, and the switch.
 *
 * FUTEX_LOCK_ADAPTIVE spins in the kernel, where the owner's state is
 * known, but a waiter pays a system call to get there.  With two threads
 * that take turns (each holds the lock about as long as it works outside
 * it), nearly every lock finds the other thread about to release: v9's
 * matrix measured 960-970 FUTEX_LOCK_ADAPTIVE calls per 1000 locks there,
 * none of them sleeping, and glibc's adaptive mutex, which spins in user
 * space first, 1.08x as fast (pooled over three boots; QEMU TCG, 2 vCPUs).
 *
 * So the adaptive lock spins in user space first (fl_user_spin() in
 * futexlock.h), for at most as many reads as one uncontended kernel
 * acquisition costs: a spin that fails then adds about that round trip
 * to a lock that goes to the kernel anyway (about: the bound is a count of
 * reads, calibrated by medians), and one that succeeds saves it.  User space cannot see whether the owner runs; the kernel can, so
 * the long spin stays there.  The round trip is measured, not assumed:
 * once per process, the median of taking a free lock through the kernel
 * (FUTEX_LOCK_ADAPTIVE on a word that holds 0, which returns owning it,
 * then the user-space release) against the median of one spin iteration
 * (fl_user_spin() on a word that stays held), both over short batches so
 * that a preempted batch moves one sample only.
 *
 * What this does not capture: the limit is a count of reads calibrated
 * on a private cache line.  On hardware a read of a line that another
 * CPU is writing misses, so the time spun can exceed the round trip by
 * the misses; a time bound (fl_cycles()) would be the fix, not needed
 * under TCG where it was measured.  The word is private even for a
 * shared (-S) lock, whose kernel path costs a little more.
 *
 * The calibration's FUTEX_LOCK_ADAPTIVE calls are counted by the kernel's
 * debugfs like any (cal.calls).  On a kernel without the op the round
 * trip measured is that of its ENOSYS; the locks do not run there.
 */
#include "futexlock.h"

#include <sys/syscall.h>

#define CAL_SAMPLES	31	/* batches of each; the medians are kept */
#define CAL_SYSCALLS	8	/* kernel acquisitions per batch */
#define CAL_SPINS	64	/* spin iterations per batch */
_Static_assert(CAL_SAMPLES * CAL_SYSCALLS == FL_USER_SPIN_CAL_CALLS, "header");

static struct fl_user_spin_cal cal;
static pthread_once_t cal_once = PTHREAD_ONCE_INIT;
_Atomic int fl_user_spin_knob = -1;	/* -1: each lock's default */
static _Atomic uint32_t cal_limit;	/* cal.limit once calibrated, else 0 */

static void calibrate(void)
{
	/* a word held by a TID that is never ours: every iteration spins */
	_Atomic uint32_t free_word = 0, held = FUTEX_TID_MASK;
	const uint32_t tid = (uint32_t)syscall(SYS_gettid);
	double sys[CAL_SAMPLES], it[CAL_SAMPLES];
	uint32_t q;

	for (int s = 0; s < CAL_SAMPLES; s++) {
		uint32_t budget = CAL_SPINS;
		uint64_t t0 = fl_now_ns();

		for (int i = 0; i < CAL_SYSCALLS; i++) {
			uint32_t mine = tid;

			if (fl_futex(&free_word, FUTEX_LOCK_ADAPTIVE | FUTEX_PRIVATE_FLAG,
				     0, NULL, NULL, 0) == 0)
				atomic_compare_exchange_strong_explicit(&free_word, &mine, 0,
					memory_order_release, memory_order_relaxed);
		}
		sys[s] = (double)(fl_now_ns() - t0) / CAL_SYSCALLS;
		t0 = fl_now_ns();
		(void)fl_user_spin(&held, tid, &budget);
		it[s] = (double)(fl_now_ns() - t0) / CAL_SPINS;
	}
	cal.calls = CAL_SAMPLES * CAL_SYSCALLS;
	cal.syscall_ns = fl_median_sort(sys, CAL_SAMPLES);
	cal.iter_ns = fl_median_sort(it, CAL_SAMPLES);
	/* a clock too coarse to time an iteration: the smallest spin that
	 * can take the lock (two reads) */
	if (!(cal.iter_ns > 0) || !(cal.syscall_ns > 0))
		cal.limit = 2;
	else if (cal.syscall_ns >= cal.iter_ns * FL_USER_SPIN_MAX)
		cal.limit = FL_USER_SPIN_MAX;
	else {	/* the quotient rounded up, at least 2 */
		q = (uint32_t)(cal.syscall_ns / cal.iter_ns);
		cal.limit = q + (q * cal.iter_ns < cal.syscall_ns);
		if (cal.limit < 2)
			cal.limit = 2;
	}
	atomic_store_explicit(&cal_limit, cal.limit, memory_order_release);
}

const struct fl_user_spin_cal *fl_user_spin_calibrate(void)
{
	pthread_once(&cal_once, calibrate);
	return &cal;
}

uint32_t fl_user_spin_limit(bool dflt)
{
	int k = atomic_load_explicit(&fl_user_spin_knob, memory_order_relaxed);
	uint32_t l;

	if (!(k < 0 ? dflt : k))
		return 0;
	l = atomic_load_explicit(&cal_limit, memory_order_acquire);
	return l ? l : fl_user_spin_calibrate()->limit;
}

/*
 * The three user-spin knobs are tri-state: -1 is the default (user_spin
 * on for the adaptive lock only, user_spin_woken on, user_spin_backoff
 * off), 0 and 1 force the lever off or on.
 */
static void knob_store(_Atomic int *k, int on)
{
	atomic_store_explicit(k, on < 0 ? -1 : !!on, memory_order_relaxed);
}

static int knob_load(_Atomic int *k)
{
	return atomic_load_explicit(k, memory_order_relaxed);
}

static _Atomic int woken_knob = -1;	/* -1: honour the mark (default) */
static _Atomic int backoff_knob = -1;	/* -1: off (the default here) */

void fl_user_spin_set(int on)
{
	knob_store(&fl_user_spin_knob, on);
}

int fl_user_spin_get(void)
{
	return knob_load(&fl_user_spin_knob);
}

void fl_user_spin_woken_set(int on)
{
	knob_store(&woken_knob, on);
}

int fl_user_spin_woken_get(void)
{
	return knob_load(&woken_knob);
}

bool fl_user_spin_woken(void)
{
	return knob_load(&woken_knob) != 0;
}

void fl_user_spin_backoff_set(int on)
{
	knob_store(&backoff_knob, on);
}

int fl_user_spin_backoff_get(void)
{
	return knob_load(&backoff_knob);
}

bool fl_user_spin_backoff(void)
{
	return knob_load(&backoff_knob) > 0;
}
