#!/usr/bin/env bash
# Call 4 (twenty-ninth session): where the warp plan's search spends its
# 3000-6600 cycles (call 3: the second of two runs in a row as long as the
# first, so not its code's fetch): searchtl (srch's kernels, clock64 held in
# registers at the search's entry, its sums, the warpgroup barrier, the
# pick, and in build_plan_warp), device plan, one call per process.
# Carry ["dist"].
# Build: searchtl3.cubin from `scripts/variant-src.py searchtl` on srch's
# kernels (the variant's edits then matched srch's text). Output: call4/.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files tl *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
python3 scripts/make-sweep-workloads.py --short-decode dist/short-decode.jsonl > /dev/null
W=(--workloads dist/short-decode.jsonl --workloads dist/seed.jsonl)
mkdir -p "$OUT/tl"
for w in seed11 seed13 seed17 seed16 sdec_b1_q1_kv1024 sdec_b16_q1_kv4096 sdec_b4_q10_kv512; do
  timeout 40 $P bench --no-check --plan device --attention-cubin dist/var/searchtl3.cubin "${W[@]}" --filter "$w" > "$OUT/tl/$w.txt" 2>&1
  paste <(grep -E '^TL' "$OUT/tl/$w.txt") <(grep -E '^ST' "$OUT/tl/$w.txt") | python3 -c '
import sys,re
rows=[dict((k,int(v)) for k,v in re.findall(r"([a-z0-9]+) +(-?\d+)",l.replace("search","srchdone",1))) for l in sys.stdin]
m={k:sum(r[k] for r in rows)/len(rows) for k in rows[0]}
print("%-22s seqs %5.0f | search %5.0f sums %5.0f bar %5.0f pick %5.0f | build %5.0f rank %5.0f end %5.0f | dec %5.0f" % (sys.argv[1], m["seqs"], m["search"], m["sums"], m["bar"], m["pick"], m["build"], m["rank"], m["end"], m["dec"]))' "$w"
done
