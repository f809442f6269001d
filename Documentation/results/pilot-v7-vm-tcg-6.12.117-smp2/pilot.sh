#!/bin/bash
FL=/work/main/build/tmp/xpus/build/futex_lock
OUT=/work/main/build/tmp/xp-$(date +%H%M)
mkdir -p $OUT
for c in ${XP_CELLS:-4:0:0 2:0:0 3:100:0 4:1000:0}; do
  IFS=: read -r t h w <<<"$c"
  echo "== cell $c"
  $FL --compare -m futex_lock -m adaptive ${XP_MODES:--m adaptive@xp_spin_woken=0 -m adaptive@xp_spin_arrivals=0} \
     -t $t -d $h -w $w --duration ${XP_DUR:-0.4} -r ${XP_REP:-30} --seed 77 \
     --json-file $OUT/t$t-h$h-w$w.json > $OUT/t$t-h$h-w$w.txt 2>&1
  head -12 $OUT/t$t-h$h-w$w.txt
done
