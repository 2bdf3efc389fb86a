#!/usr/bin/env bash
# Fifteenth session, call 8 (carry ["dist"]; about 2 minutes).
# Call 7: at the same 700 W, ours is ahead of cuDNN at 8192 (750.8 against
# 787.8 us) and level at 16384 (2912.6 / 2937.9), but behind at 32768
# (11569 / 11288) and batch16x2048 (875.7 / 854.0), at a lower clock (1605
# against 1665 MHz at 32768). At 32768 the K/V of the four kv heads (64 MB)
# is more than the L2 holds, and our units interleave the heads.
# Prediction: ours reads several times the 64 MB of K/V from DRAM at 32768
# (cuDNN close to its 384 MB of expanded K/V once), and a hit rate well
# under 16384's.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*/; do [ -d "$d" ] && PATH="$PATH:$d"; done
MET=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_bytes.sum,gpu__time_duration.sum
for row in 16384 32768 batch16x2048; do
  f=scale_single_$row; [ $row = batch16x2048 ] && f=scale_batch16x2048
  timeout 100 ncu --clock-control none --kernel-name regex:paged_prefill --launch-skip 3 --launch-count 1 --metrics $MET \
    $D/pagedattn bench --backend cuda --no-check --reps 2 --warmup 2 --cuda-timing eager --workloads $D/scale.jsonl \
    --filter $f > "$OUT/ncu_ours_$row.txt" 2>&1
  echo "ours $row rc=$?"; grep -E "dram__|lts__|gpu__time" "$OUT/ncu_ours_$row.txt"
done
for row in 16384 32768 16x2048; do
  cat > /tmp/cudnn.py <<PY
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
b, n = (16, 2048) if "$row" == "16x2048" else (1, int("$row"))
q, k, v = (torch.randn(b, 24, n, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(3):
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
torch.cuda.synchronize()
PY
  timeout 100 ncu --clock-control none --kernel-name regex:"cudnn|sdpa|fprop" --launch-skip 2 --launch-count 1 --metrics $MET \
    python3 /tmp/cudnn.py > "$OUT/ncu_cudnn_$row.txt" 2>&1
  echo "cudnn $row rc=$?"; grep -E "dram__|lts__|gpu__time" "$OUT/ncu_cudnn_$row.txt"
done
