// Helpers the microbenchmarks share: CUDA error checks and the mbarrier
// operations (raw PTX, so the files build with nvcc alone, without CUTLASS).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
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

// The K and V rings of a stream microbenchmark (decode_gather.cu,
// fused_gather.cu): `stages` stages of `stage_bytes` for K, then as many for
// V, in the dynamic shared memory. Threads 0 .. kProducers - 1 fill key
// block b of each of the CTA's units (u = blockIdx.x, + gridDim.x, ...) by
// load(u, b, v_cache, dst) with 16-byte cp.async (K's stage, then V's), each
// completing on its stage's barrier; thread kProducers waits for every stage
// and releases it, adding a word of each to `sink` so that nothing is
// optimised away.
template <int kProducers, int kMaxStages, class Load>
__device__ __forceinline__ void ring_stream(int units, int blocks, int stages, int stage_bytes, Load load,
                                            unsigned long long* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ uint64_t full[2 * kMaxStages], empty[2 * kMaxStages];
  const int tid = threadIdx.x;
  if (tid == 0) {
    for (int s = 0; s < 2 * stages; ++s) {
      mbar_init(&full[s], kProducers);
      mbar_init(&empty[s], 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const uint32_t base = smem_u32(smem);
  if (tid < kProducers) {
    int it = 0;
    for (int u = blockIdx.x; u < units; u += gridDim.x)
      for (int b = 0; b < blocks; ++b, ++it) {
        const int s = it % stages, phase = (it / stages) & 1;
        mbar_wait(&empty[s], phase ^ 1);
        load(u, b, false, base + s * stage_bytes);
        asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_u32(&full[s])));
        mbar_wait(&empty[stages + s], phase ^ 1);
        load(u, b, true, base + (stages + s) * stage_bytes);
        asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_u32(&full[stages + s])));
      }
  } else if (tid == kProducers) {
    unsigned long long acc = 0;
    int it = 0;
    for (int u = blockIdx.x; u < units; u += gridDim.x)
      for (int b = 0; b < blocks; ++b, ++it) {
        const int s = it % stages, phase = (it / stages) & 1;
        mbar_wait(&full[s], phase);
        acc += *reinterpret_cast<const unsigned*>(smem + s * stage_bytes + (b % 64) * 16);
        mbar_arrive(&empty[s]);
        mbar_wait(&full[stages + s], phase);
        acc += *reinterpret_cast<const unsigned*>(smem + (stages + s) * stage_bytes + (b % 64) * 16);
        mbar_arrive(&empty[stages + s]);
      }
    atomicAdd(sink, acc);
  }
}

// Evicts the L2 (a 256 MB write), as the bench's cold-L2 protocol does.
__global__ void flush_l2(int4* buf, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    buf[i] = make_int4(0, 0, 0, 0);
}

// A stream benchmark's device buffers: K and V caches of `pages` pages of
// [4 heads, 128] bf16 (all bytes 1), page ids 0 .. pages - 1 in order and
// shuffled (a fixed permutation), the L2 flush's 256 MB and the sink.
struct StreamBuffers {
  uint16_t *k = nullptr, *v = nullptr;
  int *ids_in_order = nullptr, *ids_shuffled = nullptr;
  int4* flush = nullptr;
  long long flush_n = (256LL << 20) / 16;
  unsigned long long* sink = nullptr;
  explicit StreamBuffers(long long pages) {
    const long long bytes = pages * 4 * 256;
    CHECK(cudaMalloc(&k, bytes));
    CHECK(cudaMalloc(&v, bytes));
    CHECK(cudaMemset(k, 1, bytes));
    CHECK(cudaMemset(v, 1, bytes));
    std::vector<int> h(pages);
    for (long long i = 0; i < pages; ++i) h[i] = static_cast<int>(i);
    CHECK(cudaMalloc(&ids_in_order, pages * sizeof(int)));
    CHECK(cudaMalloc(&ids_shuffled, pages * sizeof(int)));
    CHECK(cudaMemcpy(ids_in_order, h.data(), pages * sizeof(int), cudaMemcpyHostToDevice));
    std::shuffle(h.begin(), h.end(), std::mt19937(1));
    CHECK(cudaMemcpy(ids_shuffled, h.data(), pages * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMalloc(&flush, flush_n * 16));
    CHECK(cudaMalloc(&sink, 8));
  }
};

// The best of `reps` runs of `launch` (milliseconds), each timed by events
// after an L2 flush (the bench's cold-L2 protocol).
template <class Launch>
float best_cold_ms(const StreamBuffers& b, int sms, int reps, Launch launch) {
  float best = 1e30f;
  for (int rep = 0; rep < reps; ++rep) {
    flush_l2<<<sms * 4, 256>>>(b.flush, b.flush_n);
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventRecord(e0));
    launch();
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    CHECK(cudaGetLastError());
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    best = std::min(best, ms);
  }
  return best;
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
