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
  if (warp == 4) validate_indptrs(p, (long long)blockIdx.x * 32);
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
    loader.load_q(p, w, m0, sq, &ss.q_full);
    for (int it = 0; it < n_blocks; ++it) {
      const int n = n_blocks - 1 - it;  // diagonal (masked) blocks first
      const int stage = it % T::kStages;
      const int phase = (it / T::kStages) & 1;
      int pid[T::kBlockN / GatherLoader<T>::kRowsPerPass];
      loader.load_page_ids(p, w, n, pid);
      mbar_wait(&ss.k_empty[stage], phase ^ 1);
      loader.load_kv(p.k_cache, w, pid, sk + stage * kStageBytes, &ss.k_full[stage]);
      mbar_wait(&ss.v_empty[stage], phase ^ 1);
      loader.load_kv(p.v_cache, w, pid, sv + stage * kStageBytes, &ss.v_full[stage]);
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

    if (n_blocks > 0) mbar_wait(&ss.q_full, 0);
    for (int it = 0; it < n_blocks; ++it) {
      const int n = n_blocks - 1 - it;
      const int stage = it % T::kStages;
      const int phase = (it / T::kStages) & 1;

      mbar_wait(&ss.k_full[stage], phase);
      cutlass::arch::fence_view_async_shared();  // cp.async writes -> wgmma (async proxy) reads
      warpgroup_gemm<true>(mma_qk, tSrQ, tSrK(_, _, _, stage), tSrS);
      __syncwarp();
      if (lane == 0) mbar_arrive(&ss.k_empty[stage]);

      // Scale into the log2 domain; mask keys past the causal limit on blocks
      // that cross the diagonal (scaling first keeps negative scales right).
      if (n >= n_unmasked) {
        CUTLASS_PRAGMA_UNROLL
        for (int v = 0; v < size(tSrS); ++v) {
          int row = m0 + get<0>(tScS(v));
          int key = n * T::kBlockN + get<1>(tScS(v));
          bool visible = key <= row / kGroup + delta && key < w.kv_len;
          tSrS(v) = visible ? tSrS(v) * scale : -INFINITY;
        }
      } else {
        CUTLASS_PRAGMA_UNROLL
        for (int v = 0; v < size(tSrS); ++v) tSrS(v) *= scale;
      }
      softmax.step(tSrS, tOrO);
      CUTLASS_PRAGMA_UNROLL
      for (int v = 0; v < size(tSrS); v += 2) {
        __nv_bfloat162 pr = __floats2bfloat162_rn(tSrS(v), tSrS(v + 1));
        tOrP(v) = reinterpret_cast<typename T::Element const&>(pr.x);
        tOrP(v + 1) = reinterpret_cast<typename T::Element const&>(pr.y);
      }

      mbar_wait(&ss.v_full[stage], phase);
      cutlass::arch::fence_view_async_shared();
      warpgroup_gemm<false>(mma_pv, tOrP, tOrV(_, _, _, stage), tOrO);
      __syncwarp();
      if (lane == 0) mbar_arrive(&ss.v_empty[stage]);
    }

    float lse[2];
    softmax.finalize(tOrO, lse);
    store_output<T>(p, w, m0, cw, ct, tOrO, tOcO, lse, sQ);
  }
}

using Traits128 = KernelTraits</*kBlockM=*/128, /*kBlockN=*/128, /*kStages=*/2>;

}  // namespace pagedattn

// Entry point; launched with Traits128::kThreads threads, kSmemBytes dynamic
// shared memory, and grid = 4 * tiles_per_head CTAs.
extern "C" __global__ void __launch_bounds__(pagedattn::Traits128::kThreads, 1)
    paged_prefill_m128(const __grid_constant__ pagedattn::Params p) {
#if defined(__CUDA_ARCH__)
  pagedattn::attention_tile<pagedattn::Traits128>(p);
#endif
}

// Shared memory the entry point needs (read by the host through cuModuleGetGlobal).
extern "C" __device__ const int paged_prefill_m128_smem_bytes = pagedattn::Traits128::kSmemBytes;
