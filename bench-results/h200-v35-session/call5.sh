#!/usr/bin/env bash
# Call 5 (twenty-ninth session): call 4's breakdown of the warp plan's
# search on edca88e's kernels (searchtl) beside srch's (searchtl3), device
# plan, one call per process, three runs each. Carry ["dist"].
# Builds: searchtl.cubin from `scripts/variant-src.py searchtl` on
# edca88e's kernels (as committed), searchtl3.cubin as in call 4. Output: call5/.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files tl *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
python3 scripts/make-sweep-workloads.py --short-decode dist/short-decode.jsonl > /dev/null
W=(--workloads dist/short-decode.jsonl --workloads dist/seed.jsonl)
mkdir -p "$OUT/tl"
for w in seed11 seed13 seed17 seed16 sdec_b1_q1_kv1024 sdec_b16_q1_kv4096 sdec_b4_q10_kv512; do
  for v in searchtl searchtl3; do
    for r in 1 2 3; do
      timeout 40 $P bench --no-check --plan device --attention-cubin dist/var/$v.cubin "${W[@]}" --filter "$w" > "$OUT/tl/$w-$v-$r.txt" 2>&1
    done
    cat "$OUT"/tl/$w-$v-*.txt > "$OUT/tl/$w-$v.all"
    paste <(grep -E '^TL' "$OUT/tl/$w-$v.all") <(grep -E '^ST' "$OUT/tl/$w-$v.all") | python3 -c '
import sys,re
rows=[dict((k,int(v)) for k,v in re.findall(r"([a-z0-9]+) +(-?\d+)",l.replace("search","srchdone",1))) for l in sys.stdin]
m={k:sorted(r[k] for r in rows)[len(rows)//2] for k in rows[0]}
print("%-32s n %2d medians: seqs %5d | search %5d sums %5d bar %5d pick %5d | build %5d rank %5d end %5d | dec %5d | exit %6d" % (sys.argv[1], len(rows), m["seqs"], m["search"], m["sums"], m["bar"], m["pick"], m["build"], m["rank"], m["end"], m["dec"], m["exit"]))' "$w $v"
  done
done
