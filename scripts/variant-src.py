#!/usr/bin/env python3
"""Writes an edited copy of crates/pagedattn/kernels for a named diagnostic
variant (the shipped sources carry no experiment switches), for
`SRC=DEST bash scripts/build-variant.sh NAME`:

    python3 scripts/variant-src.py NAME DEST
    python3 scripts/variant-src.py --check   # every variant still applies (CI)

NAME (the variants behind BENCHMARKS.md "Bounds, measured"):
  nogather   keys read as contiguous rows (page id = key index mod num_pages),
             no page-id loads: what the gather costs (outputs wrong: --no-check)
  nol2       K/V rows zero-filled in shared memory instead of read (the
             cp.async with a source size of 0; page ids still loaded). The
             GEMMs then multiply zeros, which also takes away most of their
             data-dependent power: for the bytes' share alone use stalekv
             (outputs wrong: --no-check)
  nol2half   the K/V rows of odd page ids zero-filled instead of read:
             about half the L2 bytes (outputs wrong: --no-check)
  stalekv    K/V rows read only in a CTA's first 8 block steps; later steps
             reuse what the ring holds (real values, so the tensor cores see
             data like the shipped kernel's, unlike nol2's zeros): what the
             K/V bytes' movement costs (outputs wrong: --no-check)
  halfkv     stalekv for every other block step: half the K/V bytes
  nomask     no causal mask on the diagonal blocks (outputs wrong)
  norescale  no rescale of O by the running max (outputs wrong)
  nomerge    the last chunk of a split tile writes its own partial output
             instead of merging the chunks: what the merge costs (outputs wrong)
  nosplitsync  chunks of split tiles write their output like whole tiles (no
             partial write, count or merge): what the chunking alone costs,
             its extra units (outputs wrong)
  timeline   clock64 stamps at each stage of every CTA's first unit; CTAs 0-11
             of the 30th launch print them (printf) at exit: run one workload
             per process (`pagedattn bench --no-check --filter seed00`); the
             stamps and the exit counter add ~2.7 us to the call
  plantl     timeline, and two stamps inside the warp-built plan (device
             plan, batch <= 32): its sequences loaded and reduced, the split
             search done (the first unit's decode is timeline's `dec`)
  searchtl   plantl, and clock stamps inside the warp plan's search and
             build held in registers (no global read a stamp): the search's
             entry, its sums, the warpgroup barrier, the pick; build_plan_warp's
             units, its rank pass, its end (printed after plantl's, cycles
             from the CTA's entry)
  memomiss   the plan memo's key never matches: every device-planned call
             of up to 32 sequences searches and rewrites the entry, as graph
             replays with new lengths do (what a miss costs)
  memonowrite  memomiss without the entry's write (the last CTA's finish
             returns at once): memomiss against it is what the write costs,
             it against the build before the memo what the readers' loads,
             compare and count cost
  novote     every unmasked block after the first kept at the reference (the
             softmax's fast path without its vote and fallback): what they
             cost (outputs wrong only where an exponential overflows)
  unitcost   where a work unit's cycles go, summed over every unit of every
             CTA (clock64 of consumer thread 0 and producer thread 0, added
             to the global counters g_uc once per unit or block): the
             consumers' wait for the next unit's Q slot, for its first K
             block, the first block's QK and softmax, the other blocks, the
             last P V, the whole unit; the producer's decode, Q-slot, ring
             and page-id waits; a CTA's first unit from the CTA's entry;
             the epilogue's barrier, staging and copies; the producer's
             wait for its ticket and its decode, its plan ready. No printf (its call would serialise the
             wgmmas): `scripts/unitcost.py` launches the cubin itself on a
             workload and reads the counters
  codepf     every entry point prefetches the first 48 KiB (direct) or 128
             KiB (persistent) of its own code into the L2 at entry, 4 KiB a
             CTA: what the cold instruction fetch after the L2 flush costs
  codepf2    the same, 64 / 224 KiB
  codepftl   timeline with codepf's prefetch: which stages the cold code
             fetch lengthens
  fastcount  counters of the fast path (warpgroup-blocks tried, votes failed,
             S recomputed, threads failed), printed by CTA 0 at each launch's
             start, cumulative: run one workload per process and difference
             the last two lines by the number of launches

Each edit is an exact text replacement; the script fails if the source no
longer contains the text (the variant then needs updating with the kernel).
Python 3 standard library only.
"""
import shutil
import sys
import tempfile
from pathlib import Path

KERNELS = Path(__file__).resolve().parents[1] / "crates" / "pagedattn" / "kernels"

TIMELINE_HEADER = r'''
// ---- timeline diagnostic (variant only) ----
#include <cstdio>
__device__ long long g_tl[1024][16];
__device__ unsigned int g_tl_done;
__device__ __forceinline__ long long tl_clock() { long long c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)); return c; }
__device__ __forceinline__ long long tl_gt() { long long c; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(c)); return c; }
#define TL(i) do { if (blockIdx.x < 1024 && g_tl[blockIdx.x][i] == 0) g_tl[blockIdx.x][i] = tl_clock(); } while (0)
'''

TIMELINE_EXIT = r'''    consumer<T, kDirect>(p, ss);
    if (threadIdx.x == T::kProducerThreads && blockIdx.x < 1024) {
      g_tl[blockIdx.x][11] = tl_clock();
      g_tl[blockIdx.x][15] = tl_gt();
      __threadfence();
      const unsigned n = atomicAdd(&g_tl_done, 1u);
      if (n / gridDim.x == 30 && blockIdx.x < 12) {
        volatile long long* g = g_tl[blockIdx.x];
        const long long t0 = g[0];
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        printf("TL cta %4d sm %3d | dec %6lld ids %6lld k0iss %6lld | centry %6lld qfull %6lld k0full %6lld s0 %6lld sm0 %6lld | mainloop %6lld epi %6lld exit %6lld cyc | span %6lld ns\n",
               (int)blockIdx.x, (int)sm, g[1] - t0, g[2] - t0, g[3] - t0, g[4] - t0, g[5] - t0, g[6] - t0,
               g[7] - t0, g[8] - t0, g[9] - t0, g[10] - t0, g[11] - t0, g[15] - g[14]);
      }
    }
  }
}'''

UNITCOST_HEADER = r'''
// ---- unitcost diagnostic (variant only): no printf, whose call would
// serialise every wgmma (ptxas C7510); scripts/unitcost.py reads g_uc ----
extern "C" {
__device__ unsigned long long g_uc[32];
}
__device__ __forceinline__ long long uc_clock() { long long c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)); return c; }
// The CTA's entry clock, for the stages of its first unit (global: no
// static shared memory, which m128d has none left for).
__device__ long long g_uc_t0[1024];
__device__ __forceinline__ long long& uc_t0_ref() { return g_uc_t0[blockIdx.x]; }
#define UC_ADD(i, v) atomicAdd(&g_uc[i], (unsigned long long)(v))
'''

UNITCOST_START = r'''  const long long uc_t0 = uc_clock();
  if (threadIdx.x == 0) uc_t0_ref() = uc_t0;
  init_barriers<T>(ss);'''

K_LOAD = "    loader.load_kv(p.k_cache, w.kv_head, pid, sk + rp.stage * kStageBytes, &ss.k_full[rp.stage]);"
V_LOAD = "    loader.load_kv(p.v_cache, w.kv_head, pid, sv + rpv.stage * kStageBytes, &ss.v_full[rpv.stage]);"


def stale_kv(cond):
    """The producer's K and V copies only where `cond` holds; elsewhere it
    arrives on the stage's barrier with nothing copied."""
    return [("attention.cu", K_LOAD, f"    if ({cond}) {K_LOAD.strip()}\n"
             "    else cutlass::arch::cpasync_barrier_arrive_noinc(&ss.k_full[rp.stage]);  // diagnostic"),
            ("attention.cu", V_LOAD, f"    if ({cond}) {V_LOAD.strip()}\n"
             "    else cutlass::arch::cpasync_barrier_arrive_noinc(&ss.v_full[rpv.stage]);  // diagnostic")]


# variant -> [(file, old, new)]
EDITS = {
    "nogather": [
        ("attn/load_pipeline.cuh",
         "pid[i] = j < w.kv_len ? __ldg(p.kv_indices + (long long)w.kv_start + j) : 0;",
         "pid[i] = j < w.kv_len ? (int)((w.kv_start + j) % p.num_pages) : 0;  // diagnostic: contiguous rows"),
    ],
    "nol2": [
        ("attn/load_pipeline.cuh", "      const bool valid = pid[i] >= 0;",
         "      const bool valid = pid[i] < -1;  // diagnostic: never (ids are -1 or in range): zero rows, nothing read"),
    ],
    "nol2half": [
        ("attn/load_pipeline.cuh", "      const bool valid = pid[i] >= 0;",
         "      const bool valid = pid[i] >= 0 && (pid[i] & 1) == 0;  // diagnostic: the rows of even pages read"),
    ],
    "stalekv": stale_kv("block_iter + it < 8"),
    "halfkv": stale_kv("block_iter + it < 8 || (it & 1) == 0"),
    "nomask": [
        ("attn/mainloop.cuh", "    if (n >= e.n_unmasked) {", "    if (false) {  // diagnostic: no mask"),
    ],
    "norescale": [
        ("attn/softmax.cuh",
         "    if (!__any_sync(0xffffffffu, corr[0] != 1.f || corr[1] != 1.f)) return;",
         "    return;  // diagnostic: no rescale"),
    ],
    "nomerge": [
        ("attention.cu",
         "      SplitMerge<T>::merge(p, wo, cw, t, tOrO, lse);",
         "      // diagnostic: no merge (by fragments; the merge by rows stays)"),
    ],
    "nosplitsync": [
        ("attention.cu", "    if (wo.n_chunks > 1) {", "    if (false) {  // diagnostic: no partial write, count or merge"),
    ],
    "timeline": [
        ("attn/kernel_traits.cuh", "namespace pagedattn {", TIMELINE_HEADER + "\nnamespace pagedattn {"),
        ("attention.cu", "  init_barriers<T>(ss);",
         "  if (threadIdx.x == 0 && blockIdx.x < 1024) {\n"
         "    for (int i = 0; i < 16; ++i) g_tl[blockIdx.x][i] = 0;\n"
         "    g_tl[blockIdx.x][0] = tl_clock();\n    g_tl[blockIdx.x][14] = tl_gt();\n  }\n"
         "  __syncthreads();\n  init_barriers<T>(ss);"),
        ("attention.cu", "      if (lane == 0) ss.pending[it & 1] = w;",
         "      if (lane == 0) { ss.pending[it & 1] = w; TL(1); }"),
        ("attention.cu", "    loader.check_ids(p, w, n, pid);",
         "    loader.check_ids(p, w, n, pid);\n    if (threadIdx.x == 0) TL(2);"),
        ("attention.cu",
         "    loader.load_kv(p.k_cache, w.kv_head, pid, sk + rp.stage * kStageBytes, &ss.k_full[rp.stage]);",
         "    loader.load_kv(p.k_cache, w.kv_head, pid, sk + rp.stage * kStageBytes, &ss.k_full[rp.stage]);\n"
         "    if (threadIdx.x == 0) TL(3);"),
        ("attention.cu", "    mbar_wait(&ss.q_full[slot], qphase);\n    const WorkUnit w = ss.unit[slot];",
         "    if (threadIdx.x == T::kProducerThreads) TL(4);\n    mbar_wait(&ss.q_full[slot], qphase);\n"
         "    if (threadIdx.x == T::kProducerThreads) TL(5);\n    const WorkUnit w = ss.unit[slot];"),
        ("attention.cu", "  mainloop<T, kAlternateWaves<T, kDirect>>(p, ss, w, slot, block_iter, tOrO, lse);",
         "  mainloop<T, kAlternateWaves<T, kDirect>>(p, ss, w, slot, block_iter, tOrO, lse);\n  if (ct == 0) TL(9);"),
        ("attention.cu", "  store_output<T, kProducerCopiesOut<T, kDirect>>(p, wo, m0, cw, cto, tOrO, tOcO, lse, s_stage);",
         "  store_output<T, kProducerCopiesOut<T, kDirect>>(p, wo, m0, cw, cto, tOrO, tOcO, lse, s_stage);\n  if (ct == 0) TL(10);"),
        ("attention.cu", "    consumer<T, kDirect>(p, ss);\n  }\n}", TIMELINE_EXIT),
        ("attn/mainloop.cuh",
         "    mbar_wait(&ss.k_full[rk.stage], rk.phase);\n"
         "    cutlass::arch::fence_view_async_shared();  // cp.async writes -> wgmma (async proxy) reads",
         "    mbar_wait(&ss.k_full[rk.stage], rk.phase);\n    if (ct == 0) TL(6);\n"
         "    cutlass::arch::fence_view_async_shared();  // cp.async writes -> wgmma (async proxy) reads"),
        ("attn/mainloop.cuh",
         "    release(&ss.k_empty[rk.stage]);\n    softmax_block(kAlt ? alternating_block(w, 0) : w.blk_hi - 1);\n    to_bf16();",
         "    if (ct == 0) TL(7);\n    release(&ss.k_empty[rk.stage]);\n    softmax_block(kAlt ? alternating_block(w, 0) : w.blk_hi - 1);\n"
         "    to_bf16();\n    if (ct == 0) TL(8);"),
    ],
    "memomiss": [
        ("attn/scheduler.cuh", "const bool same = key.x == kKey0 &&", "const bool same = key.x == kKey0 + 1 &&"),
    ],
    "novote": [
        ("attn/mainloop.cuh", "      if (warpgroup_all(ok, kBarSoftmaxVote + cw)) {",
         "      if (ok || true) {  // diagnostic: no vote"),
    ],
    "unitcost": [
        ("attn/kernel_traits.cuh", "namespace pagedattn {", UNITCOST_HEADER + "\nnamespace pagedattn {"),
        ("attention.cu", "  init_barriers<T>(ss);", UNITCOST_START),
        ("attention.cu", "    consumer<T, kDirect>(p, ss);\n  }\n}",
         "    consumer<T, kDirect>(p, ss);\n"
         "    if (threadIdx.x == T::kProducerThreads) { UC_ADD(12, uc_clock() - uc_t0); UC_ADD(13, 1); }\n  }\n}"),
        # consumers: the wait for the next unit (14: for the end marker), the whole unit
        ("attention.cu", "    mbar_wait(&ss.q_full[slot], qphase);\n    const WorkUnit w = ss.unit[slot];",
         "    const bool uc = threadIdx.x == T::kProducerThreads;\n"
         "    const long long uc0 = uc ? uc_clock() : 0;\n"
         "    mbar_wait(&ss.q_full[slot], qphase);\n"
         "    const long long ucw = uc ? uc_clock() - uc0 : 0;\n"
         "    const WorkUnit w = ss.unit[slot];\n"
         "    if (uc) UC_ADD(w.state == kUnitDone ? 14 : 0, ucw);"),
        ("attention.cu", "    consume_unit<T, kDirect>(p, ss, w, slot, block_iter);",
         "    const long long uc1 = uc ? uc_clock() : 0;\n"
         "    consume_unit<T, kDirect>(p, ss, w, slot, block_iter);\n"
         "    if (uc) { UC_ADD(5, uc_clock() - uc1); UC_ADD(6, 1); UC_ADD(7, w.blk_hi - w.blk_lo); }"),
        # consumers, inside the main loop: first K wait, first block, the other blocks, last P V
        ("attn/mainloop.cuh", "  if (n_steps > 0) {\n    // First block: S, softmax, P.",
         "  long long uca = ct == 0 ? uc_clock() : 0;\n  if (n_steps > 0) {\n    // First block: S, softmax, P."),
        ("attn/mainloop.cuh",
         "    mbar_wait(&ss.k_full[rk.stage], rk.phase);\n"
         "    cutlass::arch::fence_view_async_shared();  // cp.async writes -> wgmma (async proxy) reads",
         "    mbar_wait(&ss.k_full[rk.stage], rk.phase);\n"
         "    if (ct == 0) { const long long c = uc_clock(); UC_ADD(1, c - uca); uca = c; }\n"
         "    cutlass::arch::fence_view_async_shared();  // cp.async writes -> wgmma (async proxy) reads"),
        ("attn/mainloop.cuh",
         "    release(&ss.k_empty[rk.stage]);\n    softmax_block(kAlt ? alternating_block(w, 0) : w.blk_hi - 1);\n    to_bf16();",
         "    release(&ss.k_empty[rk.stage]);\n    softmax_block(kAlt ? alternating_block(w, 0) : w.blk_hi - 1);\n    to_bf16();\n"
         "    if (ct == 0) { const long long c = uc_clock(); UC_ADD(2, c - uca); uca = c; }"),
        ("attn/mainloop.cuh", "  if (n_steps > 0) {\n    const RingPos<T::kStagesV> rv(block_iter + n_steps - 1);",
         "  if (ct == 0) { const long long c = uc_clock(); UC_ADD(3, c - uca); uca = c; }\n"
         "  if (n_steps > 0) {\n    const RingPos<T::kStagesV> rv(block_iter + n_steps - 1);"),
        ("attn/mainloop.cuh", "  softmax.finalize(tOrO, lse);",
         "  softmax.finalize(tOrO, lse);\n  if (ct == 0) UC_ADD(4, uc_clock() - uca);"),
        # producer thread 0: decode and hand-over, Q-slot wait, ring waits, page-id use
        ("attention.cu", "    const bool claim_next = !kDirect && it + 1 >= 2;",
         "    const bool claim_next = !kDirect && it + 1 >= 2;\n"
         "    const long long ucp = threadIdx.x == 0 ? uc_clock() : 0;"),
        ("attention.cu", "    named_bar_sync(T::kProducerThreads, kBarProducer);",
         "    named_bar_sync(T::kProducerThreads, kBarProducer);\n"
         "    if (threadIdx.x == 0) UC_ADD(8, uc_clock() - ucp);"),
        ("attention.cu", "    mbar_wait(&ss.q_empty[slot], qphase ^ 1);",
         "    const long long ucq = threadIdx.x == 0 ? uc_clock() : 0;\n"
         "    mbar_wait(&ss.q_empty[slot], qphase ^ 1);\n"
         "    if (threadIdx.x == 0) { UC_ADD(9, uc_clock() - ucq); UC_ADD(11, 1); }"),
        ("attention.cu", "    loader.check_ids(p, w, n, pid);",
         "    long long ucr = threadIdx.x == 0 ? uc_clock() : 0;\n"
         "    loader.check_ids(p, w, n, pid);\n"
         "    if (threadIdx.x == 0) { const long long c = uc_clock(); UC_ADD(15, c - ucr); ucr = c; }"),
        ("attention.cu", "    loader.load_kv(p.v_cache, w.kv_head, pid, sv + rpv.stage * kStageBytes, &ss.v_full[rpv.stage]);",
         "    loader.load_kv(p.v_cache, w.kv_head, pid, sv + rpv.stage * kStageBytes, &ss.v_full[rpv.stage]);\n"
         "    if (threadIdx.x == 0) UC_ADD(10, uc_clock() - ucr);"),
        # the CTA's first unit, from its entry: consumers' wait for its Q (16), Q there (17), first K
        # there (18); producer's first unit decoded (22), its Q issued (23)
        ("attention.cu", "    if (uc) UC_ADD(w.state == kUnitDone ? 14 : 0, ucw);",
         "    if (uc) UC_ADD(w.state == kUnitDone ? 14 : 0, ucw);\n"
         "    if (uc && slot_iter == 0) { UC_ADD(16, ucw); UC_ADD(17, uc_clock() - uc_t0_ref()); }"),
        ("attn/mainloop.cuh", "    if (ct == 0) { const long long c = uc_clock(); UC_ADD(1, c - uca); uca = c; }",
         "    if (ct == 0) { const long long c = uc_clock(); UC_ADD(1, c - uca); uca = c; }\n"
         "    if (ct == 0 && block_iter == 0) UC_ADD(18, uca - uc_t0_ref());"),
        ("attention.cu", "    if (threadIdx.x == 0) UC_ADD(8, uc_clock() - ucp);",
         "    if (threadIdx.x == 0) UC_ADD(8, uc_clock() - ucp);\n"
         "    if (threadIdx.x == 0 && it == 0) UC_ADD(22, uc_clock() - uc_t0_ref());"),
        ("attention.cu", "                &ss.q_full[slot]);\n  publish();",
         "                &ss.q_full[slot]);\n"
         "  if (threadIdx.x == 0 && block_iter == 0) UC_ADD(23, uc_clock() - uc_t0_ref());\n  publish();"),
        # producer thread 0: the wait for the counter's ticket (24), and the decode after it (25)
        ("attention.cu", "        if (lane == 0) t = ticket_of(it, raw_ticket);\n        t = __shfl_sync(0xffffffffu, t, 0);\n      }",
         "        if (lane == 0) t = ticket_of(it, raw_ticket);\n"
         "        t = __shfl_sync(0xffffffffu, t, 0);\n"
         "        if (lane == 0) UC_ADD(24, uc_clock() - ucp);\n      }\n"
         "      const long long ucd = uc_clock();"),
        ("attention.cu", "      if (lane == 0) ss.pending[it & 1] = w;",
         "      if (lane == 0) { ss.pending[it & 1] = w; asm volatile(\"\" ::\"r\"(w.state)); UC_ADD(25, uc_clock() - ucd); }"),
        # producer thread 0: the plan ready (26), from the CTA's entry
        ("attention.cu", "      if (warp_plan) build_plan_warp<T::kBlockM, T::kBlockN>(p, ss.plan, seqs, chunk);\n    }",
         "      if (warp_plan) build_plan_warp<T::kBlockM, T::kBlockN>(p, ss.plan, seqs, chunk);\n"
         "      if (threadIdx.x == 0) UC_ADD(26, uc_clock() - uc_t0_ref());\n    }"),
        # the epilogue of consumer thread 0: first barrier (19), staging and second barrier (20), copies (21)
        ("attn/epilogue.cuh", "  int rows_total = w.q_len * kGroup;",
         "  int rows_total = w.q_len * kGroup;\n  long long uce = ct == 0 ? uc_clock() : 0;"),
        ("attn/epilogue.cuh", "  named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);\n  // registers -> shared",
         "  named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);\n"
         "  if (ct == 0) { const long long c = uc_clock(); UC_ADD(19, c - uce); uce = c; }\n  // registers -> shared"),
        ("attn/epilogue.cuh", "  named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);  // this warpgroup's rows are staged",
         "  named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);  // this warpgroup's rows are staged\n"
         "  if (ct == 0) { const long long c = uc_clock(); UC_ADD(20, c - uce); uce = c; }"),
        ("attn/epilogue.cuh", "  copy_out_rows<T, 64 / 8>(p, w, m0, cw * 64 + lt / 16, lt % 16, s_stage);\n}",
         "  copy_out_rows<T, 64 / 8>(p, w, m0, cw * 64 + lt / 16, lt % 16, s_stage);\n"
         "  if (ct == 0) UC_ADD(21, uc_clock() - uce);\n}"),
    ],
    "fastcount": [
        ("attn/kernel_traits.cuh", "namespace pagedattn {",
         "#include <cstdio>\nnamespace pagedattn {\n__device__ unsigned long long g_fast[4];  // diagnostic"),
        ("attention.cu", "  init_barriers<T>(ss);",
         "  if (blockIdx.x == 0 && threadIdx.x == 0)\n"
         "    printf(\"FAST tried %llu failed %llu recomputed %llu threads %llu\\n\", g_fast[0], g_fast[1], g_fast[2],\n"
         "           g_fast[3]);\n  init_barriers<T>(ss);"),
        ("attn/mainloop.cuh", "      if (warpgroup_all(ok, kBarSoftmaxVote + cw)) {",
         "      const bool all_ok = warpgroup_all(ok, kBarSoftmaxVote + cw);\n"
         "      if (ct % 128 == 0) atomicAdd(&g_fast[0], 1ull);\n"
         "      if (!all_ok && ct % 128 == 0) atomicAdd(&g_fast[1], 1ull);\n"
         "      if (!ok) atomicAdd(&g_fast[3], 1ull);\n"
         "      if (all_ok) {"),
        ("attn/mainloop.cuh", "          warpgroup_gemm<true, -1>(mma_qk, tSrQ, tSrK(_, _, _, warp_uniform(rk.stage)), tSrS);\n"
         "          warpgroup_wait<0>();",
         "          if (ct % 128 == 0) atomicAdd(&g_fast[2], 1ull);\n"
         "          warpgroup_gemm<true, -1>(mma_qk, tSrQ, tSrK(_, _, _, warp_uniform(rk.stage)), tSrS);\n"
         "          warpgroup_wait<0>();"),
    ],
}

# plantl: timeline's stamps, the warp plan's two stages in slots 12 and 13,
# printed after timeline's.
EDITS["plantl"] = [e for e in EDITS["timeline"] if e[1] != "    consumer<T, kDirect>(p, ss);\n  }\n}"] + [
    ("attention.cu", "    consumer<T, kDirect>(p, ss);\n  }\n}",
     TIMELINE_EXIT.replace("| span %6lld ns\\n\",", "| seqs %6lld search %6lld | span %6lld ns\\n\",")
     .replace("g[10] - t0, g[11] - t0, g[15] - g[14]);", "g[10] - t0, g[11] - t0, g[12] - t0, g[13] - t0, g[15] - g[14]);")),
    ("attention.cu", "      seqs = WarpPlanSeqs<T::kBlockM, T::kBlockN>(p);",
     "      seqs = WarpPlanSeqs<T::kBlockM, T::kBlockN>(p);\n      if (threadIdx.x == 0) TL(12);"),
    ("attention.cu", "                                        seqs.r.kv_len, ss.plan.red);\n    }",
     "                                        seqs.r.kv_len, ss.plan.red);\n      if (threadIdx.x == 0) TL(13);\n    }"),
]

EDITS["memonowrite"] = EDITS["memomiss"] + [
    ("attn/scheduler.cuh",
     "    if (blockIdx.x != gridDim.x - 1 || threadIdx.x / 32 != kProducerWarp0 || *hit_slot) return;",
     "    if (blockIdx.x >= 0) return;  // diagnostic: no write"),
]


def code_prefetch(direct_kib, persistent_kib):
    """Every entry point prefetches its own code into the L2 at entry (the
    L2 flush of the timing protocol leaves it in DRAM, and the first pass
    through each stage's code waits on instruction fetch): the first
    `direct_kib` / `persistent_kib` KiB of the entry's text, 4 KiB a CTA
    (cp.async.bulk.prefetch by the producer warpgroup's warp 3), the
    entry's address from its own symbol. The byte counts must stay within
    the module's text (each entry's own text is 53-245 KiB)."""
    old = ("      name(const __grid_constant__ pagedattn::Params p) {                                          \\\n"
           "    pagedattn::attention<traits, direct>(p);                                                       \\\n")
    new = ("      name(const __grid_constant__ pagedattn::Params p) {                                          \\\n"
           "    if (threadIdx.x == 96) {                                                                       \\\n"
           "      unsigned long long code;                                                                     \\\n"
           "      asm volatile(\"mov.u64 %0, \" #name \";\" : \"=l\"(code));                                          \\\n"
           f"      constexpr int kChunk = 4096, kBytes = direct ? {direct_kib} * 1024 : {persistent_kib} * 1024;                       \\\n"
           "      for (int i = blockIdx.x; i < kBytes / kChunk; i += gridDim.x)                                \\\n"
           "        asm volatile(\"cp.async.bulk.prefetch.L2.global [%0], %1;\" ::\"l\"(code + (unsigned long long)i * kChunk), \"r\"(kChunk) : \"memory\"); \\\n"
           "    }                                                                                              \\\n"
           "    pagedattn::attention<traits, direct>(p);                                                       \\\n")
    return [("attention.cu", old, new)]


EDITS["codepf"] = code_prefetch(48, 128)
EDITS["codepf2"] = code_prefetch(64, 224)
EDITS["codepftl"] = EDITS["timeline"] + code_prefetch(48, 128)

# searchtl: plantl, and stamps in registers inside the warp plan's search
# and build, stored once at their end into g_st (slots 0-6).
SEARCHTL_HEADER = r'''namespace pagedattn {
// ---- searchtl diagnostic (variant only) ----
__device__ long long g_st[1024][8];
__device__ __forceinline__ long long st_clock() { long long c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)); return c; }
'''
_ST_PRINT = (
    "g[12] - t0, g[13] - t0, g[15] - g[14]);\n"
    "        const long long* st = g_st[blockIdx.x];\n"
    "        printf(\"ST cta %4d | search %6lld sums %6lld bar %6lld pick %6lld | build %6lld rank %6lld end %6lld cyc\\n\",\n"
    "               (int)blockIdx.x, st[0] - t0, st[1] - t0, st[2] - t0, st[3] - t0, st[4] - t0, st[5] - t0,\n"
    "               st[6] - t0);")
EDITS["searchtl"] = [
    (f, old, new.replace("g[12] - t0, g[13] - t0, g[15] - g[14]);", _ST_PRINT)) for f, old, new in EDITS["plantl"]
] + [
    ("attn/scheduler.cuh", "namespace pagedattn {", SEARCHTL_HEADER),
    ("attn/scheduler.cuh",
     "  const SplitSearch<kBM, kBN> ss(partial_slots, work, nb_max, q_max);\n  if (ss.nothing()) return kNoSplit;\n"
     "  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;\n  const int lg",
     "  const long long st0 = st_clock();\n"
     "  const SplitSearch<kBM, kBN> ss(partial_slots, work, nb_max, q_max);\n  if (ss.nothing()) return kNoSplit;\n"
     "  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;\n  const int lg"),
    ("attn/scheduler.cuh",
     "  named_bar_sync(kThreads, kBarProducer);\n  return pick_candidate(ss, lane < kNumSplitCandidates ? red[lane] : 0);",
     "  const long long st1 = st_clock();\n  named_bar_sync(kThreads, kBarProducer);\n  const long long st2 = st_clock();\n"
     "  const int st_r = pick_candidate(ss, lane < kNumSplitCandidates ? red[lane] : 0);\n"
     "  const long long st3 = st_clock();\n"
     "  if (threadIdx.x == 0 && blockIdx.x < 1024) { g_st[blockIdx.x][0] = st0; g_st[blockIdx.x][1] = st1;\n"
     "    g_st[blockIdx.x][2] = st2; g_st[blockIdx.x][3] = st3; }\n  return st_r;"),
    ("attn/scheduler.cuh",
     "  const long long units = real ? seq_units<kBM, kBN>(r.q_len, r.kv_len, chunk) : 0;",
     "  const long long st4 = st_clock();\n"
     "  const long long units = real ? seq_units<kBM, kBN>(r.q_len, r.kv_len, chunk) : 0;"),
    ("attn/scheduler.cuh", "  if (real) {\n    pl.pre_split[rank] = pa;",
     "  const long long st5 = st_clock();\n  if (real) {\n    pl.pre_split[rank] = pa;"),
    ("attn/scheduler.cuh", "    pl.planned = 1;\n  }\n  __syncwarp();\n}",
     "    pl.planned = 1;\n  }\n  __syncwarp();\n"
     "  if (threadIdx.x == 0 && blockIdx.x < 1024) { g_st[blockIdx.x][4] = st4; g_st[blockIdx.x][5] = st5;\n"
     "    g_st[blockIdx.x][6] = st_clock(); }\n}"),
]


def write_variant(name, dest):
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(KERNELS, dest)
    for rel, old, new in EDITS[name]:
        f = dest / rel
        text = f.read_text()
        if text.count(old) < 1:
            sys.exit(f"variant {name}: {rel} no longer contains:\n{old}")
        f.write_text(text.replace(old, new, 1))


def main():
    if sys.argv[1:] == ["--check"]:
        with tempfile.TemporaryDirectory() as tmp:
            for name in EDITS:
                write_variant(name, Path(tmp) / name)
        print(f"variant-src: all {len(EDITS)} variants apply to the kernels")
        return
    if len(sys.argv) != 3 or sys.argv[1] not in EDITS:
        sys.exit(__doc__)
    dest = Path(sys.argv[2])
    write_variant(sys.argv[1], dest)
    print(dest)


if __name__ == "__main__":
    main()
