// SPDX-License-Identifier: GPL-2.0
/*
 * apps_run - run a command and report what it cost: its context switches
 * and CPU time, from wait4()'s rusage (all its threads and every child it
 * reaped), the perf-free counterpart of /usr/bin/time -v for make apps
 * (userspace/scripts/apps.sh).
 *
 *   apps_run -o FILE -- COMMAND [ARGS...]
 *
 * Writes one line to FILE when COMMAND ends:
 *   status=S csw_vol=N csw_invol=N utime=SEC stime=SEC maxrss_kb=N wall=SEC
 * S is the exit status, or 128 + the signal that ended it; apps_run exits
 * with S.  SIGTERM and SIGINT sent to apps_run are passed on to COMMAND (a
 * server run in the background is stopped through apps_run, which then
 * still writes the line).  Bad usage: exit 2.  No mutex is taken here, so
 * apps_run itself is never counted by the preload or the kernel counters:
 * give the preload to COMMAND only (env LD_PRELOAD=... COMMAND).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static void usage(void)
{
	fprintf(stderr, "Usage: apps_run -o FILE -- COMMAND [ARGS...]\n"
		"  runs COMMAND; when it ends, writes to FILE\n"
		"  status=S csw_vol=N csw_invol=N utime=SEC stime=SEC maxrss_kb=N wall=SEC\n"
		"  and exits with S (128 + signal if a signal ended it)\n");
	exit(2);
}

static double tv(struct timeval t)
{
	return t.tv_sec + t.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = forward };
	const char *out = NULL;
	struct timespec t0, t1;
	struct rusage ru;
	int i = 1, st, code;
	pid_t pid;
	FILE *f;

	if (i + 1 < argc && !strcmp(argv[i], "-o")) {
		out = argv[i + 1];
		i += 2;
	}
	if (!out || !*out || i >= argc || strcmp(argv[i], "--") || i + 1 >= argc)
		usage();
	i++;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("apps_run: fork");
		return 1;
	}
	if (!pid) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		execvp(argv[i], argv + i);
		fprintf(stderr, "apps_run: %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	child = pid;
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("apps_run: wait4");
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	f = fopen(out, "w");
	if (!f) {
		perror(out);
		return 1;
	}
	fprintf(f, "status=%d csw_vol=%ld csw_invol=%ld utime=%.3f stime=%.3f maxrss_kb=%ld wall=%.3f\n",
		code, ru.ru_nvcsw, ru.ru_nivcsw, tv(ru.ru_utime), tv(ru.ru_stime), ru.ru_maxrss,
		(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (fclose(f)) {
		perror(out);
		return 1;
	}
	return code;
}
