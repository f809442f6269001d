// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the seed write-up benchmarks (lockbench, wakebench,
 * queuebench): thread placement and policy, the paired-repetition order,
 * "is this thread asleep", JSON and interval printing.
 */
#include "futexlock.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

int fl_parse_sched(const char *s, enum fl_sched *out)
{
	if (!strcmp(s, "other"))
		*out = FL_SCHED_OTHER;
	else if (!strcmp(s, "fifo"))
		*out = FL_SCHED_FIFO;
	else if (!strcmp(s, "rr"))
		*out = FL_SCHED_RR;
	else
		return -1;
	return 0;
}

const char *fl_sched_name(enum fl_sched s)
{
	return s == FL_SCHED_FIFO ? "fifo" : s == FL_SCHED_RR ? "rr" :
	       s == FL_SCHED_OTHER ? "other" : "default";
}

unsigned fl_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

int fl_thread_setup(unsigned idx, bool pin, enum fl_sched sched, int prio,
		    char *err, size_t errlen)
{
	int r;

	if (pin) {
		cpu_set_t allowed, set;
		unsigned n = 0, want;

		if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
			n = (unsigned)CPU_COUNT(&allowed);
		if (n) {
			want = idx % n;
			CPU_ZERO(&set);
			for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
				if (!CPU_ISSET(cpu, &allowed))
					continue;
				if (want-- == 0) {
					CPU_SET(cpu, &set);
					break;
				}
			}
			r = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
			if (r) {
				snprintf(err, errlen, "pin to CPU: %s", strerror(r));
				return r;
			}
		}
	}
	if (sched != FL_SCHED_DEFAULT && sched != FL_SCHED_OTHER) {
		int pol = sched == FL_SCHED_FIFO ? SCHED_FIFO : SCHED_RR;
		struct sched_param sp = { 0 };

		sp.sched_priority = sched_get_priority_min(pol) + prio;
		r = pthread_setschedparam(pthread_self(), pol, &sp);
		if (r) {
			snprintf(err, errlen, "set policy %s: %s (needs root or CAP_SYS_NICE)",
				 fl_sched_name(sched), strerror(r));
			return r;
		}
	}
	return 0;
}

void fl_poll_pause(void)
{
	struct timespec ts = { 0, 20000 };

	nanosleep(&ts, NULL);
}

int fl_task_state(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may hold spaces and parentheses */
	if (!p || p[1] != ' ' || !p[2])
		return -1;
	return (unsigned char)p[2];
}

int fl_wait_asleep(const pid_t *tids, unsigned n, uint64_t timeout_ns)
{
	uint64_t end = fl_now_ns() + timeout_ns;

	for (unsigned i = 0; i < n;) {
		int s = fl_task_state(tids[i]);

		if (s == 'S' || s == 'D') {
			i++;
			continue;
		}
		if (fl_now_ns() > end)
			return -1;
		fl_poll_pause();
	}
	return 0;
}

void fl_json_meta(FILE *f, const char *tool, uint64_t seed)
{
	char host[128] = "?", cpu[160] = "?", line[256];
	FILE *c = fopen("/proc/cpuinfo", "r");
	FILE *k = fopen("/proc/sys/kernel/osrelease", "r");
	char rel[128] = "?";

	if (c) {
		while (fgets(line, sizeof(line), c)) {
			if (!strncmp(line, "model name", 10)) {
				char *p = strchr(line, ':');

				if (p) {
					snprintf(cpu, sizeof(cpu), "%s", p + 2);
					cpu[strcspn(cpu, "\n")] = '\0';
				}
				break;
			}
		}
		fclose(c);
	}
	if (k) {
		if (fgets(rel, sizeof(rel), k))
			rel[strcspn(rel, "\n")] = '\0';
		fclose(k);
	}
	gethostname(host, sizeof(host) - 1);
	fprintf(f, "\"tool\": ");
	fl_json_str(f, tool);
	fprintf(f, ", ");
	fl_json_provenance(f, seed);
	fprintf(f, ", \"meta\": {\"cpu\": ");
	fl_json_str(f, cpu);
	fprintf(f, ", \"ncpus\": %u, \"kernel\": ", fl_online_cpus());
	fl_json_str(f, rel);
	fprintf(f, ", \"futex_lock\": %s}", fl_futex_lock_probe(NULL) ? "true" : "false");
}

/*
 * --json-file: the table goes to stdout as usual, the JSON of the same run
 * into a file.  Between fl_json_begin() and fl_json_end() stdout is the
 * file (appending), so the tools print JSON with the same printf()s.
 */
static const char *json_path;
static int saved_stdout = -1;

int fl_json_file_open(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fclose(f);
	json_path = path;
	return 0;
}

void fl_json_begin(void)
{
	int fd;

	if (!json_path)
		return;
	fflush(stdout);
	saved_stdout = dup(STDOUT_FILENO);
	fd = open(json_path, O_WRONLY | O_APPEND);
	if (fd < 0 || saved_stdout < 0) {
		perror("json file");
		exit(1);
	}
	dup2(fd, STDOUT_FILENO);
	close(fd);
}

void fl_json_end(void)
{
	if (!json_path)
		return;
	fflush(stdout);
	dup2(saved_stdout, STDOUT_FILENO);
	close(saved_stdout);
	saved_stdout = -1;
}
