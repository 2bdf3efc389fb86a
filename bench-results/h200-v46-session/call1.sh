#!/usr/bin/env bash
# Call 1 (forty-third session): C (dist/, main with direct-host.patch,
# the forty-second session's branch direct-host rebuilt after its loss:
# a host plan that splits no tile of a call whose tiles fit the resident
# CTAs launches direct; the plan image kept for every persistent-grid
# call) against B (dist/old: main), host plan, two rounds, on
# seed, wide, the four short-decode draws, the mix, fresh and tiny draws;
# the GPU tests on C; configurations forced on the tiny draw
# (tiny-draws.py: dist/ti.jsonl, calls shaped like vI21) and FlashInfer on
# it. The three draws are generated here (seeded, the standard library
# only). One tar. Carry ["dist", ".peers"], made by prep-call1.sh here
# (dist's binaries compressed). The sweep's analysis, here afterwards,
# with the plans example built from main + direct-host.patch:
#   python3 bench-results/h200-v46-session/sweep-best.py c1/ti.txt ti.jsonl auto= \
#     m64=--tile=m64 s1=--tile=m64,--split=1 s2=--tile=m64,--split=2 s3=--tile=m64,--split=3 \
#     s4=--tile=m64,--split=4 n=--tile=m64,--split=never dv=--tile=m128dv dvs2=--tile=m128dv,--split=2
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
N=dist/pagedattn
W=/tmp/c1; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > "$W/gpu.txt"; cat "$W/gpu.txt"
fin() { tar czf "$OUT/call1.tgz" -C /tmp c1; }
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
python3 bench-results/h200-v43-session/mix-draws.py dist/mix.jsonl
python3 bench-results/h200-v43-session/val-draws.py dist/val.jsonl
python3 bench-results/h200-v45-session/tiny-draws.py dist/ti.jsonl
WL=(--workloads dist/seed.jsonl --workloads dist/wide.jsonl --workloads dist/mix.jsonl --workloads dist/val.jsonl --workloads dist/ti.jsonl)
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; WL+=(--workloads dist/$m.jsonl)
done
AB_ROUNDS=2 AB_TIMEOUT=40 OUT=$W/ab timeout 130 bash scripts/device-ab.sh B=dist/old/pagedattn C=$N -- "${WL[@]}" > "$W/ab.txt" 2>&1
echo "ab rc=$? $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$W/ab.txt" | grep -v "rc=0"; grep -E "^geomean" "$W/ab.txt" | cut -c1-200
grep -E "^\| seed(09|12|18)_" "$W/ab.txt"; fin
TESTS_TIMEOUT=140 OUT=$W bash scripts/device-run.sh tests > "$W/checks.txt" 2>&1
echo "tests $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$W/checks.txt"; fin
AB_ROUNDS=2 AB_TIMEOUT=50 OUT=$W/ti timeout 130 bash scripts/device-ab.sh auto=$N m64=$N@--tile=m64 \
  s1=$N@--tile=m64,--split=1 s2=$N@--tile=m64,--split=2 s3=$N@--tile=m64,--split=3 s4=$N@--tile=m64,--split=4 \
  n=$N@--tile=m64,--split=never dv=$N@--tile=m128dv dvs2=$N@--tile=m128dv,--split=2 -- --workloads dist/ti.jsonl > "$W/ti.txt" 2>&1
echo "ti rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^geomean" "$W/ti.txt" | cut -c1-200; fin
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
OUT="$W/peer" timeout 100 bash .peers/flashinfer/device_run.sh --workloads ti=dist/ti.jsonl --backends fa2,fa3 \
  --deadline-s 70 --target-ms 40 "${extra[@]}" > "$W/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$W/peer.log"; fin
