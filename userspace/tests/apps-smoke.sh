#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check's real-program smoke (guest, tools/testing/vm/guest-check):
# one program of make apps, RocksDB cache_bench with one cache shard (one
# hot mutex), once under FUTEXLOCK_PRELOAD=lock and once under =adaptive,
# for a few seconds, with FUTEXLOCK_PRELOAD_STATS=1.  TAP; asserts only
# facts that need no contention: it completes with its own output correct,
# the preload converted mutexes and took locks through them (cache_bench:
# at least one per op), and the preload's syscall counts equal the kernel's
# debugfs deltas (the mode's op, none of the other, FUTEX_UNLOCK with the
# probe): never a speed.  A broken preload fails it: PRELOAD_SO=<a broken build> (see
# Documentation/real-programs.md for how it was seen failing).
# Env: APPS_SMOKE_PROG (default cache_bench), PRELOAD_SO.
exec "$(dirname "$0")/../scripts/apps.sh" --smoke "${APPS_SMOKE_PROG:-cache_bench}"
