// Microbenchmark: the K/V stream of a decode-like call without its math.
// 64 sequences x 4096 keys (decode_b64_q1_kv4096 of the serving set): page
// ids a random permutation of all pages, K and V caches of [pages, 4 heads,
// 128] bf16, one unit per (sequence, kv head), units handed to a grid of
// `ctas_per_sm` CTAs an SM. Each CTA gathers its units' 64-key blocks of K
// and V through rings of `stages` stages (16 KB each) by 16-byte cp.async,
// one consumer thread releasing each stage once it has landed. Three thread
// maps: 4 lanes a row (a warp instruction reads 8 rows x 64 bytes), 8 lanes
// (4 rows x 128 bytes) and 16 lanes (2 rows x 256 bytes). Prints the
// stream's time and GB/s (537 MB a call).
//   T=.toolchain/cuda/nvidia/cu13
//   $T/bin/nvcc -arch=sm_90a -O3 -std=c++17 -o decode_gather bench/micro/decode_gather.cu
//   ./decode_gather        # on the H200
#include <cuda_runtime.h>

#include "micro.cuh"

#include <cstdio>

namespace {

constexpr int kRows = 64;  // keys per block
constexpr int kStageBytes = kRows * 256;
constexpr int kHeads = 4;
constexpr int kSeqs = 64, kKeys = 4096;
constexpr int kProducerThreads = 128;

using namespace micro;

__device__ __forceinline__ int sw128(int row, int chunk) {
  return (chunk / 8) * kRows * 128 + row * 128 + (((chunk % 8) ^ (row % 8)) * 16);
}

// kLanesPerRow 4: thread t moves chunks c, c ^ 4, 8 + c, 8 + (c ^ 4) of rows
// t / 4 + 32 i; 16: chunk t % 16 of rows t / 16 + 8 i.
template <int kLanesPerRow>
__device__ __forceinline__ void load_block(const uint16_t* cache, const int* ids, int head, uint32_t dst, int tid) {
  if constexpr (kLanesPerRow == 4) {
    const int lane = tid % 32, r8 = lane / 4, c = lane % 4 + 4 * (r8 & 1);
    for (int i = 0; i < kRows / 32; ++i) {
      const int r = (tid / 32) * 8 + r8 + 32 * i;
      const uint16_t* src = cache + ((long long)ids[r] * kHeads + head) * 128;
      const int cs[4] = {c, c ^ 4, 8 + c, 8 + (c ^ 4)};
      for (int k = 0; k < 4; ++k)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst + sw128(r, cs[k])), "l"(src + cs[k] * 8)
                     : "memory");
    }
  } else if constexpr (kLanesPerRow == 8) {
    const int lane = tid % 32, c = lane % 8;
    for (int i = 0; i < kRows / 16; ++i) {
      const int r = (tid / 32) * 4 + lane / 8 + 16 * i;
      const uint16_t* src = cache + ((long long)ids[r] * kHeads + head) * 128;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst + sw128(r, c)), "l"(src + c * 8) : "memory");
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst + sw128(r, 8 + c)), "l"(src + 64 + c * 8)
                   : "memory");
    }
  } else {
    for (int i = 0; i < kRows / 8; ++i) {
      const int r = tid / 16 + 8 * i, c = tid % 16;
      const uint16_t* src = cache + ((long long)ids[r] * kHeads + head) * 128 + c * 8;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst + sw128(r, c)), "l"(src) : "memory");
    }
  }
}

template <int kLanesPerRow>
__global__ void __launch_bounds__(kProducerThreads + 32)
    stream(const uint16_t* k_cache, const uint16_t* v_cache, const int* ids, int stages, unsigned long long* sink) {
  const int tid = threadIdx.x;
  ring_stream<kProducerThreads, 8>(
      kSeqs * kHeads, kKeys / kRows, stages, kStageBytes,
      [&](int u, int b, bool v, uint32_t dst) {
        const int* bid = ids + (long long)(u / kHeads) * kKeys + b * kRows;
        load_block<kLanesPerRow>(v ? v_cache : k_cache, bid, u % kHeads, dst, tid);
      },
      sink);
}

}  // namespace

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long long pages = (long long)kSeqs * kKeys;
  const StreamBuffers buf(pages);
  const double bytes = 2.0 * pages * kHeads * 256;  // K and V rows of every key and head
  std::printf("| lanes a row | stages | CTAs an SM | us | GB/s |\n|---:|---:|---:|---:|---:|\n");
  for (int lanes : {4, 8, 16})
    for (int cps : {1, 2, 3})
      for (int stages : {2, 3, 4}) {
        const int smem = 2 * stages * kStageBytes;
        if (smem * cps > 227 * 1024) continue;
        auto kern = lanes == 4 ? stream<4> : lanes == 8 ? stream<8> : stream<16>;
        CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        const float best = best_cold_ms(buf, sms, 5, [&] {
          kern<<<sms * cps, kProducerThreads + 32, smem>>>(buf.k, buf.v, buf.ids_shuffled, stages, buf.sink);
        });
        std::printf("| %d | %d | %d | %.1f | %.0f |\n", lanes, stages, cps, best * 1e3, bytes / best / 1e6);
      }
  return 0;
}
