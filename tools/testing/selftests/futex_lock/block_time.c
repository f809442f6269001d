// SPDX-License-Identifier: GPL-2.0
/*
 * block_time: how long N new threads take to block in FUTEX_WAIT.
 *
 * The upstream futex_requeue selftest creates 10 waiters, sleeps 10 ms and
 * expects all of them to be queued by then (their own timeout is 30 ms).
 * vm-test.sh runs this after that test failed every attempt: if the
 * measured time exceeds the test's 10 ms, its precondition does not hold
 * on this machine (a TCG guest running the debug kernel), so the failure
 * is reported as a SKIP with the figure; otherwise it stays a failure.
 *
 * Usage: block_time [N]   prints "block_time: N threads blocked in X.X ms"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_N 64

static uint32_t word;
static volatile pid_t tids[MAX_N];

static void *waiter(void *arg)
{
	tids[(intptr_t)arg] = syscall(SYS_gettid);
	while (!__atomic_load_n(&word, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	return NULL;
}

/* true once the thread sleeps in futex(2) */
static int in_futex(pid_t tid)
{
	char path[64];
	long nr = -1;
	char st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%*d (%*[^)]) %c", &st) != 1)
			st = 0;
		fclose(f);
	}
	return nr == SYS_futex && st == 'S';
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	pthread_t th[MAX_N];
	double t0, t;
	int i;

	if (argc > 2 || n < 1 || n > MAX_N) {
		fprintf(stderr, "usage: block_time [N (1..%d, default 10)]\n", MAX_N);
		return 2;
	}
	t0 = now_ms();
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, waiter, (void *)(intptr_t)i)) {
			perror("block_time: pthread_create");
			return 1;
		}
	for (i = 0; i < n; i++) {
		while (!tids[i] || !in_futex(tids[i])) {
			if (now_ms() - t0 > 10000) {
				fprintf(stderr, "block_time: thread %d never blocked\n", i);
				return 1;
			}
			usleep(100);
		}
	}
	t = now_ms() - t0;
	__atomic_store_n(&word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, MAX_N, NULL, NULL, 0);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("block_time: %d threads blocked in %.1f ms\n", n, t);
	return 0;
}
