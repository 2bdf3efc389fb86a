// Helpers the microbenchmarks share: CUDA error checks and the mbarrier
// operations (raw PTX, so the files build with nvcc alone, without CUTLASS).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e = (x);                                                                      \
    if (e != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace micro {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint64_t* b, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(b)), "r"(count));
}
__device__ __forceinline__ void mbar_wait(uint64_t* b, int phase) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tLAB_WAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
      "@p bra.uni DONE;\n\tbra.uni LAB_WAIT;\n\tDONE:\n\t}" ::"r"(smem_u32(b)),
      "r"(phase));
}
__device__ __forceinline__ void mbar_arrive(uint64_t* b) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(smem_u32(b)));
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* b, int bytes) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}" ::"r"(
                   smem_u32(b)),
               "r"(bytes));
}

// A K cache of [pages, heads, row_bytes / 2] bf16 (all bytes 1) and a
// device list of 2^20 random page ids in [0, pages), the same for every run.
struct PagedCache {
  uint16_t* cache;
  int* ids;
  int num_ids;
};
inline PagedCache make_paged_cache(long long pages, int heads, int row_bytes) {
  PagedCache c{nullptr, nullptr, 1 << 20};
  CHECK(cudaMalloc(&c.cache, pages * heads * row_bytes));
  CHECK(cudaMemset(c.cache, 1, pages * heads * row_bytes));
  std::vector<int> h(c.num_ids);
  std::mt19937 rng(1);
  for (auto& x : h) x = static_cast<int>(rng() % pages);
  CHECK(cudaMalloc(&c.ids, c.num_ids * sizeof(int)));
  CHECK(cudaMemcpy(c.ids, h.data(), c.num_ids * sizeof(int), cudaMemcpyHostToDevice));
  return c;
}

}  // namespace micro
