// Batched GQA causal prefill attention over a paged KV cache (page_size 1),
// 24 query heads / 4 kv heads / head_dim 128, bf16, for Hopper (sm_90a).
//
// A tile is kBlockM packed (token, head) rows of one sequence and one kv head
// (the 6 query heads of a kv head share every K/V row loaded). A CTA computes
// one tile (m128) or, persistent, a series of tiles (m64):
//   warpgroup 0      producer: gathers Q and K/V rows by page id (cp.async)
//                    into a kStages-deep shared-memory ring (mbarriers);
//   warpgroups 1..   consumers, 64 rows each: S = Q K^T (wgmma SS), masked
//                    online softmax in registers (exp2, scale folded in),
//                    O += P V (wgmma RS, P straight from the S registers),
//                    then the epilogue.
// Key blocks entirely above the causal diagonal are never loaded; only
// blocks that cross it are masked. See attn/*.cuh for each stage.
#include <cuda_bf16.h>

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "attention.cu needs -gencode=arch=compute_90a,code=sm_90a (wgmma, setmaxnreg)"
#endif

#include "attn/params.cuh"
#include "attn/kernel_traits.cuh"
#include "attn/tile_scheduler.cuh"
#include "attn/load_pipeline.cuh"
#include "attn/softmax.cuh"
#include "attn/epilogue.cuh"

namespace pagedattn {

// Causal extent of a tile. Packed row r is token r / 6; token i sees keys
// j <= i + delta, delta = kv_len - q_len (bottom-right aligned).
template <class T>
struct TileExtent {
  int m0;          // first packed row
  int delta;
  int n_blocks;    // key blocks any row of the tile sees
  int n_unmasked;  // blocks [0, n_unmasked) are fully visible to every row
  __device__ __forceinline__ explicit TileExtent(const WorkTile& w) {
    m0 = w.m_block * T::kBlockM;
    const int rows_total = w.q_len * kGroup;
    delta = w.kv_len - w.q_len;
    const int last_row = min(m0 + T::kBlockM, rows_total) - 1;
    const int max_key = min(w.kv_len - 1, last_row / kGroup + delta);  // largest key any row sees
    n_blocks = max_key >= 0 ? max_key / T::kBlockN + 1 : 0;
    const int min_limit = m0 / kGroup + delta;                          // smallest row's last key
    n_unmasked = min(n_blocks, min_limit >= 0 ? (min_limit + 1) / T::kBlockN : 0);
  }
};

// Ring position of the i-th key block a CTA processes (counted over all its tiles).
template <int kStages>
struct RingPos {
  int stage, phase;
  __device__ __forceinline__ explicit RingPos(int i) : stage(i % kStages), phase((i / kStages) & 1) {}
};

template <class T>
__device__ __forceinline__ void init_barriers(typename T::SharedStorage& ss) {
  if (threadIdx.x == 0) {
    CUTLASS_PRAGMA_UNROLL
    for (int s = 0; s < T::kQSlots; ++s) {
      // The Q rows' 128 cp.async arrivals, plus, persistent, one for the tile info.
      mbar_init(&ss.q_full[s], T::kProducerThreads + (T::kPersistent ? 1 : 0));
      // Every consumer thread arrives: each has read the slot's tile info
      // (plain shared loads), so each must order its own reads before the
      // producer's next write of it (one arrive per warp after __syncwarp is
      // enough on the hardware, but is a race to compute-sanitizer racecheck).
      mbar_init(&ss.q_empty[s], T::kConsumerThreads);
    }
    CUTLASS_PRAGMA_UNROLL
    for (int s = 0; s < T::kStages; ++s) {
      mbar_init(&ss.k_full[s], T::kProducerThreads);
      mbar_init(&ss.v_full[s], T::kProducerThreads);
      mbar_init(&ss.k_empty[s], T::kConsumerWGs * 4);
      mbar_init(&ss.v_empty[s], T::kConsumerWGs * 4);
    }
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();
}

// ---------------- producer: one tile ----------------
// Q rows into Q slot `slot`, then the key blocks, diagonal first (block
// n_blocks - 1 - it at step it), K(it) then V(it) through the ring from ring
// position block_iter on. Page ids run two blocks ahead of the cp.asyncs
// that use them, so their load latency is off the producer's path.
template <class T>
__device__ __forceinline__ void produce_tile(const Params& p, typename T::SharedStorage& ss,
                                             const GatherLoader<T>& loader, const WorkTile& w,
                                             const TileExtent<T>& e, int slot, int block_iter) {
  constexpr int kStageBytes = T::kBlockN * kHeadDim * 2;
  constexpr int kQBytes = T::kBlockM * kHeadDim * 2;
  constexpr int kIds = GatherLoader<T>::kKvRows;
  const uint32_t sk = cute::cast_smem_ptr_to_uint(ss.k);
  const uint32_t sv = cute::cast_smem_ptr_to_uint(ss.v);
  // Persistent, the consumers learn the tile from the slot's q_full, which
  // thread 0 (having written the tile info) also arrives on: before any wait
  // for a ring stage, which needs the consumers.
  auto publish_tile = [&]() {
    if constexpr (T::kPersistent)
      if (threadIdx.x == 0) mbar_arrive(&ss.q_full[slot]);
  };
  if (e.n_blocks == 0) {
    // No key: the rows' output is 0 and Q is not read.
    if constexpr (T::kPersistent) mbar_arrive(&ss.q_full[slot]);
    publish_tile();
    return;
  }
  int pid[kIds], pid_next[kIds] = {};
  loader.load_page_ids(p, w, e.n_blocks - 1, pid);
  if (e.n_blocks > 1) loader.load_page_ids(p, w, e.n_blocks - 2, pid_next);
  loader.load_q(p, w, e.m0, cute::cast_smem_ptr_to_uint(ss.q) + slot * kQBytes, &ss.q_full[slot]);
  publish_tile();
  for (int it = 0; it < e.n_blocks; ++it) {
    const RingPos<T::kStages> rp(block_iter + it);
    loader.check_ids(p, w, e.n_blocks - 1 - it, pid);
    mbar_wait(&ss.k_empty[rp.stage], rp.phase ^ 1);
    loader.load_kv(p.k_cache, w.kv_head, pid, sk + rp.stage * kStageBytes, &ss.k_full[rp.stage]);
    mbar_wait(&ss.v_empty[rp.stage], rp.phase ^ 1);
    loader.load_kv(p.v_cache, w.kv_head, pid, sv + rp.stage * kStageBytes, &ss.v_full[rp.stage]);
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kIds; ++i) pid[i] = pid_next[i];
    if (it + 2 < e.n_blocks) loader.load_page_ids(p, w, e.n_blocks - 3 - it, pid_next);
  }
}

// ---------------- consumers: one tile ----------------
// S = Q K^T, masked online softmax, O += P V over the tile's key blocks (Q in
// slot `slot`, which the caller has waited for; ring from block_iter on),
// then the epilogue through `o_stage`. Persistent, the Q slot is released to
// the producer after its last read.
template <class T>
__device__ __forceinline__ void consume_tile(const Params& p, typename T::SharedStorage& ss, const WorkTile& w,
                                             const TileExtent<T>& e, int slot, int block_iter,
                                             typename T::Element* o_stage) {
  using namespace cute;
  const int lane = threadIdx.x % 32;
  const int ct = threadIdx.x - T::kProducerThreads;  // 0 .. kConsumerThreads
  const int cw = ct / 128;
  const int n_blocks = e.n_blocks;
  typename T::TiledMmaQK mma_qk;
  typename T::TiledMmaPV mma_pv;
  auto thr_qk = mma_qk.get_thread_slice(ct);
  auto thr_pv = mma_pv.get_thread_slice(ct);
  Tensor sQ = make_tensor(make_smem_ptr(ss.q + slot * T::kBlockM * kHeadDim), typename T::SmemLayoutO{});
  Tensor sK = make_tensor(make_smem_ptr(ss.k), typename T::SmemLayoutK{});
  Tensor sVt = make_tensor(make_smem_ptr(ss.v), typename T::SmemLayoutVt{});
  Tensor tSrQ = thr_qk.partition_fragment_A(sQ);   // descriptors
  Tensor tSrK = thr_qk.partition_fragment_B(sK);   // descriptors, per stage
  Tensor tOrV = thr_pv.partition_fragment_B(sVt);  // descriptors, per stage
  Tensor tSrS = partition_fragment_C(mma_qk, select<0, 1>(typename T::TileShapeQK{}));
  Tensor tOrO = partition_fragment_C(mma_pv, select<0, 1>(typename T::TileShapePV{}));
  // P in the register layout of the PV GEMM's A operand: for bf16 it is the
  // S accumulator's own order, 16 keys per k-block.
  Tensor tOrP = make_tensor<typename T::Element>(Layout<Shape<Shape<_2, _2, _2>, _1, Int<T::kBlockN / 16>>>{});
  static_assert(size(tOrP) == size(tSrS));
  Tensor cS = make_identity_tensor(select<0, 1>(typename T::TileShapeQK{}));
  Tensor tScS = thr_qk.partition_C(cS);
  const float scale = p.sm_scale_log2;
  const int col0 = get<1>(tScS(0));

  clear(tOrO);
  OnlineSoftmax softmax;
  float corr[2];
  // Last visible key of each of this thread's two rows.
  int row_last_key[2];
  CUTLASS_PRAGMA_UNROLL
  for (int h = 0; h < 2; ++h) {
    const int r = e.m0 + get<0>(tScS(2 * h));
    row_last_key[h] = min(r / kGroup + e.delta, w.kv_len - 1);
  }
  // Softmax of key block n: masked only where the block crosses the diagonal.
  auto softmax_block = [&](int n) {
    if (n >= e.n_unmasked) {
      const int limit[2] = {row_last_key[0] - n * T::kBlockN - col0, row_last_key[1] - n * T::kBlockN - col0};
      softmax.template step<true>(tSrS, scale, limit, corr);
    } else {
      const int limit[2] = {0, 0};
      softmax.template step<false>(tSrS, scale, limit, corr);
    }
  };
  auto to_bf16 = [&]() {  // P = bf16(S), in the PV GEMM's A-operand registers
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < size(tSrS); v += 2) {
      __nv_bfloat162 pr = __floats2bfloat162_rn(tSrS(v), tSrS(v + 1));
      tOrP(v) = reinterpret_cast<typename T::Element const&>(pr.x);
      tOrP(v + 1) = reinterpret_cast<typename T::Element const&>(pr.y);
    }
  };
  // Ping-pong between the consumer warpgroups (named barriers 3 and 4): a
  // warpgroup issues its GEMMs only after the other has issued its own, so
  // the tensor cores alternate between them and one warpgroup's softmax runs
  // under the other's GEMMs. Per tile each warpgroup takes n_blocks + 1
  // turns and passes as many, so the alternation also carries across tiles.
  const int my_turn = 3 + cw, other_turn = 3 + (cw ^ 1);
  auto wait_turn = [&]() {
    if constexpr (T::kConsumerWGs == 2) cutlass::arch::NamedBarrier::sync(T::kConsumerThreads, my_turn);
  };
  auto pass_turn = [&]() {
    if constexpr (T::kConsumerWGs == 2) cutlass::arch::NamedBarrier::arrive(T::kConsumerThreads, other_turn);
  };
  auto release = [&](uint64_t* bar) {
    __syncwarp();
    if (lane == 0) mbar_arrive(bar);
  };
  auto q_read_done = [&]() {  // the producer may refill this Q slot and its tile info
    if constexpr (T::kPersistent) mbar_arrive(&ss.q_empty[slot]);
  };
  if (n_blocks == 0) q_read_done();
  if (cw == 1 && n_blocks > 0) pass_turn();  // warpgroup 0 goes first

  if (n_blocks > 0) {
    // First (diagonal) block: S, softmax, P. O is still zero: no rescale.
    const RingPos<T::kStages> rk(block_iter);
    mbar_wait(&ss.k_full[rk.stage], rk.phase);
    cutlass::arch::fence_view_async_shared();  // cp.async writes -> wgmma (async proxy) reads
    wait_turn();
    warpgroup_gemm<true, -1>(mma_qk, tSrQ, tSrK(_, _, _, rk.stage), tSrS);
    pass_turn();
    warpgroup_wait<0>();
    warpgroup_fence_operand(tSrS);
    release(&ss.k_empty[rk.stage]);
    if (n_blocks == 1) q_read_done();
    softmax_block(n_blocks - 1);
    to_bf16();
  }
  // Steady state, intra-warpgroup overlap: S(it) = Q K(it) and O += P(it-1)
  // V(it-1) are both in flight on the tensor cores while the softmax of
  // S(it) runs once its GEMM is done.
  for (int it = 1; it < n_blocks; ++it) {
    const int n = n_blocks - 1 - it;
    const RingPos<T::kStages> rk(block_iter + it), rv(block_iter + it - 1);
    mbar_wait(&ss.k_full[rk.stage], rk.phase);
    mbar_wait(&ss.v_full[rv.stage], rv.phase);
    cutlass::arch::fence_view_async_shared();
    OnlineSoftmax::rescale(tOrO, corr);
    wait_turn();
    warpgroup_gemm<true, -1>(mma_qk, tSrQ, tSrK(_, _, _, rk.stage), tSrS);
    warpgroup_gemm<false, -1>(mma_pv, tOrP, tOrV(_, _, _, rv.stage), tOrO);
    pass_turn();
    warpgroup_wait<1>();  // S(it) ready; P V still running
    warpgroup_fence_operand(tSrS);
    release(&ss.k_empty[rk.stage]);
    if (it == n_blocks - 1) q_read_done();
    softmax_block(n);
    warpgroup_wait<0>();  // P(it-1) V(it-1) done: P registers and V stage free
    warpgroup_fence_operand(tOrO);
    release(&ss.v_empty[rv.stage]);
    to_bf16();
  }
  if (n_blocks > 0) {
    const RingPos<T::kStages> rv(block_iter + n_blocks - 1);
    OnlineSoftmax::rescale(tOrO, corr);
    mbar_wait(&ss.v_full[rv.stage], rv.phase);
    cutlass::arch::fence_view_async_shared();
    wait_turn();
    warpgroup_gemm<false, -1>(mma_pv, tOrP, tOrV(_, _, _, rv.stage), tOrO);
    if (cw == 0) pass_turn();  // the last turn of warpgroup 1 is not awaited
    warpgroup_wait<0>();
    warpgroup_fence_operand(tOrO);
    release(&ss.v_empty[rv.stage]);
  }

  float lse[2];
  softmax.finalize(tOrO, lse);
  // The epilogue's addresses depend only on the tile and the thread: opaque
  // copies of their inputs keep the compiler from computing them before the
  // main loop and holding (spilling) them across it in the persistent loop.
  int opaque_zero = 0, m0 = e.m0, cto = ct;
  WorkTile wo = w;
  asm volatile("" : "+r"(opaque_zero), "+r"(m0), "+r"(cto), "+r"(wo.q_start), "+r"(wo.q_len), "+r"(wo.kv_head));
  const uint32_t s_stage = cute::cast_smem_ptr_to_uint(o_stage) + opaque_zero;
  Tensor cO = make_identity_tensor(select<0, 1>(typename T::TileShapePV{}));
  Tensor tOcO = mma_pv.get_thread_slice(cto).partition_C(cO);
  store_output<T>(p, wo, m0, cw, cto, tOrO, tOcO, lse, s_stage);
}

// ---------------- one tile per CTA ----------------
template <class T>
__device__ __forceinline__ void attention_tile(const Params& p) {
  extern __shared__ __align__(1024) unsigned char smem_buf[];
  auto& ss = *reinterpret_cast<typename T::SharedStorage*>(smem_buf);
  const int warp = threadIdx.x / 32;
  init_barriers<T>(ss);
  const WorkTile w = decode_tile<T::kBlockM>(p, blockIdx.x);
  if (warp == 4) validate_indptrs(p, (long long)blockIdx.x * 32);  // first consumer warp
  if (!w.valid) return;
  const TileExtent<T> e(w);
  if (warp < 4) {
    cutlass::arch::warpgroup_reg_dealloc<T::kProducerRegs>();
    produce_tile<T>(p, ss, GatherLoader<T>(threadIdx.x), w, e, 0, 0);
  } else {
    cutlass::arch::warpgroup_reg_alloc<T::kConsumerRegs>();
    if (e.n_blocks > 0) mbar_wait(&ss.q_full[0], 0);
    // Each warpgroup stages its output rows over its own Q rows, which it no
    // longer reads.
    consume_tile<T>(p, ss, w, e, 0, 0, ss.q);
  }
}

// ---------------- persistent ----------------
// The producer walks this CTA's tiles (tile_for_round), publishes each with
// its Q rows in a free Q slot and streams its key blocks; it runs ahead of the
// consumers by up to a Q slot and the ring's depth, so the next tile's Q and
// first blocks load under this tile's last blocks and epilogue.
template <class T>
__device__ __forceinline__ void attention_persistent(const Params& p) {
  extern __shared__ __align__(1024) unsigned char smem_buf[];
  auto& ss = *reinterpret_cast<typename T::SharedStorage*>(smem_buf);
  const int warp = threadIdx.x / 32;
  init_barriers<T>(ss);
  if (warp == 4) {  // first consumer warp: this CTA's share of the indptr check
    for (long long first = (long long)blockIdx.x * 32; first <= p.batch; first += (long long)gridDim.x * 32)
      validate_indptrs(p, first);
  }
  int slot_iter = 0, block_iter = 0;
  if (warp < 4) {
    cutlass::arch::warpgroup_reg_dealloc<T::kProducerRegs>();
    const GatherLoader<T> loader(threadIdx.x);
    for (int round = 0;; ++round) {
      const long long t = tile_for_round(p, round);
      WorkTile w{};
      if (t >= 0) {
        w = decode_tile<T::kBlockM>(p, t);
        if (!w.valid) continue;  // spare tile or bad sequence: nothing to compute
      }
      const int slot = slot_iter % T::kQSlots, qphase = (slot_iter / T::kQSlots) & 1;
      ++slot_iter;
      mbar_wait(&ss.q_empty[slot], qphase ^ 1);
      if (threadIdx.x == 0) {
        ss.tile[slot].w = w;
        ss.tile[slot].done = t < 0;
      }
      if (t < 0) {
        mbar_arrive(&ss.q_full[slot]);
        if (threadIdx.x == 0) mbar_arrive(&ss.q_full[slot]);  // releases the tile info
        break;
      }
      const TileExtent<T> e(w);
      produce_tile<T>(p, ss, loader, w, e, slot, block_iter);  // also releases the tile info
      block_iter += e.n_blocks;
    }
  } else {
    cutlass::arch::warpgroup_reg_alloc<T::kConsumerRegs>();
    for (;; ++slot_iter) {
      const int slot = slot_iter % T::kQSlots, qphase = (slot_iter / T::kQSlots) & 1;
      mbar_wait(&ss.q_full[slot], qphase);
      if (ss.tile[slot].done) break;
      const WorkTile w = ss.tile[slot].w;
      const TileExtent<T> e(w);
      consume_tile<T>(p, ss, w, e, slot, block_iter, ss.o);
      block_iter += e.n_blocks;
    }
  }
}

// Two configurations (the host picks one per call, see src/backend/cuda/kernel.rs
// and src/schedule.rs):
//  m128: 128 rows, two consumer warpgroups, 128-key blocks, 3 stages, one CTA
//        per SM and one tile per CTA: least K/V traffic per FLOP, for long
//        sequences;
//  m64:  64 rows, one consumer warpgroup, 64-key blocks, 2 stages, two CTAs per
//        SM, persistent: the load chain of one tile hides behind another
//        tile's math, for batches of short sequences.
#ifndef PAGEDATTN_M128_STAGES  // overridable for experiments (scripts/build-variant.sh)
#define PAGEDATTN_M128_STAGES 3
#endif
#ifndef PAGEDATTN_M128_PERSISTENT
#define PAGEDATTN_M128_PERSISTENT false
#endif
using TraitsM128 = KernelTraits</*kBlockM=*/128, /*kBlockN=*/128, PAGEDATTN_M128_STAGES, /*kCtasPerSm=*/1,
                                PAGEDATTN_M128_PERSISTENT>;
using TraitsM64 = KernelTraits</*kBlockM=*/64, /*kBlockN=*/64, /*kStages=*/2, /*kCtasPerSm=*/2, /*kPersistent=*/true>;

template <class T>
__device__ __forceinline__ void attention(const Params& p) {
#ifdef PAGEDATTN_DIAG_EMPTY  // diagnostic builds only: the launch with nothing inside (wrong output)
  return;
#endif
  if constexpr (T::kPersistent)
    attention_persistent<T>(p);
  else
    attention_tile<T>(p);
}

}  // namespace pagedattn

// Entry points; launched with Traits::kThreads threads, Traits::kSmemBytes
// dynamic shared memory, and grid = 4 * tiles_per_head(total_q, batch, kBlockM)
// (one tile per CTA) or, persistent, at most the CTAs resident on the GPU.
extern "C" __global__ void __launch_bounds__(pagedattn::TraitsM128::kThreads, 1)
    paged_prefill_m128(const __grid_constant__ pagedattn::Params p) {
#if defined(__CUDA_ARCH__)
  pagedattn::attention<pagedattn::TraitsM128>(p);
#endif
}
extern "C" __global__ void __launch_bounds__(pagedattn::TraitsM64::kThreads, 2)
    paged_prefill_m64(const __grid_constant__ pagedattn::Params p) {
#if defined(__CUDA_ARCH__)
  pagedattn::attention<pagedattn::TraitsM64>(p);
#endif
}

// Shared memory each entry point needs, and whether its grid is persistent
// (read by the host through cuModuleGetGlobal).
extern "C" __device__ const int paged_prefill_m128_smem_bytes = pagedattn::TraitsM128::kSmemBytes;
extern "C" __device__ const int paged_prefill_m64_smem_bytes = pagedattn::TraitsM64::kSmemBytes;
extern "C" __device__ const int paged_prefill_m128_persistent = pagedattn::TraitsM128::kPersistent;
extern "C" __device__ const int paged_prefill_m64_persistent = pagedattn::TraitsM64::kPersistent;
