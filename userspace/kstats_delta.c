// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_delta BEFORE AFTER: the change in the patched kernel's debugfs
 * counters between two saved copies of /sys/kernel/debug/futex_lock/stats,
 * one "name: value" line per line of AFTER.  Counters give AFTER - BEFORE;
 * values that are not counts (the spin budget, the knobs, the largest loss
 * streak: fl_kstats_is_gauge()) give their value in AFTER.  The scripts
 * that save the file around a run (apps.sh, cpython-suites.sh) use this,
 * so that there is one list of those values (lib/kstats.c).
 * Exit: 0, 1 if a file cannot be read, 2 usage.
 */
#include "futexlock.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: kstats_delta BEFORE AFTER\n"
		"  print AFTER - BEFORE for each \"name: value\" line of AFTER (saved\n"
		"  copies of %s); values that are not counts\n"
		"  (e.g. spin_budget_ns) as they are in AFTER.\n"
		"exit: 0, 1 a file cannot be read, 2 usage\n", FL_KSTATS_PATH);
}

int main(int argc, char **argv)
{
	struct fl_kstats before, after, delta;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 3 || argv[1][0] == '-' || argv[2][0] == '-') {
		usage(stderr);
		return 2;
	}
	for (int i = 1; i <= 2; i++) {
		if (fl_kstats_read_file(argv[i], i == 1 ? &before : &after)) {
			fprintf(stderr, "kstats_delta: %s: cannot read: %m\n", argv[i]);
			return 1;
		}
	}
	fl_kstats_delta(&before, &after, &delta);
	for (int i = 0; i < delta.n; i++)
		printf("%s: %" PRIu64 "\n", delta.name[i], delta.value[i]);
	return 0;
}
