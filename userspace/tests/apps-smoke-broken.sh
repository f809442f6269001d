#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The real-program smoke of make check (apps-smoke.sh) against deliberately
# broken preloads: each must make it fail, the real preload must pass.  Run
# in the guest (patched kernel): vm-run -- userspace/tests/apps-smoke-broken.sh
# Not part of make check (a minute of guest time); it is how the smoke was
# seen failing (Documentation/real-programs.md, section 3).  TAP.
#   stub      a library that interposes nothing (the program runs on glibc)
#   noexport  the preload with its symbols hidden: it loads and probes the
#             ops, but interposes nothing (its stats: no mutex converted)
#   nolock    the preload's pthread_mutex_lock/unlock return 0 without
#             locking (cache_bench aborts, or hangs until the guard: 60 s here,
#             APPS_SMOKE_GUARD; make check's smoke waits 300 s)
# The broken libraries are built here with gcc into $BUILD/apps-smoke-broken.
set -u
export APPS_SMOKE_GUARD=${APPS_SMOKE_GUARD:-60}
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
U=$REPO/userspace
D=${BUILD:-$REPO/build}/apps-smoke-broken
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
CFLAGS="-O2 -std=gnu11 -pthread -I$U/include -fPIC -shared -fvisibility=hidden"
mkdir -p "$D"
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }

echo "TAP version 13"
echo 'int futexlock_stub_does_nothing;' >"$D/stub.c"
sed 's/^#define EXPORT __attribute__((visibility("default")))$/#define EXPORT/' \
	"$U/preload/preload.c" >"$D/noexport.c"
"$PY" - "$U/preload/preload.c" "$D/nolock.c" <<'EOF'
import sys
s = open(sys.argv[1]).read()
for body, call in (("REAL(mutex_lock)(m);\n\t}\n\treturn ", "pl_lock(m, t, 0, NULL, 0);"),
                   ("REAL(mutex_unlock)(m);\n\t}\n\treturn ", "pl_unlock(m, t);")):
    assert s.count(body + call) == 1, call
    s = s.replace(body + call, body + "0;")
open(sys.argv[2], "w").write(s)
EOF
for v in stub noexport nolock; do
	# shellcheck disable=SC2086
	if ! grep -q '^#define EXPORT$' "$D/noexport.c" ||
	   ! gcc $CFLAGS -o "$D/$v.so" "$D/$v.c" -ldl 2>"$D/$v.log"; then
		nok "build the broken preload $v ($D/$v.log)"
	fi
done

check() {	# NAME SO WANT(pass|fail)
	local rc
	PRELOAD_SO=$2 "$U/tests/apps-smoke.sh" >"$D/$1.out" 2>&1
	rc=$?
	sed 's/^/# /' "$D/$1.out" | grep -E '^# (not )?ok |^# [0-9]+ passed'
	if { [ "$3" = pass ] && [ $rc -eq 0 ]; } || { [ "$3" = fail ] && [ $rc -ne 0 ]; }; then
		ok "smoke with the $1 preload: ${3}ed as it must (exit $rc)"
	else
		nok "smoke with the $1 preload: exit $rc, must $3"
	fi
}
check real "$U/build/libfutexlock-preload.so" pass
for v in stub noexport nolock; do
	check "$v" "$D/$v.so" fail
done
echo "1..$n"
echo "$((n - fail)) passed, $fail failed"
[ $fail -eq 0 ]
