// SPDX-License-Identifier: GPL-2.0
/*
 * The adaptive lock's user-space spin: how long, and the switch.
 *
 * FUTEX_LOCK_ADAPTIVE spins in the kernel, where the owner's state is
 * known, but a waiter pays a system call to get there.  With two threads
 * that take turns (each holds the lock about as long as it works outside
 * it), nearly every lock finds the other thread about to release: v9's
 * matrix measured 960-970 FUTEX_LOCK_ADAPTIVE calls per 1000 locks there,
 * none of them sleeping, and glibc's adaptive mutex, which spins in user
 * space first, 1.08x as fast (QEMU TCG, 2 vCPUs).
 *
 * So the lock spins in user space first (fl_user_spin() in futexlock.h),
 * but no longer than the system call it may save costs: the ski-rental
 * rule of the kernel's own budget, one level down.  A spin that fails has
 * then at most doubled what entering the kernel at once would have cost;
 * user space cannot see whether the owner runs, the kernel can, so the
 * long spin stays there.  The cost is measured, not assumed: once per
 * process, the median of taking a free lock through the kernel
 * (FUTEX_LOCK_ADAPTIVE on a word that holds 0, which returns owning it,
 * and the user-space release: what a spin that succeeds saves when the
 * kernel would not have slept either) against the median of one spin
 * iteration (fl_user_spin() on a word that stays held), both over short
 * batches so that a preempted batch moves one sample only.  Those
 * FUTEX_LOCK_ADAPTIVE calls are counted by the kernel's debugfs like any
 * (cal.calls says how many).  On a kernel without the op the round trip
 * measured is that of its ENOSYS; the adaptive lock does not run there.
 */
#include "futexlock.h"

#include <math.h>
#include <sys/syscall.h>

#define CAL_SAMPLES	31	/* batches of each; the medians are kept */
#define CAL_SYSCALLS	8	/* system calls per batch */
#define CAL_SPINS	64	/* spin iterations per batch */

static struct fl_user_spin_cal cal;
static pthread_once_t cal_once = PTHREAD_ONCE_INIT;
static _Atomic bool spin_on = true;

static void calibrate(void)
{
	/* a word held by a TID that is never ours: every iteration spins */
	_Atomic uint32_t free_word = 0, held = FUTEX_TID_MASK;
	const uint32_t tid = (uint32_t)syscall(SYS_gettid);
	double sys[CAL_SAMPLES], it[CAL_SAMPLES], q;

	for (int s = 0; s < CAL_SAMPLES; s++) {
		uint32_t budget = CAL_SPINS;
		uint64_t t0 = fl_now_ns();

		for (int i = 0; i < CAL_SYSCALLS; i++) {
			uint32_t mine = tid;

			cal.calls++;
			if (fl_futex(&free_word, FUTEX_LOCK_ADAPTIVE | FUTEX_PRIVATE_FLAG,
				     0, NULL, NULL, 0) == 0)
				atomic_compare_exchange_strong_explicit(&free_word, &mine, 0,
					memory_order_release, memory_order_relaxed);
		}
		sys[s] = (double)(fl_now_ns() - t0) / CAL_SYSCALLS;
		t0 = fl_now_ns();
		(void)fl_user_spin(&held, 0, &budget);
		it[s] = (double)(fl_now_ns() - t0) / CAL_SPINS;
	}
	cal.syscall_ns = fl_median(sys, CAL_SAMPLES);
	cal.iter_ns = fl_median(it, CAL_SAMPLES);
	q = cal.iter_ns > 0 ? ceil(cal.syscall_ns / cal.iter_ns) : FL_USER_SPIN_MAX;
	cal.limit = q < 1 ? 1 : q > FL_USER_SPIN_MAX ? FL_USER_SPIN_MAX : (uint32_t)q;
}

const struct fl_user_spin_cal *fl_user_spin_calibrate(void)
{
	pthread_once(&cal_once, calibrate);
	return &cal;
}

uint32_t fl_user_spin_limit(void)
{
	return atomic_load_explicit(&spin_on, memory_order_relaxed) ?
	       fl_user_spin_calibrate()->limit : 0;
}

void fl_user_spin_set(bool on)
{
	atomic_store_explicit(&spin_on, on, memory_order_relaxed);
}

bool fl_user_spin_on(void)
{
	return atomic_load_explicit(&spin_on, memory_order_relaxed);
}
