// The launch floor of the timing protocol (SPEC.md: the L2 flushed by a
// buffer of twice its size written before each call, the call timed by
// events around one CUDA-graph replay) for a kernel that does nothing but
// one store, as a function of its launch shape: the grid, the block size
// and the dynamic shared memory (our entry points take 384-512 threads and
// up to ~227 KB; the flush is a memset, which takes none). Where the floor
// grows with the shared memory, part of the tiny rows' time is the SMs'
// shared-memory carve-out changing between the flush and the kernel, which
// a serving engine's previous kernel may already have set.
//   nvcc -arch=sm_90a -O3 -o launch_floor bench/micro/launch_floor.cu && ./launch_floor
#include "micro.cuh"

__global__ void one_store(int* out) {
  extern __shared__ int smem[];
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = smem[0] * 0 + 1;
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  int dev = 0, l2 = 0, smem_max = 0;
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  CHECK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  CHECK(cudaFuncSetAttribute(one_store, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
  int* out;
  unsigned char* flush;
  CHECK(cudaMalloc(&out, 4));
  CHECK(cudaMalloc(&flush, 2 * (size_t)l2));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::printf("L2 %d bytes, smem opt-in max %d bytes\n", l2, smem_max);
  std::printf("%6s %7s %8s | %9s %9s %9s\n", "grid", "threads", "smem", "cold us", "warm us", "cold-warm");
  const int grids[] = {1, 32, 132, 264};
  const int threads[] = {384, 512};
  const int smems[] = {0, 48 * 1024, 100 * 1024, 200 * 1024, smem_max};
  for (int g : grids)
    for (int t : threads)
      for (int sm : smems) {
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        one_store<<<g, t, sm, s>>>(out);
        CHECK(cudaStreamEndCapture(s, &graph));
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
        std::vector<float> cold, warm;
        for (int i = 0; i < 60; ++i) {
          const bool flushed = i % 2 == 0;
          if (flushed) CHECK(cudaMemsetAsync(flush, i & 0xff, 2 * (size_t)l2, s));
          CHECK(cudaEventRecord(a, s));
          CHECK(cudaGraphLaunch(exec, s));
          CHECK(cudaEventRecord(b, s));
          CHECK(cudaStreamSynchronize(s));
          float ms = 0;
          CHECK(cudaEventElapsedTime(&ms, a, b));
          if (i >= 10) (flushed ? cold : warm).push_back(ms * 1e3f);
        }
        const float c = median(cold), w = median(warm);
        std::printf("%6d %7d %8d | %9.2f %9.2f %9.2f\n", g, t, sm, c, w, c - w);
        CHECK(cudaGraphExecDestroy(exec));
        CHECK(cudaGraphDestroy(graph));
      }
  return 0;
}
