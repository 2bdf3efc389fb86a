#!/usr/bin/env bash
# Device call 2 (sixth session): does the warp-uniform descriptor change
# (uni) cost the tiny rows? cur / uni / uni128 (the broadcast in the m128
# configuration only) in four alternating rounds on seed + shapes; then an
# ncu source-level profile of scale_single_8192 on uni.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*/; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/shapes.jsonl)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
for r in 1 2 3 4; do
  case $r in 1|3) order="cur uni uni128";; *) order="uni128 uni cur";; esac
  AB_TIMEOUT=60 OUT=$OUT/r$r bash scripts/device-ab.sh $(for c in $order; do cfg $c; done) -- "${W[@]}" > "$OUT/ab-r$r.txt" 2>&1
  echo "round $r $(( $(date +%s) - t0 ))s"
done
python3 - "$OUT" <<'PY'
import json,sys,statistics as st
out=sys.argv[1]; t={}
for r in (1,2,3,4):
    for c in ("cur","uni","uni128"):
        d=json.load(open(f"{out}/r{r}/ab-{c}.json"))
        for row in d["rows"]:
            t.setdefault(row["name"],{}).setdefault(c,[]).append(row.get("median_us") or row.get("time_us"))
print("| workload | cur (4 runs, median) | uni | uni128 | uni/cur | uni128/cur |")
print("|---|---:|---:|---:|---:|---:|")
import math
g={"uni":[],"uni128":[]}
for n,v in t.items():
    m={c:st.median(v[c]) for c in v}
    print(f"| {n} | {m['cur']:.2f} | {m['uni']:.2f} | {m['uni128']:.2f} | {m['uni']/m['cur']:.3f} | {m['uni128']/m['cur']:.3f} |")
    for c in g: g[c].append(math.log(m[c]/m['cur']))
print("geomean uni/cur %.4f uni128/cur %.4f" % tuple(math.exp(sum(g[c])/len(g[c])) for c in ("uni","uni128")))
PY
echo "ab $(( $(date +%s) - t0 ))s"
timeout 240 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 --set full --import-source yes \
  -o "$OUT/src8192" -f $D/pagedattn bench --backend cuda --no-check --reps 1 --warmup 0 --attention-cubin $D/var/uni.cubin \
  --workloads $D/scale.jsonl --filter scale_single_8192 > "$OUT/ncu_src.txt" 2>&1
echo "ncu rc=$? $(( $(date +%s) - t0 ))s"
ncu -i "$OUT/src8192.ncu-rep" --page source --csv --print-source sass 2>/dev/null | gzip > "$OUT/src8192_sass.csv.gz"
ncu -i "$OUT/src8192.ncu-rep" --page details > "$OUT/src8192_details.txt" 2>&1
grep -E "Duration|Elapsed Cycles|SM Frequency|Issue Slots Busy|Compute \(SM\)|L2 Cache Throughput|Warp Cycles Per Issued|Eligible Warps" "$OUT/src8192_details.txt" | head -12
cd "$OUT" && mkdir -p j && for r in 1 2 3 4; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude='*.ncu-rep' --exclude='*.gz' * && tar czf json.tgz j && rm -rf r1 r2 r3 r4 j *.log *.ncu-rep ncu_src.txt ab-r*.txt
ls; echo "total $(( $(date +%s) - t0 ))s"
