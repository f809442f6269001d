/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ft_common.h - small helpers shared by futex_torture and futex_fuzz:
 * raw futex(2) wrappers for FUTEX_LOCK (14), FUTEX_LOCK_ADAPTIVE (15) and
 * FUTEX_UNLOCK (16), the feature probe, clocks, errno names.
 *
 * The ABI is Documentation/locking/futex-lock.rst of the series
 * (patches/0005-*.patch): word = owner TID | FUTEX_WAITERS (bit 31) |
 * FUTEX_OWNER_DIED (bit 30); user lock cmpxchg(0 -> TID), user unlock
 * cmpxchg(TID -> 0), the kernel is entered otherwise.
 */
#ifndef FT_COMMON_H
#define FT_COMMON_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#ifndef FUTEX_LOCK
#define FUTEX_LOCK		14
#define FUTEX_LOCK_ADAPTIVE	15
#define FUTEX_UNLOCK		16
#endif
#ifndef FUTEX_TID_MASK
#define FUTEX_TID_MASK		0x3fffffffu
#endif

/* kselftest exit codes */
#define FT_EXIT_PASS	0
#define FT_EXIT_FAIL	1
#define FT_EXIT_USAGE	2
#define FT_EXIT_SKIP	4

static inline pid_t ft_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* futex(2) as a raw syscall: returns 0 or -errno. */
static inline long ft_futex(void *uaddr, int op, uint32_t val,
			    const void *timeout, void *uaddr2, uint32_t val3)
{
	long r = syscall(SYS_futex, uaddr, op, val, timeout, uaddr2, val3);

	return r < 0 ? -errno : r;
}

/*
 * Feature probe (rst "Feature detection"): FUTEX_UNLOCK on a private word
 * holding 0 fails with ENOSYS without the ops and with EPERM with them.
 * Returns 1 present, 0 absent, -errno for anything else.
 */
static inline int ft_probe(void)
{
	uint32_t w = 0;
	long r = ft_futex(&w, FUTEX_UNLOCK | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0);

	if (r == -EPERM)
		return 1;
	if (r == -ENOSYS)
		return 0;
	return r < 0 ? (int)r : -EPROTO;
}

/*
 * In a forked helper: die when the parent does.  A helper that outlives a
 * crashed parent keeps the parent's stdout open, and whoever reads that
 * pipe (the harness) waits for an end of file that never comes.
 */
static inline void ft_die_with_parent(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)	/* it died before the prctl */
		_exit(1);
}

static inline uint64_t ft_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t ft_mono_ns(void)
{
	return ft_now_ns(CLOCK_MONOTONIC);
}

static inline struct timespec ft_ns_to_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};
	return ts;
}

/* xorshift64*: fast, per-thread, reproducible from a seed */
static inline uint64_t ft_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static inline uint64_t ft_seed_mix(uint64_t seed, uint64_t n)
{
	uint64_t z = seed + 0x9E3779B97F4A7C15ull * (n + 1);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return z ? z : 1;
}

/* errno names for the summaries ("E123" for unknown ones) */
static inline const char *ft_errname(int e)
{
	static _Thread_local char buf[16];

	switch (e) {
	case 0: return "OK";
	case EPERM: return "EPERM";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case EDEADLK: return "EDEADLK";
	case ENOSYS: return "ENOSYS";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EOWNERDEAD: return "EOWNERDEAD";
	case ENOTRECOVERABLE: return "ENOTRECOVERABLE";
	case EBUSY: return "EBUSY";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

/* Returns the errno for a name as printed by ft_errname, -1 if unknown. */
static inline int ft_errno_by_name(const char *s)
{
	for (int e = 0; e < 200; e++)
		if (!strcmp(ft_errname(e), s))
			return e;
	return -1;
}

#endif /* FT_COMMON_H */
