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

double fl_median_sort(double *v, size_t n)
{
	if (!n)
		return 0.0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
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
	m = fl_median_sort(c, n);
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

void fl_hist_add_zeros(struct fl_hist *h, uint64_t n)
{
	if (!n)
		return;
	h->count += n;
	h->min_ns = 0;
	h->bucket[hist_bucket(0)] += n;
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
