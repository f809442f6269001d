// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench - how fast do sleeping workers wake (the question of
 * "Comparing Synchronisation Methods on Windows", asked on Linux).
 *
 * A main thread and W workers.  Per run every worker waits with one
 * method; once all of them sleep (state S in /proc, checked, not assumed)
 * the main thread takes t0, triggers all, takes t1: trigger = t1 - t0.
 * Each worker takes a timestamp as soon as it runs: wake = t - t0.  Per
 * run the W wake times are sorted, giving the mean wake time by wake
 * order (1st ... last woken).  A repetition runs N runs of every method,
 * methods in a fresh random order, plus the baseline method twice (A/A);
 * ratios to the baseline are medians of per-repetition ratios with a 95%
 * bootstrap interval.  A worker that does not wake within --timeout-ms is
 * a lost wake-up: the run fails (exit 1), the workers are rescued and
 * joined, never a hang.
 */
#include "futexlock.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

#define MAX_WORKERS 256
#define MAX_METHODS 64

enum kind {
	M_SEM, M_FUTEX_ALL, M_FUTEX_EACH, M_CV_BCAST, M_CV_EACH, M_EFD_ONE,
	M_EFD_EACH, M_BARRIER, M_WAITV, M_SPIN, M_SPIN_PAUSE, M_SPIN_YIELD,
	M_SPIN_NANOSLEEP, M_HYBRID, M_LOCK,
};

struct method {
	char name[40];
	enum kind kind;
	unsigned k;				/* M_HYBRID: workers per word */
	const struct fl_lock_ops *ops;		/* M_LOCK */
	const char *desc;
};

static const struct { const char *name; enum kind kind; const char *desc; } kinds[] = {
	{ "sem", M_SEM, "one POSIX semaphore, sem_post x W" },
	{ "futex-all", M_FUTEX_ALL, "one futex word, one FUTEX_WAKE(all)" },
	{ "futex-each", M_FUTEX_EACH, "a futex word per worker, FUTEX_WAKE each" },
	{ "cond-bcast", M_CV_BCAST, "pthread condvar + mutex, one broadcast" },
	{ "cond-each", M_CV_EACH, "a condvar + mutex per worker, signal each" },
	{ "eventfd-one", M_EFD_ONE, "one EFD_SEMAPHORE eventfd, one write(W)" },
	{ "eventfd-each", M_EFD_EACH, "an eventfd per worker, write each" },
	{ "barrier", M_BARRIER, "pthread_barrier of W+1, main arrives last" },
	{ "futex-waitv", M_WAITV, "futex_waitv on {shared word, own word}, wake shared" },
	{ "spin", M_SPIN, "workers spin on a word (plain load)" },
	{ "spin-pause", M_SPIN_PAUSE, "spin with pause" },
	{ "spin-yield", M_SPIN_YIELD, "spin with sched_yield()" },
	{ "spin-nanosleep", M_SPIN_NANOSLEEP, "spin with nanosleep(0)" },
};

static const char *const default_locks[] = {
	"pthread", "waitwake", "futex_lock", "adaptive", "pi",
};

struct opts {
	unsigned wmin, wmax;
	uint64_t reps, runs, timeout_ms;
	struct method m[MAX_METHODS];
	unsigned nm;
	unsigned groups[16], ngroups;
	unsigned base;			/* index into m[] */
	enum fl_sched sched;
	bool pin, json, lose_wakeup;
	const char *json_file;	/* table to stdout, JSON here */
	uint64_t seed;		/* of the run order (--seed, else time) */
	unsigned nreq;		/* m[0..nreq) were asked for (-M, -g) */
	unsigned nreq_ran;	/* of those, how many ran in some sweep */
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: wakebench [options]\n"
"Trigger time and wake-up latency of W sleeping workers, per method.\n"
"  -w, --workers N|A..B  workers, or a sweep A..B (default online CPUs - 1, >= 1)\n"
"  -r, --reps N      repetitions (default 30)\n"
"  -n, --runs N      wake-ups per method per repetition (default 50)\n"
"  -M, --method M    method, repeatable (default: all available); lock:NAME is\n"
"                    a lock gate: main holds lock NAME, workers block in it\n"
"  -g, --group K     add the hybrid method: a futex word per K workers\n"
"                    (repeatable; default 2..W-1 when W >= 3)\n"
"  -b, --baseline M  method the ratios refer to and the A/A row (default futex-all)\n"
"  --timeout-ms N    a worker not awake after N ms is a lost wake-up (default 60000:\n"
"                    generous, so that only a hang fails a run)\n"
"  --sched P         other, fifo or rr for main and workers\n"
"  --pin             main on the first allowed CPU, worker i on the (i+1)-th\n"
"  --quick           -r 5 -n 10\n"
"  --seed N          seed of the run order (default: time; printed)\n"
"  --json            JSON instead of the table\n"
"  --json-file F     the table to stdout and the JSON into F\n"
"  -h, --help        this text\n"
"Methods:\n");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
		fprintf(f, "  %-16s %s\n", kinds[i].name, kinds[i].desc);
	fprintf(f, "  %-16s %s\n", "hybrid-kK", "a futex word per K workers, FUTEX_WAKE each word");
	fprintf(f, "  %-16s %s\n", "lock:NAME", "lock gate over a lib/locks.c lock (default pthread,\n"
		"                   waitwake, futex_lock, adaptive, pi); each woken worker\n"
		"                   unlocks at once, so wake-ups chain");
	fprintf(f, "Verdicts (JSON): lower is better for every ratio (fl_decide() in\n"
		"lib/compare.c: >= 5 pairs, interval clear of 1 and of the two-sided\n"
		"A/A band; A/A row 'control', a failed row 'failed').\n"
		"Exit: 0 ok, 1 a run failed (lost wake-up) or none of the -M/-g methods\n"
		"could run here, 2 bad usage.\n");
}

static void bad(const char *what, const char *arg)
{
	fprintf(stderr, "wakebench: bad %s: '%s'\n", what, arg ? arg : "");
	usage(stderr);
	exit(2);
}

static int add_method(struct opts *o, const char *name)
{
	struct method *m = &o->m[o->nm];
	uint64_t k;

	if (o->nm == MAX_METHODS)
		return -1;
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	if (!strncmp(name, "lock:", 5)) {
		m->kind = M_LOCK;
		m->ops = fl_lock_find_any(name + 5);
		if (!m->ops)
			return -1;
		m->desc = m->ops->desc;
	} else if (!strncmp(name, "hybrid-k", 8)) {
		if (fl_parse_u64(name + 8, 1, MAX_WORKERS, &k))
			return -1;
		m->kind = M_HYBRID;
		m->k = (unsigned)k;
		m->desc = "a futex word per K workers";
	} else {
		size_t i;

		for (i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
			if (!strcmp(kinds[i].name, name))
				break;
		if (i == sizeof(kinds) / sizeof(*kinds))
			return -1;
		m->kind = kinds[i].kind;
		m->desc = kinds[i].desc;
	}
	for (unsigned j = 0; j < o->nm; j++)
		if (!strcmp(o->m[j].name, name))
			return 0;	/* given twice: once is enough */
	o->nm++;
	return 0;
}

/* ---- one block: W workers, N runs of one method ------------------------- */
struct block;

struct wk {
	pthread_t th;
	unsigned idx;
	pid_t tid;
	struct block *b;
	_Alignas(FL_CACHELINE) _Atomic uint32_t word;	/* futex-each, hybrid */
	pthread_mutex_t mu;				/* cond-each */
	pthread_cond_t cv;
	uint32_t flag;
	int efd;
	char err[120];
};

struct block {
	const struct opts *o;
	const struct method *m;
	unsigned w, runs;
	struct wk *wk;
	_Alignas(FL_CACHELINE) _Atomic uint32_t phase;	/* run r may start: phase > r */
	_Alignas(FL_CACHELINE) _Atomic uint32_t gen;	/* futex-all, spins, waitv */
	_Alignas(FL_CACHELINE) _Atomic unsigned ready, done;
	_Atomic int abort;
	sem_t sem;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t cv_gen;
	int efd;
	pthread_barrier_t bar;
	struct fl_lock lock;
	_Atomic uint32_t *groups;	/* hybrid: one word per group */
	uint64_t t0;			/* of the current run */
	uint64_t *wake;			/* [run][worker] ns since t0 */
};

static void futex_wait_ne(_Atomic uint32_t *w, uint32_t old, _Atomic int *abort)
{
	while (atomic_load_explicit(w, memory_order_acquire) == old &&
	       !atomic_load(abort))
		fl_futex(w, FUTEX_WAIT_PRIVATE, old, NULL, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *w)
{
	fl_futex(w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void method_wait(struct block *b, struct wk *w, uint32_t r)
{
	const struct method *m = b->m;
	uint64_t one;
	struct fl_counters c = { 0 };

	switch (m->kind) {
	case M_SEM:
		while (sem_wait(&b->sem) && errno == EINTR)
			;
		break;
	case M_FUTEX_ALL:
		futex_wait_ne(&b->gen, r, &b->abort);
		break;
	case M_FUTEX_EACH:
		futex_wait_ne(&w->word, r, &b->abort);
		break;
	case M_HYBRID:
		futex_wait_ne(&b->groups[w->idx / m->k], r, &b->abort);
		break;
	case M_CV_BCAST:
		pthread_mutex_lock(&b->mu);
		while (b->cv_gen == r && !atomic_load(&b->abort))
			pthread_cond_wait(&b->cv, &b->mu);
		pthread_mutex_unlock(&b->mu);
		break;
	case M_CV_EACH:
		pthread_mutex_lock(&w->mu);
		while (w->flag == r && !atomic_load(&b->abort))
			pthread_cond_wait(&w->cv, &w->mu);
		pthread_mutex_unlock(&w->mu);
		break;
	case M_EFD_ONE:
		while (read(b->efd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
		break;
	case M_EFD_EACH:
		while (read(w->efd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
		break;
	case M_BARRIER:
		pthread_barrier_wait(&b->bar);
		break;
	case M_WAITV: {
		struct futex_waitv v[2] = {
			{ .val = r, .uaddr = (uintptr_t)&b->gen,
			  .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG },
			{ .val = atomic_load(&w->word), .uaddr = (uintptr_t)&w->word,
			  .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG },	/* never written */
		};

		while (atomic_load_explicit(&b->gen, memory_order_acquire) == r &&
		       !atomic_load(&b->abort))
			syscall(SYS_futex_waitv, v, 2, 0, NULL, CLOCK_MONOTONIC);
		break;
	}
	case M_SPIN:
		while (atomic_load_explicit(&b->gen, memory_order_acquire) == r &&
		       !atomic_load_explicit(&b->abort, memory_order_relaxed))
			;
		break;
	case M_SPIN_PAUSE:
		while (atomic_load_explicit(&b->gen, memory_order_acquire) == r &&
		       !atomic_load_explicit(&b->abort, memory_order_relaxed))
			fl_cpu_relax();
		break;
	case M_SPIN_YIELD:
		while (atomic_load_explicit(&b->gen, memory_order_acquire) == r &&
		       !atomic_load_explicit(&b->abort, memory_order_relaxed))
			sched_yield();
		break;
	case M_SPIN_NANOSLEEP: {
		struct timespec z = { 0, 0 };

		while (atomic_load_explicit(&b->gen, memory_order_acquire) == r &&
		       !atomic_load_explicit(&b->abort, memory_order_relaxed))
			nanosleep(&z, NULL);
		break;
	}
	case M_LOCK:
		fl_lock(&b->lock, &c);
		break;
	}
}

static void *worker_main(void *arg)
{
	struct wk *w = arg;
	struct block *b = w->b;
	struct fl_counters c = { 0 };

	w->tid = fl_gettid();
	fl_thread_setup(w->idx + 1, b->o->pin, b->o->sched, 0, w->err, sizeof(w->err));
	for (uint32_t r = 0; r < b->runs; r++) {
		uint64_t t;

		futex_wait_ne(&b->phase, r, &b->abort);
		if (atomic_load(&b->abort))
			break;
		atomic_fetch_add(&b->ready, 1);
		method_wait(b, w, r);
		t = fl_now_ns();
		if (b->m->kind == M_LOCK)
			fl_unlock(&b->lock, &c);	/* pass the gate on */
		if (atomic_load(&b->abort))
			break;
		b->wake[(size_t)r * b->w + w->idx] = t - b->t0;
		atomic_fetch_add_explicit(&b->done, 1, memory_order_release);
	}
	return NULL;
}

static bool sleeping_method(enum kind k)
{
	return k != M_SPIN && k != M_SPIN_PAUSE && k != M_SPIN_YIELD &&
	       k != M_SPIN_NANOSLEEP;
}

static void trigger(struct block *b, uint32_t r)
{
	const struct method *m = b->m;
	struct fl_counters c = { 0 };
	uint64_t one = 1, n = b->w;
	unsigned wake = b->w;

	if (b->o->lose_wakeup && wake > 1)
		wake--;		/* TEST ONLY: the deliberate lost wake-up */
	switch (m->kind) {
	case M_SEM:
		for (unsigned i = 0; i < wake; i++)
			sem_post(&b->sem);
		break;
	case M_FUTEX_ALL:
		atomic_store_explicit(&b->gen, r + 1, memory_order_release);
		fl_futex(&b->gen, FUTEX_WAKE_PRIVATE, wake == b->w ? INT_MAX : (int)wake,
			 NULL, NULL, 0);
		break;
	case M_WAITV:
		atomic_store_explicit(&b->gen, r + 1, memory_order_release);
		futex_wake_all(&b->gen);
		break;
	case M_FUTEX_EACH:
		for (unsigned i = 0; i < wake; i++) {
			atomic_store_explicit(&b->wk[i].word, r + 1, memory_order_release);
			fl_futex(&b->wk[i].word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		}
		break;
	case M_HYBRID:
		for (unsigned g = 0; g * m->k < b->w; g++) {
			atomic_store_explicit(&b->groups[g], r + 1, memory_order_release);
			futex_wake_all(&b->groups[g]);
		}
		break;
	case M_CV_BCAST:
		pthread_mutex_lock(&b->mu);
		b->cv_gen = r + 1;
		pthread_cond_broadcast(&b->cv);
		pthread_mutex_unlock(&b->mu);
		break;
	case M_CV_EACH:
		for (unsigned i = 0; i < wake; i++) {
			pthread_mutex_lock(&b->wk[i].mu);
			b->wk[i].flag = r + 1;
			pthread_cond_signal(&b->wk[i].cv);
			pthread_mutex_unlock(&b->wk[i].mu);
		}
		break;
	case M_EFD_ONE:
		n = wake;
		if (write(b->efd, &n, sizeof(n)) < 0)
			perror("wakebench: eventfd write");
		break;
	case M_EFD_EACH:
		for (unsigned i = 0; i < wake; i++)
			if (write(b->wk[i].efd, &one, sizeof(one)) < 0)
				perror("wakebench: eventfd write");
		break;
	case M_BARRIER:
		pthread_barrier_wait(&b->bar);
		break;
	case M_SPIN:
	case M_SPIN_PAUSE:
	case M_SPIN_YIELD:
	case M_SPIN_NANOSLEEP:
		atomic_store_explicit(&b->gen, r + 1, memory_order_release);
		break;
	case M_LOCK:
		fl_unlock(&b->lock, &c);
		break;
	}
}

/* After a lost wake-up: release every waiter whatever it waits on. */
static void rescue(struct block *b)
{
	uint64_t many = b->w;

	atomic_store(&b->abort, 1);
	futex_wake_all(&b->phase);
	futex_wake_all(&b->gen);
	for (unsigned i = 0; i < b->w; i++) {
		sem_post(&b->sem);
		futex_wake_all(&b->wk[i].word);
		pthread_mutex_lock(&b->wk[i].mu);
		pthread_cond_broadcast(&b->wk[i].cv);
		pthread_mutex_unlock(&b->wk[i].mu);
		if (write(b->wk[i].efd, &many, sizeof(many)) < 0)
			perror("wakebench: eventfd write");
	}
	if (b->groups)
		for (unsigned g = 0; g < b->w; g++)
			futex_wake_all(&b->groups[g]);
	pthread_mutex_lock(&b->mu);
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	if (write(b->efd, &many, sizeof(many)) < 0)
		perror("wakebench: eventfd write");
}

struct stats {			/* one method, whole program */
	bool available, failed;
	char err[200];
	double *trig, *mean, *last;	/* per repetition, us */
	double *by_order;		/* sum of us by wake order */
	double *by_worker;		/* sum of us by worker (= trigger order) */
	uint64_t nruns;
	struct fl_hist hist;		/* wake ns */
};

/* Runs one block; 0, or -1 with s->err set (a lost wake-up, a failed set-up). */
static int run_block(const struct opts *o, const struct method *m, unsigned w,
		     struct stats *s, unsigned rep)
{
	struct block *b = aligned_alloc(FL_CACHELINE, (sizeof(*b) + FL_CACHELINE - 1) &
					~(size_t)(FL_CACHELINE - 1));
	unsigned created = 0, runs = (unsigned)o->runs;
	double trig = 0, mean = 0, last = 0, *sorted;
	pid_t *tids;
	char serr[120] = "";
	int ret = 0, r;

	if (!b)
		abort();
	memset(b, 0, sizeof(*b));
	b->o = o;
	b->m = m;
	b->w = w;
	b->runs = runs;
	b->wk = aligned_alloc(FL_CACHELINE, sizeof(struct wk) * w);
	b->wake = calloc((size_t)runs * w, sizeof(uint64_t));
	b->groups = calloc(w, sizeof(*b->groups));
	tids = calloc(w, sizeof(*tids));
	sorted = calloc(w, sizeof(*sorted));
	if (!b->wk || !b->wake || !b->groups || !tids || !sorted)
		abort();
	memset(b->wk, 0, sizeof(struct wk) * w);
	sem_init(&b->sem, 0, 0);
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	b->efd = eventfd(0, EFD_SEMAPHORE);
	pthread_barrier_init(&b->bar, NULL, w + 1);
	if (m->kind == M_LOCK) {
		r = fl_lock_init(&b->lock, m->ops);
		if (r) {
			snprintf(s->err, sizeof(s->err), "lock init: %s", strerror(r));
			ret = -1;
		}
	}
	for (unsigned i = 0; i < w; i++) {
		pthread_mutex_init(&b->wk[i].mu, NULL);
		pthread_cond_init(&b->wk[i].cv, NULL);
		b->wk[i].efd = eventfd(0, 0);
		b->wk[i].idx = i;
		b->wk[i].b = b;
		if (b->wk[i].efd < 0 || b->efd < 0) {
			snprintf(s->err, sizeof(s->err), "eventfd: %s", strerror(errno));
			ret = -1;
		}
	}
	if (fl_thread_setup(0, o->pin, o->sched, 1, serr, sizeof(serr))) {
		snprintf(s->err, sizeof(s->err), "main thread: %s", serr);
		ret = -1;
	}
	for (unsigned i = 0; ret == 0 && i < w; i++) {
		r = pthread_create(&b->wk[i].th, NULL, worker_main, &b->wk[i]);
		if (r) {
			snprintf(s->err, sizeof(s->err), "pthread_create: %s", strerror(r));
			ret = -1;
			break;
		}
		created++;
	}
	for (unsigned run = 0; ret == 0 && run < runs; run++) {
		uint64_t t1, end, want = (uint64_t)w * (run + 1);

		if (m->kind == M_LOCK)
			fl_lock(&b->lock, &(struct fl_counters){ 0 });
		atomic_store(&b->phase, run + 1);
		futex_wake_all(&b->phase);
		end = fl_now_ns() + o->timeout_ms * 1000000ull;
		while (atomic_load(&b->ready) < want && fl_now_ns() < end)
			fl_poll_pause();
		if (atomic_load(&b->ready) < want) {
			snprintf(s->err, sizeof(s->err), "workers not ready within %llu ms",
				 (unsigned long long)o->timeout_ms);
			ret = -1;
			break;
		}
		for (unsigned i = 0; i < w; i++) {
			tids[i] = b->wk[i].tid;
			if (b->wk[i].err[0]) {
				snprintf(s->err, sizeof(s->err), "worker: %s", b->wk[i].err);
				ret = -1;
			}
		}
		if (ret)
			break;
		if (sleeping_method(m->kind) &&
		    fl_wait_asleep(tids, w, o->timeout_ms * 1000000ull)) {
			snprintf(s->err, sizeof(s->err), "workers did not go to sleep within %llu ms",
				 (unsigned long long)o->timeout_ms);
			ret = -1;
			break;
		}
		b->t0 = fl_now_ns();
		trigger(b, run);
		t1 = fl_now_ns();
		end = t1 + o->timeout_ms * 1000000ull;
		while (atomic_load_explicit(&b->done, memory_order_acquire) < want) {
			if (fl_now_ns() > end) {
				snprintf(s->err, sizeof(s->err),
					 "lost wake-up: %u of %u workers awake %llu ms after the trigger (run %u)",
					 (unsigned)(atomic_load(&b->done) - (want - w)), w,
					 (unsigned long long)o->timeout_ms, run);
				ret = -1;
				break;
			}
			if (sleeping_method(m->kind))
				fl_poll_pause();
		}
		if (ret)
			break;
		trig += (double)(t1 - b->t0) / 1e3;
		for (unsigned i = 0; i < w; i++) {
			uint64_t ns = b->wake[(size_t)run * w + i];

			sorted[i] = (double)ns / 1e3;
			s->by_worker[i] += sorted[i];
			fl_hist_add(&s->hist, ns);
			mean += sorted[i];
		}
		for (unsigned i = 1; i < w; i++) {	/* insertion sort, w is small */
			double x = sorted[i];
			unsigned j = i;

			for (; j > 0 && sorted[j - 1] > x; j--)
				sorted[j] = sorted[j - 1];
			sorted[j] = x;
		}
		for (unsigned i = 0; i < w; i++)
			s->by_order[i] += sorted[i];
		last += sorted[w - 1];
		s->nruns++;
	}
	if (ret)
		rescue(b);
	else {
		atomic_store(&b->phase, runs + 1);
		futex_wake_all(&b->phase);
	}
	for (unsigned i = 0; i < created; i++) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 10;
		if (pthread_timedjoin_np(b->wk[i].th, NULL, &ts)) {
			fprintf(stderr, "wakebench: %s: worker %u stuck after rescue; giving up\n",
				m->name, i);
			exit(1);
		}
	}
	if (m->kind == M_LOCK && !ret)
		fl_lock_destroy(&b->lock);
	if (ret == 0) {
		s->trig[rep] = trig / runs;
		s->mean[rep] = mean / runs / w;
		s->last[rep] = last / runs;
	}
	for (unsigned i = 0; i < w; i++) {
		pthread_mutex_destroy(&b->wk[i].mu);
		pthread_cond_destroy(&b->wk[i].cv);
		if (b->wk[i].efd >= 0)
			close(b->wk[i].efd);
	}
	sem_destroy(&b->sem);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
	pthread_barrier_destroy(&b->bar);
	if (b->efd >= 0)
		close(b->efd);
	free(b->wk);
	free(b->wake);
	free(b->groups);
	free(b);
	free(tids);
	free(sorted);
	return ret;
}

static enum fl_sched sched_now;

static bool method_available(const struct method *m, unsigned w)
{
	/* FIFO/RR spinners that never yield, one per CPU: the rest never run */
	if ((m->kind == M_SPIN || m->kind == M_SPIN_PAUSE) && w >= fl_online_cpus() &&
	    (sched_now == FL_SCHED_FIFO || sched_now == FL_SCHED_RR))
		return false;
	if (m->kind == M_LOCK)
		return fl_lock_available(m->ops);
	if (m->kind == M_HYBRID)
		return m->k < w;
	if (m->kind == M_WAITV) {
		_Atomic uint32_t x = 1;
		struct futex_waitv v = { .val = 0, .uaddr = (uintptr_t)&x,
					 .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG };

		/* value differs: EAGAIN if the syscall exists, ENOSYS if not */
		return syscall(SYS_futex_waitv, &v, 1, 0, NULL, CLOCK_MONOTONIC) == -1 &&
		       errno == EAGAIN;
	}
	return true;
}

static int run_sweep(struct opts *o, unsigned w, bool first)
{
	unsigned ncols = o->nm + 1, *order = calloc(ncols, sizeof(unsigned));
	struct stats *st = calloc(ncols, sizeof(*st));
	uint64_t reps = o->reps, seed = o->seed + w;
	int ret = 0;
	char b1[64], b2[64];

	if (!order || !st)
		abort();
	for (unsigned k = 0; k < ncols; k++) {
		const struct method *m = &o->m[k == o->nm ? o->base : k];

		st[k].available = method_available(m, w);
		st[k].trig = calloc(reps, sizeof(double));
		st[k].mean = calloc(reps, sizeof(double));
		st[k].last = calloc(reps, sizeof(double));
		st[k].by_order = calloc(w, sizeof(double));
		st[k].by_worker = calloc(w, sizeof(double));
		if (!st[k].trig || !st[k].mean || !st[k].last || !st[k].by_order ||
		    !st[k].by_worker)
			abort();
		fl_hist_init(&st[k].hist);
		order[k] = k;
	}
	for (unsigned k = 0; k < ncols && k < o->nreq; k++)
		o->nreq_ran += st[k].available;
	for (uint64_t rep = 0; rep < reps; rep++) {
		fl_shuffle(order, ncols, &seed);
		for (unsigned j = 0; j < ncols; j++) {
			unsigned k = order[j];
			const struct method *m = &o->m[k == o->nm ? o->base : k];

			if (!st[k].available || st[k].failed)
				continue;
			if (run_block(o, m, w, &st[k], (unsigned)rep)) {
				st[k].failed = true;
				ret = 1;
				fprintf(stderr, "wakebench: %s, %u workers: %s\n", m->name, w,
					st[k].err);
			}
		}
	}
	for (int pass = 0; pass < 2; pass++) {
		bool json = pass == 1 || o->json;

		if (pass == 1 && !o->json_file)
			break;
		if (pass == 1)
			fl_json_begin();
	if (!json) {
			printf("wakebench: %u worker(s) + main; %llu repetitions x %llu wake-ups per method "
			       "(paired, random order); sched %s; pin %s\n", w,
			       (unsigned long long)reps, (unsigned long long)o->runs,
			       fl_sched_name(o->sched), o->pin ? "yes" : "no");
			printf("%-20s %9s %9s %9s %9s %-18s %-18s  %s\n", "method", "trigger", "wake",
			       "last", "p99", "wake/base", "last/base", "wake us by wake order (1st..last)");
			printf("%-20s %9s %9s %9s %9s %-18s %-18s\n", "", "med us", "med us", "med us",
			       "us", "[95% CI]", "[95% CI]");
		} else {
			printf("%s{\"workers\": %u, \"reps\": %llu, \"runs\": %llu, \"rows\": [",
			       first ? "" : ", ", w, (unsigned long long)reps,
			       (unsigned long long)o->runs);
		}
		for (unsigned k = 0; k < ncols; k++) {
			const struct method *m = &o->m[k == o->nm ? o->base : k];
			struct stats *s = &st[k];
			struct fl_ratio_ci mr, lr, tr;
			char name[56];
			double n = (double)s->nruns;

			snprintf(name, sizeof(name), "%s%s", m->name, k == o->nm ? " (A/A)" : "");
			/* times: lower is better; the A/A column is o->nm */
			fl_compare(s->mean, st[o->base].mean, st[o->nm].mean, reps,
				   FL_LOWER_IS_BETTER, &mr);
			fl_compare(s->last, st[o->base].last, st[o->nm].last, reps,
				   FL_LOWER_IS_BETTER, &lr);
			fl_compare(s->trig, st[o->base].trig, st[o->nm].trig, reps,
				   FL_LOWER_IS_BETTER, &tr);
			if (k == o->base)
				mr.n = lr.n = tr.n = 0;
			if (s->failed) {	/* no verdict from a row that failed */
				fl_fail(&mr);
				fl_fail(&lr);
				fl_fail(&tr);
			}
			if (!json) {
				if (!s->available) {
					printf("%-20s unavailable%s\n", name, m->kind == M_HYBRID ?
					       " (K >= workers)" : m->kind == M_WAITV ?
					       " (no futex_waitv)" : m->kind == M_LOCK ?
					       " (no FUTEX_LOCK)" :
					       " (fifo/rr spinners on every CPU starve)");
					continue;
				}
				if (!s->nruns) {
					printf("%-20s failed: %s\n", name, s->err);
					continue;
				}
				printf("%-20s %9.2f %9.2f %9.2f %9.2f %-18s %-18s ", name,
				       fl_median(s->trig, reps), fl_median(s->mean, reps),
				       fl_median(s->last, reps),
				       fl_hist_quantile(&s->hist, 0.99) / 1e3,
				       k == o->base ? "(baseline)" : fl_ci_str(&mr, b1, sizeof(b1)),
				       k == o->base ? "(baseline)" : fl_ci_str(&lr, b2, sizeof(b2)));
				for (unsigned i = 0; i < w && i < 16; i++)
					printf(" %.1f", s->by_order[i] / n);
				printf("%s%s%s\n", w > 16 ? " ..." : "", s->failed ? " FAILED: " : "",
				       s->failed ? s->err : "");
				continue;
			}
			printf("%s{\"method\": ", k ? ", " : "");
			fl_json_str(stdout, m->name);
			printf(", \"aa\": %s, \"available\": %s, \"runs\": %llu, \"error\": ",
			       k == o->nm ? "true" : "false", s->available ? "true" : "false",
			       (unsigned long long)s->nruns);
			fl_json_str(stdout, s->failed ? s->err : "");
			printf(", \"trigger_us\": %.4f, \"wake_mean_us\": %.4f, \"wake_last_us\": %.4f"
			       ", \"wake_p50_us\": %.4f, \"wake_p99_us\": %.4f, \"wake_max_us\": %.4f",
			       fl_median(s->trig, reps), fl_median(s->mean, reps), fl_median(s->last, reps),
			       fl_hist_quantile(&s->hist, 0.5) / 1e3,
			       fl_hist_quantile(&s->hist, 0.99) / 1e3, s->hist.max_ns / 1e3);
			printf(", \"wake_ratio\": ");
			fl_json_ci(stdout, &mr);
			printf(", \"last_ratio\": ");
			fl_json_ci(stdout, &lr);
			printf(", \"trigger_ratio\": ");
			fl_json_ci(stdout, &tr);
			printf(", \"trigger_us_reps\": ");
			fl_json_series(stdout, s->trig, reps, 1.0);
			printf(", \"wake_mean_us_reps\": ");
			fl_json_series(stdout, s->mean, reps, 1.0);
			printf(", \"wake_last_us_reps\": ");
			fl_json_series(stdout, s->last, reps, 1.0);
			printf(", \"by_order_us\": [");
			for (unsigned i = 0; i < w; i++)
				printf("%s%.4f", i ? ", " : "", n ? s->by_order[i] / n : 0);
			printf("], \"by_worker_us\": [");
			for (unsigned i = 0; i < w; i++)
				printf("%s%.4f", i ? ", " : "", n ? s->by_worker[i] / n : 0);
			printf("]}");
		}
		if (json)
			printf("]}");
		else
			printf("ratios: median of per-repetition ratios of the mean (and last) wake time "
			       "to %s, 95%% bootstrap interval (lower is better);\nthe A/A row is %s "
			       "against itself; seed %llu\n\n", o->m[o->base].name,
			       o->m[o->base].name, (unsigned long long)o->seed);
		if (pass == 1)
			fl_json_end();
	}
	for (unsigned k = 0; k < ncols; k++) {
		free(st[k].trig);
		free(st[k].mean);
		free(st[k].last);
		free(st[k].by_order);
		free(st[k].by_worker);
	}
	free(st);
	free(order);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "workers", required_argument, NULL, 'w' },
		{ "reps", required_argument, NULL, 'r' },
		{ "runs", required_argument, NULL, 'n' },
		{ "method", required_argument, NULL, 'M' },
		{ "group", required_argument, NULL, 'g' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "timeout-ms", required_argument, NULL, 1 },
		{ "sched", required_argument, NULL, 2 },
		{ "pin", no_argument, NULL, 3 },
		{ "quick", no_argument, NULL, 4 },
		{ "json", no_argument, NULL, 5 },
		{ "json-file", required_argument, NULL, 6 },
		{ "seed", required_argument, NULL, 7 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct opts o = { .reps = 0, .runs = 0, .timeout_ms = 60000 };
	const char *base = "futex-all";
	bool quick = false, methods_given = false, seed_set = false;
	uint64_t v, v2;
	int c, ret = 0;

	o.wmin = o.wmax = fl_online_cpus() > 1 ? fl_online_cpus() - 1 : 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:r:n:M:g:b:h", lo, NULL)) != -1) {
		switch (c) {
		case 'w': {
			char *dots = strstr(optarg, "..");

			if (dots) {
				*dots = '\0';
				if (fl_parse_u64(optarg, 1, MAX_WORKERS, &v) ||
				    fl_parse_u64(dots + 2, v, MAX_WORKERS, &v2)) {
					*dots = '.';
					bad("--workers (1..256 or A..B)", optarg);
				}
			} else if (fl_parse_u64(optarg, 1, MAX_WORKERS, &v)) {
				bad("--workers (1..256 or A..B)", optarg);
			} else {
				v2 = v;
			}
			o.wmin = (unsigned)v;
			o.wmax = (unsigned)v2;
			break;
		}
		case 'r':
			if (fl_parse_u64(optarg, 1, 100000, &o.reps))
				bad("--reps", optarg);
			break;
		case 'n':
			if (fl_parse_u64(optarg, 1, 1000000, &o.runs))
				bad("--runs", optarg);
			break;
		case 'M':
			if (add_method(&o, optarg))
				bad("--method", optarg);
			methods_given = true;
			break;
		case 'g':
			if (fl_parse_u64(optarg, 1, MAX_WORKERS, &v) || o.ngroups == 16)
				bad("--group", optarg);
			o.groups[o.ngroups++] = (unsigned)v;
			break;
		case 'b':
			base = optarg;
			break;
		case 1:
			if (fl_parse_u64(optarg, 1, 3600000, &o.timeout_ms))
				bad("--timeout-ms", optarg);
			break;
		case 2:
			if (fl_parse_sched(optarg, &o.sched))
				bad("--sched", optarg);
			break;
		case 3:
			o.pin = true;
			break;
		case 4:
			quick = true;
			break;
		case 5:
			o.json = true;
			break;
		case 6:
			o.json_file = optarg;
			break;
		case 7:
			if (fl_parse_u64(optarg, 0, UINT64_MAX, &o.seed))
				bad("--seed", optarg);
			seed_set = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			bad("option (missing value)", argv[optind - 1]);
			break;
		default:
			bad("option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad("argument", argv[optind]);
	if (!methods_given) {
		for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
			add_method(&o, kinds[i].name);
		for (size_t i = 0; i < sizeof(default_locks) / sizeof(*default_locks); i++) {
			char n[40];

			snprintf(n, sizeof(n), "lock:%s", default_locks[i]);
			add_method(&o, n);
		}
		if (!o.ngroups)
			for (unsigned k = 2; k < o.wmax && o.ngroups < 16; k++)
				o.groups[o.ngroups++] = k;
	}
	for (unsigned i = 0; i < o.ngroups; i++) {
		char n[40];

		snprintf(n, sizeof(n), "hybrid-k%u", o.groups[i]);
		if (add_method(&o, n))
			bad("--group (too many methods)", n);
	}
	o.nreq = methods_given ? o.nm : 0;
	if (!seed_set)
		o.seed = fl_now_ns() ^ ((uint64_t)getpid() << 32);
	if (add_method(&o, base))	/* the baseline is always measured */
		bad("--baseline", base);
	for (o.base = 0; strcmp(o.m[o.base].name, base); o.base++)
		;
	if (o.nm >= MAX_METHODS)
		bad("--method (too many)", base);
	if (!method_available(&o.m[o.base], o.wmin)) {
		fprintf(stderr, "wakebench: baseline %s unavailable here\n", base);
		return 1;
	}
	if (!o.reps)
		o.reps = quick ? 5 : 30;
	if (!o.runs)
		o.runs = quick ? 10 : 50;
	sched_now = o.sched;
	o.lose_wakeup = getenv("FUTEXLOCK_TEST_LOST_WAKEUP") != NULL;
	if (o.json_file) {
		o.json = false;
		if (fl_json_file_open(o.json_file))
			bad("--json-file (cannot write)", o.json_file);
	}
	if (!o.json)
		printf("# %s\n", fl_futex_lock_probe_line());
	if (o.json || o.json_file) {
		fl_json_begin();
		printf("{");
		fl_json_meta(stdout, "wakebench", o.seed);
		printf(", \"sched\": \"%s\", \"pin\": %s, \"baseline\": ",
		       fl_sched_name(o.sched), o.pin ? "true" : "false");
		fl_json_str(stdout, base);
		printf(", \"sweep\": [");
		fl_json_end();
	}
	for (unsigned w = o.wmin; w <= o.wmax; w++)
		ret |= run_sweep(&o, w, w == o.wmin);
	if (o.json || o.json_file) {
		fl_json_begin();
		printf("]}\n");
		fl_json_end();
	}
	if (o.nreq && !o.nreq_ran) {
		fprintf(stderr, "wakebench: none of the requested methods can run here\n");
		ret = 1;
	}
	return ret;
}
