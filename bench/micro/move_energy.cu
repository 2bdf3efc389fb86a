// Microbenchmark: what moving bytes into shared memory costs in power, by
// path, to weigh designs that cut the attention kernels' L2 reads (the long
// rows run at the H200's 700 W cap, and moving their K/V from the L2 is ~15%
// of a call's energy: BENCHMARKS.md, "Fifteenth session").
// One CTA per SM (pairs of CTAs in a cluster for `dsmem`), a 4-deep ring of
// 32 KB stages, no math:
//   gather  128 threads, 16-byte cp.async of 256-byte rows at random page ids
//           from a 16 MB cache that stays in the L2, 16 threads a row (a
//           warp instruction reads 2 rows x 256 bytes)
//   gather4 the same with the kernels' map: 4 threads a row, a warp
//           instruction reads 8 rows x 64 bytes, into the 128-byte swizzle
//   bulk    one thread, one 32 KB cp.async.bulk per stage from the same
//           cache read contiguously (the copy engine instead of the
//           load/store path, from the L2)
//   dsmem   one thread, one 32 KB cp.async.bulk from its own shared memory
//           to the other CTA of its cluster (the distributed shared memory
//           path: what a pair of CTAs sharing K/V blocks would add)
//   idle    one thread sleeping: the power of resident, idle CTAs
// Runs launches of MODE for SECONDS and prints the bytes moved per second;
// run it under scripts/power-probe.sh for the watts. DELAY_NS > 0 sleeps
// that long before each stage (a lower rate, below the power cap).
//   T=.toolchain/cuda/nvidia/cu13   # scripts/install-cuda-toolchain.sh
//   $T/bin/nvcc -arch=sm_90a -O3 -std=c++17 -I$T/include -L$T/lib \
//       -o move_energy bench/micro/move_energy.cu
//   ./move_energy MODE [SECONDS=4] [DELAY_NS=0]   # on the H200
#include <cuda_runtime.h>

#include "micro.cuh"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kRows = 128;
constexpr int kRowBytes = 256;
constexpr int kStageBytes = kRows * kRowBytes;  // 32 KB
constexpr int kStages = 4;
constexpr int kHeads = 4;
constexpr int kThreads = 128;
constexpr int kBlocksPerLaunch = 20000;

using namespace micro;

// Arrives on the mbarrier at the same offset in CTA `rank` of the cluster.
__device__ __forceinline__ void mbar_arrive_remote(uint64_t* b, uint32_t rank) {
  asm volatile(
      "{\n\t.reg .b32 ra;\n\tmapa.shared::cluster.u32 ra, %0, %1;\n\t"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra];\n\t}" ::"r"(smem_u32(b)),
      "r"(rank)
      : "memory");
}
__device__ __forceinline__ uint32_t remote_addr(const void* p, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_u32(p)), "r"(rank));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// Shared memory: the ring, then (dsmem) the 32 KB the CTA sends.
struct Ring {
  uint64_t full[kStages], empty[kStages];
};

// Byte offset of 16-byte chunk `chunk` (0..15) of row `row` in a stage laid
// out as the kernels' (two 64-column halves, chunk index XOR row % 8).
__device__ __forceinline__ int sw128(int row, int chunk) {
  return (chunk / 8) * kRows * 128 + row * 128 + (((chunk % 8) ^ (row % 8)) * 16);
}

template <bool kKernelMap>
__global__ void __launch_bounds__(kThreads, 1)
    gather(const uint16_t* cache, const int* ids, int num_ids, int delay_ns) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ Ring ring;
  const int tid = threadIdx.x, head = blockIdx.x % kHeads;
  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) mbar_init(&ring.full[s], kThreads);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const uint32_t base = smem_u32(smem);
  for (int b = 0; b < kBlocksPerLaunch; ++b) {
    const int s = b % kStages;
    if (b >= kStages) mbar_wait(&ring.full[s], ((b / kStages) - 1) & 1);  // the stage's last fill landed
    if (delay_ns) __nanosleep(delay_ns);
    const long long first = ((long long)blockIdx.x * 7919 + (long long)b * kRows) % (num_ids - kRows);
    const uint32_t dst = base + s * kStageBytes;
    if constexpr (kKernelMap) {
      // Lane l of warp w: row w * 8 + l / 4 (+ 32 per pass), chunks c and
      // c ^ 4 of both halves, c = l % 4 + 4 * ((l / 4) & 1).
      const int lane = tid % 32, r8 = lane / 4, c = lane % 4 + 4 * (r8 & 1);
      for (int i = 0; i < kRows / 32; ++i) {
        const int r = (tid / 32) * 8 + r8 + 32 * i;
        const uint16_t* row = cache + ((long long)__ldg(ids + first + r) * kHeads + head) * 128;
        for (int k = 0; k < 4; ++k) {
          const int chunk = (k & 2 ? 8 : 0) + (k & 1 ? c ^ 4 : c);
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst + sw128(r, chunk)), "l"(row + chunk * 8)
                       : "memory");
        }
      }
    } else {
      for (int i = 0; i < kRows / 8; ++i) {
        const int r = tid / 16 + 8 * i, c = tid % 16;
        const uint16_t* src = cache + ((long long)__ldg(ids + first + r) * kHeads + head) * 128 + c * 8;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst + sw128(r, c)), "l"(src) : "memory");
      }
    }
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_u32(&ring.full[s])));
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
}

__global__ void __launch_bounds__(kThreads, 1) bulk(const unsigned char* src, long long src_bytes, int delay_ns) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ Ring ring;
  if (threadIdx.x != 0) return;
  for (int s = 0; s < kStages; ++s) mbar_init(&ring.full[s], 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const uint32_t base = smem_u32(smem);
  const long long chunks = src_bytes / kStageBytes;
  for (int b = 0; b < kBlocksPerLaunch; ++b) {
    const int s = b % kStages;
    if (b >= kStages) mbar_wait(&ring.full[s], ((b / kStages) - 1) & 1);
    if (delay_ns) __nanosleep(delay_ns);
    mbar_arrive_expect_tx(&ring.full[s], kStageBytes);
    const unsigned char* g = src + (((long long)blockIdx.x * 7919 + b) % chunks) * kStageBytes;
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            base + s * kStageBytes),
        "l"(g), "r"(kStageBytes), "r"(smem_u32(&ring.full[s]))
        : "memory");
  }
  for (int b = kBlocksPerLaunch; b < kBlocksPerLaunch + kStages; ++b)
    mbar_wait(&ring.full[b % kStages], ((b / kStages) - 1) & 1);
}

// Each CTA sends its 32 KB source to the other CTA's stage s, whose `full`
// counts the bytes; the receiver frees the stage by arriving on the
// sender's `empty`.
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(kThreads, 1) dsmem(int delay_ns) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ Ring ring;
  const uint32_t rank = cluster_rank(), peer = rank ^ 1;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&ring.full[s], 1);
      mbar_init(&ring.empty[s], 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();
  if (threadIdx.x == 0) {
    const uint32_t src = smem_u32(smem + kStages * kStageBytes);
    for (int b = 0; b < kBlocksPerLaunch; ++b) {
      const int s = b % kStages, phase = (b / kStages) & 1;
      mbar_arrive_expect_tx(&ring.full[s], kStageBytes);         // what the peer sends us this round
      if (b >= kStages) mbar_wait(&ring.empty[s], phase ^ 1);   // the peer freed its stage s
      if (delay_ns) __nanosleep(delay_ns);
      asm volatile(
          "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
              remote_addr(smem + s * kStageBytes, peer)),
          "r"(src), "r"(kStageBytes), "r"(remote_addr(&ring.full[s], peer))
          : "memory");
      mbar_wait(&ring.full[s], phase);
      mbar_arrive_remote(&ring.empty[s], peer);
    }
  }
  cluster_sync();  // no arrival or copy may reach a CTA that has exited
}

__global__ void __launch_bounds__(kThreads, 1) idle(long long ns) {
  if (threadIdx.x != 0) return;
  for (long long t = 0; t < ns; t += 1000) __nanosleep(1000);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: move_energy gather|gather4|bulk|dsmem|idle [SECONDS=4] [DELAY_NS=0]\n");
    return 2;
  }
  const char* mode = argv[1];
  const double seconds = argc > 2 ? std::atof(argv[2]) : 4.0;
  const int delay_ns = argc > 3 ? std::atoi(argv[3]) : 0;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = sms / 2 * 2;
  const long long pages = 16384;  // 16 MB of K: stays in the L2
  const PagedCache pc = make_paged_cache(pages, kHeads, kRowBytes);
  const uint16_t* cache = pc.cache;
  const int* ids = pc.ids;
  const int num_ids = pc.num_ids;
  const int ring_bytes = kStages * kStageBytes;
  CHECK(cudaFuncSetAttribute(gather<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, ring_bytes));
  CHECK(cudaFuncSetAttribute(gather<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, ring_bytes));
  CHECK(cudaFuncSetAttribute(bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, ring_bytes));
  CHECK(cudaFuncSetAttribute(dsmem, cudaFuncAttributeMaxDynamicSharedMemorySize, ring_bytes + kStageBytes));
  CHECK(cudaFuncSetAttribute(idle, cudaFuncAttributeMaxDynamicSharedMemorySize, ring_bytes));
  auto launch = [&] {
    if (!std::strcmp(mode, "gather")) {
      gather<false><<<grid, kThreads, ring_bytes>>>(cache, ids, num_ids, delay_ns);
    } else if (!std::strcmp(mode, "gather4")) {
      gather<true><<<grid, kThreads, ring_bytes>>>(cache, ids, num_ids, delay_ns);
    } else if (!std::strcmp(mode, "bulk")) {
      bulk<<<grid, kThreads, ring_bytes>>>(reinterpret_cast<const unsigned char*>(cache),
                                           pages * kHeads * kRowBytes, delay_ns);
    } else if (!std::strcmp(mode, "dsmem")) {
      dsmem<<<grid, kThreads, ring_bytes + kStageBytes>>>(delay_ns);
    } else if (!std::strcmp(mode, "idle")) {
      idle<<<grid, kThreads, ring_bytes>>>(20'000'000);
    } else {
      std::fprintf(stderr, "unknown mode %s\n", mode);
      std::exit(2);
    }
  };
  launch();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  int launches = 0;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(cudaEventRecord(a));
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
    for (int i = 0; i < 4; ++i, ++launches) launch();
    CHECK(cudaEventSynchronize(a));  // keeps the host loop's clock near the GPU's
    CHECK(cudaEventRecord(a));
  }
  CHECK(cudaEventRecord(b));
  CHECK(cudaEventSynchronize(b));
  CHECK(cudaGetLastError());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double bytes = std::strcmp(mode, "idle") ? double(grid) * kBlocksPerLaunch * kStageBytes * launches : 0;
  std::printf("%s delay_ns=%d: %d launches in %.2f s, %.0f GB/s into shared memory\n", mode, delay_ns, launches, s,
              bytes / s / 1e9);
  return 0;
}
