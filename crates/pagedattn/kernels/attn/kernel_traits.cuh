// Tile shapes, shared-memory layouts and the two tensor-core GEMMs.
#pragma once
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/arch/mma_sm90.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include "attn/params.cuh"
#include "attn/scheduler.cuh"
#include "attn/warp_roles.cuh"

namespace pagedattn {
using namespace cute;

template <int kBlockM_, int kBlockN_, int kStages_, int kCtasPerSm_, int kPlanMaxBatch_, int kQSlots_,
          int kStagesV_ = kStages_, int kGatherLanes_ = 4>
struct KernelTraits {
  using Element = cutlass::bfloat16_t;
  static constexpr int kBlockM = kBlockM_;       // packed (token, head) rows per tile
  static constexpr int kBlockN = kBlockN_;       // keys per step
  static constexpr int kStages = kStages_;       // K ring depth
  static constexpr int kStagesV = kStagesV_;     // V ring depth (V is read a step after K)
  static constexpr int kGatherLanes = kGatherLanes_;  // lanes a K/V row in the gather (GatherLoader)
  static constexpr int kConsumerWGs = kBlockM / 64;  // one wgmma M=64 slab each
  static_assert(kConsumerWGs >= 1 && kConsumerWGs <= kMaxConsumerWGs, "named barriers per consumer warpgroup");
  // Merge semaphores per slot, one per consumer warpgroup; at least two
  // (m64 keeps the layout it had; the host's sems_per_slot).
  static constexpr int kSemsPerSlot = kConsumerWGs > 2 ? kConsumerWGs : 2;
  static constexpr int kProducerThreads = kWarpgroupThreads;
  static constexpr int kConsumerThreads = kConsumerWGs * kWarpgroupThreads;
  static constexpr int kThreads = kProducerThreads + kConsumerThreads;
  static constexpr int kCtasPerSm = kCtasPerSm_;
  // Largest batch the shared-memory plan holds (units::plan_max_batch).
  static constexpr int kPlanMaxBatch = kPlanMaxBatch_;
  using Plan = PlanStorage<kPlanMaxBatch>;
  // Q slots: with two, the producer loads the next unit's Q (and first key
  // blocks) while the consumers finish the current one; with one, the next
  // unit's Q waits for this unit's epilogue. A slot doubles as its unit's
  // output staging buffer once the unit's last QK GEMM is done.
  static constexpr int kQSlots = kQSlots_;
  // setmaxnreg budgets: the gather producer needs few registers, the consumers
  // hold S (64 fp32) and O (64 fp32) accumulators per thread.
  static constexpr int kProducerRegs = 56;
  // Registers per thread the CTA launches with: what ptxas allocates under
  // __launch_bounds__(kThreads, kCtasPerSm), in units of 8.
  static constexpr int kLaunchRegs = (65536 / (kThreads * kCtasPerSm)) / 8 * 8;
  // What the CTA's allocation leaves the consumers once the producers have
  // theirs. The budgets must fit in that allocation: a setmaxnreg.inc that
  // asks for more waits forever (measured: producers at 64 with consumers at
  // 224 hung the m128 kernels, 65536 registers against 384 x 168).
  static constexpr int kConsumerRegs =
      ((kLaunchRegs * kThreads - kProducerThreads * kProducerRegs) / kConsumerThreads) / 8 * 8;
  static_assert(kProducerThreads * kProducerRegs + kConsumerThreads * kConsumerRegs <= kLaunchRegs * kThreads,
                "setmaxnreg budgets within the launch's registers");
  static_assert(kConsumerRegs >= 152 && kConsumerRegs <= 240, "consumer register budget");

  // How the softmax zeroes masked keys (OnlineSoftmax::step). Measured on the
  // H200 (2026-12-01, fifth session, call 1): without the second select the
  // m64 rows were 1.5-2.8% faster and the m128 rows 0.5-1.2% slower.
  static constexpr bool kMaskSecondSelect = kBlockM == 128;

  using TileShapeQK = Shape<Int<kBlockM>, Int<kBlockN>, Int<kHeadDim>>;
  using TileShapePV = Shape<Int<kBlockM>, Int<kHeadDim>, Int<kBlockN>>;
  using AtomLayout = Layout<Shape<Int<kConsumerWGs>, _1, _1>>;
  // S = Q K^T: both operands from shared memory, K-major (head_dim contiguous).
  using TiledMmaQK = decltype(make_tiled_mma(
      GMMA::ss_op_selector<Element, Element, float, TileShapeQK>(), AtomLayout{}));
  // O += P V: P from registers (the S accumulator, converted to bf16 in place),
  // V from shared memory read MN-major (head_dim contiguous along N).
  using TiledMmaPV = decltype(make_tiled_mma(
      GMMA::rs_op_selector<Element, Element, float, TileShapePV, GMMA::Major::K, GMMA::Major::MN>(),
      AtomLayout{}));

  // 128-byte swizzled K-major layouts: rows of 64 elements (128 B), the
  // 16-byte chunks XOR-ed with (row % 8), so gathered rows land bank-conflict
  // free and wgmma reads them directly.
  using SmemLayoutAtom = GMMA::Layout_K_SW128_Atom<Element>;
  // One Q slot, also the output staging buffer of its unit.
  using SmemLayoutO = decltype(tile_to_shape(SmemLayoutAtom{}, Shape<Int<kBlockM>, Int<kHeadDim>>{}));
  using SmemLayoutK = decltype(tile_to_shape(SmemLayoutAtom{}, Shape<Int<kBlockN>, Int<kHeadDim>, Int<kStages>>{}));
  using SmemLayoutV = decltype(tile_to_shape(SmemLayoutAtom{}, Shape<Int<kBlockN>, Int<kHeadDim>, Int<kStagesV>>{}));
  // V seen as (head_dim, keys, stage) for the PV GEMM's B operand.
  using SmemLayoutVt = decltype(composition(
      SmemLayoutV{}, make_ordered_layout(Shape<Int<kHeadDim>, Int<kBlockN>, Int<kStagesV>>{}, Step<_2, _1, _3>{})));

  struct SharedStorage {
    alignas(1024) Element q[kQSlots * kBlockM * kHeadDim];
    alignas(1024) Element k[kStages * kBlockN * kHeadDim];
    alignas(1024) Element v[kStagesV * kBlockN * kHeadDim];
    alignas(8) uint64_t q_full[kQSlots];   // Q slot loaded and its unit published
    alignas(8) uint64_t q_empty[kQSlots];  // consumers done with the Q slot (and its staging)
    alignas(8) uint64_t k_full[kStages];
    alignas(8) uint64_t k_empty[kStages];
    alignas(8) uint64_t v_full[kStagesV];
    alignas(8) uint64_t v_empty[kStagesV];
    WorkUnit unit[kQSlots];  // the unit each Q slot holds, written by the producer
    WorkUnit pending[2];     // decoded by producer warp 0 for the other producer warps
    int merge_last[kConsumerWGs];  // this warpgroup's chunk was the tile's last: it merges
    Plan plan;
  };
  static_assert(sizeof(Element) * kStages * kBlockN * kHeadDim >= plan_scratch_ints<kPlanMaxBatch>() * sizeof(int),
                "the plan's scratch lives in the K ring");
  static constexpr int kSmemBytes = sizeof(SharedStorage);
  static_assert(kSmemBytes + 1024 <= 233472 / kCtasPerSm, "shared memory per SM");
};

// Issues one warpgroup GEMM over all k-blocks of the operands as one wgmma
// group. `zero_init` overwrites the accumulator on the first k-block.
// kWait >= 0 waits until at most kWait groups are pending; -1 returns at once
// (the caller waits, and must not touch the accumulator until then).
template <bool zero_init, int kWait, typename TiledMma, typename TA, typename TB, typename TC>
__device__ __forceinline__ void warpgroup_gemm(TiledMma& tiled_mma, TA const& tCrA, TB const& tCrB, TC& tCrC) {
  constexpr bool is_rs = !cute::is_base_of<cute::GMMA::DescriptorIterator, typename TiledMma::FrgTypeA>::value;
  if constexpr (is_rs) warpgroup_fence_operand(const_cast<TA&>(tCrA));
  warpgroup_fence_operand(tCrC);
  warpgroup_arrive();
  if constexpr (zero_init) tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
  CUTLASS_PRAGMA_UNROLL
  for (int kb = 0; kb < size<2>(tCrA); ++kb) {
    cute::gemm(tiled_mma, tCrA(_, _, kb), tCrB(_, _, kb), tCrC);
    tiled_mma.accumulate_ = GMMA::ScaleOut::One;
  }
  warpgroup_commit_batch();
  if constexpr (kWait >= 0) warpgroup_wait<kWait>();
  warpgroup_fence_operand(tCrC);
  if constexpr (is_rs) warpgroup_fence_operand(const_cast<TA&>(tCrA));
}

__device__ __forceinline__ void mbar_init(uint64_t* bar, int count) {
  cutlass::arch::ClusterBarrier::init(bar, count);
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, int phase) {
  cutlass::arch::ClusterBarrier::wait(bar, phase);
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  cutlass::arch::ClusterBarrier::arrive(bar);
}

}  // namespace pagedattn
