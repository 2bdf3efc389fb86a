#!/usr/bin/env python3
"""Twelfth session: writes the kernel sources of three variants,
  qpre   the next unit's Q rows prefetched into L2 before the producer waits
         for its Q slot (the slot was used before: it may not be free)
  idpre  at entry, producer warps 1-3 (idle while warp 0 makes the plan)
         prefetch the page-id array into L2, grid-strided over the CTAs
  both   qpre + idpre
    python3 make-prefetch-variants.py OUTDIR   # OUTDIR/{qpre,idpre,both}
"""
import shutil, sys
from pathlib import Path

K = Path(__file__).resolve().parents[2] / "crates" / "pagedattn" / "kernels"

QPRE_LOADER = ('''  // Raw page ids of this thread's rows of key block n.''', '''  // The Q tile's rows into L2, for a load that may have to wait for its slot:
  // Q is read once, so its rows are always in DRAM, and the wait would
  // otherwise put their whole latency in front of the consumers. Two threads
  // of a row's four take one 128-byte line each.
  __device__ __forceinline__ void prefetch_q(const Params& p, const WorkUnit& w, int m0) const {
    const int rows_total = w.q_len * kGroup, half = (threadIdx.x & 3);
    if (half >= 2) return;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kQRows; ++i) {
      const int r = m0 + row0 + i * kRowsPerPass;
      if (r < rows_total) {
        const int token = r / kGroup, head = w.kv_head * kGroup + r % kGroup;
        const __nv_bfloat16* src = p.q + ((long long)(w.q_start + token) * kNumQoHeads + head) * kHeadDim + half * 64;
        asm volatile("prefetch.global.L2 [%0];" ::"l"(src));
      }
    }
  }

  // Raw page ids of this thread's rows of key block n.''')

QPRE_PRODUCER = ('''    const int slot = slot_iter % T::kQSlots, qphase = (slot_iter / T::kQSlots) & 1;
    ++slot_iter;
    mbar_wait(&ss.q_empty[slot], qphase ^ 1);''', '''    const int slot = slot_iter % T::kQSlots, qphase = (slot_iter / T::kQSlots) & 1;
    if (slot_iter >= T::kQSlots && w.state == kUnitWork && w.blk_hi > w.blk_lo)
      loader.prefetch_q(p, w, w.m_block * T::kBlockM);
    ++slot_iter;
    mbar_wait(&ss.q_empty[slot], qphase ^ 1);''')

IDPRE = ('''    producer<T, kDirect>(p, ss);
  } else {''', '''    if (warp != kProducerWarp0) prefetch_page_ids(p, threadIdx.x - 32, T::kProducerThreads - 32);
    producer<T, kDirect>(p, ss);
  } else {''')

IDPRE_FN = ('''// kDirect: the entry point for calls the host marked direct''', '''// The page-id array into L2, one 128-byte line per thread, strided over the
// grid: at entry, under the plan's loads, so that the first units' page ids
// (the second of the three dependent DRAM trips before a CTA's first QK:
// indptrs, page ids, K) come from L2.
__device__ __forceinline__ void prefetch_page_ids(const Params& p, int t, int n_threads) {
  const long long bytes = (long long)p.num_kv_indices * 4;
  if (bytes <= 0) return;
  const char* base = reinterpret_cast<const char*>(p.kv_indices);
  const long long lines = bytes / 128 + 1;  // + 1: the array need not start on a line
  for (long long l = blockIdx.x + (long long)gridDim.x * t; l <= lines; l += (long long)gridDim.x * n_threads)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(base + min(l * 128, bytes - 1)));
}

// kDirect: the entry point for calls the host marked direct''')

EDITS = {"qpre": [("attn/load_pipeline.cuh", QPRE_LOADER), ("attention.cu", QPRE_PRODUCER)],
         "idpre": [("attention.cu", IDPRE_FN), ("attention.cu", IDPRE)]}
EDITS["both"] = EDITS["qpre"] + EDITS["idpre"]

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
