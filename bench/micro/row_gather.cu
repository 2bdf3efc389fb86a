// Microbenchmark: one-row K/V gather into a 128-byte-swizzled stage, by
// 16-byte cp.async (what the kernels do) against one-row TMA boxes
// (cp.async.bulk.tensor.2d, 64 x 1 box, 128-byte swizzle: two per row).
// No math: one CTA per SM, a 3-deep ring of 128-row stages (32 KB), a
// producer warpgroup filling it and one consumer thread releasing each stage
// once it has landed. Rows come from a cache of [num_pages, 4 heads, 128]
// bf16 at random page ids, one kv head per CTA, as in the attention kernel.
// Prints GB/s per method and cache size (BENCHMARKS.md, "Fourteenth
// session": TMA boxes of one row were 11x slower).
//   T=.toolchain/cuda/nvidia/cu13   # scripts/install-cuda-toolchain.sh
//   $T/bin/nvcc -arch=sm_90a -O3 -std=c++17 -I$T/include -L$T/lib \
//       -o row_gather bench/micro/row_gather.cu
//   ./row_gather [blocks_per_cta=3000]   # on the H200
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "micro.cuh"

#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kRows = 128;        // keys per block
constexpr int kRowBytes = 256;    // one head's row: 128 bf16
constexpr int kStageBytes = kRows * kRowBytes;
constexpr int kStages = 3;
constexpr int kHeads = 4;
constexpr int kProducerThreads = 128;

using namespace micro;

// Byte offset of 16-byte chunk `chunk` (0..15) of row `row` in the stage:
// two 64-column halves of kRows x 128 bytes, chunk index XOR row % 8.
__device__ __forceinline__ int sw128(int row, int chunk) {
  return (chunk / 8) * kRows * 128 + row * 128 + (((chunk % 8) ^ (row % 8)) * 16);
}

template <bool kTma>
__global__ void __launch_bounds__(kProducerThreads + 128, 1)
    gather(const __grid_constant__ CUtensorMap map, const uint16_t* cache, const int* ids, int num_ids,
           int blocks_per_cta, unsigned long long* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ uint64_t full[kStages], empty[kStages];
  const int tid = threadIdx.x, head = blockIdx.x % kHeads;
  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], kTma ? 1 : kProducerThreads);
      mbar_init(&empty[s], 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const uint32_t base = smem_u32(smem);
  if (tid < kProducerThreads) {
    for (int b = 0; b < blocks_per_cta; ++b) {
      const int s = b % kStages, phase = (b / kStages) & 1;
      mbar_wait(&empty[s], phase ^ 1);
      const uint32_t dst = base + s * kStageBytes;
      // The block's 128 ids: a window of the id list, different per CTA and block.
      const long long first = ((long long)blockIdx.x * 7919 + (long long)b * kRows) % (num_ids - kRows);
      if constexpr (kTma) {
        if (tid < 32) {
          if (tid == 0) mbar_arrive_expect_tx(&full[s], kStageBytes);
          for (int r = tid; r < kRows; r += 32) {
            const int y = ids[first + r] * kHeads + head;
            for (int half = 0; half < 2; ++half) {
              asm volatile(
                  "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                  " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst + half * kRows * 128 + r * 128),
                  "l"(&map), "r"(half * 64), "r"(y), "r"(smem_u32(&full[s]))
                  : "memory");
            }
          }
        }
      } else {
        // Thread t: chunk t % 16 of rows t / 16 + 8 i.
        for (int i = 0; i < kRows / 8; ++i) {
          const int r = tid / 16 + 8 * i, c = tid % 16;
          const uint16_t* src = cache + ((long long)ids[first + r] * kHeads + head) * 128 + c * 8;
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst + sw128(r, c)), "l"(src)
                       : "memory");
        }
        asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_u32(&full[s])));
      }
    }
  } else if (tid == kProducerThreads) {
    unsigned long long acc = 0;
    for (int b = 0; b < blocks_per_cta; ++b) {
      const int s = b % kStages, phase = (b / kStages) & 1;
      mbar_wait(&full[s], phase);
      acc += *reinterpret_cast<const unsigned*>(smem + s * kStageBytes + (b % 64) * 16);
      mbar_arrive(&empty[s]);
    }
    atomicAdd(sink, acc);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int blocks_per_cta = argc > 1 ? std::atoi(argv[1]) : 3000;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000,
                                         cudaEnableDefault, &q));
  if (!encode) {
    std::fprintf(stderr, "no cuTensorMapEncodeTiled\n");
    return 1;
  }
  unsigned long long* sink;
  CHECK(cudaMalloc(&sink, 8));
  const int smem = kStages * kStageBytes;
  CHECK(cudaFuncSetAttribute(gather<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CHECK(cudaFuncSetAttribute(gather<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::printf("| cache | pages | method | GB/s | us per block per SM |\n|---|---:|---|---:|---:|\n");
  for (long long pages : {16384LL, 1LL << 20}) {  // 16 MB (fits the L2) and 1 GB of K
    const PagedCache pc = make_paged_cache(pages, kHeads, kRowBytes);
    uint16_t* cache = pc.cache;
    int* ids = pc.ids;
    const int num_ids = pc.num_ids;
    CUtensorMap map;
    const cuuint64_t dims[2] = {128, static_cast<cuuint64_t>(pages * kHeads)};
    const cuuint64_t strides[1] = {kRowBytes};
    const cuuint32_t box[2] = {64, 1}, estr[2] = {1, 1};
    if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, cache, dims, strides, box, estr,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
      std::fprintf(stderr, "encode failed\n");
      return 1;
    }
    for (int rep = 0; rep < 2; ++rep) {
      for (int tma = 0; tma < 2; ++tma) {
        cudaEvent_t a, b;
        CHECK(cudaEventCreate(&a));
        CHECK(cudaEventCreate(&b));
        auto k = tma ? gather<true> : gather<false>;
        k<<<sms, kProducerThreads + 128, smem>>>(map, cache, ids, num_ids, 50, sink);  // warm-up
        CHECK(cudaEventRecord(a));
        k<<<sms, kProducerThreads + 128, smem>>>(map, cache, ids, num_ids, blocks_per_cta, sink);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaGetLastError());
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        const double bytes = static_cast<double>(sms) * blocks_per_cta * kStageBytes;
        std::printf("| %s | %lld | %s | %.0f | %.3f |\n", pages < (1 << 20) ? "16 MB" : "1 GB", pages,
                    tma ? "tma 64x1 boxes" : "cp.async 16 B", bytes / ms / 1e6, ms * 1e3 / blocks_per_cta);
      }
    }
    CHECK(cudaFree(ids));
    CHECK(cudaFree(cache));
  }
  return 0;
}
