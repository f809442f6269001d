// SPDX-License-Identifier: GPL-2.0
/*
 * The one paired-comparison engine of every tool (futex_lock --compare,
 * lockbench, wakebench, queuebench, overhead, and make matrix through
 * futex_lock's JSON):
 *   - the one PRNG (xorshift64*) for the run order and the bootstrap;
 *   - paired per-repetition ratios x[i] / base[i], their median and a 95%
 *     percentile-bootstrap interval (FL_BOOT_RESAMPLES resamples, fixed
 *     bootstrap seed, quantiles by linear interpolation: fl_quantile());
 *   - the verdict: every metric says whether lower or higher is better;
 *     a verdict needs >= FL_MIN_VERDICT_PAIRS pairs ("insufficient data")
 *     and an interval that excludes 1 and is clear of the table's
 *     A/A band, the A/A interval and its reciprocal ("indistinguishable"
 *     otherwise); the A/A row is the band ("control"), a row with a
 *     failed run gets none ("failed");
 *   - JSON of an interval and the provenance of a run (schema version,
 *     git commit, seed).
 */
#include "futexlock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef FL_GIT_COMMIT
#define FL_GIT_COMMIT "unknown"
#endif

const char *fl_git_commit(void)
{
	return FL_GIT_COMMIT;
}

uint64_t fl_rng_next(uint64_t *s)
{
	if (!*s)
		*s = 0x9e3779b97f4a7c15ull;	/* xorshift has no zero state */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

void fl_shuffle(unsigned *v, size_t n, uint64_t *seed)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = fl_rng_next(seed) % i;
		unsigned t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

int fl_median_ci(const double *ratios, size_t n, struct fl_ratio_ci *r)
{
	double *v, *res, *meds;
	uint64_t seed = FL_BOOT_SEED;
	size_t m = 0;

	memset(r, 0, sizeof(*r));
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		abort();
	for (size_t i = 0; i < n; i++)
		if (ratios[i] > 0.0)
			v[m++] = ratios[i];
	r->n = m;
	if (m < 2) {
		r->median = m ? v[0] : 0.0;
		r->verdict = FL_NO_DATA;
		free(v);
		return -1;
	}
	res = malloc(m * sizeof(*res));
	meds = malloc(FL_BOOT_RESAMPLES * sizeof(*meds));
	if (!res || !meds)
		abort();
	for (size_t b = 0; b < FL_BOOT_RESAMPLES; b++) {
		for (size_t i = 0; i < m; i++)
			res[i] = v[fl_rng_next(&seed) % m];
		meds[b] = fl_median(res, m);
	}
	r->median = fl_median(v, m);
	r->lo = fl_quantile(meds, FL_BOOT_RESAMPLES, 0.025);
	r->hi = fl_quantile(meds, FL_BOOT_RESAMPLES, 0.975);
	r->verdict = FL_INDISTINGUISHABLE;	/* fl_decide() gives the verdict */
	free(meds);
	free(res);
	free(v);
	return 0;
}

int fl_ratio_ci(const double *x, const double *base, size_t n,
		struct fl_ratio_ci *r)
{
	double *ratios = calloc(n ? n : 1, sizeof(*ratios));
	int ret;

	double sx = 0.0, sb = 0.0;

	if (!ratios)
		abort();
	for (size_t i = 0; i < n; i++) {
		bool pair = x[i] > 0.0 && base[i] > 0.0;

		ratios[i] = pair ? x[i] / base[i] : 0.0;
		sx += pair ? x[i] : 0.0;
		sb += pair ? base[i] : 0.0;
	}
	ret = fl_median_ci(ratios, n, r);
	r->mean_ratio = sb > 0.0 ? sx / sb : 0.0;
	free(ratios);
	return ret;
}

void fl_aa_band(double aa_lo, double aa_hi, double *down, double *up)
{
	*down = 1.0;
	*up = 1.0;
	if (!(aa_lo > 0.0 && aa_hi > 0.0))	/* NaN too */
		return;
	*up = fmax(*up, fmax(aa_hi, 1.0 / aa_lo));
	*down = fmin(*down, fmin(aa_lo, 1.0 / aa_hi));
}

void fl_decide(struct fl_ratio_ci *r, enum fl_better better,
	       const struct fl_ratio_ci *aa)
{
	double up = 1.0, down = 1.0;
	bool higher;

	r->better = better;
	r->has_aa = aa != NULL;
	if (aa) {
		r->aa_n = aa->n;
		r->aa_median = aa->median;
		r->aa_lo = aa->lo;
		r->aa_hi = aa->hi;
	}
	if (r->n < 2) {
		r->verdict = FL_NO_DATA;
		return;
	}
	/* too few pairs, or no usable noise floor: no verdict */
	if (r->n < FL_MIN_VERDICT_PAIRS ||
	    (aa && (aa->n < 2 || aa->n < FL_MIN_VERDICT_PAIRS))) {
		r->verdict = FL_INSUFFICIENT;
		return;
	}
	if (aa)
		fl_aa_band(aa->lo, aa->hi, &down, &up);
	if (r->lo > up)
		higher = true;
	else if (r->hi < down)
		higher = false;
	else {
		r->verdict = FL_INDISTINGUISHABLE;
		return;
	}
	r->verdict = higher == (better == FL_HIGHER_IS_BETTER) ? FL_FASTER : FL_SLOWER;
	/* a few slow repetitions move the mean, not the median: say so */
	r->tail_disagrees = r->mean_ratio > 0.0 &&
		(higher ? r->mean_ratio < 1.0 : r->mean_ratio > 1.0);
}

int fl_compare(const double *x, const double *base, const double *aa,
	       size_t n, enum fl_better better, struct fl_ratio_ci *r)
{
	struct fl_ratio_ci band;
	int ret = fl_ratio_ci(x, base, n, r);

	if (aa == x) {		/* the A/A row: it is the band, not a claim */
		fl_decide(r, better, NULL);
		if (r->n >= 2)
			r->verdict = FL_CONTROL;
		return ret;
	}
	if (!aa) {		/* no A/A column: against 1 only */
		fl_decide(r, better, NULL);
		return ret;
	}
	fl_ratio_ci(aa, base, n, &band);
	fl_decide(r, better, &band);
	return ret;
}

void fl_fail(struct fl_ratio_ci *r)
{
	r->verdict = FL_FAILED;
}

bool fl_aa_ok(const struct fl_ratio_ci *aa)
{
	return aa->n >= 2 && aa->lo <= 1.0 && aa->hi >= 1.0;
}

const char *fl_verdict_name(enum fl_verdict v)
{
	switch (v) {
	case FL_FASTER:
		return "faster";
	case FL_SLOWER:
		return "slower";
	case FL_INDISTINGUISHABLE:
		return "indistinguishable";
	case FL_INSUFFICIENT:
		return "insufficient data";
	case FL_CONTROL:
		return "control";
	case FL_FAILED:
		return "failed";
	default:
		return "-";
	}
}

const char *fl_better_name(enum fl_better b)
{
	return b == FL_LOWER_IS_BETTER ? "lower" : "higher";
}

void fl_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void fl_json_ci(FILE *f, const struct fl_ratio_ci *r)
{
	if (r->verdict == FL_FAILED) {	/* no ratio from a failed row */
		fprintf(f, "{\"n\": %zu, \"better\": \"%s\", \"verdict\": \"failed\"}",
			r->n, fl_better_name(r->better));
		return;
	}
	if (r->n < 2) {
		fprintf(f, "null");
		return;
	}
	fprintf(f, "{\"n\": %zu, \"median\": %.4f, \"lo\": %.4f, \"hi\": %.4f, \"better\": \"%s\", ",
		r->n, r->median, r->lo, r->hi, fl_better_name(r->better));
	if (r->has_aa && r->aa_n >= 2)
		fprintf(f, "\"aa\": {\"n\": %zu, \"median\": %.4f, \"lo\": %.4f, \"hi\": %.4f}, \"aa_ok\": %s, ",
			r->aa_n, r->aa_median, r->aa_lo, r->aa_hi,
			r->aa_lo <= 1.0 && r->aa_hi >= 1.0 ? "true" : "false");
	else
		fprintf(f, "\"aa\": null, \"aa_ok\": null, ");
	if (r->mean_ratio > 0.0)
		fprintf(f, "\"mean_ratio\": %.4f, \"tail_disagrees\": %s, ", r->mean_ratio,
			r->tail_disagrees ? "true" : "false");
	fprintf(f, "\"min_pairs\": %d, \"insufficient\": %s, \"verdict\": \"%s\"}",
		FL_MIN_VERDICT_PAIRS,
		r->verdict == FL_INSUFFICIENT ||
		(r->verdict == FL_CONTROL && r->n < FL_MIN_VERDICT_PAIRS) ? "true" : "false",
		fl_verdict_name(r->verdict));
}

const char *fl_ci_str(const struct fl_ratio_ci *r, char *buf, size_t len)
{
	if (r->verdict == FL_FAILED)
		snprintf(buf, len, "failed");
	else if (r->n < 2)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f [%.2f,%.2f]", r->median, r->lo, r->hi);
	return buf;
}

void fl_json_series(FILE *f, const double *v, size_t n, double scale)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (v[i] > 0.0)
			fprintf(f, "%s%.6g", i ? ", " : "", v[i] * scale);
		else
			fprintf(f, "%snull", i ? ", " : "");
	}
	fputc(']', f);
}

void fl_json_provenance(FILE *f, uint64_t seed)
{
	fprintf(f, "\"schema_version\": %d, \"git_commit\": ", FL_SCHEMA_VERSION);
	fl_json_str(f, fl_git_commit());
	fprintf(f, ", \"seed\": %llu, \"min_pairs\": %d", (unsigned long long)seed,
		FL_MIN_VERDICT_PAIRS);
}
