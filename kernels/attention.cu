// Batched GQA causal prefill attention over a paged KV cache (page_size 1),
// 24 query heads / 4 kv heads / head_dim 128, bf16, for Hopper (sm_90a).
//
// One CTA computes one tile: kBlockM packed (token, head) rows of one sequence
// and one kv head (the 6 query heads of a kv head share every K/V row loaded).
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

template <class T>
__device__ __forceinline__ void attention_tile(const Params& p) {
  using namespace cute;
  extern __shared__ __align__(1024) unsigned char smem_buf[];
  auto& ss = *reinterpret_cast<typename T::SharedStorage*>(smem_buf);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;

  if (threadIdx.x == 0) {
    mbar_init(&ss.q_full, T::kProducerThreads);
    CUTLASS_PRAGMA_UNROLL
    for (int s = 0; s < T::kStages; ++s) {
      mbar_init(&ss.k_full[s], T::kProducerThreads);
      mbar_init(&ss.v_full[s], T::kProducerThreads);
      mbar_init(&ss.k_empty[s], T::kConsumerWGs * 4);  // one arrive per consumer warp
      mbar_init(&ss.v_empty[s], T::kConsumerWGs * 4);
    }
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();

  const WorkTile w = decode_tile<T::kBlockM>(p, blockIdx.x);
  if (warp == 4) validate_indptrs(p, (long long)blockIdx.x * 32);  // first consumer warp
  if (!w.valid) return;

  // Causal extent of the tile. Packed row r is token r / 6; token i sees keys
  // j <= i + delta, delta = kv_len - q_len (bottom-right aligned).
  const int m0 = w.m_block * T::kBlockM;
  const int rows_total = w.q_len * kGroup;
  const int delta = w.kv_len - w.q_len;
  const int last_row = min(m0 + T::kBlockM, rows_total) - 1;
  const int max_key = min(w.kv_len - 1, last_row / kGroup + delta);   // largest key any row sees
  const int n_blocks = max_key >= 0 ? max_key / T::kBlockN + 1 : 0;
  const int min_limit = m0 / kGroup + delta;                           // smallest row's last key
  // Blocks [0, n_unmasked) are fully visible to every row of the tile.
  const int n_unmasked = min(n_blocks, min_limit >= 0 ? (min_limit + 1) / T::kBlockN : 0);

  Tensor sQ = make_tensor(make_smem_ptr(reinterpret_cast<typename T::Element*>(ss.q)), typename T::SmemLayoutQ{});
  Tensor sK = make_tensor(make_smem_ptr(reinterpret_cast<typename T::Element*>(ss.k)), typename T::SmemLayoutK{});

  if (warp < 4) {
    // ---------------- producer warpgroup ----------------
    cutlass::arch::warpgroup_reg_dealloc<T::kProducerRegs>();
    if (n_blocks == 0) return;
    GatherLoader<T> loader(threadIdx.x);
    const uint32_t sq = cute::cast_smem_ptr_to_uint(ss.q);
    const uint32_t sk = cute::cast_smem_ptr_to_uint(ss.k);
    const uint32_t sv = cute::cast_smem_ptr_to_uint(ss.v);
    constexpr int kStageBytes = T::kBlockN * kHeadDim * 2;
    // Key blocks are loaded diagonal first (block n_blocks - 1 - it at step
    // it). Page ids run two blocks ahead of the cp.asyncs that use them, so
    // their load latency is off the producer's path.
    constexpr int kIds = GatherLoader<T>::kKvRows;
    int pid[kIds], pid_next[kIds] = {};
    loader.load_page_ids(p, w, n_blocks - 1, pid);
    if (n_blocks > 1) loader.load_page_ids(p, w, n_blocks - 2, pid_next);
    loader.load_q(p, w, m0, sq, &ss.q_full);
    for (int it = 0; it < n_blocks; ++it) {
      const int stage = it % T::kStages;
      const int phase = (it / T::kStages) & 1;
      loader.check_ids(p, w, n_blocks - 1 - it, pid);
      mbar_wait(&ss.k_empty[stage], phase ^ 1);
      loader.load_kv(p.k_cache, w, pid, sk + stage * kStageBytes, &ss.k_full[stage]);
      mbar_wait(&ss.v_empty[stage], phase ^ 1);
      loader.load_kv(p.v_cache, w, pid, sv + stage * kStageBytes, &ss.v_full[stage]);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < kIds; ++i) pid[i] = pid_next[i];
      if (it + 2 < n_blocks) loader.load_page_ids(p, w, n_blocks - 3 - it, pid_next);
    }
  } else {
    // ---------------- consumer warpgroups ----------------
    cutlass::arch::warpgroup_reg_alloc<T::kConsumerRegs>();
    const int ct = threadIdx.x - T::kProducerThreads;  // 0 .. kConsumerThreads
    const int cw = ct / 128;
    typename T::TiledMmaQK mma_qk;
    typename T::TiledMmaPV mma_pv;
    auto thr_qk = mma_qk.get_thread_slice(ct);
    auto thr_pv = mma_pv.get_thread_slice(ct);
    Tensor sVt = make_tensor(make_smem_ptr(reinterpret_cast<typename T::Element*>(ss.v)), typename T::SmemLayoutVt{});

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
    Tensor cO = make_identity_tensor(select<0, 1>(typename T::TileShapePV{}));
    Tensor tOcO = thr_pv.partition_C(cO);

    clear(tOrO);
    OnlineSoftmax softmax;
    const float scale = p.sm_scale_log2;
    float corr[2];
    // Last visible key of each of this thread's two rows, and its first column.
    int row_last_key[2];
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) {
      const int r = m0 + get<0>(tScS(2 * h));
      row_last_key[h] = min(r / kGroup + delta, w.kv_len - 1);
    }
    const int col0 = get<1>(tScS(0));
    // Softmax of key block n: masked only where the block crosses the diagonal.
    auto softmax_block = [&](int n) {
      if (n >= n_unmasked) {
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
    // under the other's GEMMs.
    const int my_turn = 3 + cw, other_turn = 3 + (cw ^ 1);
    auto wait_turn = [&]() {
      if constexpr (T::kConsumerWGs == 2) cutlass::arch::NamedBarrier::sync(T::kConsumerThreads, my_turn);
    };
    auto pass_turn = [&]() {
      if constexpr (T::kConsumerWGs == 2) cutlass::arch::NamedBarrier::arrive(T::kConsumerThreads, other_turn);
    };
    if (cw == 1 && n_blocks > 0) pass_turn();  // warpgroup 0 goes first
    auto release = [&](uint64_t* bar) {
      __syncwarp();
      if (lane == 0) mbar_arrive(bar);
    };

    if (n_blocks > 0) {
      mbar_wait(&ss.q_full, 0);
      // First (diagonal) block: S, softmax, P. O is still zero: no rescale.
      mbar_wait(&ss.k_full[0], 0);
      cutlass::arch::fence_view_async_shared();  // cp.async writes -> wgmma (async proxy) reads
      wait_turn();
      warpgroup_gemm<true, -1>(mma_qk, tSrQ, tSrK(_, _, _, 0), tSrS);
      pass_turn();
      warpgroup_wait<0>();
      warpgroup_fence_operand(tSrS);
      release(&ss.k_empty[0]);
      softmax_block(n_blocks - 1);
      to_bf16();
    }
    // Steady state, intra-warpgroup overlap: S(it) = Q K(it) and O += P(it-1)
    // V(it-1) are both in flight on the tensor cores while the softmax of
    // S(it) runs once its GEMM is done.
    for (int it = 1; it < n_blocks; ++it) {
      const int n = n_blocks - 1 - it;
      const int stage = it % T::kStages, phase = (it / T::kStages) & 1;
      const int pstage = (it - 1) % T::kStages, pphase = ((it - 1) / T::kStages) & 1;
      mbar_wait(&ss.k_full[stage], phase);
      mbar_wait(&ss.v_full[pstage], pphase);
      cutlass::arch::fence_view_async_shared();
      OnlineSoftmax::rescale(tOrO, corr);
      wait_turn();
      warpgroup_gemm<true, -1>(mma_qk, tSrQ, tSrK(_, _, _, stage), tSrS);
      warpgroup_gemm<false, -1>(mma_pv, tOrP, tOrV(_, _, _, pstage), tOrO);
      pass_turn();
      warpgroup_wait<1>();  // S(it) ready; P V still running
      warpgroup_fence_operand(tSrS);
      release(&ss.k_empty[stage]);
      softmax_block(n);
      warpgroup_wait<0>();  // P(it-1) V(it-1) done: P registers and V stage free
      warpgroup_fence_operand(tOrO);
      release(&ss.v_empty[pstage]);
      to_bf16();
    }
    if (n_blocks > 0) {
      const int it = n_blocks - 1;
      const int stage = it % T::kStages, phase = (it / T::kStages) & 1;
      OnlineSoftmax::rescale(tOrO, corr);
      mbar_wait(&ss.v_full[stage], phase);
      cutlass::arch::fence_view_async_shared();
      wait_turn();
      warpgroup_gemm<false, -1>(mma_pv, tOrP, tOrV(_, _, _, stage), tOrO);
      if (cw == 0) pass_turn();  // the last turn of warpgroup 1 is not awaited
      warpgroup_wait<0>();
      warpgroup_fence_operand(tOrO);
      release(&ss.v_empty[stage]);
    }

    float lse[2];
    softmax.finalize(tOrO, lse);
    store_output<T>(p, w, m0, cw, ct, tOrO, tOcO, lse, sQ);
  }
}

// Two configurations (the host picks one per call, see src/backend/cuda/kernel.rs):
//  m128: 128 rows, two consumer warpgroups, 128-key blocks, 3 stages, one CTA
//        per SM: least K/V traffic per FLOP, for long sequences;
//  m64:  64 rows, one consumer warpgroup, 64-key blocks, 2 stages, two CTAs per
//        SM: twice the CTAs in flight, so the load-latency chain of one CTA
//        hides behind another's math, for batches of short sequences.
#ifndef PAGEDATTN_M128_STAGES  // overridable for experiments (scripts/build-variant.sh)
#define PAGEDATTN_M128_STAGES 3
#endif
#ifndef PAGEDATTN_M64_STAGES
#define PAGEDATTN_M64_STAGES 2
#endif
using TraitsM128 = KernelTraits</*kBlockM=*/128, /*kBlockN=*/128, PAGEDATTN_M128_STAGES, /*kCtasPerSm=*/1>;
using TraitsM64 = KernelTraits</*kBlockM=*/64, /*kBlockN=*/64, PAGEDATTN_M64_STAGES, /*kCtasPerSm=*/2>;

}  // namespace pagedattn

// Entry points; launched with Traits::kThreads threads, Traits::kSmemBytes
// dynamic shared memory, and grid = 4 * tiles_per_head(total_q, batch, kBlockM).
extern "C" __global__ void __launch_bounds__(pagedattn::TraitsM128::kThreads, 1)
    paged_prefill_m128(const __grid_constant__ pagedattn::Params p) {
#if defined(__CUDA_ARCH__)
  pagedattn::attention_tile<pagedattn::TraitsM128>(p);
#endif
}
extern "C" __global__ void __launch_bounds__(pagedattn::TraitsM64::kThreads, 2)
    paged_prefill_m64(const __grid_constant__ pagedattn::Params p) {
#if defined(__CUDA_ARCH__)
  pagedattn::attention_tile<pagedattn::TraitsM64>(p);
#endif
}

// Shared memory each entry point needs (read by the host through cuModuleGetGlobal).
extern "C" __device__ const int paged_prefill_m128_smem_bytes = pagedattn::TraitsM128::kSmemBytes;
extern "C" __device__ const int paged_prefill_m64_smem_bytes = pagedattn::TraitsM64::kSmemBytes;
