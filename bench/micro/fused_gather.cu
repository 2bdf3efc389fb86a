// Microbenchmark: does a decode call's K/V stream get faster when one CTA
// reads several kv heads of each page at once? The kernels' units are one
// kv head each (a 256-byte row of every 1 KB page of K and of V, the four
// heads' units on adjacent CTAs); a unit of `kH` heads reads kH * 256
// contiguous bytes of each page instead. Same bytes in every mode: K and V
// caches of [pages, 4 heads, 128] bf16, every page of a call read once per
// head, page ids a random permutation (or in order: the contiguous stream,
// for the ceiling). A CTA gathers its units' blocks (16 KB: 64 / kH pages)
// through 2-stage K and V rings by 16-byte cp.async, 16 kH lanes a row, one
// consumer thread releasing each stage once it has landed.
//   T=.toolchain/cuda/nvidia/cu13
//   $T/bin/nvcc -arch=sm_90a -O3 -std=c++17 -o fused_gather bench/micro/fused_gather.cu
//   ./fused_gather        # on the H200: a table of us and GB/s per mode
#include <cuda_runtime.h>

#include "micro.cuh"

#include <cstdio>

namespace {

constexpr int kStageBytes = 16384;
constexpr int kHeads = 4;
constexpr int kStages = 2;
constexpr int kProducerThreads = 128;

using namespace micro;

// Block b of a unit: rows (pages) 64 / kH, each kH * 256 bytes from head
// `head0` on; thread t moves 16-byte chunk t % (16 kH) of rows t / (16 kH) + i * (128 / (16 kH)).
template <int kH>
__device__ __forceinline__ void load_block(const uint16_t* cache, const int* ids, int head0, uint32_t dst, int tid) {
  constexpr int kChunks = 16 * kH, kRowsPerPass = kProducerThreads / kChunks, kRows = 64 / kH;
  const int c = tid % kChunks;
  for (int i = 0; i < kRows / kRowsPerPass; ++i) {
    const int r = tid / kChunks + i * kRowsPerPass;
    const uint16_t* src = cache + ((long long)ids[r] * kHeads + head0) * 128 + c * 8;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst + (r * kChunks + c) * 16), "l"(src)
                 : "memory");
  }
}

template <int kH>
__global__ void __launch_bounds__(kProducerThreads + 32)
    stream(const uint16_t* k_cache, const uint16_t* v_cache, const int* ids, int seqs, int keys,
           unsigned long long* sink) {
  constexpr int kRows = 64 / kH, kUnitsPerSeq = kHeads / kH;
  const int tid = threadIdx.x;
  ring_stream<kProducerThreads, kStages>(
      seqs * kUnitsPerSeq, keys / kRows, kStages, kStageBytes,
      [&](int u, int b, bool v, uint32_t dst) {
        const int* bid = ids + (long long)(u / kUnitsPerSeq) * keys + b * kRows;
        load_block<kH>(v ? v_cache : k_cache, bid, (u % kUnitsPerSeq) * kH, dst, tid);
      },
      sink);
}

}  // namespace

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long long pages = 1LL << 18;  // 64 x 4096 = 256 x 1024 keys
  const StreamBuffers buf(pages);
  const double bytes = 2.0 * pages * kHeads * 256;
  const int smem = 2 * kStages * kStageBytes;
  std::printf("| pages | call | heads a unit | CTAs an SM | us | GB/s |\n|---|---|---:|---:|---:|---:|\n");
  for (int order = 0; order < 2; ++order)
    for (int shape = 0; shape < 2; ++shape) {
      const int seqs = shape ? 256 : 64, keys = shape ? 1024 : 4096;
      const int* ids = order ? buf.ids_in_order : buf.ids_shuffled;
      for (int kh : {1, 2, 4})
        for (int cps : {1, 2, 3}) {
          auto kern = kh == 1 ? stream<1> : kh == 2 ? stream<2> : stream<4>;
          CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
          const float best = best_cold_ms(buf, sms, 5, [&] {
            kern<<<sms * cps, kProducerThreads + 32, smem>>>(buf.k, buf.v, ids, seqs, keys, buf.sink);
          });
          std::printf("| %s | %dx%d | %d | %d | %.1f | %.0f |\n", order ? "in order" : "random", seqs, keys, kh, cps,
                      best * 1e3, bytes / best / 1e6);
        }
    }
  return 0;
}
