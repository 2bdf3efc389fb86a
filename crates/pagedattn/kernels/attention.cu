// Batched GQA causal prefill attention over a paged KV cache (page_size 1),
// 24 query heads / 4 kv heads / head_dim 128, bf16, for Hopper (sm_90a).
//
// One persistent kernel: a wave of resident CTAs, each walking work units
// (attn/scheduler.cuh: tiles of kBlockM packed (token, head) rows of one
// sequence and kv head, long tiles split into key-range chunks) handed out
// by a ticket counter, heaviest first. Per CTA:
//   all threads      build the plan from the indptrs (shared memory) for a
//                    batch of 33+, unless the host made it (copied by
//                    producer warp 0); up to 32 sequences warpgroup 0 builds
//                    it (the split search on its four warps, skipped when
//                    the workspace's memo holds the last such call's choice
//                    for these lengths; the rest in warp 0; roles and
//                    barrier ids: attn/warp_roles.cuh);
//   warpgroup 0      producer: takes tickets and decodes units (warp 0),
//                    gathers Q and K/V rows by page id (cp.async) into Q
//                    slots and K and V rings (mbarriers; kStages and kStagesV
//                    deep), up to a unit ahead of the consumers
//                    (attn/load_pipeline.cuh);
//   warpgroups 1..   consumers, 64 rows each: the main loop (QK, mask,
//                    online softmax, PV; attn/mainloop.cuh), then the
//                    epilogue (attn/epilogue.cuh) or, for a chunk, its
//                    partial result and possibly the merge of the tile's
//                    chunks (attn/merge.cuh).
// Calls with at most one unit per CTA and nothing to split launch the
// _direct entry points: the same code without tickets or merge, the units
// in the fixed tile order or, with a host plan in the parameters (batches
// of up to kInlinePlanMaxBatch), in the plan's.
#include <cuda_bf16.h>

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "attention.cu needs -gencode=arch=compute_90a,code=sm_90a (wgmma, setmaxnreg)"
#endif

#include "attn/params.cuh"
#include "attn/kernel_traits.cuh"
#include "attn/scheduler.cuh"
#include "attn/load_pipeline.cuh"
#include "attn/mainloop.cuh"
#include "attn/merge.cuh"
#include "attn/epilogue.cuh"

namespace pagedattn {

template <class T>
__device__ __forceinline__ void init_barriers(typename T::SharedStorage& ss) {
  if (threadIdx.x == 0) {
    CUTLASS_PRAGMA_UNROLL
    for (int s = 0; s < T::kQSlots; ++s) {
      // The Q rows' 128 cp.async arrivals, plus producer thread 0's, which
      // publishes the slot's unit.
      mbar_init(&ss.q_full[s], T::kProducerThreads + 1);
      // Every consumer thread arrives: each orders its own reads of the
      // slot (unit info, output staging) before the producer refills it.
      mbar_init(&ss.q_empty[s], T::kConsumerThreads);
    }
    CUTLASS_PRAGMA_UNROLL
    for (int s = 0; s < T::kStages; ++s) {
      mbar_init(&ss.k_full[s], T::kProducerThreads);
      mbar_init(&ss.k_empty[s], T::kConsumerWGs * 4);
    }
    CUTLASS_PRAGMA_UNROLL
    for (int s = 0; s < T::kStagesV; ++s) {
      mbar_init(&ss.v_full[s], T::kProducerThreads);
      mbar_init(&ss.v_empty[s], T::kConsumerWGs * 4);
    }
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();
}

// Units walk their key blocks down, or up in every other wave
// (alternating_block), in the persistent one-slot kernels (m128d, which the
// long rows take, and m192); the other kernels always walk down.
template <class T, bool kDirect>
constexpr bool kAlternateWaves = T::kQSlots == 1 && !kDirect;

// ---------------- producer: one unit ----------------
// Q rows into Q slot `slot`, then the unit's key blocks from the last down
// (with kAlt: alternating_block's order), K(it) then V(it) through the ring
// from ring position block_iter on. Page ids run two blocks ahead of the
// cp.asyncs that use them, so their load latency is off the producer's path.
// With `claim`, thread 0 takes the next ticket (`raw_ticket`, used when the
// next unit is decoded) as the unit's last block loads: a CTA claims its next
// unit only shortly before it is free, so units stay with whichever CTA frees
// up first (dynamic balance; claiming two 64-key blocks earlier was measured
// slower).
template <class T, bool kAlt>
__device__ __forceinline__ void produce_unit(const Params& p, typename T::SharedStorage& ss,
                                             const GatherLoader<T>& loader, const WorkUnit& w, int slot,
                                             int block_iter, bool claim, int& raw_ticket) {
  constexpr int kStageBytes = T::kBlockN * kHeadDim * 2;
  constexpr int kQBytes = T::kBlockM * kHeadDim * 2;
  constexpr int kIds = GatherLoader<T>::kKvRows;
  const uint32_t sk = cute::cast_smem_ptr_to_uint(ss.k);
  const uint32_t sv = cute::cast_smem_ptr_to_uint(ss.v);
  const int n_steps = w.blk_hi - w.blk_lo;
  // The consumers learn the unit from the slot's q_full, which thread 0
  // (having written the unit) also arrives on: before any wait for a ring
  // stage, which needs the consumers.
  auto publish = [&]() {
    if (threadIdx.x == 0) mbar_arrive(&ss.q_full[slot]);
  };
  if (n_steps == 0) {
    // No key: the rows' output is 0 and Q is not read.
    mbar_arrive(&ss.q_full[slot]);
    publish();
    if (claim && threadIdx.x == 0) raw_ticket = issue_ticket(p, ss.plan.n_units);
    return;
  }
  int pid[kIds], pid_next[kIds] = {};
  loader.load_page_ids(p, w, kAlt ? alternating_block(w, 0) : w.blk_hi - 1, pid);
  if (n_steps > 1) loader.load_page_ids(p, w, kAlt ? alternating_block(w, 1) : w.blk_hi - 2, pid_next);
  loader.load_q(p, w, w.m_block * T::kBlockM, cute::cast_smem_ptr_to_uint(ss.q) + slot * kQBytes,
                &ss.q_full[slot]);
  publish();
  for (int it = 0; it < n_steps; ++it) {
    const int n = kAlt ? alternating_block(w, it) : w.blk_hi - 1 - it;
    const RingPos<T::kStages> rp(block_iter + it);
    const RingPos<T::kStagesV> rpv(block_iter + it);
    loader.check_ids(p, w, n, pid);
    if (claim && it == n_steps - 1 && threadIdx.x == 0) raw_ticket = issue_ticket(p, ss.plan.n_units);
    mbar_wait(&ss.k_empty[rp.stage], rp.phase ^ 1);
    loader.load_kv(p.k_cache, w.kv_head, pid, sk + rp.stage * kStageBytes, &ss.k_full[rp.stage]);
    mbar_wait(&ss.v_empty[rpv.stage], rpv.phase ^ 1);
    loader.load_kv(p.v_cache, w.kv_head, pid, sv + rpv.stage * kStageBytes, &ss.v_full[rpv.stage]);
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kIds; ++i) pid[i] = pid_next[i];
    if (it + 2 < n_steps) loader.load_page_ids(p, w, kAlt ? alternating_block(w, it + 2) : n - 2, pid_next);
  }
}

// With two Q slots the producer waits for a slot a unit before it refills
// it, so the copy of the slot's staged output to global memory is done
// there, by the producer, instead of by the consumers at the unit's end.
// Direct calls (a unit per CTA) keep the consumers' copy: nothing overlaps it.
template <class T, bool kDirect>
constexpr bool kProducerCopiesOut = T::kQSlots == 2 && !kDirect;

// The staged output of a finished unit (in Q slot `slot`) to global memory,
// by the 128 producer threads: chunk tid % 16 of rows tid / 16 + 8 i.
template <class T>
__device__ __forceinline__ void producer_copy_out(const Params& p, typename T::SharedStorage& ss,
                                                  const WorkUnit& u, int slot) {
  const uint32_t s_stage = cute::cast_smem_ptr_to_uint(ss.q + slot * T::kBlockM * kHeadDim);
  // The producer's registers are few: the loop unrolled by 4, and the
  // thread's offsets formed here (opaque), not hoisted and held (spilled).
  int tid = threadIdx.x;
  asm volatile("" : "+r"(tid));
  copy_out_rows<T, T::kBlockM / 8, 4>(p, u, u.m_block * T::kBlockM, tid / 16, tid % 16, s_stage);
}

// ---------------- producer warpgroup ----------------
// Warp 0 decodes each ticket into a unit; the unit reaches the other producer
// warps through `pending` and the consumers through the Q slot's unit and
// q_full barrier. The producer runs ahead of the consumers by a Q slot and
// the ring's depth, so the next unit's Q and first blocks load under this
// unit's last blocks and epilogue. kDirect: a unit per CTA at most (its
// first ticket; the second is past the units), so no ticket is claimed.
// on_done runs once the units are out, before the last copy-out waits for
// the consumers.
template <class T, bool kDirect, class OnDone>
__device__ __forceinline__ void producer(const Params& p, typename T::SharedStorage& ss, const OnDone& on_done) {
  const GatherLoader<T> loader(threadIdx.x);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int raw_ticket = 0;  // thread 0: the counter's value for the next unit
  int slot_iter = 0, block_iter = 0;
  constexpr bool kCopyOut = kProducerCopiesOut<T, kDirect>;
  for (int it = 0;; ++it) {
    // Ticket `it` of this CTA; from the third on, the next needs the counter.
    const bool claim_next = !kDirect && it + 1 >= 2;
    if (warp == kProducerWarp0) {
      int t = ticket_of(it, 0);
      if (!kDirect && it >= 2) {
        if (lane == 0) t = ticket_of(it, raw_ticket);
        t = __shfl_sync(0xffffffffu, t, 0);
      }
      WorkUnit w = decode_unit<T::kBlockM, T::kBlockN>(p, ss.plan, t);
      if constexpr (kAlternateWaves<T, kDirect>) w.slot = t;  // alternating_block's wave
      if (lane == 0) ss.pending[it & 1] = w;
    }
    named_bar_sync(T::kProducerThreads, kBarProducer);
    const WorkUnit w = ss.pending[it & 1];
    if (w.state == kUnitSkip) {
      if (claim_next && threadIdx.x == 0) raw_ticket = issue_ticket(p, ss.plan.n_units);
      continue;
    }
    const int slot = slot_iter % T::kQSlots, qphase = (slot_iter / T::kQSlots) & 1;
    // One slot: it frees only after this CTA's previous unit is stored, so
    // the next Q comes from L2 (measured: two slots hide the load already,
    // and there the prefetch only adds traffic, 1-4% slower).
    if (T::kQSlots == 1 && slot_iter > 0 && w.state == kUnitWork && w.blk_hi > w.blk_lo)
      loader.prefetch_q(p, w, w.m_block * T::kBlockM);
    ++slot_iter;
    mbar_wait(&ss.q_empty[slot], qphase ^ 1);
    if constexpr (kCopyOut) {
      if (slot_iter > T::kQSlots) {  // the slot held a unit: copy its staged rows out
        const WorkUnit old = ss.unit[slot];
        if (old.state == kUnitWork && old.n_chunks == 1) producer_copy_out<T>(p, ss, old, slot);
        // Every thread has read the slot's unit and rows before thread 0
        // overwrites the one and the Q load the other.
        named_bar_sync(T::kProducerThreads, kBarProducer);
      }
    }
    if (threadIdx.x == 0) ss.unit[slot] = w;
    if (w.state == kUnitDone) {
      mbar_arrive(&ss.q_full[slot]);
      if (threadIdx.x == 0) mbar_arrive(&ss.q_full[slot]);
      on_done();
      if constexpr (kCopyOut) {
        // The other slot holds the last unit this CTA ran: its rows are
        // staged once the consumers release it (occupant m = slot_iter - 2;
        // its release completes q_empty's phase parity (m / 2) & 1).
        const int m = slot_iter - 2;
        if (m >= 0) {
          const int o = m % T::kQSlots;
          const WorkUnit last = ss.unit[o];
          if (last.state == kUnitWork && last.n_chunks == 1) {
            mbar_wait(&ss.q_empty[o], (m / T::kQSlots) & 1);
            producer_copy_out<T>(p, ss, last, o);
          }
        }
      }
      break;
    }
    produce_unit<T, kAlternateWaves<T, kDirect>>(p, ss, loader, w, slot, block_iter, claim_next, raw_ticket);
    block_iter += w.blk_hi - w.blk_lo;
  }
}

// ---------------- consumers: one unit ----------------
template <class T, bool kDirect>
__device__ __forceinline__ void consume_unit(const Params& p, typename T::SharedStorage& ss, const WorkUnit& w,
                                             int slot, int block_iter) {
  using namespace cute;
  const int ct = threadIdx.x - T::kProducerThreads;  // 0 .. kConsumerThreads
  const int cw = ct / kWarpgroupThreads;
  typename T::TiledMmaPV mma_pv;
  Tensor tOrO = partition_fragment_C(mma_pv, select<0, 1>(typename T::TileShapePV{}));
  float lse[2];
  mainloop<T, kAlternateWaves<T, kDirect>>(p, ss, w, slot, block_iter, tOrO, lse);
  // The epilogue's addresses depend only on the unit and the thread: the
  // unit read again from its slot (which the producer refills only after
  // this unit's q_empty arrival) and opaque copies of the rest keep the
  // compiler from computing them before the main loop and holding
  // (spilling) them across it.
  WorkUnit wo;
  {
    const volatile int* src = reinterpret_cast<const volatile int*>(&ss.unit[slot]);
    int* dst = reinterpret_cast<int*>(&wo);
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < (int)(sizeof(WorkUnit) / sizeof(int)); ++i) dst[i] = src[i];
  }
  int opaque_zero = 0, m0 = wo.m_block * T::kBlockM, cto = ct;
  asm volatile("" : "+r"(opaque_zero), "+r"(cto));
  // Each warpgroup stages its output rows over its own rows of the unit's Q
  // slot, which its last QK GEMM has finished reading.
  const uint32_t s_stage =
      cute::cast_smem_ptr_to_uint(ss.q + slot * T::kBlockM * kHeadDim) + opaque_zero;
  Tensor cO = make_identity_tensor(select<0, 1>(typename T::TileShapePV{}));
  Tensor tOcO = mma_pv.get_thread_slice(cto).partition_C(cO);
  if constexpr (!kDirect) {  // direct calls split nothing
    const int t = cto % kWarpgroupThreads;  // opaque: the merges' addresses are not formed before the main loop
    if (wo.n_chunks > 1) {
      if (SplitMerge<T>::spread(wo, ss.plan)) {
        if (SplitMerge<T>::live_rows(wo, cw) == 0) return;  // no real row: nothing to merge
        SplitMerge<T>::store_partial_rows(p, wo, cw, t, tOrO, tOcO, lse);
        SplitMerge<T>::spread_merge(p, wo, cw, t, &ss.merge_last[cw], s_stage);
        return;
      }
      if (SplitMerge<T>::by_rows(wo, cw)) {
        SplitMerge<T>::store_partial_rows(p, wo, cw, t, tOrO, tOcO, lse);
        // The tile's last chunk merges every chunk's rows into the staging
        // buffer and stores them.
        if (SplitMerge<T>::arrive(p, wo, cw, t, &ss.merge_last[cw]))
          SplitMerge<T>::merge_rows_to_stage(p, wo, cw, t, s_stage);
        return;
      }
      SplitMerge<T>::store_partial(p, wo, cw, t, tOrO, lse);
      if (!SplitMerge<T>::arrive(p, wo, cw, t, &ss.merge_last[cw])) return;  // another chunk merges
      SplitMerge<T>::merge(p, wo, cw, t, tOrO, lse);
    }
  }
  store_output<T, kProducerCopiesOut<T, kDirect>>(p, wo, m0, cw, cto, tOrO, tOcO, lse, s_stage);
}

// ---------------- consumer warpgroups ----------------
template <class T, bool kDirect>
__device__ __forceinline__ void consumer(const Params& p, typename T::SharedStorage& ss) {
  int block_iter = 0;
  for (int slot_iter = 0;; ++slot_iter) {
    const int slot = slot_iter % T::kQSlots, qphase = (slot_iter / T::kQSlots) & 1;
    mbar_wait(&ss.q_full[slot], qphase);
    const WorkUnit w = ss.unit[slot];
    if (w.state == kUnitDone) break;
    consume_unit<T, kDirect>(p, ss, w, slot, block_iter);
    mbar_arrive(&ss.q_empty[slot]);  // the producer may refill the slot and its unit
    block_iter += w.blk_hi - w.blk_lo;
  }
}

// kDirect: the entry point for calls the host marked direct (a unit per CTA
// at most and nothing to split): no plan building, tickets or merge in the
// code, so that the shortest calls fetch and run as little code as
// possible.
template <class T, bool kDirect>
__device__ __forceinline__ void attention(const Params& p) {
  extern __shared__ __align__(1024) unsigned char smem_buf[];
  auto& ss = *reinterpret_cast<typename T::SharedStorage*>(smem_buf);
  init_barriers<T>(ss);
  // The plan: copied from one the host made (p.plan), or built here, a
  // small batch's by the warp that decodes the units (its split search on
  // the producer warpgroup), a larger one's by the whole CTA (its
  // per-sequence scratch in the K ring, not yet in use).
  // A small batch's host plan comes in the parameters (direct calls too:
  // their units then come in the plan's order, and no indptr is read
  // before the first loads).
  const bool inline_plan = p.inline_batch > 0 && p.inline_batch == p.batch && p.batch <= kInlinePlanMaxBatch;
  const bool host_plan = !kDirect && !inline_plan && p.plan != nullptr && p.batch >= 1 && p.batch <= T::Plan::kMax;
  const bool warp_plan = !kDirect && !inline_plan && !host_plan && p.batch >= 1 && p.batch <= kWarpPlanMaxBatch;
  if (!kDirect && !inline_plan && !host_plan && !warp_plan)
    build_plan<T::kThreads, T::kBlockM, T::kBlockN>(p, ss.plan, reinterpret_cast<int*>(ss.k));
  const int warp = threadIdx.x / 32;
  if (warp / kWarpsPerWarpgroup == kProducerWarpgroup) {
    cutlass::arch::warpgroup_reg_dealloc<T::kProducerRegs>();
    // A warp-built plan's split search runs on the producer warpgroup,
    // its choice in warp 0, which builds the rest alone.
    // With the automatic split, the memo of the last such call's choice
    // may hold this call's (attn/scheduler.cuh, PlanMemo).
    WarpPlanSeqs<T::kBlockM, T::kBlockN> seqs{};
    using Memo = PlanMemo<T::kBlockM, T::kBlockN>;
    Memo memo;
    const bool use_memo = !kDirect && warp_plan && p.split_blocks == 0;
    long long* memo_hit = &ss.plan.red[kNumSplitCandidates];  // past the search's sums
    int chunk = kNoSplit;
    if (!kDirect && warp_plan) {
      if (use_memo) memo.load(p);
      seqs = WarpPlanSeqs<T::kBlockM, T::kBlockN>(p);
      if (use_memo) memo.check(p, seqs.r, T::kProducerThreads / 32 * (int)gridDim.x, memo_hit);
      chunk = p.split_blocks != 0 ? initial_chunk(p)
              : memo.hit          ? memo.chunk
                                  : auto_chunk_warps<T::kProducerThreads, T::kBlockM, T::kBlockN>(
                                        p.partial_slots, seqs.work, seqs.nb_max, seqs.q_max, p.batch, seqs.r.q_len,
                                        seqs.r.kv_len, ss.plan.red);
    }
    if (warp == kProducerWarp0) {
      if (inline_plan) load_plan_params(p, ss.plan);
      else if (kDirect) set_fixed_order(p, ss.plan);
      if (host_plan) load_plan_warp(p, ss.plan);
      if (warp_plan) build_plan_warp<T::kBlockM, T::kBlockN>(p, ss.plan, seqs, chunk);
    }
    producer<T, kDirect>(p, ss, [&] {
      if (use_memo) Memo::finish(p, ss.plan, memo_hit);
    });
  } else {
    cutlass::arch::warpgroup_reg_alloc<T::kConsumerRegs>();
    if (warp == kConsumerWarp0) {  // this CTA's share of the indptr check
      for (long long first = (long long)blockIdx.x * 32; first <= p.batch; first += (long long)gridDim.x * 32)
        validate_indptrs(p, first);
    }
    consumer<T, kDirect>(p, ss);
  }
}

// Five configurations (the host picks one per call, src/schedule.rs):
//  m128:  128 rows, two consumer warpgroups (ping-pong), 128-key blocks, one
//         CTA per SM, plans of up to 1024 sequences: least K/V traffic per
//         FLOP, for batches of more than 64 sequences with many keys;
//  m128d: m128 with a 3-deep K/V ring and one Q slot (the shared memory of
//         the second slot and of plans above 64 sequences buys the third
//         stage): with 2 stages a block's K and V leave one step before
//         their use, and at 8192 the consumers waited for them on 5% of the
//         samples; one slot exposes the next unit's Q load, so it serves the
//         calls whose units are long (measured on the H200: cached prefixes
//         4-16% and long sequences 5-7% faster than m128, batches of many
//         short units 2-8% slower);
//  m128dv: m128d's third stage for V only, the K stage's shared memory
//         buying back the second Q slot: V is read a step after K, so its
//         ring is the one the third stage feeds; the second slot loads the
//         next unit's Q under this one. For the other calls of up to 64
//         sequences (measured on the H200: 4-6% faster than m128d where a
//         CTA runs 2-3 units of 8-16 blocks, 1.6% slower on one sequence of
//         16384 and 2-3% on the longest cached prefixes; 3.5-4.4% faster
//         than m128 on batches of short tiles);
//  m64:   64 rows, one consumer warpgroup, 64-key blocks, two CTAs per SM:
//         finer units for batches of short sequences; its gather moves
//         whole 128-byte lines a warp instruction (8 lanes a row), which
//         its decode-like calls, held by the K/V stream, need (measured on
//         the H200: decode calls of 64-256 sequences 2-9% faster, the seed
//         rows it takes 0-3.6%; the 128-row tiles keep 4 lanes a row);
//  m192:  192 rows, three consumer warpgroups (a round robin), m128d's
//         3-deep rings and one Q slot: each K/V block is read once for 192
//         rows, a third fewer K/V bytes per FLOP than m128d's. For few
//         queries over long cached prefixes, whose tiles re-read the same
//         keys (measured on the H200: 0.76-0.99 of the 128-row tiles' time
//         there; on the long causal rows 0.98-1.02, the bytes saved turning
//         into clock at the power cap and the per-block chain taking it). Its
//         blocks are 64 keys: 512 threads leave a consumer thread 152
//         registers, which hold a 64-key S beside O but not a 128-key one.
using TraitsM128 = KernelTraits</*kBlockM=*/128, /*kBlockN=*/128, /*kStages=*/2, /*kCtasPerSm=*/1,
                                /*kPlanMaxBatch=*/1024, /*kQSlots=*/2>;
using TraitsM128Deep = KernelTraits</*kBlockM=*/128, /*kBlockN=*/128, /*kStages=*/3, /*kCtasPerSm=*/1,
                                    /*kPlanMaxBatch=*/64, /*kQSlots=*/1>;
using TraitsM128DeepV = KernelTraits</*kBlockM=*/128, /*kBlockN=*/128, /*kStages=*/2, /*kCtasPerSm=*/1,
                                     /*kPlanMaxBatch=*/64, /*kQSlots=*/2, /*kStagesV=*/3>;
using TraitsM64 = KernelTraits</*kBlockM=*/64, /*kBlockN=*/64, /*kStages=*/2, /*kCtasPerSm=*/2,
                               /*kPlanMaxBatch=*/512, /*kQSlots=*/2, /*kStagesV=*/2, /*kGatherLanes=*/8>;
using TraitsM192 = KernelTraits</*kBlockM=*/192, /*kBlockN=*/64, /*kStages=*/3, /*kCtasPerSm=*/1,
                                /*kPlanMaxBatch=*/64, /*kQSlots=*/1>;

}  // namespace pagedattn

// Entry points; launched with Traits::kThreads threads, Traits::kSmemBytes
// dynamic shared memory and a grid of the CTAs resident on the GPU (the
// _direct ones: a CTA per unit, for calls the host marked direct).
#if defined(__CUDA_ARCH__)
#define PAGEDATTN_ENTRY(name, traits, ctas_per_sm, direct)                                        \
  extern "C" __global__ void __launch_bounds__(traits::kThreads, ctas_per_sm)                     \
      name(const __grid_constant__ pagedattn::Params p) {                                          \
    pagedattn::attention<traits, direct>(p);                                                       \
  }
#else
#define PAGEDATTN_ENTRY(name, traits, ctas_per_sm, direct)                                        \
  extern "C" __global__ void __launch_bounds__(traits::kThreads, ctas_per_sm)                     \
      name(const __grid_constant__ pagedattn::Params p) {}
#endif
PAGEDATTN_ENTRY(paged_prefill_m128, pagedattn::TraitsM128, 1, false)
PAGEDATTN_ENTRY(paged_prefill_m128d, pagedattn::TraitsM128Deep, 1, false)
PAGEDATTN_ENTRY(paged_prefill_m128dv, pagedattn::TraitsM128DeepV, 1, false)
PAGEDATTN_ENTRY(paged_prefill_m64, pagedattn::TraitsM64, 2, false)
PAGEDATTN_ENTRY(paged_prefill_m192, pagedattn::TraitsM192, 1, false)
PAGEDATTN_ENTRY(paged_prefill_m128_direct, pagedattn::TraitsM128, 1, true)
PAGEDATTN_ENTRY(paged_prefill_m128d_direct, pagedattn::TraitsM128Deep, 1, true)
PAGEDATTN_ENTRY(paged_prefill_m128dv_direct, pagedattn::TraitsM128DeepV, 1, true)
PAGEDATTN_ENTRY(paged_prefill_m64_direct, pagedattn::TraitsM64, 2, true)
PAGEDATTN_ENTRY(paged_prefill_m192_direct, pagedattn::TraitsM192, 1, true)
#undef PAGEDATTN_ENTRY

// Shared memory each entry point needs (read by the host through cuModuleGetGlobal).
extern "C" __device__ const int paged_prefill_m128_smem_bytes = pagedattn::TraitsM128::kSmemBytes;
extern "C" __device__ const int paged_prefill_m128d_smem_bytes = pagedattn::TraitsM128Deep::kSmemBytes;
extern "C" __device__ const int paged_prefill_m128dv_smem_bytes = pagedattn::TraitsM128DeepV::kSmemBytes;
extern "C" __device__ const int paged_prefill_m64_smem_bytes = pagedattn::TraitsM64::kSmemBytes;
extern "C" __device__ const int paged_prefill_m192_smem_bytes = pagedattn::TraitsM192::kSmemBytes;
