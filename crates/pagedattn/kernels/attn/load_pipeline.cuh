// Producer side of the load pipeline: gathers Q rows and K/V rows (one page
// per key, page_size 1) with 16-byte cp.async into the swizzled shared-memory
// layouts the wgmma instructions read. TMA cannot gather rows by index on
// Hopper, so the 128 producer threads move 16-byte chunks. Completion is signalled on mbarriers by
// cp.async.mbarrier.arrive.noinc, so no thread ever waits for its own loads.
#pragma once
#include "attn/kernel_traits.cuh"

namespace pagedattn {

__device__ __forceinline__ void cp_async_16_zfill(uint32_t dst, const void* gmem_src, bool valid) {
  int src_bytes = valid ? 16 : 0;  // 0: the 16 bytes are zero-filled, nothing is read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src), "r"(src_bytes)
               : "memory");
}

// Byte offset of element (row, col) in a kRows x 128 tile laid out as
// tile_to_shape(GMMA::Layout_K_SW128_Atom<bf16>): two 64-column blocks of
// kRows x 128 bytes, the 16-byte chunk index XOR-ed with row % 8.
template <int kRows>
__host__ __device__ constexpr int sw128_offset_bytes(int row, int chunk) {
  return (chunk / 8) * kRows * 128 + row * 128 + (((chunk % 8) ^ (row % 8)) * 16);
}

// Thread -> data map (T::kGatherLanes lanes a row, 16 bytes each a
// cp.async):
//  - 4 lanes a row: a warp moves 8 rows per instruction, each row's 64
//    contiguous bytes (4 instructions cover a 256-byte row). A thread owns
//    kRows / 32 rows of a tile and needs one page id per row: 4x fewer
//    page-id loads, range checks and 64-bit address computations than 16
//    lanes a row, which matters where the producer shares issue slots with
//    busy GEMM warps (the 128-row tiles). Shared memory takes a 16-byte
//    store a quarter-warp (8 lanes: two rows) at a time, so the two rows of
//    a quarter-warp must hit different halves of the 8 16-byte bank groups:
//    even rows start with chunks 0-3 of a 64-column block, odd rows with
//    chunks 4-7. (Both rows starting with chunks 0-3 made every store two
//    wavefronts per quarter-warp: 22% of the kernel's shared-memory
//    wavefronts.)
//  - 8 lanes a row: a warp moves 4 rows per instruction, each row's whole
//    128-byte line (2 instructions a row; a quarter-warp stores one row's
//    line, conflict-free). For m64, whose decode-like calls are held by the
//    K/V stream: measured on the H200 (bench/micro/decode_gather.cu, the
//    stream of 64 sequences x 4096 keys without math), half-line requests
//    took 150 us whatever the ring's depth, whole lines 136-141.
template <class T>
struct GatherLoader {
  static_assert(T::kProducerThreads == kWarpgroupThreads, "one producer warpgroup");
  static constexpr int kLanes = T::kGatherLanes;
  static_assert(kLanes == 4 || kLanes == 8, "4 or 8 lanes a row");
  static constexpr int kRowsPerPass = T::kProducerThreads / kLanes;
  static constexpr int kKvRows = T::kBlockN / kRowsPerPass;  // rows per thread per K/V block
  static constexpr int kQRows = T::kBlockM / kRowsPerPass;   // rows per thread per Q tile
  static constexpr int kChunks = 16 / kLanes;                // 16-byte chunks of a row per thread
  int row0;       // first row this thread moves; then every kRowsPerPass rows
  int col;        // first element of this thread's first 16-byte chunk: 8 * c
  int dcol;       // 4 lanes: + 32 or - 32, its second chunk c ^ 4
  // Shared-memory byte offsets of chunks c and (4 lanes) c ^ 4 of row row0
  // (+ kRows * 128 in the second 64-column block): the swizzle XORs the
  // chunk index with row % 8, which is the same for every row of this
  // thread.
  int sw0, sw1;

  __device__ __forceinline__ explicit GatherLoader(int producer_tid) {
    const int lane = producer_tid % 32;
    if constexpr (kLanes == 4) {
      const int r8 = lane / 4;
      const int c = lane % 4 + 4 * (r8 & 1);
      row0 = (producer_tid / 32) * 8 + r8;
      col = c * 8;
      dcol = (c & 4) ? -32 : 32;
      sw0 = row0 * 128 + ((c ^ r8) * 16);
      sw1 = sw0 ^ 64;
    } else {
      const int c = lane % 8;
      row0 = (producer_tid / 32) * 4 + lane / 8;
      col = c * 8;
      dcol = 0;
      sw0 = row0 * 128 + ((c ^ (row0 % 8)) * 16);
      sw1 = sw0;
    }
  }

  // Byte offset, from its pass's first row, of this thread's chunk j (0 <=
  // j < kChunks) of a row of a kRows-row tile.
  template <int kRows>
  __device__ __forceinline__ uint32_t chunk_off(int j) const {
    if constexpr (kLanes == 4) return ((j & 2) ? kRows * 128 : 0) + ((j & 1) ? sw1 : sw0);
    else return (j ? kRows * 128 : 0) + sw0;
  }

  template <int kRows>
  __device__ __forceinline__ void copy_row(uint32_t s, int pass, const __nv_bfloat16* src, bool valid) const {
    const uint32_t r = s + pass * kRowsPerPass * 128;
    if constexpr (kLanes == 4) {
      cp_async_16_zfill(r + sw0, src, valid);
      cp_async_16_zfill(r + sw1, src + dcol, valid);
      cp_async_16_zfill(r + kRows * 128 + sw0, src + 64, valid);
      cp_async_16_zfill(r + kRows * 128 + sw1, src + 64 + dcol, valid);
    } else {
      cp_async_16_zfill(r + sw0, src, valid);
      cp_async_16_zfill(r + kRows * 128 + sw0, src + 64, valid);
    }
  }

  // First element of packed row r of the unit's Q (token r / 6, head r % 6 of
  // its kv head's group).
  __device__ __forceinline__ static const __nv_bfloat16* q_row(const Params& p, const WorkUnit& w, int r) {
    const int token = r / kGroup, head = w.kv_head * kGroup + r % kGroup;
    return p.q + ((long long)(w.q_start + token) * kNumQoHeads + head) * kHeadDim;
  }

  // Q tile: packed rows m0 .. m0 + kBlockM of the sequence (token-major, the 6
  // heads of one kv head per token). Rows past the sequence are zero-filled.
  // For a negative scale the tile is stored negated (each thread flips the
  // sign bits of the chunks it copied, once they have landed), so that the
  // consumers see S' = -S and scale' = -scale > 0 with S' scale' = S scale
  // exactly: bf16 negation is exact and the dot products' rounding is
  // symmetric in sign. The softmax then needs only its positive-scale path.
  __device__ __forceinline__ void load_q(const Params& p, const WorkUnit& w, int m0, uint32_t sq, uint64_t* full) const {
    const int rows_total = w.q_len * kGroup;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kQRows; ++i) {
      const int r = m0 + row0 + i * kRowsPerPass;
      const bool valid = r < rows_total;
      const __nv_bfloat16* src = valid ? q_row(p, w, r) + col : p.q + col;
      copy_row<T::kBlockM>(sq, i, src, valid);
    }
    if (p.sm_scale_log2 < 0.f) {
      asm volatile("cp.async.wait_all;\n" ::: "memory");
      // Not unrolled: the producer's registers are few, and this path is rare.
#pragma unroll 1
      for (int k = 0; k < kQRows * kChunks; ++k) {
        const uint32_t a = sq + (k / kChunks) * kRowsPerPass * 128 + chunk_off<T::kBlockM>(k % kChunks);
        {
          uint32_t x0, x1, x2, x3;
          asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                       : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3) : "r"(a) : "memory");
          asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(a), "r"(x0 ^ 0x80008000u),
                       "r"(x1 ^ 0x80008000u), "r"(x2 ^ 0x80008000u), "r"(x3 ^ 0x80008000u) : "memory");
        }
      }
      cutlass::arch::fence_view_async_shared();  // generic-proxy stores -> wgmma reads
      mbar_arrive(full);
    } else {
      cutlass::arch::cpasync_barrier_arrive_noinc(full);
    }
  }

  // The Q tile's rows into L2, ahead of a load that must wait for its slot:
  // Q is read once, so its rows come from DRAM, and with one Q slot their
  // whole latency would stand between two units of the consumers. Two of a
  // row's threads take one 128-byte line each.
  __device__ __forceinline__ void prefetch_q(const Params& p, const WorkUnit& w, int m0) const {
    const int rows_total = w.q_len * kGroup, line = threadIdx.x % kLanes;
    if (line >= 2) return;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kQRows; ++i) {
      const int r = m0 + row0 + i * kRowsPerPass;
      if (r < rows_total) asm volatile("prefetch.global.L2 [%0];" ::"l"(q_row(p, w, r) + line * 64));
    }
  }

  // Raw page ids of this thread's rows of key block n. The range check is
  // left to `check_ids`, at use time, so the loads' latency hides behind the
  // producer's other work instead of stalling it right here.
  __device__ __forceinline__ void load_page_ids(const Params& p, const WorkUnit& w, int n, int (&pid)[kKvRows]) const {
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kKvRows; ++i) {
      const int j = n * T::kBlockN + row0 + i * kRowsPerPass;
      pid[i] = j < w.kv_len ? __ldg(p.kv_indices + (long long)w.kv_start + j) : 0;
    }
  }

  // Ids of key block n made safe: -1 (a zero row, never dereferenced) for
  // keys past kv_len and for ids outside [0, num_pages), which also set the
  // error flag.
  __device__ __forceinline__ void check_ids(const Params& p, const WorkUnit& w, int n, int (&pid)[kKvRows]) const {
    bool bad = false;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kKvRows; ++i) {
      const int j = n * T::kBlockN + row0 + i * kRowsPerPass;
      const bool in_range = pid[i] >= 0 && (long long)pid[i] < p.num_pages;
      if (j < w.kv_len && !in_range) bad = true;
      pid[i] = j < w.kv_len && in_range ? pid[i] : -1;
    }
    if (bad) atomicOr(p.ws_counters + kWsErrorFlag, kErrPageOutOfRange);
  }

  // One K or V block: rows of `cache` at the given page ids, zero rows for -1.
  __device__ __forceinline__ void load_kv(const __nv_bfloat16* cache, int kv_head, const int (&pid)[kKvRows],
                                          uint32_t skv, uint64_t* full) const {
    const __nv_bfloat16* head_base = cache + kv_head * kHeadDim + col;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kKvRows; ++i) {
      const bool valid = pid[i] >= 0;
      const __nv_bfloat16* src = valid ? head_base + (long long)pid[i] * (kNumKvHeads * kHeadDim) : cache + col;
      copy_row<T::kBlockN>(skv, i, src, valid);
    }
    cutlass::arch::cpasync_barrier_arrive_noinc(full);
  }
};

}  // namespace pagedattn
