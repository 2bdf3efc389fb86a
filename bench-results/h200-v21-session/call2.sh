#!/usr/bin/env bash
# Fifteenth session, call 2 (carry ["dist"]; dist/var/nol2.cubin from
# `scripts/variant-src.py nol2`, nogather and m64v as in call 1; about 5
# minutes).
# Call 1 found every long-row kernel at the 700 W cap: ours at 1635-1650
# MHz on scale_single_16384, cuDNN's dense kernel's median 1905 (but that
# median mixed in the flash backend's run). Here:
# 1. Power and clock at 16384, cuDNN alone this time: ours, nol2 (K/V
#    zero-filled, nothing read from the L2), nogather, cuDNN, ours again.
#    Prediction: if moving K/V from the L2 draws the extra power, nol2 runs
#    near cuDNN's clock (1850+ MHz); if the consumers do, nol2 stays within
#    100 MHz of ours.
# 2. One ncu profile at 8192 of ours and of cuDNN's kernel (speed of light,
#    compute and memory workload, instruction statistics): instructions,
#    L2 and shared-memory traffic per call, side by side.
# 3. m64v (h200-v20-session/m64v-variant.patch) beside the shipped build,
#    two rounds on seed and shapes (only its rows of up to 16 sequences
#    mean anything; its checks only if it pays).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*/; do [ -d "$d" ] && PATH="$PATH:$d"; done
P=(bench --backend cuda --no-check --workloads $D/scale.jsonl --filter scale_single_16384 --reps 1500 --warmup 20)
bash scripts/power-probe.sh ours16k -- timeout 60 $D/pagedattn "${P[@]}"
bash scripts/power-probe.sh nol2-16k -- timeout 60 $D/pagedattn "${P[@]}" --attention-cubin $D/var/nol2.cubin
bash scripts/power-probe.sh nogather16k -- timeout 60 $D/pagedattn "${P[@]}" --attention-cubin $D/var/nogather.cubin
bash scripts/power-probe.sh cudnn16k -- timeout 90 python3 bench/python/dense_anchor.py --rows 16384 --reps 1500 --backends cudnn
bash scripts/power-probe.sh ours16k-2 -- timeout 60 $D/pagedattn "${P[@]}"
for f in "$OUT"/power-*.log; do echo "$(basename $f .log): $(grep -hoE '\| +[0-9.]+ \| +2136.49|cudnn \| [0-9.]+' $f | head -1)"; done
echo "power $(( $(date +%s) - t0 ))s"
S=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats)
timeout 120 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 "${S[@]}" \
  $D/pagedattn bench --backend cuda --no-check --reps 1 --warmup 0 --cuda-timing checked --workloads $D/scale.jsonl \
  --filter scale_single_8192 > "$OUT/ncu_ours8k.txt" 2>&1
echo "ncu ours rc=$? $(grep -m1 -E 'Duration' "$OUT/ncu_ours8k.txt")"
cat > /tmp/cudnn8k.py <<'PY'
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
n = 8192
q, k, v = (torch.randn(1, 24, n, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(3):
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
torch.cuda.synchronize()
PY
timeout 150 ncu --clock-control none --kernel-name regex:"cudnn|sdpa|fprop|fmha|flash|attention" --launch-skip 2 --launch-count 1 \
  "${S[@]}" python3 /tmp/cudnn8k.py > "$OUT/ncu_cudnn8k.txt" 2>&1
echo "ncu cudnn rc=$? $(grep -m1 -E 'Duration' "$OUT/ncu_cudnn8k.txt")"
echo "ncu $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$D/pagedattn \
  m64v=$D/pagedattn@--attention-cubin=$D/var/m64v.cubin -- --workloads $D/seed.jsonl --workloads $D/shapes.jsonl \
  > "$OUT/ab.txt" 2>&1
echo "total $(( $(date +%s) - t0 ))s"
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0"
