// Consumer main loop over one work unit's key blocks: S = Q K^T (wgmma SS),
// masked online softmax in registers (exp2, scale folded in), O += P V
// (wgmma RS, P straight from the S registers). Blocks run from the unit's
// last (the diagonal one, for a tile's last chunk) down, or from its first
// up (alternating_block); only blocks that cross the diagonal are masked.
#pragma once
#include "attn/kernel_traits.cuh"
#include "attn/softmax.cuh"

namespace pagedattn {

// Causal extent of a unit's tile. Packed row r is token r / 6; token i sees
// keys j <= i + delta, delta = kv_len - q_len (bottom-right aligned).
template <class T>
struct TileExtent {
  int m0;          // first packed row
  int delta;
  int n_unmasked;  // blocks [0, n_unmasked) are fully visible to every row
  __device__ __forceinline__ explicit TileExtent(const WorkUnit& w) {
    m0 = w.m_block * T::kBlockM;
    delta = w.kv_len - w.q_len;
    const int min_limit = m0 / kGroup + delta;  // smallest row's last key
    n_unmasked = min_limit >= 0 ? (min_limit + 1) / T::kBlockN : 0;
  }
};

// Ring position of the i-th key block a CTA processes (counted over all its units).
template <int kStages>
struct RingPos {
  int stage, phase;
  __device__ __forceinline__ explicit RingPos(int i) : stage(i % kStages), phase((i / kStages) & 1) {}
};

// ptxas keeps a wgmma descriptor in uniform registers (built once, a UIADD3
// per k-block) only when it can prove the descriptor's inputs warp-uniform.
// The unit comes from shared memory, which it cannot; without this broadcast
// from lane 0 of the stage, slot and warpgroup, every HGMMA waited behind four
// R2UR moves of a descriptor rebuilt in regular registers.
__device__ __forceinline__ int warp_uniform(int x) { return __shfl_sync(0xffffffffu, x, 0); }

// Whether `pred` holds on every thread of the warpgroup (hardware named
// barrier `bar`, its kWarpgroupThreads). The result is broadcast from lane 0 so that
// ptxas sees a warp-uniform branch (a branch it takes as divergent
// serialises the wgmmas).
__device__ __forceinline__ bool warpgroup_all(bool pred, int bar) {
  int all;
  asm volatile(
      "{\n\t.reg .pred p, q;\n\t"
      "setp.ne.s32 p, %1, 0;\n\t"
      "bar.red.and.pred q, %2, %3, p;\n\t"
      "selp.s32 %0, 1, 0, q;\n\t}"
      : "=r"(all)
      : "r"(static_cast<int>(pred)), "r"(bar), "n"(kWarpgroupThreads)
      : "memory");
  return warp_uniform(all) != 0;
}

// Runs the unit's blocks [w.blk_lo, w.blk_hi) on Q slot `slot` (already
// waited for) from ring position block_iter on, and leaves the normalised
// output in tOrO and the rows' base-2 lse in `lse` (0 and -inf for rows that
// saw no key of this unit).
template <class T, bool kAlt, class TO>
__device__ __forceinline__ void mainloop(const Params& p, typename T::SharedStorage& ss, const WorkUnit& w,
                                         int slot, int block_iter, TO& tOrO, float (&lse)[2]) {
  using namespace cute;
  const int ct = threadIdx.x - T::kProducerThreads;  // 0 .. kConsumerThreads
  const int cw = ct / kWarpgroupThreads;
  const TileExtent<T> e(w);
  const int n_steps = w.blk_hi - w.blk_lo;
  typename T::TiledMmaQK mma_qk;
  typename T::TiledMmaPV mma_pv;
  // The operand descriptors depend on the warpgroup alone (not the thread in
  // it); the accumulator's coordinates on the thread.
  const int cw_u = warp_uniform(cw);
  auto thr_qk = mma_qk.get_thread_slice(cw_u * kWarpgroupThreads);
  auto thr_pv = mma_pv.get_thread_slice(cw_u * kWarpgroupThreads);
  Tensor sQ = make_tensor(make_smem_ptr(ss.q + warp_uniform(slot) * T::kBlockM * kHeadDim), typename T::SmemLayoutO{});
  Tensor sK = make_tensor(make_smem_ptr(ss.k), typename T::SmemLayoutK{});
  Tensor sVt = make_tensor(make_smem_ptr(ss.v), typename T::SmemLayoutVt{});
  Tensor tSrQ = thr_qk.partition_fragment_A(sQ);   // descriptors
  Tensor tSrK = thr_qk.partition_fragment_B(sK);   // descriptors, per stage
  Tensor tOrV = thr_pv.partition_fragment_B(sVt);  // descriptors, per stage
  Tensor tSrS = partition_fragment_C(mma_qk, select<0, 1>(typename T::TileShapeQK{}));
  // P in the register layout of the PV GEMM's A operand: for bf16 it is the
  // S accumulator's own order, 16 keys per k-block.
  Tensor tOrP = make_tensor<typename T::Element>(Layout<Shape<Shape<_2, _2, _2>, _1, Int<T::kBlockN / 16>>>{});
  static_assert(size(tOrP) == size(tSrS));
  Tensor cS = make_identity_tensor(select<0, 1>(typename T::TileShapeQK{}));
  Tensor tScS = mma_qk.get_thread_slice(ct).partition_C(cS);
  const float scale = fabsf(p.sm_scale_log2);  // a negative scale: Q is stored negated (GatherLoader::load_q)
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
  // Softmax of key block n, through one inlined copy of the full step: the
  // masked step with limits past the block's end gives an unmasked block the
  // unmasked step's bits (every key kept: s * 1 == s, then no select drops
  // one), and unmasked blocks come here only as a unit's first block or the
  // fast path's fallback, both rare; the common unmasked block takes the
  // fast path. One copy less of the step in the consumers' code.
  auto softmax_block = [&](int n) {
    const bool masked = n >= e.n_unmasked;
    const int limit[2] = {masked ? row_last_key[0] - n * T::kBlockN - col0 : T::kBlockN,
                          masked ? row_last_key[1] - n * T::kBlockN - col0 : T::kBlockN};
    softmax.template step<true, T::kMaskSecondSelect>(tSrS, scale, limit, corr);
  };
  auto to_bf16 = [&]() {  // P = bf16(S), in the PV GEMM's A-operand registers
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < size(tSrS); v += 2) {
      __nv_bfloat162 pr = __floats2bfloat162_rn(tSrS(v), tSrS(v + 1));
      tOrP(v) = reinterpret_cast<typename T::Element const&>(pr.x);
      tOrP(v + 1) = reinterpret_cast<typename T::Element const&>(pr.y);
    }
  };
  // Round robin of the consumer warpgroups (named barriers kBarTurn + cw,
  // each of 256 threads: the warpgroup waiting for its turn and the one
  // before it passing it): a warpgroup issues its GEMMs only after the
  // previous one has issued its own, so the tensor cores take the
  // warpgroups in turn and each one's softmax runs under the others' GEMMs
  // (two warpgroups: a ping-pong). Per unit each warpgroup takes n_steps + 1
  // turns and passes as many (the last one's last pass is its first of the
  // next unit), so the order also carries across units.
  constexpr bool kTurns = T::kConsumerWGs >= 2;
  constexpr int kTurnThreads = 2 * kWarpgroupThreads;
  constexpr int kLastWG = T::kConsumerWGs - 1;
  const int next_wg = T::kConsumerWGs == 2 ? (cw ^ 1) : (cw == kLastWG ? 0 : cw + 1);
  const int my_turn = kBarTurn + cw, other_turn = kBarTurn + next_wg;
  auto wait_turn = [&]() {
    if constexpr (kTurns) named_bar_sync(kTurnThreads, my_turn);
  };
  auto pass_turn = [&]() {
    if constexpr (kTurns) named_bar_arrive(kTurnThreads, other_turn);
  };
  // One arrival per warp. elect.sync rather than lane == 0: the compiler
  // re-reads the thread index for the latter (S2R, tens of cycles) right
  // before the ping-pong hand-over.
  auto release = [&](uint64_t* bar) {
    __syncwarp();
    if (cute::elect_one_sync()) mbar_arrive(bar);
  };
  if (cw == kLastWG && n_steps > 0) pass_turn();  // warpgroup 0 goes first

  if (n_steps > 0) {
    // First block: S, softmax, P. O is still zero: no rescale.
    const RingPos<T::kStages> rk(block_iter);
    mbar_wait(&ss.k_full[rk.stage], rk.phase);
    cutlass::arch::fence_view_async_shared();  // cp.async writes -> wgmma (async proxy) reads
    wait_turn();
    warpgroup_gemm<true, -1>(mma_qk, tSrQ, tSrK(_, _, _, warp_uniform(rk.stage)), tSrS);
    pass_turn();
    warpgroup_wait<0>();
    warpgroup_fence_operand(tSrS);
    release(&ss.k_empty[rk.stage]);
    softmax_block(kAlt ? alternating_block(w, 0) : w.blk_hi - 1);
    to_bf16();
  }
  // Steady state, intra-warpgroup overlap: S(it) = Q K(it) and O += P(it-1)
  // V(it-1) are both in flight on the tensor cores while the softmax of
  // S(it) runs once its GEMM is done.
  for (int it = 1; it < n_steps; ++it) {
    const int n = kAlt ? alternating_block(w, it) : w.blk_hi - 1 - it;
    const RingPos<T::kStages> rk(block_iter + it);
    const RingPos<T::kStagesV> rv(block_iter + it - 1);
    mbar_wait(&ss.k_full[rk.stage], rk.phase);
    mbar_wait(&ss.v_full[rv.stage], rv.phase);
    cutlass::arch::fence_view_async_shared();
    OnlineSoftmax::rescale(tOrO, corr);
    wait_turn();
    warpgroup_gemm<true, -1>(mma_qk, tSrQ, tSrK(_, _, _, warp_uniform(rk.stage)), tSrS);
    warpgroup_gemm<false, -1>(mma_pv, tOrP, tOrV(_, _, _, warp_uniform(rv.stage)), tOrO);
    pass_turn();
    warpgroup_wait<1>();  // S(it) ready; P V still running
    warpgroup_fence_operand(tSrS);
    if (n >= e.n_unmasked) {
      release(&ss.k_empty[rk.stage]);
      softmax_block(n);
    } else {
      // Unmasked: exponentials at the current reference max first
      // (OnlineSoftmax::exp_at_reference); where that fails in the
      // warpgroup, the references move up and the block is rescaled in
      // registers (rebase) or, where an exponential overflowed, S is
      // recomputed and the full step runs. K(it) is held until then.
      // Holding it moves nothing: the producer refills this stage only
      // after V(it - 1)'s, which is released later.
      float part[2];
      const bool ok = softmax.exp_at_reference(tSrS, scale, part);
      if (warpgroup_all(ok, kBarSoftmaxVote + cw)) {
        corr[0] = corr[1] = 1.f;
        softmax.accept(part, corr);
      } else {
        float mx[2];
        if (warpgroup_all(OnlineSoftmax::rebase_possible(tSrS, part, mx), kBarSoftmaxVote + cw)) {
          softmax.rebase(tSrS, part, mx, corr);
          softmax.accept(part, corr);
        } else {
          warpgroup_gemm<true, -1>(mma_qk, tSrQ, tSrK(_, _, _, warp_uniform(rk.stage)), tSrS);
          warpgroup_wait<0>();  // also P(it-1) V(it-1): groups complete in order
          warpgroup_fence_operand(tSrS);
          softmax_block(n);
        }
      }
      release(&ss.k_empty[rk.stage]);
    }
    warpgroup_wait<0>();  // P(it-1) V(it-1) done: P registers and V stage free
    warpgroup_fence_operand(tOrO);
    release(&ss.v_empty[rv.stage]);
    to_bf16();
  }
  if (n_steps > 0) {
    const RingPos<T::kStagesV> rv(block_iter + n_steps - 1);
    OnlineSoftmax::rescale(tOrO, corr);
    mbar_wait(&ss.v_full[rv.stage], rv.phase);
    cutlass::arch::fence_view_async_shared();
    wait_turn();
    warpgroup_gemm<false, -1>(mma_pv, tOrP, tOrV(_, _, _, warp_uniform(rv.stage)), tOrO);
    // The last warpgroup's last turn is not awaited (two warpgroups: the
    // ping-pong's own test, cw == 0, which ptxas compiles best).
    if (T::kConsumerWGs == 2 ? cw == 0 : cw != kLastWG) pass_turn();
    warpgroup_wait<0>();
    warpgroup_fence_operand(tOrO);
    release(&ss.v_empty[rv.stage]);
  }
  softmax.finalize(tOrO, lse);
}

}  // namespace pagedattn
