#!/usr/bin/env bash
# Call 7: v17.8 (d5fac24) beside FlashInfer 0.7.2.post1 (fa2, fa3,
# kernel-only graph time) on the four short-decode draws, generated here
# (make-sweep-workloads.py --short-decode*): ours, FlashInfer, ours again.
# Carry ["dist", ".peers"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s); D=dist
trap '(cd "$OUT" && tar czf logs.tgz --remove-files r1 r2 peer *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=(); PW=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m $D/$m.jsonl > /dev/null
  W+=(--workloads $D/$m.jsonl); PW+=($m=$D/$m.jsonl)
done
AB_TIMEOUT=60 OUT=$OUT/r1 bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1; echo "r1 $(( $(date +%s) - t0 ))s"
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
OUT="$OUT/peer" timeout 130 bash .peers/flashinfer/device_run.sh --workloads "${PW[@]}" --backends fa2,fa3 --deadline-s 100 --target-ms 40 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$OUT/peer.log"
AB_TIMEOUT=60 OUT=$OUT/r2 bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1; echo "r2 $(( $(date +%s) - t0 ))s"
cp "$OUT/peer/results.json" "$OUT/flashinfer-peer.json" 2>/dev/null
for r in r1 r2; do
  python3 scripts/join_peer.py "$OUT/$r/ab-ours.json" --peer-json "$OUT/flashinfer-peer.json" > "$OUT/join-$r.md" 2>&1
  echo "== $r"; tail -3 "$OUT/join-$r.md"
done
cp "$OUT/r1/ab-ours.json" "$OUT/ours-r1.json" 2>/dev/null; cp "$OUT/r2/ab-ours.json" "$OUT/ours-r2.json" 2>/dev/null
