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
