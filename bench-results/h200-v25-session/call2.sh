#!/usr/bin/env bash
# Nineteenth session, call 2 (carry ["dist", ".peers"]): call 1 again with
# its outputs packed (call 1 left more than the 8 files a call returns, and
# lost FlashInfer's JSON): ours twice on the serving set, FlashInfer fa2/fa3
# between, everything in json.tgz and logs.tgz.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
B=dist/pagedattn
AB_TIMEOUT=150 OUT=$OUT/r1 bash scripts/device-ab.sh ours=$B -- --workloads dist/serving.jsonl > "$OUT/ours-r1.txt" 2>&1
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
OUT="$OUT/peer" timeout 230 bash .peers/flashinfer/device_run.sh --workloads serving=dist/serving.jsonl \
  --backends fa2,fa3 --deadline-s 200 --target-ms 40 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"
AB_TIMEOUT=150 OUT=$OUT/r2 bash scripts/device-ab.sh ours=$B -- --workloads dist/serving.jsonl > "$OUT/ours-r2.txt" 2>&1
cd "$OUT" && mkdir -p j && cp r1/ab-ours.json j/r1-ab-ours.json; cp r2/ab-ours.json j/r2-ab-ours.json; cp peer/results.json j/flashinfer-peer.json
tar czf json.tgz j && tar czf logs.tgz r1 r2 peer *.txt *.log && rm -rf r1 r2 peer j *.log
python3 - <<'PY'
import json, tarfile
t = tarfile.open("json.tgz"); g = lambda n: json.load(t.extractfile(n))
fi = g("j/flashinfer-peer.json")
print(json.dumps(fi)[:600] if not isinstance(fi, dict) else list(fi.keys())[:10])
PY
echo "total $(( $(date +%s) - t0 ))s"
