#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Mutation check of the preload's tests: run tests/preload-tests.sh against
# each deliberately broken build build/mutants/libfutexlock-preload-N.so
# (-DFL_PRELOAD_BROKEN=N, list in preload/README.md); each must make at
# least one test fail.  Prints which tests caught which mutant.  TAP.
#   preload-mutants.sh [--vm] N...   (make -C userspace preload-mutants)
set -u
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
where=host
[ "${1:-}" = --vm ] && { where=vm; shift; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n=0 fail=0
echo "TAP version 13"
echo "# $where; each mutant must fail at least one test"
for m in "$@"; do
	so=$PWD/$B/mutants/libfutexlock-preload-$m.so
	n=$((n + 1))
	if [ ! -f "$so" ]; then
		echo "not ok $n - mutant $m: $so not built"; fail=$((fail + 1)); continue
	fi
	PRELOAD_SO=$so FL_PRELOAD_GUARD=${FL_PRELOAD_GUARD:-20} \
		tests/preload-tests.sh "$where" >"$TMP/out" 2>&1
	caught=()
	while IFS= read -r l; do
		[[ $l == "not ok "* ]] && caught+=("${l#not ok * - }")
	done <"$TMP/out"
	if [ ${#caught[@]} -gt 0 ]; then
		echo "ok $n - mutant $m caught by ${#caught[@]} test(s)"
	else
		echo "not ok $n - mutant $m: no test failed"; fail=$((fail + 1))
	fi
	for c in "${caught[@]}"; do echo "#   $m: $c"; done
done
echo "1..$n"
[ $fail -eq 0 ]
