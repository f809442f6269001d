# SPDX-License-Identifier: GPL-2.0
# Sourced by host-tests.sh, preload-tests.sh and vm-test.sh: fold a sub-binary's TAP output
# into the caller's numbering, then add one test of its own that fails
# unless the sub-binary exited 0 AND reported every test of its plan (a
# crash after 7 of 24 tests fails here even though the 7 lines said ok).
# The caller defines ok, nok and skp (description as arguments).

# fold_tap LABEL FILE RC
fold_tap() {
	local label=$1 file=$2 rc=$3 line d plan= seen=0
	while IFS= read -r line; do
		case "$line" in
		"1.."*)
			plan=${line#1..} ;;
		"ok "*"# SKIP"*)
			seen=$((seen + 1))
			d=${line#ok * - }
			skp "$label: ${d%% # SKIP*} (${d#* # SKIP })" ;;
		"ok "*)
			seen=$((seen + 1))
			ok "$label: ${line#ok * - }" ;;
		"not ok "*)
			seen=$((seen + 1))
			nok "$label: ${line#not ok * - }" ;;
		"#"*)
			echo "$line" ;;
		esac
	done <"$file"
	if [ "$rc" -eq 0 ] && [ -n "$plan" ] && [ "$seen" -eq "$plan" ]; then
		ok "$label: exit status 0, $seen of $plan planned tests reported"
	else
		nok "$label: exit status $rc, $seen of ${plan:-no plan} planned tests reported"
	fi
}

# excl_ok OUT N: futex_lock's exclusion check held ("ok"), or the threads
# took the lock in turn too seldom to exercise it (fewer than 100
# hand-offs: a loaded host runs them one after another); never VIOLATED.
excl_ok() {
	[[ $'\n'$1$'\n' == *$'\n'"mutual exclusion: ok (protected counter $2)"$'\n'* ||
	   $'\n'$1$'\n' == *$'\n'"mutual exclusion: not exercised (protected counter $2; "*" hand-offs, fewer than 100)"$'\n'* ]]
}
