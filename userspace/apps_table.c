// SPDX-License-Identifier: GPL-2.0
/*
 * apps_table - the comparison tables of real programs run under glibc, the
 * preload's modes and an A/A control (userspace/scripts/apps.sh).
 *
 *   apps_table [--lower-is-better] < RUNS
 *   apps_table [--lower-is-better] [--json] [--seed N] [--env TEXT]
 *              PROGRAM:UNIT:RUNS-FILE...
 *
 * RUNS: one run per line, "MODE REP VALUE [NAME=NUMBER...]": MODE is glibc
 * (the baseline), glibc-aa (the baseline again, a separate instance: the A/A
 * control), lock, adaptive, ...; REP the repetition (1..R, every mode once
 * per repetition, in a random order); VALUE the program's own figure of
 * merit, or "failed" (anything that is not a positive number is a failed
 * run); NAME=NUMBER per-run extras (kernel counter deltas and context
 * switches per program op), printed as medians; names starting with "k_"
 * (every kernel debugfs counter, raw) go to the JSON only.  Lines starting
 * with '#' are comments.  "@stats MODE ok|failed [NAME=NUMBER...]" is the
 * untimed FUTEXLOCK_PRELOAD_STATS=1 run of a preloaded mode (apps.sh): a
 * "failed" one (the preload converted no mutex, or locked nothing) makes
 * the mode failed; its numbers give the lock/unlock syscall ratio table
 * (FUTEX_LOCK per acquisition, FUTEX_UNLOCK per unlock) and "stats_run".
 *
 * Output: per program a table, per mode the median figure, the median of
 * the per-repetition ratios to glibc with its 95% bootstrap interval and
 * the verdict against the A/A band (the project's one engine,
 * lib/compare.c).  A mode with a failed run, or any mode when a glibc run
 * failed, gets the verdict "failed" and no figure.  When lock and adaptive
 * both ran, one more line: adaptive / lock per repetition, judged against
 * an A/A band and by issue 17's rule (compare_pairs()): lock's own
 * (lock-aa / lock, when the lock-aa mode ran: FUTEXLOCK_PRELOAD=lock
 * again), else glibc's (glibc-aa / glibc).  When adaptive-nous ran too
 * (adaptive with the preload's user spin off), two more lines judged the
 * same way: adaptive-nous / lock (the kernel op's share) and adaptive /
 * adaptive-nous (the user spin's).  --json: the same as
 * one JSON document on stdout (schema of the seed tools: "tests", each
 * with "rows"; per row "value_reps" and "value_ratio"), --seed and --env
 * recorded in it.  Bad usage: exit 2.
 */
#include "futexlock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXM 8
#define MAXR 200
#define MAXX 64
#define MAXS 24
#define MAXP 16
#define NPAIR 3

struct prog {
	const char *name, *unit;
	char mname[MAXM][32], xname[MAXX][40];
	double val[MAXM][MAXR], xv[MAXM][MAXX][MAXR];
	int nfail[MAXM];
	/* the @stats run of each mode: have, ok, values by sname */
	char sname[MAXS][40];
	double sv[MAXM][MAXS];
	bool shave[MAXM], sfailed[MAXM], shas[MAXM][MAXS];
	int nm, nx, ns, maxrep;
	struct fl_ratio_ci ci[MAXM];
	bool failed[MAXM];
	/* the paired lines (issue 17's question): pair[0] adaptive / lock,
	 * then, when adaptive-nous ran, adaptive-nous / lock and adaptive /
	 * adaptive-nous; the A/A they were judged against: lock-aa / lock
	 * when lock-aa ran */
	struct pair {
		const char *num, *den;
		struct fl_ratio_ci ci;
		bool has;
	} pair[NPAIR];
	struct fl_ratio_ci lock_aa;
	bool al_lock_band;
};

static enum fl_better better = FL_HIGHER_IS_BETTER;

static void usage(void)
{
	fprintf(stderr,
		"Usage: apps_table [--lower-is-better] < RUNS\n"
		"       apps_table [--lower-is-better] [--json] [--seed N] [--env TEXT] PROGRAM:UNIT:RUNS-FILE...\n"
		"  RUNS: lines \"MODE REP VALUE|failed [NAME=NUMBER...]\"; modes glibc (baseline),\n"
		"  glibc-aa (A/A control) and the others; prints per mode the median, the\n"
		"  median ratio to glibc with its 95%% interval and the verdict (lib/compare.c);\n"
		"  with lock and adaptive, adaptive / lock per repetition against an A/A band\n"
		"  (lock-aa / lock when the lock-aa mode ran, else glibc-aa / glibc) and by\n"
		"  issue 17's rule (shown slower; A/A resolved); with adaptive-nous too,\n"
		"  adaptive-nous / lock and adaptive / adaptive-nous the same way\n");
	exit(2);
}

static int find_mode(const struct prog *p, const char *s)
{
	for (int i = 0; i < p->nm; i++)
		if (!strcmp(p->mname[i], s))
			return i;
	return -1;
}

static int mode_idx(struct prog *p, const char *s)
{
	int i = find_mode(p, s);

	if (i >= 0)
		return i;
	if (p->nm == MAXM)
		return -1;
	snprintf(p->mname[p->nm], sizeof(p->mname[0]), "%s", s);
	return p->nm++;
}

static int x_idx(struct prog *p, const char *s)
{
	for (int i = 0; i < p->nx; i++)
		if (!strcmp(p->xname[i], s))
			return i;
	if (p->nx == MAXX)
		return -1;
	snprintf(p->xname[p->nx], sizeof(p->xname[0]), "%s", s);
	return p->nx++;
}

static int s_idx(struct prog *p, const char *s)
{
	for (int i = 0; i < p->ns; i++)
		if (!strcmp(p->sname[i], s))
			return i;
	if (p->ns == MAXS)
		return -1;
	snprintf(p->sname[p->ns], sizeof(p->sname[0]), "%s", s);
	return p->ns++;
}

/* "@stats MODE ok|failed NAME=NUMBER...": MODE, ST, the rest in *save */
static int read_stats(struct prog *p, const char *mode, const char *st, char **save)
{
	char *t;
	int m;

	if (!mode || !st || (strcmp(st, "ok") && strcmp(st, "failed")))
		return -1;
	m = mode_idx(p, mode);
	if (m < 0 || p->shave[m])
		return -1;
	p->shave[m] = true;
	p->sfailed[m] = strcmp(st, "ok") != 0;
	while ((t = strtok_r(NULL, " \t\n", save))) {
		char *eq = strchr(t, '='), *end;
		int k;

		if (!eq)
			return -1;
		*eq = '\0';
		k = s_idx(p, t);
		if (k < 0)
			return -1;
		p->sv[m][k] = strtod(eq + 1, &end);
		p->shas[m][k] = true;
		if (*end || end == eq + 1)
			return -1;
	}
	return 0;
}

static int read_runs(struct prog *p, FILE *in)
{
	char line[8192];

	/* the baseline and the A/A control first, the rest in input order */
	mode_idx(p, "glibc");
	mode_idx(p, "glibc-aa");
	while (fgets(line, sizeof(line), in)) {
		char *save, *mode = strtok_r(line, " \t\n", &save);
		char *rep = strtok_r(NULL, " \t\n", &save);
		char *v = strtok_r(NULL, " \t\n", &save), *t, *end;
		double x;
		int m, r;

		if (!mode || *mode == '#')
			continue;
		if (!strcmp(mode, "@stats")) {
			if (read_stats(p, rep, v, &save))
				return -1;
			continue;
		}
		if (!rep || !v)
			return -1;
		m = mode_idx(p, mode);
		r = atoi(rep) - 1;
		if (m < 0 || r < 0 || r >= MAXR)
			return -1;
		x = strtod(v, &end);
		if (*end || !isfinite(x) || x <= 0.0) {	/* "failed" */
			x = 0.0;
			p->nfail[m]++;
		}
		p->val[m][r] = x;
		if (r + 1 > p->maxrep)
			p->maxrep = r + 1;
		while ((t = strtok_r(NULL, " \t\n", &save))) {
			char *eq = strchr(t, '=');
			int k;

			if (!eq)
				continue;
			*eq = '\0';
			k = x_idx(p, t);
			if (k >= 0)
				p->xv[m][k][r] = strtod(eq + 1, NULL);
		}
	}
	return 0;
}

/*
 * Issue 17 asks of real programs what it asks of the matrix: is
 * FUTEX_LOCK_ADAPTIVE ever shown slower than FUTEX_LOCK?  Both modes ran in
 * every repetition, so their values pair per repetition like the rows do.
 * Two answers, kept apart:
 *  - the engine's verdict against an A/A band: FUTEX_LOCK's own when the
 *    lock-aa mode ran (lock-aa / lock, the same repetitions: the same lock
 *    against itself, as in the matrix), else this program's glibc-aa /
 *    glibc (which assumes the preload's modes are no noisier than glibc);
 *    a failed run of either mode, of lock-aa or of glibc fails this line;
 *  - the issue's own words, as userspace/scripts/matrix-judge.py applies
 *    them: "shown slower" when the interval lies wholly on the worse side
 *    of 1 and the median is worse than 0.97 (the band plays no part), and
 *    "resolved" when the A/A interval lies within [0.95, 1.05].
 */
#define ISSUE17_MEDIAN	0.97
#define ISSUE17_AA_LO	0.95
#define ISSUE17_AA_HI	1.05

/* -1: no figure to judge (failed, too few pairs), else 0 or 1 */
static int issue17_shown_slower(const struct fl_ratio_ci *r)
{
	if (r->verdict == FL_FAILED || r->verdict == FL_NO_DATA ||
	    r->verdict == FL_INSUFFICIENT)
		return -1;
	if (r->better == FL_HIGHER_IS_BETTER)
		return r->hi < 1.0 && r->median < ISSUE17_MEDIAN;
	return r->lo > 1.0 && r->median > 1.0 / ISSUE17_MEDIAN;
}

static bool issue17_resolved(const struct fl_ratio_ci *r)
{
	return r->has_aa && r->aa_n >= 2 &&
	       r->aa_lo >= ISSUE17_AA_LO && r->aa_hi <= ISSUE17_AA_HI;
}

/* a run or the @stats run of mode m failed (glibc's runs not counted) */
static bool own_failure(const struct prog *p, int m)
{
	return p->nfail[m] || p->sfailed[m];
}

/*
 * After compare()'s rows.  With lock-aa, the band is lock-aa / lock over
 * the same repetitions, and only the pair's own modes', lock's and
 * lock-aa's failures fail the line (glibc plays no part in it; a failed
 * band fails every line judged by it); the band must rest on the same
 * pairs as the comparison.  Without it, glibc's A/A row is the band and
 * a failed glibc run fails the line as it fails the rows.
 */
static void compare_pair(struct prog *p, int aa, int lk, int laa, struct pair *q)
{
	int num = find_mode(p, q->num), den = find_mode(p, q->den);

	memset(&q->ci, 0, sizeof(q->ci));
	q->has = num >= 0 && den >= 0;
	if (!q->has)
		return;
	fl_ratio_ci(p->val[num], p->val[den], p->maxrep, &q->ci);
	if (laa < 0) {
		fl_decide(&q->ci, better, &p->ci[aa]);
		if (p->failed[num] || p->failed[den])
			fl_fail(&q->ci);
		return;
	}
	fl_decide(&q->ci, better, &p->lock_aa);
	if (own_failure(p, num) || own_failure(p, den) || own_failure(p, lk) ||
	    own_failure(p, laa) || p->lock_aa.n != q->ci.n)
		fl_fail(&q->ci);
}

/*
 * adaptive / lock is issue 17's question; adaptive-nous (the preload's
 * adaptive mode with its user-space spin off: FUTEX_LOCK_ADAPTIVE alone)
 * splits it: adaptive-nous / lock is the kernel op's share, adaptive /
 * adaptive-nous the user spin's.
 */
static void compare_pairs(struct prog *p, int aa)
{
	static const char *const names[NPAIR][2] = {
		{ "adaptive", "lock" }, { "adaptive-nous", "lock" },
		{ "adaptive", "adaptive-nous" },
	};
	int lk = find_mode(p, "lock"), laa = find_mode(p, "lock-aa");

	memset(&p->lock_aa, 0, sizeof(p->lock_aa));
	/* as apps.sh allows lock-aa: with lock and adaptive */
	p->al_lock_band = laa >= 0 && lk >= 0 && find_mode(p, "adaptive") >= 0;
	if (p->al_lock_band) {
		/* lock-aa / lock: the engine's A/A row (aa == x), a control */
		fl_compare(p->val[laa], p->val[lk], p->val[laa], p->maxrep, better,
			   &p->lock_aa);
		if (own_failure(p, lk) || own_failure(p, laa))
			fl_fail(&p->lock_aa);
	}
	for (int i = 0; i < NPAIR; i++) {
		p->pair[i].num = names[i][0];
		p->pair[i].den = names[i][1];
		compare_pair(p, aa, lk, p->al_lock_band ? laa : -1, &p->pair[i]);
	}
}

/*
 * lock-aa is FUTEXLOCK_PRELOAD=lock again: a control (its ratio to glibc
 * repeats lock's finding, so no verdict of its own), failed with lock's
 * @stats run (apps.sh runs that one for lock only).
 */
static void compare(struct prog *p)
{
	int base = mode_idx(p, "glibc"), aa = mode_idx(p, "glibc-aa");
	int lk = find_mode(p, "lock"), laa = find_mode(p, "lock-aa");

	if (laa >= 0 && lk >= 0)
		p->sfailed[laa] |= p->sfailed[lk];
	for (int m = 0; m < p->nm; m++) {
		struct fl_ratio_ci *r = &p->ci[m];

		memset(r, 0, sizeof(*r));
		r->better = better;
		p->failed[m] = p->nfail[m] || p->sfailed[m] || p->nfail[base];
		if (m == base) {
			r->verdict = p->failed[m] ? FL_FAILED : FL_NO_DATA;
			continue;
		}
		fl_compare(p->val[m], p->val[base], m == laa ? p->val[laa] : p->val[aa],
			   p->maxrep, better, r);
		if (p->failed[m])
			fl_fail(r);
	}
	compare_pairs(p, aa);
}

/* a raw kernel counter (k_NAME): JSON only */
static bool kernel_raw(struct prog *p, int k)
{
	return !strncmp(p->xname[k], "k_", 2);
}

static double sget(struct prog *p, int m, const char *name)
{
	for (int k = 0; k < p->ns; k++)
		if (!strcmp(p->sname[k], name) && p->shas[m][k])
			return p->sv[m][k];
	return NAN;
}

/* the lock/unlock syscall ratio, from the @stats runs */
static void stats_text(struct prog *p)
{
	bool any = false;

	for (int m = 0; m < p->nm; m++)
		any |= p->shave[m];
	if (!any)
		return;
	printf("lock/unlock syscall ratio (one untimed FUTEXLOCK_PRELOAD_STATS=1 run per mode; syscalls: kernel, locks: preload)\n");
	printf("%-13s %-7s %10s %10s %14s %18s %-s\n", "mode", "stats", "converted", "acq/op",
	       "lock_sys/acq", "unlock_sys/unlock", "preload = kernel counts");
	for (int m = 0; m < p->nm; m++) {
		bool agree = sget(p, m, "agree") == 1.0;

		if (!p->shave[m])
			continue;
		printf("%-13s %-7s %10.0f", p->mname[m], p->sfailed[m] ? "FAILED" : "ok",
		       sget(p, m, "converted"));
		/* the preload's counts are not the whole program's: no ratio */
		if (agree)
			printf(" %10.4g %14.4g %18.4g yes\n", sget(p, m, "acq/op"),
			       sget(p, m, "lock_sys/acq"), sget(p, m, "unlock_sys/unlock"));
		else
			printf(" %10s %14s %18s NO: the preload counted %.0f lock syscalls, the kernel %.0f; no ratio\n",
			       "-", "-", "-", sget(p, m, "pl_lock_sys"), sget(p, m, "k_lock_sys"));
	}
}

/*
 * "NUM / DEN per repetition: MEDIAN [LO,HI], VERDICT (A/A M [L,H], band
 * [BL,BH]); issue 17: ...": the band is the engine's, two-sided
 * (fl_decide()); issue 17 counts a program only when its A/A is resolved.
 */
static void text_pair(const struct pair *q, bool lock_band)
{
	static const char *const words[] = { "no verdict", "not shown slower", "SHOWN SLOWER" };
	const struct fl_ratio_ci *r = &q->ci;
	int slower = issue17_shown_slower(r);
	double down, up;
	char ci[64];

	if (r->verdict == FL_FAILED) {
		printf("%s / %s per repetition: failed; issue 17: no verdict\n", q->num, q->den);
		return;
	}
	printf("%s / %s per repetition: %s, %s", q->num, q->den, fl_ci_str(r, ci, sizeof(ci)),
	       fl_verdict_name(r->verdict));
	if (r->has_aa && r->aa_n >= 2 && r->aa_lo > 0.0 && r->aa_hi > 0.0) {
		fl_aa_band(r->aa_lo, r->aa_hi, &down, &up);
		printf(" (A/A %s %.2f [%.2f,%.2f], band [%.2f,%.2f])",
		       lock_band ? "lock-aa/lock" : "glibc-aa/glibc", r->aa_median, r->aa_lo,
		       r->aa_hi, down, up);
	}
	if (slower >= 0 && !issue17_resolved(r))
		printf("; issue 17: unresolved, A/A not within [%.2f,%.2f] (%s)\n",
		       ISSUE17_AA_LO, ISSUE17_AA_HI, words[slower + 1]);
	else
		printf("; issue 17: %s\n", words[slower + 1]);
}

/* issue 17's words as JSON, or null when there is no figure to judge */
static void json_issue17(const struct pair *q)
{
	int slower = q->has ? issue17_shown_slower(&q->ci) : -1;

	if (slower >= 0)
		printf("{\"shown_slower\": %s, \"aa_resolved\": %s, \"aa_width\": %.4f}",
		       slower ? "true" : "false",
		       issue17_resolved(&q->ci) ? "true" : "false", q->ci.aa_hi - q->ci.aa_lo);
	else
		printf("null");
}

static void text(struct prog *p)
{
	int base = mode_idx(p, "glibc");

	printf("%-13s %12s  %-22s %-18s", "mode", "median", "ratio 95% CI", "verdict");
	for (int k = 0; k < p->nx; k++)
		if (!kernel_raw(p, k))
			printf(" %14s", p->xname[k]);
	printf("\n");
	for (int m = 0; m < p->nm; m++) {
		char ci[64], med[32];

		if (m == base && !p->failed[m])
			snprintf(ci, sizeof(ci), "1 (baseline)");
		else
			fl_ci_str(&p->ci[m], ci, sizeof(ci));
		if (p->nfail[m] || p->sfailed[m])
			snprintf(med, sizeof(med), "failed");
		else
			snprintf(med, sizeof(med), "%.2f", fl_median(p->val[m], p->maxrep));
		printf("%-13s %12s  %-22s %-18s", p->mname[m], med, ci,
		       m == base && !p->failed[m] ? "-" : fl_verdict_name(p->ci[m].verdict));
		for (int k = 0; k < p->nx; k++) {
			double x = fl_median(p->xv[m][k], p->maxrep);

			if (!kernel_raw(p, k))
				printf(x >= 1000.0 ? " %14.0f" : " %14.4g", x);
		}
		printf("\n");
	}
	for (int m = 0; m < p->nm; m++) {
		if (p->nfail[m])
			printf("%s: %d of %d runs FAILED (no figure; see the .runs file)\n",
			       p->mname[m], p->nfail[m], p->maxrep);
		if (p->sfailed[m])
			printf("%s: its FUTEXLOCK_PRELOAD_STATS=1 run FAILED (the preload did not engage; see the .runs file)\n",
			       p->mname[m]);
	}
	printf("(%d paired repetitions; %s is better; ratio = mode / glibc per repetition)\n",
	       p->maxrep, fl_better_name(better));
	for (int i = 0; i < NPAIR; i++)
		if (p->pair[i].has)
			text_pair(&p->pair[i], p->al_lock_band);
	stats_text(p);
}

static void json(struct prog *p)
{
	int base = mode_idx(p, "glibc"), aa = mode_idx(p, "glibc-aa");
	int laa = find_mode(p, "lock-aa");

	printf("{\"test\": ");
	fl_json_str(stdout, p->name);
	printf(", \"unit\": ");
	fl_json_str(stdout, p->unit);
	printf(", \"better\": \"%s\", \"reps\": %d, \"baseline\": \"glibc\", \"rows\": [",
	       fl_better_name(better), p->maxrep);
	for (int m = 0; m < p->nm; m++) {
		printf("%s\n  {\"type\": ", m ? "," : "");
		fl_json_str(stdout, p->mname[m]);
		printf(", \"aa\": %s, \"baseline\": %s, \"failed\": %s, \"failed_runs\": %d, ",
		       m == aa || m == laa ? "true" : "false", m == base ? "true" : "false",
		       p->failed[m] ? "true" : "false", p->nfail[m]);
		if (p->nfail[m] || p->sfailed[m])
			printf("\"value_median\": null, ");
		else
			printf("\"value_median\": %.6g, ", fl_median(p->val[m], p->maxrep));
		printf("\"value_reps\": ");
		fl_json_series(stdout, p->val[m], p->maxrep, 1.0);
		printf(", \"value_ratio\": ");
		if (m == base)
			printf("null");
		else
			fl_json_ci(stdout, &p->ci[m]);
		printf(", \"counters\": {");
		for (int k = 0; k < p->nx; k++) {
			printf("%s", k ? ", " : "");
			fl_json_str(stdout, p->xname[k]);
			printf(": %.6g", fl_median(p->xv[m][k], p->maxrep));
		}
		printf("}, \"counters_per_run\": {");
		for (int k = 0; k < p->nx; k++) {
			printf("%s", k ? ", " : "");
			fl_json_str(stdout, p->xname[k]);
			printf(": [");
			for (int r = 0; r < p->maxrep; r++)
				printf("%s%.6g", r ? ", " : "", p->xv[m][k][r]);
			printf("]");
		}
		printf("}, \"stats_run\": ");
		if (!p->shave[m]) {
			printf("null");
		} else {
			printf("{\"status\": \"%s\"", p->sfailed[m] ? "failed" : "ok");
			for (int k = 0; k < p->ns; k++) {
				if (!p->shas[m][k])
					continue;
				printf(", ");
				fl_json_str(stdout, p->sname[k]);
				printf(": %.6g", p->sv[m][k]);
			}
			printf("}");
		}
		printf("}");
	}
	printf("], \"adaptive_vs_lock\": ");
	if (p->pair[0].has)
		fl_json_ci(stdout, &p->pair[0].ci);
	else
		printf("null");
	printf(", \"lock_aa_vs_lock\": ");
	if (p->al_lock_band)
		fl_json_ci(stdout, &p->lock_aa);
	else
		printf("null");
	printf(", \"adaptive_vs_lock_band\": ");
	if (p->pair[0].has)
		printf("\"%s\"", p->al_lock_band ? "lock-aa" : "glibc-aa");
	else
		printf("null");
	printf(", \"adaptive_vs_lock_issue17\": ");
	json_issue17(&p->pair[0]);
	/* the other pairs that ran (adaptive-nous), judged the same way */
	printf(", \"pairs\": [");
	for (int i = 1, n = 0; i < NPAIR; i++) {
		const struct pair *q = &p->pair[i];

		if (!q->has)
			continue;
		printf("%s{\"num\": \"%s\", \"den\": \"%s\", \"band\": \"%s\", \"ratio\": ",
		       n++ ? ", " : "", q->num, q->den, p->al_lock_band ? "lock-aa" : "glibc-aa");
		fl_json_ci(stdout, &q->ci);
		printf(", \"issue17\": ");
		json_issue17(q);
		printf("}");
	}
	printf("]}");
}

int main(int argc, char **argv)
{
	static struct prog progs[MAXP];
	const char *env = NULL;
	unsigned long long seed = 0;
	bool as_json = false;
	int np = 0, i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		char *end;

		if (!strcmp(argv[i], "--lower-is-better")) {
			better = FL_LOWER_IS_BETTER;
		} else if (!strcmp(argv[i], "--json")) {
			as_json = true;
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], &end, 10);
			if (!*argv[i] || *end)
				usage();
		} else if (!strcmp(argv[i], "--env") && i + 1 < argc) {
			env = argv[++i];
		} else {
			usage();
		}
	}
	if (i == argc) {		/* one table from stdin */
		if (as_json || read_runs(&progs[0], stdin))
			usage();
		progs[0].name = progs[0].unit = "";
		compare(&progs[0]);
		text(&progs[0]);
		return 0;
	}
	for (; i < argc; i++) {
		struct prog *p = &progs[np];
		char *spec = argv[i], *u = strchr(spec, ':'), *file;
		FILE *f;

		if (np == MAXP || !u || !(file = strchr(u + 1, ':')) || u == spec)
			usage();
		*u++ = '\0';
		*file++ = '\0';
		p->name = spec;
		p->unit = u;
		f = fopen(file, "r");
		if (!f) {
			perror(file);
			return 1;
		}
		if (read_runs(p, f)) {
			fprintf(stderr, "apps_table: %s: malformed line\n", file);
			return 2;
		}
		fclose(f);
		compare(p);
		np++;
	}
	if (!as_json) {
		for (i = 0; i < np; i++) {
			printf("%s# %s (%s)\n", i ? "\n" : "", progs[i].name, progs[i].unit);
			text(&progs[i]);
		}
		return 0;
	}
	printf("{");
	fl_json_meta(stdout, "apps_table", seed);
	printf(", \"environment\": ");
	fl_json_str(stdout, env ? env : "");
	printf(", \"tests\": [");
	for (i = 0; i < np; i++) {
		printf("%s\n", i ? "," : "");
		json(&progs[i]);
	}
	printf("\n]}\n");
	return 0;
}
