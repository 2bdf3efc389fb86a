// Warp roles and the named barriers between them (kernel_traits.cuh and
// the scheduler's plan builders both use them).
#pragma once

namespace pagedattn {

// A warpgroup: the four warps that issue one wgmma together, and what a
// role's named barriers count.
constexpr int kWarpgroupThreads = 128;
constexpr int kWarpsPerWarpgroup = kWarpgroupThreads / 32;

// Warp roles: warpgroup 0 produces (gathers Q and K/V rows into shared
// memory), warpgroups 1.. consume (GEMMs, softmax, merge, epilogue).
constexpr int kProducerWarpgroup = 0;
constexpr int kProducerWarp0 = 0;  // also decodes the work units and takes the tickets
constexpr int kConsumerWarp0 = (kProducerWarpgroup + 1) * kWarpsPerWarpgroup;  // the first consumer warp

// Named barrier ids, hardware numbering (0 is __syncthreads, 16 in all):
// three consumer warpgroups need ten, more than the 7 that CUTLASS's
// NamedBarrier leaves above its 8 reserved ids, so they are used directly
// (named_bar_sync / named_bar_arrive).
constexpr int kMaxConsumerWGs = 3;
enum NamedBarrierId : int {
  kBarConsumerWG = 1,  // + consumer warpgroup: its 128 threads (epilogue, merge handshake)
  kBarTurn = kBarConsumerWG + kMaxConsumerWGs,  // + consumer warpgroup: its turn to issue GEMMs (256 threads)
  kBarProducer = kBarTurn + kMaxConsumerWGs,    // the 128 producer threads: the next unit is decoded (and
                                                // the warp plan's split sums are in)
  kBarSoftmaxVote = kBarProducer + 1,  // + consumer warpgroup: did every thread's block pass the softmax's fast path
  kBarEnd = kBarSoftmaxVote + kMaxConsumerWGs,
};
static_assert(kBarEnd <= 16, "hardware named barriers");

// bar.sync / bar.arrive on hardware barrier `id` (the instructions of
// cutlass::arch::NamedBarrier, without its id offset).
__device__ __forceinline__ void named_bar_sync(int threads, int id) {
  asm volatile("bar.sync %0, %1;" : : "r"(id), "r"(threads));
}
__device__ __forceinline__ void named_bar_arrive(int threads, int id) {
  asm volatile("bar.arrive %0, %1;" : : "r"(id), "r"(threads));
}

}  // namespace pagedattn
