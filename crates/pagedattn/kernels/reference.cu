// Plain fp32 reference for the operation, simple enough to trust: one warp per
// (token, query head), one key at a time, online softmax in fp32 with natural
// exp. Used to check the fast kernel on workloads too large for the CPU.
#include <cuda_bf16.h>
#include <math.h>

extern "C" __global__ void reference_attention(const __nv_bfloat16* __restrict__ q,
                                               const __nv_bfloat16* __restrict__ k_cache,
                                               const __nv_bfloat16* __restrict__ v_cache,
                                               const int* __restrict__ qo_indptr, const int* __restrict__ kv_indptr,
                                               const int* __restrict__ kv_indices, __nv_bfloat16* __restrict__ out,
                                               float* __restrict__ lse, long long total_q, int batch,
                                               long long num_pages, float sm_scale) {
  const int kHeads = 24, kKvHeads = 4, kDim = 128;
  long long warp_id = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (warp_id >= total_q * kHeads) return;
  long long token = warp_id / kHeads;
  int head = (int)(warp_id % kHeads), kv_head = head / (kHeads / kKvHeads);
  // sequence of this token: last b with qo_indptr[b] <= token (skipping empty ones)
  int lo = 0, hi = batch;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (qo_indptr[mid] <= token) lo = mid; else hi = mid;
  }
  int b = lo;
  long long q_start = qo_indptr[b];
  long long q_len = qo_indptr[b + 1] - q_start, kv_len = kv_indptr[b + 1] - kv_indptr[b];
  long long i = token - q_start;
  long long visible = i + (kv_len - q_len) + 1;
  if (visible > kv_len) visible = kv_len;
  float qv[4], acc[4] = {0.f, 0.f, 0.f, 0.f};
  const __nv_bfloat16* qrow = q + (token * kHeads + head) * kDim;
  for (int e = 0; e < 4; ++e) qv[e] = __bfloat162float(qrow[lane * 4 + e]);
  float m = -INFINITY, l = 0.f;
  for (long long j = 0; j < visible; ++j) {
    long long page = kv_indices[kv_indptr[b] + j];
    if (page < 0 || page >= num_pages) continue;
    const __nv_bfloat16* krow = k_cache + (page * kKvHeads + kv_head) * kDim;
    const __nv_bfloat16* vrow = v_cache + (page * kKvHeads + kv_head) * kDim;
    float s = 0.f;
    for (int e = 0; e < 4; ++e) s += qv[e] * __bfloat162float(krow[lane * 4 + e]);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    s *= sm_scale;
    float m_new = fmaxf(m, s);
    float corr = expf(m - m_new), pj = expf(s - m_new);
    l = l * corr + pj;
    for (int e = 0; e < 4; ++e) acc[e] = acc[e] * corr + pj * __bfloat162float(vrow[lane * 4 + e]);
    m = m_new;
  }
  __nv_bfloat16* orow = out + (token * kHeads + head) * kDim;
  for (int e = 0; e < 4; ++e) orow[lane * 4 + e] = __float2bfloat16_rn(l > 0.f ? acc[e] / l : 0.f);
  if (lane == 0) lse[token * kHeads + head] = l > 0.f ? (m + logf(l)) * 1.4426950408889634f : -INFINITY;
}
