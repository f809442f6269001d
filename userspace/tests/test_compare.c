// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the comparison engine (lib/compare.c) on synthetic data, TAP:
 * the verdict points the right way for a lower-is-better metric (a time)
 * and a higher-is-better one (a rate), no verdict is given inside the A/A
 * band or with fewer than FL_MIN_VERDICT_PAIRS pairs, and the JSON carries
 * the direction, the A/A band and the flags.  No timing, no threads.
 */
#define _GNU_SOURCE
#include "futexlock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 20

static int tno, failed;

static void ok(bool cond, const char *fmt, const char *detail)
{
	tno++;
	if (!cond)
		failed++;
	printf("%sok %d - %s", cond ? "" : "not ", tno, fmt);
	if (detail && *detail)
		printf(" (%s)", detail);
	printf("\n");
}

/* base[i] around 100; x[i] = factor * base[i] * (1 +- noise) */
static void series(double *base, double *x, double factor, double noise,
		   uint64_t seed, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double u = (double)(fl_rng_next(&seed) >> 11) / 9007199254740992.0;

		base[i] = 100.0 + (double)i;
		x[i] = factor * base[i] * (1.0 + noise * (2.0 * u - 1.0));
	}
}

/* fl_json_ci() of r as a string (free it) */
static char *json_of(const struct fl_ratio_ci *r)
{
	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);

	if (!f)
		abort();
	fl_json_ci(f, r);
	fclose(f);
	return json;
}

static const char *desc(const struct fl_ratio_ci *r, char *buf, size_t len)
{
	snprintf(buf, len, "ratio %.2f [%.2f,%.2f], A/A [%.2f,%.2f] n=%zu: %s",
		 r->median, r->lo, r->hi, r->aa_lo, r->aa_hi, r->n,
		 fl_verdict_name(r->verdict));
	return buf;
}

int main(void)
{
	double base[N], x[N], tight[N], wide[N];
	struct fl_ratio_ci r, r2, band;
	char b[200], *json;

	printf("TAP version 13\n1..20\n");
	/* a tight A/A: the baseline again, +-2 % */
	series(base, tight, 1.0, 0.02, 11, N);

	/* lower is better (a time): 2.5x the baseline is slower, 0.5x faster */
	series(base, x, 2.5, 0.05, 1, N);
	fl_compare(x, base, tight, N, FL_LOWER_IS_BETTER, &r);
	ok(r.verdict == FL_SLOWER, "lower is better: a time 2.5x the baseline is 'slower'",
	   desc(&r, b, sizeof(b)));
	series(base, x, 0.5, 0.05, 2, N);
	fl_compare(x, base, tight, N, FL_LOWER_IS_BETTER, &r);
	ok(r.verdict == FL_FASTER, "lower is better: a time 0.5x the baseline is 'faster'",
	   desc(&r, b, sizeof(b)));

	/* higher is better (a rate): 2.5x is faster, 0.5x slower */
	series(base, x, 2.5, 0.05, 3, N);
	fl_compare(x, base, tight, N, FL_HIGHER_IS_BETTER, &r);
	ok(r.verdict == FL_FASTER, "higher is better: a rate 2.5x the baseline is 'faster'",
	   desc(&r, b, sizeof(b)));
	series(base, x, 0.5, 0.05, 4, N);
	fl_compare(x, base, tight, N, FL_HIGHER_IS_BETTER, &r);
	ok(r.verdict == FL_SLOWER, "higher is better: a rate 0.5x the baseline is 'slower'",
	   desc(&r, b, sizeof(b)));

	/*
	 * Inside the A/A band: the review's case, a mode 1.9x with an
	 * interval that excludes 1, beside an A/A spread of 0.4-3.2.
	 */
	series(base, x, 1.9, 0.3, 5, N);
	for (size_t i = 0; i < N; i++)	/* A/A ratios 0.4 .. 3.2 */
		wide[i] = base[i] * (0.4 + 2.8 * (double)((i * 7) % N) / (N - 1));
	fl_compare(x, base, NULL, N, FL_HIGHER_IS_BETTER, &r2);
	ok(r2.verdict == FL_FASTER && r2.lo > 1.0,
	   "control: that mode's interval excludes 1 (a verdict without an A/A band)",
	   desc(&r2, b, sizeof(b)));
	fl_compare(x, base, wide, N, FL_HIGHER_IS_BETTER, &r);
	ok(r.verdict == FL_INDISTINGUISHABLE && r.has_aa && r.aa_hi > r.lo,
	   "inside the A/A band: 'indistinguishable' (higher is better)", desc(&r, b, sizeof(b)));
	fl_compare(x, base, wide, N, FL_LOWER_IS_BETTER, &r);
	ok(r.verdict == FL_INDISTINGUISHABLE,
	   "inside the A/A band: 'indistinguishable' (lower is better)", desc(&r, b, sizeof(b)));
	fl_compare(x, base, tight, N, FL_HIGHER_IS_BETTER, &r);
	ok(r.verdict == FL_FASTER, "the same mode beside a tight A/A band: 'faster'",
	   desc(&r, b, sizeof(b)));

	/* too few pairs: no verdict, even for a 2.5x difference */
	series(base, x, 2.5, 0.05, 6, N);
	fl_ratio_ci(tight, base, N, &band);
	fl_ratio_ci(x, base, FL_MIN_VERDICT_PAIRS - 1, &r);
	fl_decide(&r, FL_LOWER_IS_BETTER, &band);
	ok(r.verdict == FL_INSUFFICIENT && r.n == FL_MIN_VERDICT_PAIRS - 1,
	   "fewer than FL_MIN_VERDICT_PAIRS pairs: 'insufficient data'", desc(&r, b, sizeof(b)));
	fl_ratio_ci(x, base, N, &r);
	fl_ratio_ci(tight, base, 3, &band);
	fl_decide(&r, FL_LOWER_IS_BETTER, &band);
	ok(r.verdict == FL_INSUFFICIENT, "an A/A row of 3 pairs: 'insufficient data'",
	   desc(&r, b, sizeof(b)));

	/*
	 * The band is two-sided (review 19, M1): an A/A interval that
	 * reaches down to ~0.5 says identical code measured ~2x apart, so a
	 * mode at 1.3 (interval clear of 1 and above the A/A interval) is
	 * inside the reciprocal band [1/hi, 1/lo], not "faster".
	 */
	series(base, x, 1.3, 0.1, 9, N);
	for (size_t i = 0; i < N; i++)	/* A/A ratios 0.37 .. 1.0 */
		wide[i] = base[i] * (0.37 + 0.63 * (double)((i * 7) % N) / (N - 1));
	fl_compare(x, base, wide, N, FL_HIGHER_IS_BETTER, &r);
	ok(r.lo > 1.0 && r.lo > r.aa_hi && r.hi < 1.0 / r.aa_lo &&
	   r.verdict == FL_INDISTINGUISHABLE,
	   "inside the reciprocal of an A/A band below 1: 'indistinguishable'",
	   desc(&r, b, sizeof(b)));
	for (size_t i = 0; i < N; i++)	/* the mirror: a mode at 1/1.3 */
		x[i] = base[i] * base[i] / x[i];
	fl_compare(x, base, wide, N, FL_LOWER_IS_BETTER, &r);
	ok(r.hi < 1.0 && r.verdict == FL_INDISTINGUISHABLE,
	   "and its mirror 1/1.3 beside the same band: 'indistinguishable'",
	   desc(&r, b, sizeof(b)));
	series(base, x, 3.0, 0.1, 10, N);
	fl_compare(x, base, wide, N, FL_HIGHER_IS_BETTER, &r);
	ok(r.verdict == FL_FASTER && r.lo > 1.0 / r.aa_lo,
	   "clear of the reciprocal band too: 'faster'", desc(&r, b, sizeof(b)));

	/*
	 * The A/A row is the band, not a claim (M2): even an A/A interval
	 * that excludes 1 (identical code "slower") gives no verdict.
	 */
	series(base, x, 0.95, 0.02, 12, N);
	fl_compare(x, base, x, N, FL_HIGHER_IS_BETTER, &r);
	ok(r.hi < 1.0 && !strcmp(fl_verdict_name(r.verdict), "control") && !r.has_aa,
	   "the A/A row itself, interval below 1: verdict 'control'", desc(&r, b, sizeof(b)));
	fl_compare(tight, base, tight, N, FL_LOWER_IS_BETTER, &r);
	ok(!strcmp(fl_verdict_name(r.verdict), "control"),
	   "the A/A row itself, interval holding 1: verdict 'control'", desc(&r, b, sizeof(b)));

	/* the same data give the same interval (fixed bootstrap seed) */
	series(base, x, 1.3, 0.4, 7, N);
	fl_compare(x, base, tight, N, FL_HIGHER_IS_BETTER, &r);
	fl_compare(x, base, tight, N, FL_HIGHER_IS_BETTER, &r2);
	ok(r.lo == r2.lo && r.hi == r2.hi && r.lo < r.median && r.median < r.hi,
	   "same data, same interval; lo < median < hi", desc(&r, b, sizeof(b)));

	/* the JSON of a time 2.5x the baseline */
	series(base, x, 2.5, 0.05, 8, N);
	fl_compare(x, base, tight, N, FL_LOWER_IS_BETTER, &r);
	json = json_of(&r);
	ok(strstr(json, "\"better\": \"lower\"") && strstr(json, "\"verdict\": \"slower\"") &&
	   strstr(json, "\"aa\": {\"n\": 20") && strstr(json, "\"aa_ok\": true") &&
	   strstr(json, "\"insufficient\": false") && strstr(json, "\"min_pairs\": 5"),
	   "JSON: better lower, verdict slower, the A/A band, aa_ok, insufficient, min_pairs", json);
	free(json);

	/*
	 * A skewed time (M4): 17 repetitions at 0.9x, 3 at 20x.  The median
	 * says faster; the mean ratio (> 1) says otherwise, and the JSON
	 * flags it.
	 */
	series(base, x, 0.9, 0.01, 13, N);
	for (size_t i = 0; i < 3; i++)
		x[i * 7] = 20.0 * base[i * 7];
	fl_compare(x, base, tight, N, FL_LOWER_IS_BETTER, &r);
	json = json_of(&r);
	ok(r.verdict == FL_FASTER && r.mean_ratio > 1.0 && r.tail_disagrees &&
	   strstr(json, "\"tail_disagrees\": true"),
	   "a skewed time: verdict by the median, mean_ratio > 1 and tail_disagrees", json);
	free(json);

	/* a failed row (M3): verdict "failed", no ratio in the JSON */
	fl_compare(x, base, tight, N, FL_LOWER_IS_BETTER, &r);
	fl_fail(&r);
	json = json_of(&r);
	ok(r.verdict == FL_FAILED && strstr(json, "\"verdict\": \"failed\"") &&
	   !strstr(json, "median") && !strstr(json, "\"lo\""),
	   "a failed row: verdict 'failed', no ratio", json);
	free(json);

	/* the one PRNG: a shuffle is a permutation, and a new one each time */
	{
		unsigned v[32], w[32], seen = 0;
		uint64_t s = 0;	/* zero is replaced, not stuck */
		bool moved = false;

		for (unsigned i = 0; i < 32; i++)
			v[i] = i;
		fl_shuffle(v, 32, &s);
		memcpy(w, v, sizeof(w));
		fl_shuffle(v, 32, &s);
		for (unsigned i = 0; i < 32; i++) {
			seen |= 1u << v[i];
			moved |= v[i] != w[i];
		}
		ok(seen == 0xffffffffu && moved && s != 0,
		   "fl_shuffle: a permutation, another one on the next call", NULL);
	}
	return failed ? 1 : 0;
}
