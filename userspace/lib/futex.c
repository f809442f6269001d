// SPDX-License-Identifier: GPL-2.0
/* futex helpers: cached gettid() and the FUTEX_LOCK feature probe. */
#include "futexlock.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

_Thread_local pid_t fl_tid_cache;

/* A fork() child is a new task: forget the parent thread's TID. */
static void fl_tid_cache_reset(void)
{
	fl_tid_cache = 0;
}

static void fl_tid_atfork(void)
{
	(void)pthread_atfork(NULL, NULL, fl_tid_cache_reset);
}

pid_t fl_gettid_slow(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	(void)pthread_once(&once, fl_tid_atfork);
	fl_tid_cache = (pid_t)syscall(SYS_gettid);
	return fl_tid_cache;
}

static int probe_done = -1;	/* -1 not yet, 0 absent, 1 present */
static int probe_errno;

int fl_futex_lock_probe(int *err)
{
	if (probe_done < 0) {
		_Atomic uint32_t word = 0;
		long r;

		errno = 0;
		r = fl_futex(&word, FUTEX_UNLOCK | FUTEX_PRIVATE_FLAG, 0,
			     NULL, NULL, 0);
		probe_errno = r == -1 ? errno : 0;
		/*
		 * ENOSYS: op unknown (unpatched kernel). EPERM: the op exists
		 * and refused to unlock a lock we do not own. Anything else
		 * means some other kernel; treat it as "not available" and
		 * let the probe line say what happened.
		 */
		probe_done = (r == -1 && probe_errno == EPERM) ? 1 : 0;
	}
	if (err)
		*err = probe_errno;
	return probe_done;
}

const char *fl_futex_lock_probe_line(void)
{
	static char line[200];
	int err, ok = fl_futex_lock_probe(&err);

	if (ok)
		snprintf(line, sizeof(line),
			 "FUTEX_LOCK: available (probe FUTEX_UNLOCK on a free word -> EPERM)");
	else if (err == ENOSYS)
		snprintf(line, sizeof(line),
			 "FUTEX_LOCK: not available (probe FUTEX_UNLOCK -> ENOSYS): %s",
			 FL_NO_FUTEX_LOCK_MSG);
	else
		snprintf(line, sizeof(line),
			 "FUTEX_LOCK: not available (probe FUTEX_UNLOCK -> %s, expected EPERM)",
			 err ? strerror(err) : "success");
	return line;
}
