// SPDX-License-Identifier: GPL-2.0
/*
 * apps_table - the comparison table of one real program run under glibc,
 * the preload's modes and an A/A control (userspace/scripts/apps.sh).
 *
 *   apps_table [--lower-is-better] < runs
 *
 * Input: one run per line, "MODE REP VALUE [NAME=NUMBER...]": MODE is
 * glibc (the baseline), glibc-aa (the baseline again, a separate instance:
 * the A/A control), lock, adaptive, ...; REP the repetition (1..R, every
 * mode once per repetition, in a random order); VALUE the program's own
 * figure of merit; NAME=NUMBER per-run extras (kernel counter deltas,
 * context switches, per op), printed as medians.  Output: per mode the
 * median figure, the median of the per-repetition ratios to glibc with its
 * 95% bootstrap interval and the verdict against the A/A band (the
 * project's one engine, lib/compare.c).
 */
#include "futexlock.h"

#include <stdlib.h>
#include <string.h>

#define MAXM 8
#define MAXR 200
#define MAXX 8

static char mname[MAXM][32], xname[MAXX][40];
static double val[MAXM][MAXR], xv[MAXM][MAXX][MAXR];
static int nm, nx, maxrep;

static int mode_idx(const char *s)
{
	for (int i = 0; i < nm; i++)
		if (!strcmp(mname[i], s))
			return i;
	if (nm == MAXM)
		return -1;
	snprintf(mname[nm], sizeof(mname[nm]), "%s", s);
	return nm++;
}

static int x_idx(const char *s)
{
	for (int i = 0; i < nx; i++)
		if (!strcmp(xname[i], s))
			return i;
	if (nx == MAXX)
		return -1;
	snprintf(xname[nx], sizeof(xname[nx]), "%s", s);
	return nx++;
}

int main(int argc, char **argv)
{
	enum fl_better better = FL_HIGHER_IS_BETTER;
	char line[1024];
	int base, aa;

	if (argc > 1 && !strcmp(argv[1], "--lower-is-better"))
		better = FL_LOWER_IS_BETTER;
	/* the baseline and the A/A control first, the rest in input order */
	mode_idx("glibc");
	mode_idx("glibc-aa");
	while (fgets(line, sizeof(line), stdin)) {
		char *save, *mode = strtok_r(line, " \t\n", &save);
		char *rep = strtok_r(NULL, " \t\n", &save);
		char *v = strtok_r(NULL, " \t\n", &save), *t;
		int m, r;

		if (!mode || !rep || !v || *mode == '#')
			continue;
		m = mode_idx(mode);
		r = atoi(rep) - 1;
		if (m < 0 || r < 0 || r >= MAXR)
			continue;
		val[m][r] = strtod(v, NULL);
		if (r + 1 > maxrep)
			maxrep = r + 1;
		while ((t = strtok_r(NULL, " \t\n", &save))) {
			char *eq = strchr(t, '=');
			int k;

			if (!eq)
				continue;
			*eq = '\0';
			k = x_idx(t);
			if (k >= 0)
				xv[m][k][r] = strtod(eq + 1, NULL);
		}
	}
	base = mode_idx("glibc");
	aa = mode_idx("glibc-aa");
	printf("%-10s %12s  %-22s %-18s", "mode", "median", "ratio 95% CI", "verdict");
	for (int k = 0; k < nx; k++)
		printf(" %14s", xname[k]);
	printf("\n");
	for (int m = 0; m < nm; m++) {
		struct fl_ratio_ci r;
		char ci[64];

		if (m == base) {
			snprintf(ci, sizeof(ci), "1 (baseline)");
			r.verdict = FL_NO_DATA;
		} else {
			fl_compare(val[m], val[base], val[aa], maxrep, better, &r);
			fl_ci_str(&r, ci, sizeof(ci));
		}
		printf("%-10s %12.2f  %-22s %-18s", mname[m], fl_median(val[m], maxrep),
		       ci, m == base ? "-" : fl_verdict_name(r.verdict));
		for (int k = 0; k < nx; k++)
			printf(" %14.3f", fl_median(xv[m][k], maxrep));
		printf("\n");
	}
	printf("(%d paired repetitions; %s is better; ratio = mode / glibc per repetition)\n",
	       maxrep, fl_better_name(better));
	return 0;
}
