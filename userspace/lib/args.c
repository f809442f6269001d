// SPDX-License-Identifier: GPL-2.0
/* Strict number parsing for command lines: reject what strtoul() forgives. */
#include "futexlock.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

int fl_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts " 12", "+12" and "-12" (wrapping); we do not */
	if (!s || !isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int fl_parse_double(const char *s, double min, double max, double *out)
{
	double v;
	char *end;
	int dots = 0;

	if (!s || !*s)
		return -1;
	/* plain decimal only: strtod would take "0x10", "1e3", "inf" */
	for (const char *p = s; *p; p++) {
		if (*p == '.' && !dots++)
			continue;
		if (!isdigit((unsigned char)*p))
			return -1;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end != '\0' || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}
