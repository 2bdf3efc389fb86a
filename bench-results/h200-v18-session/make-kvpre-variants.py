#!/usr/bin/env python3
"""Twelfth session: the kernel sources of two variants on top of qpre (m128d):
  kvpre  a unit's first K and V block prefetched into L2 when the producer
         is about to wait for its ring stage (mbarrier test_wait), so the
         load that follows the wait finds the rows in L2
  kvq    kvpre, and qpre on every kernel but only when the Q slot is not yet
         free (test_wait), instead of always on m128d
    python3 make-kvpre-variants.py OUTDIR   # OUTDIR/{kvpre,kvq}
"""
import shutil, sys
from pathlib import Path

K = Path(__file__).resolve().parents[2] / "crates" / "pagedattn" / "kernels"
READY = ('''__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {''', '''// Whether the phase has completed, without waiting.
__device__ __forceinline__ bool mbar_ready(uint64_t* bar, int phase) {
  uint32_t ready;
  asm volatile("{\\n .reg .pred p;\\n mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\\n selp.u32 %0, 1, 0, p;\\n}"
               : "=r"(ready) : "r"(cute::cast_smem_ptr_to_uint(bar)), "r"(phase) : "memory");
  return ready != 0;
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {''')
PREFETCH_KV = ('''  // One K or V block: rows of `cache` at the given page ids, zero rows for -1.''', '''  // This thread's rows of a K or V block into L2 (ids made safe: -1 skipped).
  __device__ __forceinline__ void prefetch_kv(const __nv_bfloat16* cache, int kv_head, const int (&pid)[kKvRows]) const {
    const int line = threadIdx.x & 3;
    if (line >= 2) return;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kKvRows; ++i)
      if (pid[i] >= 0)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(cache + ((long long)pid[i] * kNumKvHeads + kv_head) * kHeadDim + line * 64));
  }

  // One K or V block: rows of `cache` at the given page ids, zero rows for -1.''')
KV_USE = ('''    mbar_wait(&ss.k_empty[rp.stage], rp.phase ^ 1);
    loader.load_kv(p.k_cache''', '''    if (it == 0 && !mbar_ready(&ss.k_empty[rp.stage], rp.phase ^ 1)) {
      loader.prefetch_kv(p.k_cache, w.kv_head, pid);
      loader.prefetch_kv(p.v_cache, w.kv_head, pid);
    }
    mbar_wait(&ss.k_empty[rp.stage], rp.phase ^ 1);
    loader.load_kv(p.k_cache''')
Q_COND = ('''    if (T::kQSlots == 1 && slot_iter > 0 && w.state == kUnitWork && w.blk_hi > w.blk_lo)''',
          '''    if (slot_iter >= T::kQSlots && w.state == kUnitWork && w.blk_hi > w.blk_lo && !mbar_ready(&ss.q_empty[slot], qphase ^ 1))''')
EDITS = {"kvpre": [("attn/kernel_traits.cuh", READY), ("attn/load_pipeline.cuh", PREFETCH_KV), ("attention.cu", KV_USE)]}
EDITS["kvq"] = EDITS["kvpre"] + [("attention.cu", Q_COND)]
out = Path(sys.argv[1])
for name, edits in EDITS.items():
    d = out / name
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(K, d)
    for rel, (old, new) in edits:
        f = d / rel
        s = f.read_text()
        assert s.count(old) == 1, (name, rel, old[:60])
        f.write_text(s.replace(old, new))
    print(d)
