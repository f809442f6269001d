// SPDX-License-Identifier: GPL-2.0
/* Small statistics helpers for benchmark repetitions and per-thread counts. */
#include "futexlock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double fl_median(const double *v, size_t n)
{
	double *c, m;

	if (!n)
		return 0.0;
	c = malloc(n * sizeof(*c));
	if (!c)
		abort();
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2.0;
	free(c);
	return m;
}

double fl_mean(const double *v, size_t n)
{
	double s = 0.0;

	if (!n)
		return 0.0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

double fl_stddev(const double *v, size_t n)
{
	double m = fl_mean(v, n), s = 0.0;

	if (!n)
		return 0.0;
	for (size_t i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return sqrt(s / (double)n);
}

double fl_min(const double *v, size_t n)
{
	double m = n ? v[0] : 0.0;

	for (size_t i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double fl_max(const double *v, size_t n)
{
	double m = n ? v[0] : 0.0;

	for (size_t i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

double fl_spread_pct(const double *v, size_t n)
{
	double med = fl_median(v, n);

	if (med <= 0.0)
		return 0.0;
	return 100.0 * (fl_max(v, n) - fl_min(v, n)) / med;
}

double fl_quantile(const double *v, size_t n, double q)
{
	double *c, pos, m;
	size_t i;

	if (!n)
		return 0.0;
	c = malloc(n * sizeof(*c));
	if (!c)
		abort();
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	q = q < 0.0 ? 0.0 : q > 1.0 ? 1.0 : q;
	pos = q * (double)(n - 1);
	i = (size_t)pos;
	m = i + 1 < n ? c[i] + (pos - (double)i) * (c[i + 1] - c[i]) : c[i];
	free(c);
	return m;
}

/* xorshift64*: a fixed, portable generator so intervals are reproducible */
static uint64_t boot_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

int fl_median_ci(const double *ratios, size_t n, struct fl_ratio_ci *r)
{
	double *v, *res, *meds;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
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
			res[i] = v[boot_next(&seed) % m];
		meds[b] = fl_median(res, m);
	}
	r->median = fl_median(v, m);
	r->lo = fl_quantile(meds, FL_BOOT_RESAMPLES, 0.025);
	r->hi = fl_quantile(meds, FL_BOOT_RESAMPLES, 0.975);
	if (r->lo > 1.0)
		r->verdict = FL_FASTER;
	else if (r->hi < 1.0)
		r->verdict = FL_SLOWER;
	else
		r->verdict = FL_INDISTINGUISHABLE;
	free(meds);
	free(res);
	free(v);
	return 0;
}

int fl_ratio_ci(const double *x, const double *base, size_t n,
		struct fl_ratio_ci *r)
{
	double *ratios = malloc((n ? n : 1) * sizeof(*ratios));
	int ret;

	if (!ratios)
		abort();
	for (size_t i = 0; i < n; i++)
		ratios[i] = x[i] > 0.0 && base[i] > 0.0 ? x[i] / base[i] : 0.0;
	ret = fl_median_ci(ratios, n, r);
	free(ratios);
	return ret;
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
	default:
		return "-";
	}
}

void fl_hist_init(struct fl_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

/* bucket of ns: exponent e = floor(log2), then FL_HIST_SUB linear steps */
static unsigned hist_bucket(uint64_t ns)
{
	unsigned e, sub;

	if (ns < FL_HIST_SUB)
		return (unsigned)ns;
	e = 63 - (unsigned)__builtin_clzll(ns);
	sub = (unsigned)((ns >> (e - 3)) & (FL_HIST_SUB - 1));
	return (e - 2) * FL_HIST_SUB + sub;
}

static uint64_t hist_upper(unsigned b)
{
	unsigned e = b / FL_HIST_SUB + 2, sub = b % FL_HIST_SUB;

	if (b < FL_HIST_SUB)
		return b;
	if (e >= 63)
		return UINT64_MAX;
	return ((uint64_t)(FL_HIST_SUB + sub + 1) << (e - 3)) - 1;
}

void fl_hist_add(struct fl_hist *h, uint64_t ns)
{
	h->count++;
	h->sum_ns += ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->bucket[hist_bucket(ns)]++;
}

void fl_hist_merge(struct fl_hist *into, const struct fl_hist *from)
{
	into->count += from->count;
	into->sum_ns += from->sum_ns;
	if (from->count && from->min_ns < into->min_ns)
		into->min_ns = from->min_ns;
	if (from->max_ns > into->max_ns)
		into->max_ns = from->max_ns;
	for (unsigned b = 0; b < FL_HIST_BUCKETS; b++)
		into->bucket[b] += from->bucket[b];
}

uint64_t fl_hist_quantile(const struct fl_hist *h, double q)
{
	uint64_t rank, seen = 0, up;

	if (!h->count)
		return 0;
	if (q >= 1.0)
		return h->max_ns;
	rank = (uint64_t)(q * (double)h->count);
	if (rank >= h->count)
		rank = h->count - 1;
	for (unsigned b = 0; b < FL_HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen > rank) {
			up = hist_upper(b);
			return up > h->max_ns ? h->max_ns : up;
		}
	}
	return h->max_ns;
}
