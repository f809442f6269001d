# SPDX-License-Identifier: GPL-2.0
# Sourced by the result scripts (plot.sh, seedbench.sh, seedplot.sh):
#   REPO, RES (Documentation/results), PY (python3, /usr/bin first),
#   fl_need_gnuplot NAME     exit 1 with the package name if gnuplot is missing
#   fl_env_desc              where are we: QEMU TCG, some VM, or bare metal
#   fl_env_label PREFIX      PREFIX-vm-tcg-<kernel>-smp<n> in the TCG guest,
#                            else PREFIX-host-<kernel>-cpu<n> (as matrix.sh)
# shellcheck shell=bash
REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RES=${RES:-$REPO/Documentation/results}
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

fl_need_gnuplot() {
	command -v gnuplot >/dev/null && return 0
	echo "$1: gnuplot not installed (apt-get install gnuplot-nox)" >&2
	exit 1
}

fl_env_desc() {
	local cpu
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
	# QEMU TCG shows a QEMU CPU model; a hypervisor flag otherwise means
	# some VM (KVM with -cpu host); no flag: bare metal.
	if grep -qi 'qemu\|tcg' <<<"$cpu"; then
		echo "QEMU TCG emulation (timings are emulated; compare ratios only)"
	elif grep -qw hypervisor /proc/cpuinfo; then
		echo "virtual machine (hypervisor flag set)"
	else
		echo "bare metal"
	fi
}

fl_env_label() {
	case $(fl_env_desc) in
	QEMU*) echo "$1-vm-tcg-$(uname -r)-smp$(nproc)" ;;
	*) echo "$1-host-$(uname -r)-cpu$(nproc)" ;;
	esac
}
