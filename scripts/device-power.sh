#!/usr/bin/env bash
# On the GPU machine (carry ["dist"]; about 15 s a row): the long rows
# sustained for ~4 s each, ours then cuDNN's dense kernel
# (bench/python/dense_anchor.py), under scripts/power-probe.sh: what each
# gets for the same power once the H200's 700 W limit holds the clock
# (BENCHMARKS.md, "Fifteenth session"). Prints a markdown table last.
#   bash scripts/device-power.sh [ROW ...]   # default: 8192 16384 32768 16x2048
# ROW is N (scale_single_N) or BxN (scale_batchBxN); EXTRA="--attention-cubin
# dist/var/X.cubin" times a variant for ours instead.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=${DIST:-dist}
rows=("$@"); [ ${#rows[@]} -eq 0 ] && rows=(8192 16384 32768 16x2048)
table="| row | ours us (MHz) | cuDNN us (MHz) | ours / cuDNN |\n|---|---:|---:|---:|"
clock() { grep -oE "sm_clock=[0-9-]+" <<< "$1" | cut -d= -f2; }
for row in "${rows[@]}"; do
  if [[ $row == *x* ]]; then b=${row%x*}; n=${row#*x}; name=scale_batch${row}; else b=1; n=$row; name=scale_single_$row; fi
  # ~4 s of calls at ~1 ps a visible query-key pair and head (the H200 under the cap)
  reps=$(python3 -c "print(max(50, int(4 / (1e-12 * 24 * $b * $n * ($n + 1) / 2))))")
  a=$(bash scripts/power-probe.sh ours-$row -- timeout 90 $D/pagedattn bench --backend cuda --no-check \
    --workloads $D/scale.jsonl --filter "$name" --reps "$reps" --warmup 10 ${EXTRA:-})
  c=$(bash scripts/power-probe.sh cudnn-$row -- timeout 120 python3 bench/python/dense_anchor.py --rows "$row" \
    --reps "$reps" --backends cudnn)
  echo "$a"; echo "$c"
  ours=$(grep -hoE "^\| $name +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9.]+" "$OUT/power-ours-$row.log" | awk -F'|' '{print $6+0}')
  dense=$(grep -hoE 'cudnn \| [0-9.]+' "$OUT/power-cudnn-$row.log" | awk '{print $3}')
  ratio=$(python3 -c "print(f'{$ours / $dense:.3f}')" 2>/dev/null || echo -)
  table+="\n| $name | $ours ($(clock "$a")) | $dense ($(clock "$c")) | $ratio |"
done
echo -e "$table"
