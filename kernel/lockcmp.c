// SPDX-License-Identifier: GPL-2.0
/*
 * lockcmp: struct mutex versus struct semaphore, after mutex-design.txt
 *
 * N kthreads loop for a fixed time: take the lock under test, do @hold work
 * units on shared cachelines, release it, do @delay work units on per-thread
 * data.  The run reports throughput, CPU utilisation from the scheduler's
 * own accounting (se.sum_exec_runtime), context switches and the longest
 * single acquire wait, so the table of Ingo Molnar's mutex-design.txt
 * (semaphore vs mutex: loops/sec, CPU utilisation, loops/sec per 1% CPU)
 * can be measured on the running kernel.  rwsem (write side), rt_mutex and
 * spinlock are reference rows.
 *
 * Interface (see Documentation/mutex-vs-semaphore.md):
 *   /sys/kernel/debug/lockcmp/control  write "type=mutex threads=4 ..." to
 *                                      start a run (asynchronous), "stop" to
 *                                      abort it; read for the state.
 *   /sys/kernel/debug/lockcmp/results  one "key: value" block per run, each
 *                                      block ends with a blank line; any
 *                                      write clears the kept results.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rtmutex.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/semaphore.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#define LOCKCMP_MAX_THREADS	1024U
#define LOCKCMP_MAX_DURATION_MS	300000
#define LOCKCMP_MAX_UNITS	100000
#define LOCKCMP_MAX_LINES	1024
#define LOCKCMP_PRIV_LINES	4
#define LOCKCMP_KEEP_RESULTS	32
#define LOCKCMP_CTL_MAX		256
/* How long the controller waits for workers to leave their loops. */
#define LOCKCMP_DRAIN_SECS	60

enum lockcmp_type {
	LOCKCMP_MUTEX,
	LOCKCMP_SEMAPHORE,
	LOCKCMP_RWSEM,
	LOCKCMP_RT_MUTEX,
	LOCKCMP_SPINLOCK,
	LOCKCMP_NR_TYPES,
};

static const char * const lockcmp_type_names[LOCKCMP_NR_TYPES] = {
	[LOCKCMP_MUTEX]		= "mutex",
	[LOCKCMP_SEMAPHORE]	= "semaphore",
	[LOCKCMP_RWSEM]		= "rwsem",
	[LOCKCMP_RT_MUTEX]	= "rt_mutex",
	[LOCKCMP_SPINLOCK]	= "spinlock",
};

static char *type = "mutex";
module_param(type, charp, 0444);
MODULE_PARM_DESC(type, "Default lock type: mutex, semaphore, rwsem, rt_mutex, spinlock");

static int threads = -1;
module_param(threads, int, 0444);
MODULE_PARM_DESC(threads, "Default number of kthreads (-1: 2 x online CPUs)");

static unsigned int duration_ms = 5000;
module_param(duration_ms, uint, 0444);
MODULE_PARM_DESC(duration_ms, "Default run length in milliseconds");

static unsigned int hold = 50;
module_param(hold, uint, 0444);
MODULE_PARM_DESC(hold, "Default work units inside the critical section (shared data)");

static unsigned int delay = 50;
module_param(delay, uint, 0444);
MODULE_PARM_DESC(delay, "Default work units outside the critical section (per-thread data)");

static unsigned int lines = 4;
module_param(lines, uint, 0444);
MODULE_PARM_DESC(lines, "Default number of shared cachelines touched by the hold work");

struct lockcmp_params {
	enum lockcmp_type type;
	unsigned int threads;		/* 0 here means "2 x online CPUs" */
	unsigned int duration_ms;
	unsigned int hold;
	unsigned int delay;
	unsigned int lines;
};

struct lockcmp_line {
	u64 val;
} ____cacheline_aligned_in_smp;

struct lockcmp_run;

struct lockcmp_worker {
	struct lockcmp_line priv[LOCKCMP_PRIV_LINES];
	struct lockcmp_run *run;
	struct task_struct *task;
	u64 loops;
	u64 max_wait_ns;
	u64 sum_wait_ns;
	u64 runtime_ns;
	unsigned long nvcsw;
	unsigned long nivcsw;
};

struct lockcmp_run {
	struct lockcmp_params p;
	unsigned int id;
	unsigned int online_cpus;

	/* The lock under test: only the one selected by p.type is used. */
	struct mutex mutex;
	struct semaphore sem;
	struct rw_semaphore rwsem;
	struct rt_mutex rtm;
	spinlock_t spin;		/* lock under test, protects shared[] */

	struct lockcmp_line *shared;	/* p.lines cachelines, hold work */
	u64 protected_count;		/* ++ under the lock, checks exclusion */

	bool stop;			/* workers leave their loop */
	bool abort;			/* "stop" written to control */
	bool finished;			/* results appended, controller idle */
	atomic_t done;			/* workers out of their loop */
	wait_queue_head_t done_wq;
	wait_queue_head_t ctl_wq;
	ktime_t start;
	ktime_t deadline;		/* workers leave their loop after it */
	ktime_t drained;		/* the last worker left its loop */
	u64 reap_ns;			/* then until all workers exited */

	struct task_struct *ctl;
	struct lockcmp_worker **workers;
};

struct lockcmp_result {
	struct list_head node;
	unsigned int len;
	char text[];
};

/* ctl_mutex protects cur_run and next_id. */
static DEFINE_MUTEX(ctl_mutex);
static struct lockcmp_run *cur_run;
static unsigned int next_id = 1;

/* results_mutex protects the results list. */
static DEFINE_MUTEX(results_mutex);
static LIST_HEAD(results_list);
static unsigned int results_count;

static struct dentry *lockcmp_dir;
static struct lockcmp_params lockcmp_defaults;

static void lockcmp_lock(struct lockcmp_run *run)
{
	switch (run->p.type) {
	case LOCKCMP_MUTEX:
		mutex_lock(&run->mutex);
		break;
	case LOCKCMP_SEMAPHORE:
		down(&run->sem);
		break;
	case LOCKCMP_RWSEM:
		down_write(&run->rwsem);
		break;
	case LOCKCMP_RT_MUTEX:
		rt_mutex_lock(&run->rtm);
		break;
	case LOCKCMP_SPINLOCK:
		spin_lock(&run->spin);
		break;
	default:
		WARN_ON_ONCE(1);
	}
}

static void lockcmp_unlock(struct lockcmp_run *run)
{
	switch (run->p.type) {
	case LOCKCMP_MUTEX:
		mutex_unlock(&run->mutex);
		break;
	case LOCKCMP_SEMAPHORE:
		up(&run->sem);
		break;
	case LOCKCMP_RWSEM:
		up_write(&run->rwsem);
		break;
	case LOCKCMP_RT_MUTEX:
		rt_mutex_unlock(&run->rtm);
		break;
	case LOCKCMP_SPINLOCK:
		spin_unlock(&run->spin);
		break;
	default:
		WARN_ON_ONCE(1);
	}
}

/*
 * One work unit is a read-modify-write of one cacheline; @pos walks
 * round-robin over @nr lines so consecutive units touch different lines.
 */
static noinline void lockcmp_work(struct lockcmp_line *line, unsigned int nr,
				  unsigned int units, unsigned int *pos)
{
	unsigned int i, j = *pos;

	for (i = 0; i < units; i++) {
		WRITE_ONCE(line[j].val, READ_ONCE(line[j].val) + 1);
		if (++j == nr)
			j = 0;
	}
	*pos = j;
}

static int lockcmp_worker_fn(void *arg)
{
	struct lockcmp_worker *w = arg;
	struct lockcmp_run *run = w->run;
	unsigned long nvcsw = current->nvcsw;
	unsigned long nivcsw = current->nivcsw;
	unsigned int spos = 0, ppos = 0;
	u64 wait;
	ktime_t t;

	/*
	 * Each worker watches the deadline itself: with many CPU-bound
	 * threads on PREEMPT_NONE the controller may get a CPU late.
	 */
	while (!READ_ONCE(run->stop)) {
		t = ktime_get();
		if (ktime_compare(t, run->deadline) >= 0)
			break;
		lockcmp_lock(run);
		wait = ktime_to_ns(ktime_sub(ktime_get(), t));
		lockcmp_work(run->shared, run->p.lines, run->p.hold, &spos);
		run->protected_count++;
		lockcmp_unlock(run);

		w->loops++;
		w->sum_wait_ns += wait;
		if (wait > w->max_wait_ns)
			w->max_wait_ns = wait;
		lockcmp_work(w->priv, LOCKCMP_PRIV_LINES, run->p.delay, &ppos);
		/* PREEMPT_NONE: let the other threads onto this CPU. */
		cond_resched();
	}
	w->nvcsw = current->nvcsw - nvcsw;
	w->nivcsw = current->nivcsw - nivcsw;

	if (atomic_inc_return(&run->done) == run->p.threads) {
		run->drained = ktime_get();
		wake_up(&run->done_wq);
	}

	/* Sleep until the controller collects us with kthread_stop(). */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void lockcmp_put_u64_list(struct seq_buf *s, const char *key,
				 struct lockcmp_run *run, size_t offset)
{
	unsigned int i;

	seq_buf_printf(s, "%s:", key);
	for (i = 0; i < run->p.threads; i++)
		seq_buf_printf(s, " %llu",
			       *(u64 *)((char *)run->workers[i] + offset));
	seq_buf_putc(s, '\n');
}

static void lockcmp_put_ulong_list(struct seq_buf *s, const char *key,
				   struct lockcmp_run *run, size_t offset)
{
	unsigned int i;

	seq_buf_printf(s, "%s:", key);
	for (i = 0; i < run->p.threads; i++)
		seq_buf_printf(s, " %lu",
			       *(unsigned long *)((char *)run->workers[i] + offset));
	seq_buf_putc(s, '\n');
}

/* Format the finished run as one results block and append it. */
static void lockcmp_report(struct lockcmp_run *run, const char *status, u64 wall_ns)
{
	u64 loops = 0, runtime = 0, max_wait = 0, sum_wait = 0;
	u64 min_loops = U64_MAX, loops_per_sec = 0, util_ppm = 0, per_pct = 0;
	unsigned long nvcsw = 0, nivcsw = 0;
	struct lockcmp_result *res, *old;
	struct seq_buf s;
	unsigned int i;
	size_t size;

	for (i = 0; i < run->p.threads; i++) {
		struct lockcmp_worker *w = run->workers[i];

		loops += w->loops;
		min_loops = min(min_loops, w->loops);
		runtime += w->runtime_ns;
		sum_wait += w->sum_wait_ns;
		max_wait = max(max_wait, w->max_wait_ns);
		nvcsw += w->nvcsw;
		nivcsw += w->nivcsw;
	}
	if (wall_ns) {
		loops_per_sec = mul_u64_u64_div_u64(loops, NSEC_PER_SEC, wall_ns);
		util_ppm = mul_u64_u64_div_u64(runtime, 1000000,
					       wall_ns * run->online_cpus);
	}
	/*
	 * loops/sec per 1% CPU = (loops / wall) / (100 * runtime / (wall * cpus))
	 *                      = loops * cpus * 10^7 / runtime_ns
	 */
	if (runtime)
		per_pct = mul_u64_u64_div_u64(loops, 10000000ULL * run->online_cpus,
					      runtime);

	size = 2048 + (size_t)run->p.threads * 5 * 22;
	res = kvzalloc(sizeof(*res) + size, GFP_KERNEL);
	if (!res) {
		pr_err("run %u: no memory for the results block\n", run->id);
		return;
	}
	seq_buf_init(&s, res->text, size);
	seq_buf_printf(&s, "run: %u\n", run->id);
	seq_buf_printf(&s, "status: %s\n", status);
	seq_buf_printf(&s, "type: %s\n", lockcmp_type_names[run->p.type]);
	seq_buf_printf(&s, "threads: %u\n", run->p.threads);
	seq_buf_printf(&s, "online_cpus: %u\n", run->online_cpus);
	seq_buf_printf(&s, "duration_ms: %u\n", run->p.duration_ms);
	seq_buf_printf(&s, "hold: %u\n", run->p.hold);
	seq_buf_printf(&s, "delay: %u\n", run->p.delay);
	seq_buf_printf(&s, "lines: %u\n", run->p.lines);
	seq_buf_printf(&s, "wall_ns: %llu\n", wall_ns);
	seq_buf_printf(&s, "overrun_ns: %lld\n",
		       max_t(s64, 0, ktime_to_ns(ktime_sub(run->drained, run->deadline))));
	seq_buf_printf(&s, "reap_ns: %llu\n", run->reap_ns);
	seq_buf_printf(&s, "loops: %llu\n", loops);
	seq_buf_printf(&s, "min_thread_loops: %llu\n", run->p.threads ? min_loops : 0);
	seq_buf_printf(&s, "protected_count: %llu\n", run->protected_count);
	seq_buf_printf(&s, "loops_per_sec: %llu\n", loops_per_sec);
	seq_buf_printf(&s, "runtime_ns: %llu\n", runtime);
	seq_buf_printf(&s, "cpu_util_ppm: %llu\n", util_ppm);
	seq_buf_printf(&s, "cpu_util_pct: %llu\n", div_u64(util_ppm + 5000, 10000));
	seq_buf_printf(&s, "loops_per_sec_per_pct_cpu: %llu\n", per_pct);
	seq_buf_printf(&s, "nvcsw: %lu\n", nvcsw);
	seq_buf_printf(&s, "nivcsw: %lu\n", nivcsw);
	seq_buf_printf(&s, "max_wait_ns: %llu\n", max_wait);
	seq_buf_printf(&s, "avg_wait_ns: %llu\n", loops ? div64_u64(sum_wait, loops) : 0);
	lockcmp_put_u64_list(&s, "thread_loops", run,
			     offsetof(struct lockcmp_worker, loops));
	lockcmp_put_u64_list(&s, "thread_runtime_ns", run,
			     offsetof(struct lockcmp_worker, runtime_ns));
	lockcmp_put_ulong_list(&s, "thread_nvcsw", run,
			       offsetof(struct lockcmp_worker, nvcsw));
	lockcmp_put_ulong_list(&s, "thread_nivcsw", run,
			       offsetof(struct lockcmp_worker, nivcsw));
	lockcmp_put_u64_list(&s, "thread_max_wait_ns", run,
			     offsetof(struct lockcmp_worker, max_wait_ns));
	seq_buf_putc(&s, '\n');
	if (seq_buf_has_overflowed(&s))
		pr_warn("run %u: results block truncated\n", run->id);
	res->len = seq_buf_used(&s);

	mutex_lock(&results_mutex);
	list_add_tail(&res->node, &results_list);
	if (++results_count > LOCKCMP_KEEP_RESULTS) {
		old = list_first_entry(&results_list, struct lockcmp_result, node);
		list_del(&old->node);
		kvfree(old);
		results_count--;
	}
	mutex_unlock(&results_mutex);

	pr_info("run %u %s: type=%s threads=%u loops=%llu loops/sec=%llu cpu=%llu.%02llu%%\n",
		run->id, status, lockcmp_type_names[run->p.type], run->p.threads,
		loops, loops_per_sec, div_u64(util_ppm, 10000),
		div_u64(util_ppm % 10000, 100));
}

static bool lockcmp_ctl_should_end(struct lockcmp_run *run)
{
	return kthread_should_stop() || READ_ONCE(run->abort);
}

/*
 * The controller owns one run: it starts the workers, sleeps for the
 * duration (or until "stop" / module unload), stops and collects the
 * workers, appends the results block, then idles until reaped.
 */
static int lockcmp_ctl_fn(void *arg)
{
	struct lockcmp_run *run = arg;
	const char *status = "ok";
	ktime_t deadline, now, end;
	unsigned long left;
	unsigned int i;
	long drained;

	/*
	 * The workers have not run their function yet, but they did run
	 * kthread() up to its first sleep: that runtime is before the
	 * window, so take it as the baseline.
	 */
	for (i = 0; i < run->p.threads; i++)
		run->workers[i]->runtime_ns =
			READ_ONCE(run->workers[i]->task->se.sum_exec_runtime);
	run->start = ktime_get();
	deadline = ktime_add_ms(run->start, run->p.duration_ms);
	run->deadline = deadline;
	for (i = 0; i < run->p.threads; i++)
		wake_up_process(run->workers[i]->task);

	/* ktime, not jiffies: the wall time must not come out shorter. */
	for (;;) {
		now = ktime_get();
		if (ktime_compare(now, deadline) >= 0)
			break;
		left = nsecs_to_jiffies(ktime_to_ns(ktime_sub(deadline, now))) + 1;
		wait_event_interruptible_timeout(run->ctl_wq,
						 lockcmp_ctl_should_end(run), left);
		if (lockcmp_ctl_should_end(run)) {
			status = "aborted";
			break;
		}
	}

	WRITE_ONCE(run->stop, true);
	drained = wait_event_timeout(run->done_wq,
				     atomic_read(&run->done) == run->p.threads,
				     LOCKCMP_DRAIN_SECS * HZ);
	if (drained) {
		/*
		 * Every worker has left its loop and is (about to be) asleep:
		 * runtime up to here is the run's, the exit path is not.
		 */
		for (i = 0; i < run->p.threads; i++) {
			struct lockcmp_worker *w = run->workers[i];

			w->runtime_ns = READ_ONCE(w->task->se.sum_exec_runtime) -
					w->runtime_ns;
		}
	} else {
		pr_warn("run %u: workers slow to finish, still waiting\n", run->id);
		status = "slow_drain";
	}
	for (i = 0; i < run->p.threads; i++) {
		struct lockcmp_worker *w = run->workers[i];

		kthread_stop(w->task);
		/* The task is dead: its runtime is final. */
		if (!drained)
			w->runtime_ns = w->task->se.sum_exec_runtime - w->runtime_ns;
		put_task_struct(w->task);
		w->task = NULL;
	}
	end = ktime_get();
	if (!drained)
		run->drained = end;	/* wall then includes the reaping */

	run->reap_ns = ktime_to_ns(ktime_sub(end, run->drained));
	lockcmp_report(run, status, ktime_to_ns(ktime_sub(run->drained, run->start)));
	/* Pairs with lockcmp_running(): the results block is visible first. */
	smp_store_release(&run->finished, true);

	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void lockcmp_free_run(struct lockcmp_run *run)
{
	unsigned int i;

	if (!run)
		return;
	if (run->workers) {
		for (i = 0; i < run->p.threads; i++)
			kfree(run->workers[i]);
		kvfree(run->workers);
	}
	kfree(run->shared);
	mutex_destroy(&run->mutex);
	kfree(run);
}

/* Stop (if needed) and free the current run.  Caller holds ctl_mutex. */
static void lockcmp_reap(void)
{
	struct lockcmp_run *run = cur_run;

	if (!run)
		return;
	kthread_stop(run->ctl);
	put_task_struct(run->ctl);
	lockcmp_free_run(run);
	cur_run = NULL;
}

/* Allocate a run and create (but do not wake) all of its kthreads. */
static int lockcmp_start(const struct lockcmp_params *p)
{
	struct lockcmp_run *run;
	struct task_struct *t;
	unsigned int i;
	int ret = -ENOMEM;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->p = *p;
	run->online_cpus = num_online_cpus();
	if (!run->p.threads)
		run->p.threads = min(2 * run->online_cpus, LOCKCMP_MAX_THREADS);
	mutex_init(&run->mutex);
	sema_init(&run->sem, 1);
	init_rwsem(&run->rwsem);
	rt_mutex_init(&run->rtm);
	spin_lock_init(&run->spin);
	atomic_set(&run->done, 0);
	init_waitqueue_head(&run->done_wq);
	init_waitqueue_head(&run->ctl_wq);

	run->shared = kcalloc(run->p.lines, sizeof(*run->shared), GFP_KERNEL);
	run->workers = kvcalloc(run->p.threads, sizeof(*run->workers), GFP_KERNEL);
	if (!run->shared || !run->workers)
		goto err_free;
	for (i = 0; i < run->p.threads; i++) {
		run->workers[i] = kzalloc(sizeof(*run->workers[i]), GFP_KERNEL);
		if (!run->workers[i])
			goto err_free;
		run->workers[i]->run = run;
	}

	for (i = 0; i < run->p.threads; i++) {
		t = kthread_create(lockcmp_worker_fn, run->workers[i],
				   "lockcmp/%u", i);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			goto err_stop;
		}
		get_task_struct(t);
		run->workers[i]->task = t;
	}
	t = kthread_create(lockcmp_ctl_fn, run, "lockcmp_ctl");
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		goto err_stop;
	}
	get_task_struct(t);
	run->ctl = t;
	run->id = next_id++;
	cur_run = run;
	wake_up_process(t);
	return 0;

err_stop:
	/* Never woken: kthread_stop() makes them exit without running. */
	for (i = 0; i < run->p.threads && run->workers[i]->task; i++) {
		kthread_stop(run->workers[i]->task);
		put_task_struct(run->workers[i]->task);
	}
err_free:
	pr_err("cannot start a run: %d\n", ret);
	lockcmp_free_run(run);
	return ret;
}

static int lockcmp_parse_type(const char *s)
{
	int i;

	for (i = 0; i < LOCKCMP_NR_TYPES; i++)
		if (!strcmp(s, lockcmp_type_names[i]))
			return i;
	return -EINVAL;
}

static int lockcmp_check(const struct lockcmp_params *p)
{
	if (p->threads > LOCKCMP_MAX_THREADS) {
		pr_err("threads=%u out of range 1..%u\n", p->threads, LOCKCMP_MAX_THREADS);
		return -EINVAL;
	}
	if (!p->duration_ms || p->duration_ms > LOCKCMP_MAX_DURATION_MS) {
		pr_err("duration_ms=%u out of range 1..%u\n", p->duration_ms,
		       LOCKCMP_MAX_DURATION_MS);
		return -EINVAL;
	}
	if (p->hold > LOCKCMP_MAX_UNITS || p->delay > LOCKCMP_MAX_UNITS) {
		pr_err("hold=%u delay=%u: at most %u work units each\n", p->hold,
		       p->delay, LOCKCMP_MAX_UNITS);
		return -EINVAL;
	}
	if (!p->lines || p->lines > LOCKCMP_MAX_LINES) {
		pr_err("lines=%u out of range 1..%u\n", p->lines, LOCKCMP_MAX_LINES);
		return -EINVAL;
	}
	return 0;
}

/*
 * Parse "key=value ..." into @p (which holds the defaults).  "start" is
 * accepted and ignored; threads=0 is rejected (leave threads out to get
 * 2 x online CPUs).
 */
static int lockcmp_parse(char *buf, struct lockcmp_params *p)
{
	char *tok, *val;
	unsigned int v;
	int t;

	while ((tok = strsep(&buf, " \t\n")) != NULL) {
		if (!*tok || !strcmp(tok, "start"))
			continue;
		val = strchr(tok, '=');
		if (!val) {
			pr_err("control: expected key=value, got '%s'\n", tok);
			return -EINVAL;
		}
		*val++ = '\0';
		if (!strcmp(tok, "type")) {
			t = lockcmp_parse_type(val);
			if (t < 0) {
				pr_err("control: unknown lock type '%s'\n", val);
				return -EINVAL;
			}
			p->type = t;
			continue;
		}
		if (kstrtouint(val, 0, &v)) {
			pr_err("control: bad number '%s' for %s\n", val, tok);
			return -EINVAL;
		}
		if (!strcmp(tok, "threads")) {
			if (!v) {
				pr_err("control: threads must be at least 1\n");
				return -EINVAL;
			}
			p->threads = v;
		} else if (!strcmp(tok, "duration_ms")) {
			p->duration_ms = v;
		} else if (!strcmp(tok, "hold")) {
			p->hold = v;
		} else if (!strcmp(tok, "delay")) {
			p->delay = v;
		} else if (!strcmp(tok, "lines")) {
			p->lines = v;
		} else {
			pr_err("control: unknown key '%s'\n", tok);
			return -EINVAL;
		}
	}
	return lockcmp_check(p);
}

static bool lockcmp_running(void)
{
	/* Pairs with lockcmp_ctl_fn(): idle implies the block is in results. */
	return cur_run && !smp_load_acquire(&cur_run->finished);
}

static ssize_t lockcmp_control_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct lockcmp_params p = lockcmp_defaults;
	char buf[LOCKCMP_CTL_MAX];
	char *cmd;
	int ret;

	if (count >= sizeof(buf)) {
		pr_err("control: command longer than %zu bytes\n", sizeof(buf) - 1);
		return -EINVAL;
	}
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	cmd = strim(buf);

	mutex_lock(&ctl_mutex);
	if (!strcmp(cmd, "stop")) {
		if (lockcmp_running()) {
			WRITE_ONCE(cur_run->abort, true);
			wake_up(&cur_run->ctl_wq);
		}
		ret = 0;
		goto out;
	}
	ret = lockcmp_parse(cmd, &p);
	if (ret)
		goto out;
	if (lockcmp_running()) {
		ret = -EBUSY;
		goto out;
	}
	lockcmp_reap();
	ret = lockcmp_start(&p);
out:
	mutex_unlock(&ctl_mutex);
	return ret ? ret : count;
}

static void lockcmp_show_params(struct seq_file *m, const char *prefix,
				const struct lockcmp_params *p)
{
	seq_printf(m, "%stype: %s\n", prefix, lockcmp_type_names[p->type]);
	if (p->threads)
		seq_printf(m, "%sthreads: %u\n", prefix, p->threads);
	else
		seq_printf(m, "%sthreads: %u\n", prefix,
			   min(2 * num_online_cpus(), LOCKCMP_MAX_THREADS));
	seq_printf(m, "%sduration_ms: %u\n", prefix, p->duration_ms);
	seq_printf(m, "%shold: %u\n", prefix, p->hold);
	seq_printf(m, "%sdelay: %u\n", prefix, p->delay);
	seq_printf(m, "%slines: %u\n", prefix, p->lines);
}

static int lockcmp_control_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&ctl_mutex);
	seq_printf(m, "state: %s\n", lockcmp_running() ? "running" : "idle");
	seq_printf(m, "last_run: %u\n", next_id - 1);
	if (lockcmp_running()) {
		seq_printf(m, "run: %u\n", cur_run->id);
		seq_printf(m, "elapsed_ms: %lld\n",
			   ktime_ms_delta(ktime_get(), cur_run->start));
		lockcmp_show_params(m, "run_", &cur_run->p);
	}
	seq_printf(m, "online_cpus: %u\n", num_online_cpus());
	seq_puts(m, "types:");
	for (i = 0; i < LOCKCMP_NR_TYPES; i++)
		seq_printf(m, " %s", lockcmp_type_names[i]);
	seq_putc(m, '\n');
	lockcmp_show_params(m, "default_", &lockcmp_defaults);
	mutex_unlock(&ctl_mutex);
	return 0;
}

static int lockcmp_control_open(struct inode *inode, struct file *file)
{
	return single_open(file, lockcmp_control_show, NULL);
}

static const struct file_operations lockcmp_control_fops = {
	.owner		= THIS_MODULE,
	.open		= lockcmp_control_open,
	.read		= seq_read,
	.write		= lockcmp_control_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int lockcmp_results_show(struct seq_file *m, void *v)
{
	struct lockcmp_result *res;

	mutex_lock(&results_mutex);
	list_for_each_entry(res, &results_list, node)
		seq_write(m, res->text, res->len);
	mutex_unlock(&results_mutex);
	return 0;
}

static int lockcmp_results_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, lockcmp_results_show, NULL, 64 * 1024);
}

static void lockcmp_clear_results(void)
{
	struct lockcmp_result *res, *tmp;

	mutex_lock(&results_mutex);
	list_for_each_entry_safe(res, tmp, &results_list, node) {
		list_del(&res->node);
		kvfree(res);
	}
	results_count = 0;
	mutex_unlock(&results_mutex);
}

static ssize_t lockcmp_results_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	lockcmp_clear_results();
	return count;
}

static const struct file_operations lockcmp_results_fops = {
	.owner		= THIS_MODULE,
	.open		= lockcmp_results_open,
	.read		= seq_read,
	.write		= lockcmp_results_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int __init lockcmp_init(void)
{
	int t;

	t = lockcmp_parse_type(type ? type : "");
	if (t < 0) {
		pr_err("unknown lock type '%s'\n", type ? type : "");
		return -EINVAL;
	}
	if (threads == 0 || threads < -1) {
		pr_err("threads=%d: use 1..%u, or -1 for 2 x online CPUs\n",
		       threads, LOCKCMP_MAX_THREADS);
		return -EINVAL;
	}
	lockcmp_defaults.type = t;
	lockcmp_defaults.threads = threads < 0 ? 0 : threads;
	lockcmp_defaults.duration_ms = duration_ms;
	lockcmp_defaults.hold = hold;
	lockcmp_defaults.delay = delay;
	lockcmp_defaults.lines = lines;
	if (lockcmp_check(&lockcmp_defaults))
		return -EINVAL;

	lockcmp_dir = debugfs_create_dir("lockcmp", NULL);
	if (IS_ERR(lockcmp_dir)) {
		pr_err("cannot create debugfs directory\n");
		return PTR_ERR(lockcmp_dir);
	}
	debugfs_create_file("control", 0600, lockcmp_dir, NULL, &lockcmp_control_fops);
	debugfs_create_file("results", 0600, lockcmp_dir, NULL, &lockcmp_results_fops);
	return 0;
}

static void __exit lockcmp_exit(void)
{
	/* No new commands after this; in-flight file operations are done. */
	debugfs_remove_recursive(lockcmp_dir);

	mutex_lock(&ctl_mutex);
	lockcmp_reap();
	mutex_unlock(&ctl_mutex);
	lockcmp_clear_results();
}

module_init(lockcmp_init);
module_exit(lockcmp_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Compare struct mutex, semaphore, rwsem, rt_mutex and spinlock under contention");
