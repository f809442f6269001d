// SPDX-License-Identifier: GPL-2.0
/*
 * The spin-policy knobs of the patched kernel: files in its debugfs
 * directory (FL_KNOB_DIR, or $FUTEXLOCK_KNOB_DIR: tests use fake files).
 * futex_lock's knob variants (-m MODE@KNOB=VALUE,...) set them around each
 * run: fl_knobs_apply() saves each file's content, writes the value and
 * reads it back; fl_knobs_restore() writes the saved content back.  Until
 * then SIGINT, SIGTERM and SIGHUP restore it too before they end the
 * process, so a run cut short leaves no knob changed.
 */
#include "futexlock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/*
 * The allowlist: booleans take 0 or 1.  user_spin, user_spin_woken and
 * user_spin_backoff are this library's settings, not kernel files: the
 * user-space spin of futex_lock and adaptive (lib/userspin.c; on by
 * default for adaptive only), whether it honours the woken mark
 * (futexlock.h; by default) and whether it backs off on a lock whose
 * spins keep failing (futexlock.h; not by default), set in this process
 * around the run like the others (get/set); they need no debugfs.
 */
static const struct {
	const char *name;
	uint64_t max;
	int (*get)(void);	/* a user knob: no file */
	void (*set)(int);
} knob_defs[] = {
	{ "spin_check_runnable", 1, NULL, NULL },
	{ "spin_calibrate", 1, NULL, NULL },
	{ "spin_backoff", 1, NULL, NULL },
	{ "spin_check_waiters", 1, NULL, NULL },
	{ "spin_check_overload", 1, NULL, NULL },
	{ "spin_check_first_wake", 1, NULL, NULL },
	{ "spin_check_queue", 1, NULL, NULL },
	{ "spin_quiet_start", 1, NULL, NULL },
	{ "spin_charge_call", 1, NULL, NULL },
	{ "spin_charge_check_overload", 1, NULL, NULL },
	{ "spin_max_ns", UINT64_MAX, NULL, NULL },
	{ "handoff_threshold", UINT32_MAX, NULL, NULL },
	{ "user_spin", 1, fl_user_spin_get, fl_user_spin_set },
	{ "user_spin_woken", 1, fl_user_spin_woken_get, fl_user_spin_woken_set },
	{ "user_spin_backoff", 1, fl_user_spin_backoff_get, fl_user_spin_backoff_set },
};
#define NDEFS (sizeof(knob_defs) / sizeof(knob_defs[0]))
_Static_assert(NDEFS == FL_KNOBS_MAX, "one slot per allowed knob");

/* what apply changed: restore() and the signal handler write it back */
static struct {
	char path[FL_KNOBS_MAX][256];
	char old[FL_KNOBS_MAX][32];
	int def[FL_KNOBS_MAX];	/* a user knob's (path "") */
	volatile sig_atomic_t n;
} saved;

const char *fl_knob_dir(void)
{
	const char *p = getenv("FUTEXLOCK_KNOB_DIR");

	return p && *p ? p : FL_KNOB_DIR;
}

static int knob_def(const char *name, size_t len)
{
	for (size_t d = 0; d < NDEFS; d++)
		if (strlen(knob_defs[d].name) == len && !strncmp(knob_defs[d].name, name, len))
			return (int)d;
	return -1;
}

bool fl_knob_is_user(const struct fl_knobs *k, int i)
{
	return knob_defs[k->def[i]].get != NULL;
}

int fl_knobs_parse(const char *list, struct fl_knobs *k)
{
	memset(k, 0, sizeof(*k));
	for (const char *p = list;; p++) {
		const char *eq = strchr(p, '='), *end = strchrnul(p, ',');
		char val[24];
		int d;

		if (!eq || eq > end || (size_t)(end - eq) > sizeof(val))
			return -1;
		d = knob_def(p, (size_t)(eq - p));
		for (int i = 0; i < k->n; i++)
			if (k->def[i] == d)
				return -1;	/* the same knob twice */
		snprintf(val, sizeof(val), "%.*s", (int)(end - eq - 1), eq + 1);
		if (d < 0 || fl_parse_u64(val, 0, knob_defs[d].max, &k->value[k->n]))
			return -1;
		k->def[k->n] = d;
		k->name[k->n++] = knob_defs[d].name;
		p = end;
		if (!*p)
			return 0;
	}
}

/*
 * A knob's value from its content: a number in decimal; a boolean as
 * debugfs shows it, Y or N, or as 1 or 0 (what a plain file written with
 * 1 or 0 reads back: the tests' fake files).  One trailing newline.
 */
static int knob_value(int d, const char *s, uint64_t *v)
{
	char buf[32];
	size_t len = strlen(s);

	if (len && s[len - 1] == '\n')
		len--;
	snprintf(buf, sizeof(buf), "%.*s", (int)len, s);
	if (knob_defs[d].max == 1 && (!strcmp(buf, "Y") || !strcmp(buf, "N"))) {
		*v = buf[0] == 'Y';
		return 0;
	}
	return fl_parse_u64(buf, 0, knob_defs[d].max, v);
}

/* open, read or write, close: async-signal-safe; 0 or an errno */
static int file_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY), err = 0;
	ssize_t n;

	if (fd < 0)
		return errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		err = errno;
	else if ((size_t)n == len - 1)
		err = EFBIG;	/* no knob holds that much */
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	return err;
}

/* *opened (may be NULL): the file was opened, so it may have changed */
static int file_write(const char *path, const char *s, bool *opened)
{
	int fd = open(path, O_WRONLY | O_TRUNC), err = 0;
	ssize_t n, len = (ssize_t)strlen(s);

	if (opened)
		*opened = fd >= 0;
	if (fd < 0)
		return errno;
	n = write(fd, s, (size_t)len);
	if (n != len)
		err = n < 0 ? errno : EIO;
	if (close(fd) && !err)
		err = errno;
	return err;
}

static void restore_raw(void)
{
	for (int i = saved.n - 1; i >= 0; i--)
		if (saved.path[i][0])	/* a user knob ends with the process */
			file_write(saved.path[i], saved.old[i], NULL);
}

static void on_signal(int sig)
{
	restore_raw();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* once, for the signals that would end us (not those ignored: nohup) */
static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	static bool done;
	struct sigaction sa = { .sa_handler = on_signal }, old;

	if (done)
		return;
	done = true;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
}

static int knob_err(char *err, size_t len, const char *path, const char *what, int e)
{
	snprintf(err, len, "knob %s: %s: %s (%s)", path, what, strerror(e),
		 strerrorname_np(e) ? strerrorname_np(e) : "?");
	return -1;
}

/* knob i of k: save the file's content, write the value, read it back */
static int apply_one(const struct fl_knobs *k, int i, char *err, size_t len)
{
	char *path = saved.path[i], *old = saved.old[i], now[32], val[24];
	uint64_t v;
	bool opened;
	int e;

	if (knob_defs[k->def[i]].get) {	/* no file: path "" */
		path[0] = '\0';
		saved.def[i] = k->def[i];
		snprintf(old, sizeof(saved.old[i]), "%d", knob_defs[k->def[i]].get());
		saved.n = i + 1;
		if (k->value[i] && knob_defs[k->def[i]].set == fl_user_spin_set)
			fl_user_spin_calibrate();	/* before the run, not in it */
		knob_defs[k->def[i]].set((int)k->value[i]);
		return 0;
	}
	if ((size_t)snprintf(path, sizeof(saved.path[i]), "%s/%s", fl_knob_dir(),
			     k->name[i]) >= sizeof(saved.path[i]))
		return knob_err(err, len, path, "path", ENAMETOOLONG);
	if ((e = file_read(path, old, sizeof(saved.old[i]))))
		return knob_err(err, len, path, "cannot read", e);
	if (knob_value(k->def[i], old, &v))
		return knob_err(err, len, path, "holds no value of this knob", EINVAL);
	snprintf(val, sizeof(val), "%" PRIu64 "\n", k->value[i]);
	saved.n = i + 1;	/* before the write: a signal restores it */
	if ((e = file_write(path, val, &opened))) {
		saved.n = opened ? i + 1 : i;
		return knob_err(err, len, path, "cannot write", e);
	}
	if ((e = file_read(path, now, sizeof(now))))
		return knob_err(err, len, path, "cannot read back", e);
	if (knob_value(k->def[i], now, &v) || v != k->value[i]) {
		snprintf(err, len, "knob %s: wrote %" PRIu64 ", reads back '%.*s'",
			 path, k->value[i], (int)strcspn(now, "\n"), now);
		return -1;
	}
	return 0;
}

int fl_knobs_apply(const struct fl_knobs *k, char *err, size_t len)
{
	catch_signals();
	saved.n = 0;
	for (int i = 0; i < k->n; i++) {
		char rerr[320];

		if (apply_one(k, i, err, len)) {
			if (fl_knobs_restore(rerr, sizeof(rerr)))
				snprintf(err + strlen(err), len - strlen(err), "; %s", rerr);
			return -1;
		}
	}
	return 0;
}

int fl_knobs_restore(char *err, size_t len)
{
	int ret = 0;

	for (int i = saved.n - 1; i >= 0; i--) {
		int e = 0;

		if (saved.path[i][0])
			e = file_write(saved.path[i], saved.old[i], NULL);
		else
			knob_defs[saved.def[i]].set(atoi(saved.old[i]));

		if (e && !ret)
			ret = knob_err(err, len, saved.path[i], "cannot restore", e);
	}
	saved.n = 0;
	return ret;
}
