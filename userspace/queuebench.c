// SPDX-License-Identifier: GPL-2.0
/*
 * queuebench - condvar vs semaphore job queues (after "Performance of
 * Semaphore Vs. Condition Variable", X-Plane 2010), with the futex locks.
 *
 * One producer (the main thread), W worker threads popping jobs.  Three
 * phases per block:
 *   launch     workers asleep in pop() on an empty queue (checked in
 *              /proc); t0; push W jobs; launch = time until the last of
 *              the W jobs has started (every worker running)
 *   throughput push J small jobs (fl_delay(work) each) into the sleeping
 *              pool; jobs per second until the last one is done
 *   prequeued  workers parked on a gate, the queue filled with P jobs,
 *              t0, gate opened: time until all P are done (the write-up's
 *              "queue already full when workers wake")
 * Every job id must run exactly once (checked after every phase); a
 * phase that does not finish within --timeout-ms fails, never hangs.
 * Repetitions are paired: every queue once per repetition in a fresh
 * random order plus the baseline queue twice (A/A control).
 */
#include "futexlock.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORKERS 256
#define MAX_QUEUES 24
#define JOB_GATE  0xfffffffeu	/* park on the gate */
#define JOB_STOP  0xffffffffu	/* leave */

enum qkind { Q_CV_SIGNAL, Q_CV_BCAST, Q_SEM_LIST, Q_RING };

struct qdesc {
	char name[40];
	enum qkind kind;
	const struct fl_lock_ops *ops;	/* Q_SEM_LIST: the list lock */
};

struct opts {
	unsigned workers;
	uint64_t reps, launches, jobs, prejobs, work, ring, timeout_ms;
	struct qdesc q[MAX_QUEUES];
	unsigned nq, base;
	enum fl_sched sched;
	bool pin, json, broken_ring;
	const char *json_file;	/* table to stdout, JSON here */
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: queuebench [options]\n"
"Job queue launch latency, small-job throughput and the pre-queued case.\n"
"  -w, --workers N   worker threads (default online CPUs)\n"
"  -r, --reps N      repetitions (default 20)\n"
"  -n, --launches N  launches per queue per repetition (default 20)\n"
"  -j, --jobs N      jobs in the throughput phase (default 20000)\n"
"  -p, --prequeued N jobs in the pre-queued phase (default 512, <= ring - workers)\n"
"  --work N          fl_delay() loops per job (default 100)\n"
"  --ring N          ring capacity of ring-2sem (default 1024)\n"
"  -Q, --queue Q     queue, repeatable (default all below)\n"
"  -b, --baseline Q  queue the ratios refer to, A/A row (default cond-signal)\n"
"  --timeout-ms N    a phase not done after N ms fails (default 10000)\n"
"  --sched P         other, fifo or rr;  --pin  worker i on CPU i+1\n"
"  --quick           -r 5 -n 10 -j 5000\n"
"  --json            JSON instead of the table\n"
"  --json-file F     the table to stdout and the JSON into F\n"
"  -h, --help        this text\n"
"Queues:\n"
"  cond-signal       pthread mutex + condvar, signal per push (X-Plane's old queue)\n"
"  cond-bcast        pthread mutex + condvar, broadcast per push\n"
"  sem+LOCK          list under LOCK + counting semaphore (glibc sem_t);\n"
"                    LOCK: spinlock (X-Plane's new queue), pthread, waitwake,\n"
"                    futex_lock, adaptive, pi, or any lockbench type\n"
"  ring-2sem         bounded ring, free/filled semaphores, atomic indices\n"
"                    (the write-up's \"future\" design, with per-slot sequence\n"
"                    numbers: without them a slow reader's slot is overwritten)\n"
"  --seed N          seed of the run order (default: time; printed)\n"
"Verdicts (JSON): launch and prequeue lower is better, Mjobs/s higher is\n"
"better (fl_decide() in lib/compare.c: >= 5 pairs, interval clear of 1\n"
"and of the two-sided A/A band; A/A row 'control', a failed row 'failed').\n"
"Exit: 0 ok, 1 a phase failed (lost or duplicated job, timeout) or none\n"
"of the -Q queues could run here, 2 bad usage.\n");
}

static void bad(const char *what, const char *arg)
{
	fprintf(stderr, "queuebench: bad %s: '%s'\n", what, arg ? arg : "");
	usage(stderr);
	exit(2);
}

static int add_queue(struct opts *o, const char *name)
{
	struct qdesc *q = &o->q[o->nq];

	for (unsigned i = 0; i < o->nq; i++)
		if (!strcmp(o->q[i].name, name))
			return 0;
	if (o->nq == MAX_QUEUES)
		return -1;
	memset(q, 0, sizeof(*q));
	snprintf(q->name, sizeof(q->name), "%s", name);
	if (!strcmp(name, "cond-signal"))
		q->kind = Q_CV_SIGNAL;
	else if (!strcmp(name, "cond-bcast"))
		q->kind = Q_CV_BCAST;
	else if (!strcmp(name, "ring-2sem"))
		q->kind = Q_RING;
	else if (!strncmp(name, "sem+", 4) && (q->ops = fl_lock_find_any(name + 4)))
		q->kind = Q_SEM_LIST;
	else
		return -1;
	o->nq++;
	return 0;
}

/* ---- the queues --------------------------------------------------------- */
struct slot {
	_Atomic uint64_t seq;
	_Atomic uint32_t job;
};

struct queue {
	const struct qdesc *d;
	bool broken;
	/* list: array FIFO of cap entries, head/tail under the lock */
	uint32_t *items;
	uint64_t cap, head, tail;
	struct fl_lock lock;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	sem_t filled, free;
	/* ring */
	struct slot *slots;
	_Alignas(FL_CACHELINE) _Atomic uint64_t widx;
	_Alignas(FL_CACHELINE) _Atomic uint64_t ridx;
};

static int q_init(struct queue *q, const struct qdesc *d, uint64_t cap,
		  uint64_t ring, bool broken)
{
	int r;

	memset(q, 0, sizeof(*q));
	q->d = d;
	q->broken = broken;
	if (d->kind == Q_RING) {
		q->cap = ring;
		q->slots = calloc(ring, sizeof(*q->slots));
		if (!q->slots)
			return ENOMEM;
		for (uint64_t i = 0; i < ring; i++)
			atomic_init(&q->slots[i].seq, i);
		sem_init(&q->free, 0, (unsigned)ring);
		sem_init(&q->filled, 0, 0);
		return 0;
	}
	q->cap = cap;
	q->items = calloc(cap, sizeof(*q->items));
	if (!q->items)
		return ENOMEM;
	if (d->kind == Q_SEM_LIST) {
		sem_init(&q->filled, 0, 0);
		r = fl_lock_init(&q->lock, d->ops);
		if (r)
			free(q->items);
		return r;
	}
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	return 0;
}

static void q_destroy(struct queue *q)
{
	if (q->d->kind == Q_RING) {
		sem_destroy(&q->free);
		sem_destroy(&q->filled);
		free(q->slots);
		return;
	}
	if (q->d->kind == Q_SEM_LIST) {
		sem_destroy(&q->filled);
		fl_lock_destroy(&q->lock);
	} else {
		pthread_mutex_destroy(&q->mu);
		pthread_cond_destroy(&q->cv);
	}
	free(q->items);
}

static void sem_wait_eintr(sem_t *s)
{
	while (sem_wait(s) && errno == EINTR)
		;
}

/* The list never fills: the caller sizes cap for everything in flight. */
static void q_push(struct queue *q, uint32_t job)
{
	struct fl_counters c = { 0 };
	uint64_t p;

	switch (q->d->kind) {
	case Q_CV_SIGNAL:
	case Q_CV_BCAST:
		pthread_mutex_lock(&q->mu);
		q->items[q->tail++ % q->cap] = job;
		if (q->d->kind == Q_CV_SIGNAL)
			pthread_cond_signal(&q->cv);
		else
			pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
		break;
	case Q_SEM_LIST:
		fl_lock(&q->lock, &c);
		q->items[q->tail++ % q->cap] = job;
		fl_unlock(&q->lock, &c);
		sem_post(&q->filled);
		break;
	case Q_RING:
		sem_wait_eintr(&q->free);
		p = atomic_fetch_add(&q->widx, 1);
		if (!q->broken) {	/* wait until the reader of the last lap is done */
			while (atomic_load_explicit(&q->slots[p % q->cap].seq,
						    memory_order_acquire) != p)
				fl_poll_pause();
		}
		atomic_store_explicit(&q->slots[p % q->cap].job, job, memory_order_relaxed);
		atomic_store_explicit(&q->slots[p % q->cap].seq, p + 1, memory_order_release);
		sem_post(&q->filled);
		break;
	}
}

static uint32_t q_pop(struct queue *q)
{
	struct fl_counters c = { 0 };
	uint32_t job;
	uint64_t p;

	switch (q->d->kind) {
	case Q_CV_SIGNAL:
	case Q_CV_BCAST:
		pthread_mutex_lock(&q->mu);
		while (q->head == q->tail)
			pthread_cond_wait(&q->cv, &q->mu);
		job = q->items[q->head++ % q->cap];
		pthread_mutex_unlock(&q->mu);
		return job;
	case Q_SEM_LIST:
		sem_wait_eintr(&q->filled);
		fl_lock(&q->lock, &c);
		job = q->items[q->head++ % q->cap];
		fl_unlock(&q->lock, &c);
		return job;
	case Q_RING:
	default:
		sem_wait_eintr(&q->filled);
		p = atomic_fetch_add(&q->ridx, 1);
		if (!q->broken) {
			while (atomic_load_explicit(&q->slots[p % q->cap].seq,
						    memory_order_acquire) != p + 1)
				fl_poll_pause();
		} else {
			sched_yield();	/* TEST ONLY: a reader delayed after its claim */
		}
		job = atomic_load_explicit(&q->slots[p % q->cap].job, memory_order_relaxed);
		atomic_store_explicit(&q->slots[p % q->cap].seq, p + q->cap,
				      memory_order_release);
		sem_post(&q->free);
		return job;
	}
}

/* ---- workers ------------------------------------------------------------ */
struct pool;

struct wk {
	pthread_t th;
	unsigned idx;
	pid_t tid;
	struct pool *p;
	char err[120];
	/* when this worker finished its last job of the phase (its own
	 * clock, so the phase end is not the main thread's polling time) */
	_Alignas(FL_CACHELINE) _Atomic uint64_t last_end;
};

struct pool {
	const struct opts *o;
	struct queue q;
	struct wk *wk;
	_Alignas(FL_CACHELINE) _Atomic uint32_t gate;
	_Alignas(FL_CACHELINE) _Atomic uint64_t done;
	_Atomic uint32_t *runs;		/* per job id: times run */
	_Atomic uint64_t *start;	/* per job id: start time (launch phase) */
	uint64_t njobs;			/* ids in the current phase */
	_Atomic uint64_t bad_id;
};

static void *worker_main(void *arg)
{
	struct wk *w = arg;
	struct pool *p = w->p;

	w->tid = fl_gettid();
	fl_thread_setup(w->idx + 1, p->o->pin, p->o->sched, 0, w->err, sizeof(w->err));
	for (;;) {
		uint32_t job = q_pop(&p->q), g;

		if (job == JOB_STOP)
			break;
		if (job == JOB_GATE) {
			g = atomic_load(&p->gate);
			while (atomic_load_explicit(&p->gate, memory_order_acquire) == g)
				fl_futex(&p->gate, FUTEX_WAIT_PRIVATE, g, NULL, NULL, 0);
			continue;
		}
		if (job >= p->njobs) {
			atomic_fetch_add(&p->bad_id, 1);
			continue;
		}
		atomic_store_explicit(&p->start[job], fl_now_ns(), memory_order_relaxed);
		fl_delay(p->o->work);
		atomic_fetch_add_explicit(&p->runs[job], 1, memory_order_relaxed);
		atomic_store_explicit(&w->last_end, fl_now_ns(), memory_order_relaxed);
		atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
	}
	return NULL;
}

/* Waits until 'want' jobs are done; checks each id ran once. */
static int phase_end(struct pool *p, uint64_t want, const char *phase, char *err,
		     size_t len)
{
	uint64_t end = fl_now_ns() + p->o->timeout_ms * 1000000ull;

	while (atomic_load_explicit(&p->done, memory_order_acquire) < want) {
		if (fl_now_ns() > end) {
			snprintf(err, len, "%s: only %llu of %llu jobs ran within %llu ms (job lost)",
				 phase, (unsigned long long)atomic_load(&p->done),
				 (unsigned long long)want, (unsigned long long)p->o->timeout_ms);
			return -1;
		}
		fl_poll_pause();
	}
	for (uint64_t i = 0; i < p->njobs; i++) {
		uint32_t n = atomic_load(&p->runs[i]);

		if (n != 1) {
			snprintf(err, len, "%s: job %llu ran %u times, not exactly once",
				 phase, (unsigned long long)i, n);
			return -1;
		}
	}
	if (atomic_load(&p->done) != want || atomic_load(&p->bad_id)) {
		snprintf(err, len, "%s: %llu jobs done, %llu expected, %llu unknown ids",
			 phase, (unsigned long long)atomic_load(&p->done),
			 (unsigned long long)want, (unsigned long long)atomic_load(&p->bad_id));
		return -1;
	}
	return 0;
}

/* the end of a phase: the latest job end any worker recorded */
static uint64_t phase_last_end(const struct pool *p)
{
	uint64_t last = 0;

	for (unsigned i = 0; i < p->o->workers; i++) {
		uint64_t t = atomic_load_explicit(&p->wk[i].last_end, memory_order_relaxed);

		if (t > last)
			last = t;
	}
	return last;
}

static void phase_start(struct pool *p, uint64_t njobs)
{
	p->njobs = njobs;
	for (unsigned i = 0; i < p->o->workers; i++)
		atomic_store(&p->wk[i].last_end, 0);
	for (uint64_t i = 0; i < njobs; i++) {
		atomic_store(&p->runs[i], 0);
		atomic_store(&p->start[i], 0);
	}
	atomic_store(&p->done, 0);
}

struct stats {
	bool available, failed;
	char err[200];
	double *launch, *post, *tput, *pre;	/* per repetition */
	struct fl_hist launch_hist;
};

static int run_block(const struct opts *o, const struct qdesc *d, struct stats *s,
		     unsigned rep)
{
	struct pool *p = aligned_alloc(FL_CACHELINE, (sizeof(*p) + FL_CACHELINE - 1) &
				       ~(size_t)(FL_CACHELINE - 1));
	unsigned w = o->workers, created = 0;
	uint64_t maxj = o->jobs > o->prejobs ? o->jobs : o->prejobs;
	double lsum = 0, psum = 0;
	pid_t *tids = calloc(w, sizeof(*tids));
	char serr[120] = "";
	int ret = 0, r;

	if (!p || !tids)
		abort();
	if (maxj < w)
		maxj = w;
	memset(p, 0, sizeof(*p));
	p->o = o;
	p->wk = aligned_alloc(FL_CACHELINE, (w * sizeof(*p->wk) + FL_CACHELINE - 1) &
			      ~(size_t)(FL_CACHELINE - 1));
	if (p->wk)
		memset(p->wk, 0, w * sizeof(*p->wk));
	p->runs = calloc(maxj, sizeof(*p->runs));
	p->start = calloc(maxj, sizeof(*p->start));
	if (!p->wk || !p->runs || !p->start)
		abort();
	r = q_init(&p->q, d, maxj + 2 * (uint64_t)w + 1, o->ring, o->broken_ring);
	if (r) {
		snprintf(s->err, sizeof(s->err), "queue init: %s", strerror(r));
		free(p->wk);
		free(p->runs);
		free(p->start);
		free(p);
		free(tids);
		return -1;
	}
	if (fl_thread_setup(0, o->pin, o->sched, 1, serr, sizeof(serr))) {
		snprintf(s->err, sizeof(s->err), "main thread: %s", serr);
		ret = -1;
	}
	for (unsigned i = 0; !ret && i < w; i++) {
		p->wk[i].idx = i;
		p->wk[i].p = p;
		r = pthread_create(&p->wk[i].th, NULL, worker_main, &p->wk[i]);
		if (r) {
			snprintf(s->err, sizeof(s->err), "pthread_create: %s", strerror(r));
			ret = -1;
			break;
		}
		created++;
	}
	/* tids: the workers set them first thing */
	for (unsigned i = 0; !ret && i < w; i++) {
		while (!((volatile struct wk *)&p->wk[i])->tid)
			fl_poll_pause();
		tids[i] = p->wk[i].tid;
	}
	/* launch */
	for (uint64_t n = 0; !ret && n < o->launches; n++) {
		uint64_t t0, t1, last = 0;

		phase_start(p, w);
		if (fl_wait_asleep(tids, w, o->timeout_ms * 1000000ull)) {
			snprintf(s->err, sizeof(s->err), "workers did not go to sleep");
			ret = -1;
			break;
		}
		t0 = fl_now_ns();
		for (unsigned i = 0; i < w; i++)
			q_push(&p->q, i);
		t1 = fl_now_ns();
		ret = phase_end(p, w, "launch", s->err, sizeof(s->err));
		for (unsigned i = 0; !ret && i < w; i++) {
			uint64_t st = atomic_load(&p->start[i]);

			if (st > last)
				last = st;
			fl_hist_add(&s->launch_hist, st > t0 ? st - t0 : 0);
		}
		lsum += (double)(last - t0) / 1e3;
		psum += (double)(t1 - t0) / 1e3;
	}
	/* throughput */
	if (!ret) {
		uint64_t t0;

		phase_start(p, o->jobs);
		if (fl_wait_asleep(tids, w, o->timeout_ms * 1000000ull)) {
			snprintf(s->err, sizeof(s->err), "workers did not go to sleep");
			ret = -1;
		} else {
			t0 = fl_now_ns();
			for (uint64_t i = 0; i < o->jobs; i++)
				q_push(&p->q, (uint32_t)i);
			ret = phase_end(p, o->jobs, "throughput", s->err, sizeof(s->err));
			/* t0 to the last job's end, as the workers saw it */
			if (!ret)
				s->tput[rep] = (double)o->jobs /
					       ((double)(phase_last_end(p) - t0) / 1e9) / 1e6;
		}
	}
	/* pre-queued: park everyone on the gate, fill, open */
	if (!ret) {
		uint64_t t0;

		phase_start(p, o->prejobs);
		for (unsigned i = 0; i < w; i++)
			q_push(&p->q, JOB_GATE);
		if (fl_wait_asleep(tids, w, o->timeout_ms * 1000000ull)) {
			snprintf(s->err, sizeof(s->err), "workers did not park");
			ret = -1;
		}
		/* asleep could still mean "in pop, gate token not yet taken" */
		for (int tries = 0; !ret && tries < 1000; tries++) {
			bool empty;

			if (d->kind == Q_RING) {
				int v;

				sem_getvalue(&p->q.filled, &v);
				empty = v <= 0;
			} else if (d->kind == Q_SEM_LIST) {
				int v;

				sem_getvalue(&p->q.filled, &v);
				empty = v <= 0;
			} else {
				pthread_mutex_lock(&p->q.mu);
				empty = p->q.head == p->q.tail;
				pthread_mutex_unlock(&p->q.mu);
			}
			if (empty && !fl_wait_asleep(tids, w, o->timeout_ms * 1000000ull))
				break;
			usleep(100);
		}
		if (!ret) {
			for (uint64_t i = 0; i < o->prejobs; i++)
				q_push(&p->q, (uint32_t)i);
			t0 = fl_now_ns();
			atomic_fetch_add_explicit(&p->gate, 1, memory_order_release);
			fl_futex(&p->gate, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
			ret = phase_end(p, o->prejobs, "prequeued", s->err, sizeof(s->err));
			if (!ret)
				s->pre[rep] = (double)(phase_last_end(p) - t0) / 1e3;
		}
	}
	/* leave: STOP for everyone, the gate opened in case someone is parked */
	atomic_fetch_add(&p->gate, 1);
	fl_futex(&p->gate, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	for (unsigned i = 0; i < created; i++)
		q_push(&p->q, JOB_STOP);
	for (unsigned i = 0; i < created; i++) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 10;
		if (pthread_timedjoin_np(p->wk[i].th, NULL, &ts)) {
			fprintf(stderr, "queuebench: %s: worker %u stuck; giving up (%s)\n",
				d->name, i, s->err);
			exit(1);
		}
	}
	if (!ret) {
		s->launch[rep] = lsum / o->launches;
		s->post[rep] = psum / o->launches;
	}
	q_destroy(&p->q);
	free(p->wk);
	free(p->runs);
	free(p->start);
	free(p);
	free(tids);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "workers", required_argument, NULL, 'w' },
		{ "reps", required_argument, NULL, 'r' },
		{ "launches", required_argument, NULL, 'n' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "prequeued", required_argument, NULL, 'p' },
		{ "work", required_argument, NULL, 1 },
		{ "ring", required_argument, NULL, 2 },
		{ "queue", required_argument, NULL, 'Q' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "timeout-ms", required_argument, NULL, 3 },
		{ "sched", required_argument, NULL, 4 },
		{ "pin", no_argument, NULL, 5 },
		{ "quick", no_argument, NULL, 6 },
		{ "json", no_argument, NULL, 7 },
		{ "json-file", required_argument, NULL, 8 },
		{ "seed", required_argument, NULL, 9 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const defq[] = {
		"cond-signal", "cond-bcast", "sem+spinlock", "sem+pthread",
		"sem+waitwake", "sem+futex_lock", "sem+adaptive", "sem+pi", "ring-2sem",
	};
	static struct opts o = { .work = 100, .ring = 1024, .timeout_ms = 10000,
				 .prejobs = 512 };
	const char *base = "cond-signal";
	bool quick = false, seed_set = false;
	uint64_t v;
	unsigned ncols, *order, nreq, nreq_ran = 0;
	struct stats *st;
	uint64_t seed = 0, seed0;
	char b1[64], b2[64], b3[64];
	int c, ret = 0;

	o.workers = fl_online_cpus();
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:r:n:j:p:Q:b:h", lo, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (fl_parse_u64(optarg, 1, MAX_WORKERS, &v))
				bad("--workers (1..256)", optarg);
			o.workers = (unsigned)v;
			break;
		case 'r':
			if (fl_parse_u64(optarg, 1, 100000, &o.reps))
				bad("--reps", optarg);
			break;
		case 'n':
			if (fl_parse_u64(optarg, 1, 1000000, &o.launches))
				bad("--launches", optarg);
			break;
		case 'j':
			if (fl_parse_u64(optarg, 1, 100000000, &o.jobs))
				bad("--jobs", optarg);
			break;
		case 'p':
			if (fl_parse_u64(optarg, 1, 100000000, &o.prejobs))
				bad("--prequeued", optarg);
			break;
		case 1:
			if (fl_parse_u64(optarg, 0, 100000000, &o.work))
				bad("--work", optarg);
			break;
		case 2:
			if (fl_parse_u64(optarg, 2, 1u << 24, &o.ring))
				bad("--ring", optarg);
			break;
		case 'Q':
			if (add_queue(&o, optarg))
				bad("--queue", optarg);
			break;
		case 'b':
			base = optarg;
			break;
		case 3:
			if (fl_parse_u64(optarg, 1, 3600000, &o.timeout_ms))
				bad("--timeout-ms", optarg);
			break;
		case 4:
			if (fl_parse_sched(optarg, &o.sched))
				bad("--sched", optarg);
			break;
		case 5:
			o.pin = true;
			break;
		case 6:
			quick = true;
			break;
		case 7:
			o.json = true;
			break;
		case 8:
			o.json_file = optarg;
			break;
		case 9:
			if (fl_parse_u64(optarg, 0, UINT64_MAX, &seed))
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
	nreq = o.nq;		/* asked for with -Q */
	if (!o.nq)
		for (size_t i = 0; i < sizeof(defq) / sizeof(*defq); i++)
			add_queue(&o, defq[i]);
	if (!seed_set)
		seed = fl_now_ns() ^ ((uint64_t)getpid() << 32);
	seed0 = seed;
	if (add_queue(&o, base))
		bad("--baseline", base);
	for (o.base = 0; strcmp(o.q[o.base].name, base); o.base++)
		;
	if (o.prejobs + o.workers > o.ring) {
		char pv[24];

		snprintf(pv, sizeof(pv), "%llu", (unsigned long long)o.prejobs);
		bad("--prequeued (must be <= ring - workers)", pv);
	}
	if (!o.reps)
		o.reps = quick ? 5 : 20;
	if (!o.launches)
		o.launches = quick ? 10 : 20;
	if (!o.jobs)
		o.jobs = quick ? 5000 : 20000;
	o.broken_ring = getenv("FUTEXLOCK_TEST_BROKEN_QUEUE") != NULL;
	if (o.json_file) {
		o.json = false;
		if (fl_json_file_open(o.json_file))
			bad("--json-file (cannot write)", o.json_file);
	}
	if (o.q[o.base].kind == Q_SEM_LIST && !fl_lock_available(o.q[o.base].ops)) {
		fprintf(stderr, "queuebench: baseline %s unavailable: %s\n", base,
			FL_NO_FUTEX_LOCK_MSG);
		return 1;
	}
	ncols = o.nq + 1;
	order = calloc(ncols, sizeof(*order));
	st = calloc(ncols, sizeof(*st));
	if (!order || !st)
		abort();
	for (unsigned k = 0; k < ncols; k++) {
		const struct qdesc *d = &o.q[k == o.nq ? o.base : k];

		st[k].available = d->kind != Q_SEM_LIST || fl_lock_available(d->ops);
		st[k].launch = calloc(o.reps, sizeof(double));
		st[k].post = calloc(o.reps, sizeof(double));
		st[k].tput = calloc(o.reps, sizeof(double));
		st[k].pre = calloc(o.reps, sizeof(double));
		if (!st[k].launch || !st[k].post || !st[k].tput || !st[k].pre)
			abort();
		fl_hist_init(&st[k].launch_hist);
		order[k] = k;
		if (k < nreq && st[k].available)
			nreq_ran++;
	}
	for (uint64_t rep = 0; rep < o.reps; rep++) {
		fl_shuffle(order, ncols, &seed);
		for (unsigned j = 0; j < ncols; j++) {
			unsigned k = order[j];
			const struct qdesc *d = &o.q[k == o.nq ? o.base : k];

			if (!st[k].available || st[k].failed)
				continue;
			if (run_block(&o, d, &st[k], (unsigned)rep)) {
				st[k].failed = true;
				ret = 1;
				fprintf(stderr, "queuebench: %s: %s\n", d->name, st[k].err);
			}
		}
	}
	for (int pass = 0; pass < 2; pass++) {
		bool json = pass == 1 || o.json;

		if (pass == 1 && !o.json_file)
			break;
		if (pass == 1)
			fl_json_begin();
	if (json) {
			printf("{");
			fl_json_meta(stdout, "queuebench", seed0);
			printf(", \"workers\": %u, \"reps\": %llu, \"launches\": %llu, \"jobs\": %llu"
			       ", \"prequeued\": %llu, \"work\": %llu, \"sched\": \"%s\", \"pin\": %s"
			       ", \"baseline\": ", o.workers, (unsigned long long)o.reps,
			       (unsigned long long)o.launches, (unsigned long long)o.jobs,
			       (unsigned long long)o.prejobs, (unsigned long long)o.work,
			       fl_sched_name(o.sched), o.pin ? "true" : "false");
			fl_json_str(stdout, base);
			printf(", \"rows\": [");
		} else {
			printf("# %s\n", fl_futex_lock_probe_line());
			printf("queuebench: %u workers; %llu repetitions (paired, random order) of: %llu launches"
			       " of %u jobs, %llu jobs for throughput, %llu pre-queued; work %llu loops;"
			       " sched %s; pin %s\n", o.workers, (unsigned long long)o.reps,
			       (unsigned long long)o.launches, o.workers, (unsigned long long)o.jobs,
			       (unsigned long long)o.prejobs, (unsigned long long)o.work,
			       fl_sched_name(o.sched), o.pin ? "yes" : "no");
			printf("%-22s %9s %9s %-18s %9s %-18s %9s %-18s\n", "queue", "post us",
			       "launch us", "launch/base", "Mjobs/s", "tput/base", "prequeue",
			       "prequeue/base");
			printf("%-22s %9s %9s %-18s %9s %-18s %9s %-18s\n", "", "(median)",
			       "(median)", "[95% CI]", "(median)", "[95% CI]", "us (med)", "[95% CI]");
		}
		for (unsigned k = 0; k < ncols; k++) {
			const struct qdesc *d = &o.q[k == o.nq ? o.base : k];
			struct stats *s = &st[k], *bs = &st[o.base];
			struct fl_ratio_ci lr, tr, pr;
			char name[56];

			snprintf(name, sizeof(name), "%s%s", d->name, k == o.nq ? " (A/A)" : "");
			/* the A/A column is o.nq */
			fl_compare(s->launch, bs->launch, st[o.nq].launch, o.reps,
				   FL_LOWER_IS_BETTER, &lr);
			fl_compare(s->tput, bs->tput, st[o.nq].tput, o.reps,
				   FL_HIGHER_IS_BETTER, &tr);
			fl_compare(s->pre, bs->pre, st[o.nq].pre, o.reps,
				   FL_LOWER_IS_BETTER, &pr);
			if (k == o.base)
				lr.n = tr.n = pr.n = 0;
			if (s->failed) {	/* no verdict from a row that failed */
				fl_fail(&lr);
				fl_fail(&tr);
				fl_fail(&pr);
			}
			if (!json) {
				if (!s->available)
					printf("%-22s unavailable\n", name);
				else if (s->failed)
					printf("%-22s FAILED: %s\n", name, s->err);
				else
					printf("%-22s %9.2f %9.2f %-18s %9.3f %-18s %9.1f %-18s\n", name,
					       fl_median(s->post, o.reps), fl_median(s->launch, o.reps),
					       k == o.base ? "(baseline)" : fl_ci_str(&lr, b1, sizeof(b1)),
					       fl_median(s->tput, o.reps),
					       k == o.base ? "(baseline)" : fl_ci_str(&tr, b2, sizeof(b2)),
					       fl_median(s->pre, o.reps),
					       k == o.base ? "(baseline)" : fl_ci_str(&pr, b3, sizeof(b3)));
				continue;
			}
			printf("%s{\"queue\": ", k ? ", " : "");
			fl_json_str(stdout, d->name);
			printf(", \"aa\": %s, \"available\": %s, \"failed\": %s, \"error\": ",
			       k == o.nq ? "true" : "false", s->available ? "true" : "false",
			       s->failed ? "true" : "false");
			fl_json_str(stdout, s->failed ? s->err : "");
			printf(", \"post_us\": %.4f, \"launch_us\": %.4f, \"mjobs_s\": %.5f, \"prequeued_us\": %.4f"
			       ", \"start_p50_us\": %.4f, \"start_p99_us\": %.4f, \"launch_ratio\": ",
			       fl_median(s->post, o.reps), fl_median(s->launch, o.reps),
			       fl_median(s->tput, o.reps), fl_median(s->pre, o.reps),
			       fl_hist_quantile(&s->launch_hist, 0.5) / 1e3,
			       fl_hist_quantile(&s->launch_hist, 0.99) / 1e3);
			fl_json_ci(stdout, &lr);
			printf(", \"tput_ratio\": ");
			fl_json_ci(stdout, &tr);
			printf(", \"prequeued_ratio\": ");
			fl_json_ci(stdout, &pr);
			printf(", \"launch_us_reps\": ");
			fl_json_series(stdout, s->launch, o.reps, 1.0);
			printf(", \"mjobs_s_reps\": ");
			fl_json_series(stdout, s->tput, o.reps, 1.0);
			printf(", \"prequeued_us_reps\": ");
			fl_json_series(stdout, s->pre, o.reps, 1.0);
			printf("}");
		}
		if (json)
			printf("]}\n");
		else
			printf("ratios: median of per-repetition ratios to %s, 95%% bootstrap interval "
			       "(launch and prequeue: < 1 is faster; Mjobs/s: > 1 is faster); the A/A "
			       "row is %s against itself; seed %llu\n", base, base,
			       (unsigned long long)seed0);
		if (pass == 1)
			fl_json_end();
	}
	for (unsigned k = 0; k < ncols; k++) {
		free(st[k].launch);
		free(st[k].post);
		free(st[k].tput);
		free(st[k].pre);
	}
	free(st);
	free(order);
	if (nreq && !nreq_ran) {
		fprintf(stderr, "queuebench: none of the requested queues can run here (%s)\n",
			FL_NO_FUTEX_LOCK_MSG);
		ret = 1;
	}
	return ret;
}
