#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check's real-program smoke (guest, tools/testing/vm/guest-check):
# one program of make apps, RocksDB cache_bench with one cache shard (one
# hot mutex), once under FUTEXLOCK_PRELOAD=lock and once under =adaptive,
# for a few seconds.  TAP; asserts only that it completes with its own
# output correct and that the kernel's debugfs counters show the mode's op
# (FUTEX_LOCK, FUTEX_LOCK_ADAPTIVE) and FUTEX_UNLOCK were used: never a
# speed.  A broken preload fails it: PRELOAD_SO=<a broken build> (see
# Documentation/real-programs.md for how it was seen failing).
# Env: APPS_SMOKE_PROG (default cache_bench), PRELOAD_SO.
exec "$(dirname "$0")/../scripts/apps.sh" --smoke "${APPS_SMOKE_PROG:-cache_bench}"
