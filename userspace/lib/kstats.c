// SPDX-License-Identifier: GPL-2.0
/* The patched kernel's debugfs counters: "name: value" lines, cumulative. */
#include "futexlock.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *fl_kstats_path(void)
{
	const char *p = getenv("FUTEXLOCK_KSTATS");

	return p && *p ? p : FL_KSTATS_PATH;
}

int fl_kstats_read(struct fl_kstats *k)
{
	return fl_kstats_read_file(fl_kstats_path(), k);
}

int fl_kstats_read_file(const char *path, struct fl_kstats *k)
{
	char line[256];
	FILE *f;

	k->n = -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	k->n = 0;
	while (k->n < FL_KSTATS_MAX && fgets(line, sizeof(line), f)) {
		char name[48];
		uint64_t v;

		if (sscanf(line, " %47[^: \t] : %" SCNu64, name, &v) != 2)
			continue;
		strcpy(k->name[k->n], name);
		k->value[k->n] = v;
		k->n++;
	}
	fclose(f);
	return 0;
}

/*
 * Lines that are values now, not counts since boot: a delta keeps them as
 * they are at the end (the spin budget in use, the measured wake-up
 * latency, the knobs, the largest loss streak).
 */
int fl_kstats_is_gauge(const char *name)
{
	static const char *const gauges[] = {
		"lost_max", "handoff_threshold", "spin_max_ns",
		"wake_latency_ns", "spin_budget_ns",
	};

	for (size_t i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++)
		if (!strcmp(name, gauges[i]))
			return 1;
	return 0;
}

void fl_kstats_delta(const struct fl_kstats *before,
		     const struct fl_kstats *after, struct fl_kstats *out)
{
	out->n = after->n;
	for (int i = 0; i < after->n; i++) {
		uint64_t b = 0;

		for (int j = 0; j < before->n && !fl_kstats_is_gauge(after->name[i]); j++)
			if (!strcmp(before->name[j], after->name[i]))
				b = before->value[j];
		strcpy(out->name[i], after->name[i]);
		out->value[i] = after->value[i] - b;
	}
}
