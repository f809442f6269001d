// SPDX-License-Identifier: GPL-2.0
/*
 * guest-util - the two things guest-init cannot do from bash.
 *
 *   guest-util exit STATUS   end the guest with an exit status the host reads
 *   guest-util probe         print whether this kernel has FUTEX_LOCK
 *
 * exit writes the status to QEMU's isa-debug-exit port (iobase 0xf4), which makes
 * QEMU exit with (status << 1) | 1.  Only 7 bits survive that encoding, so
 * guest-init also leaves the full value in a status file on the 9p share.
 * If the port is not there (a guest started by hand), power off instead.
 *
 * probe uses the feature test from Documentation/futex-lock.md: FUTEX_UNLOCK
 * on a private word that holds 0 fails with ENOSYS on a kernel without the
 * new ops and with EPERM (not the owner) on a patched one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/io.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#ifndef FUTEX_UNLOCK
#define FUTEX_UNLOCK 16
#endif

#define DEBUG_EXIT_PORT 0xf4

static int usage(void)
{
	fprintf(stderr, "usage: guest-util exit STATUS | guest-util probe\n");
	return 2;
}

static int probe(void)
{
	unsigned int word = 0;
	long ret;

	ret = syscall(SYS_futex, &word, FUTEX_UNLOCK | FUTEX_PRIVATE_FLAG,
		      0, NULL, NULL, 0);
	if (ret == -1 && errno == ENOSYS) {
		printf("FUTEX_LOCK: not available (ENOSYS): unpatched kernel\n");
		return 1;
	}
	if (ret == -1 && errno == EPERM) {
		printf("FUTEX_LOCK: available (FUTEX_UNLOCK probe -> EPERM)\n");
		return 0;
	}
	printf("FUTEX_LOCK: unexpected probe result %ld (%s)\n", ret,
	       ret ? strerror(errno) : "success");
	return 1;
}

static int guest_exit(const char *arg)
{
	unsigned long status;
	char *end;

	errno = 0;
	status = strtoul(arg, &end, 10);
	if (errno || *end || end == arg) {
		fprintf(stderr, "guest-util: bad status '%s'\n", arg);
		return 2;
	}
	if (status > 127)
		status = 127;

	sync();
	if (ioperm(DEBUG_EXIT_PORT, 4, 1) == 0)
		outb((unsigned char)status, DEBUG_EXIT_PORT);
	else
		fprintf(stderr, "guest-util: ioperm: %s\n", strerror(errno));

	/* Still here: no isa-debug-exit device. */
	reboot(RB_POWER_OFF);
	fprintf(stderr, "guest-util: reboot: %s\n", strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "exit"))
		return guest_exit(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "probe"))
		return probe();
	return usage();
}
