// Probe (thirty-first session, call 1): is a kernel's code readable through
// its global address (the entry symbol's value), as the codepf variants
// prefetch it? Prints the first two 8-byte words read there; compare with the
// first instruction of `cuobjdump -sass` for the same build.
//   nvcc -arch=sm_90a -o probe code-read-probe.cu && ./probe
#include <cstdio>
#include <cstdint>
__global__ void k(unsigned long long* out) {
  unsigned long long a;
  asm volatile("mov.u64 %0, _Z1kPy;" : "=l"(a));
  out[0] = a;
  const unsigned long long* p = (const unsigned long long*)a;
  out[1] = p[0]; out[2] = p[1];
  asm volatile("prefetch.global.L2 [%0];" :: "l"(p + 16));
}
int main() {
  unsigned long long* d; cudaMalloc(&d, 64); cudaMemset(d, 0, 64);
  k<<<1,1>>>(d); cudaError_t e = cudaDeviceSynchronize();
  unsigned long long h[3]; cudaMemcpy(h, d, 24, cudaMemcpyDeviceToHost);
  printf("err=%s addr=%llx w0=%016llx w1=%016llx (expect 00000a00ff017b82 000ff00000000800)\n", cudaGetErrorString(e), h[0], h[1], h[2]);
  void* fptr = (void*)k; printf("host fn handle %p dev buf %p\n", fptr, d);
  return 0;
}
