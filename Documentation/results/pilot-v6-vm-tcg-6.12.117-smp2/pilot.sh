#!/bin/bash
# pilot: the waiters rule and its variants (experimental knobs), per cell
FL=/work/main/userspace/build/futex_lock
OUT=${OUT:-/work/main/build/tmp/pilot2}
mkdir -p $OUT
for c in ${CELLS:-8:0 2:0 8:1000 2:10000}; do
	IFS=: read -r t h <<<"$c"
	$FL --compare -m adaptive -m adaptive@spin_check_waiters=0 -m adaptive@spin_check_woken=1 \
		-m adaptive@spin_check_woken=1,spin_check_queue=1 -m futex_lock \
		--baseline adaptive -t $t -d $h -w 0 --duration 0.2 -r 20 --ci-target 3 \
		--time-limit ${TLIM:-150} --seed 11 --json-file $OUT/t$t-h$h.json > $OUT/t$t-h$h.txt 2>&1
	echo "== t$t h$h"; sed -n '1,12p' $OUT/t$t-h$h.txt
done
