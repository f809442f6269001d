#!/bin/sh
# this diagnostic's contrasts (README), through the second diagnostic's
# paired.py: paired.sh [-s K] boot*-seed*.json.gz
exec python3 "$(dirname "$0")/../diag-1t-fastpath2-vm-tcg-6.12.117-smp2/paired.py" \
	-p x_wwcas:waitwake -p x_wwld:x_wwcas -p x_wwtls:x_wwcas \
	-p x_wwtls:x_wwld -p futex_lock:x_wwtls -p adaptive:futex_lock \
	-p x_wwtls:waitwake -p x_wwld:waitwake -p futex_lock:waitwake \
	-p adaptive:waitwake -p 'waitwake (A/A):waitwake' "$@"
