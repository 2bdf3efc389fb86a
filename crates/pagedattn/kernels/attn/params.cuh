// Kernel parameters, shared with src/backend/cuda/ffi.rs (#[repr(C)] mirror).
// Keep the two in the same order with the same types.
#pragma once
#include <cstdint>
#include <cuda_bf16.h>

namespace pagedattn {

// Bits of the workspace error flag (kWsErrorFlag), set by the kernel on bad index data in device memory.
// The kernel never dereferences a bad index: the key is skipped (treated as
// masked) or the sequence is skipped (its rows left unwritten).
enum ErrorBits : int {
  kErrPageOutOfRange = 1,   // a kv_indices entry outside [0, num_pages)
  kErrBadQoRange = 2,       // qo_indptr[b] .. qo_indptr[b+1] not inside [0, total_q]
  kErrBadKvRange = 4,       // kv_indptr[b] .. kv_indptr[b+1] not inside [0, num_kv_indices]
};

// Ints at the start of the workspace (src/backend/cuda/kernel.rs, WS_COUNTERS).
enum WsCounter : int {
  kWsErrorFlag = 0,  // OR-ed with ErrorBits; read and cleared by the host
  kWsUnitTicket = 1, // next work unit to hand out; reset to 0 by the last CTA to take one
  kWsMemoReads = 8,  // producer warps of this call that read the plan memo (modulo their number: 0 between calls)
  kWsMemo = 16,      // the plan memo (attn/scheduler.cuh, PlanMemo): key, split size, lengths
  kWsCounterInts = 128,  // WS_COUNTERS
};

// A small batch's host plan travels inside the parameters (the image of
// PlanStorage<kInlinePlanMaxBatch> up to its scratch, units::inline_plan):
// the parameters arrive with the launch, so the CTA reads its plan without
// a dependent trip to device memory at its start.
constexpr int kInlinePlanMaxBatch = 16;  // units::INLINE_PLAN_MAX_BATCH
constexpr int kInlinePlanInts = 4 + 2 * 20 + 16 + 4 * 16;

struct Params {
  const __nv_bfloat16* q;        // [total_q, 24, 128]
  const __nv_bfloat16* k_cache;  // [num_pages, 1, 4, 128]
  const __nv_bfloat16* v_cache;  // [num_pages, 1, 4, 128]
  const int* qo_indptr;          // [batch + 1]
  const int* kv_indptr;          // [batch + 1]
  const int* kv_indices;         // [num_kv_indices]
  __nv_bfloat16* out;            // [total_q, 24, 128]
  float* lse;                    // [total_q, 24], base 2
  // Workspace (zero between calls: the kernel resets what it uses).
  int* ws_counters;              // WsCounter
  int* ws_sem;                   // [partial_slots][kSemsPerSlot]: chunks of a split tile done, per consumer warpgroup
  float* ws_partial_lse;         // [partial_slots][kBlockM]
  float* ws_partial_o;           // [partial_slots][kBlockM * 128], fragment order
  const int* plan;               // a plan made on the host (units::PlanImage), or null: built here
  long long total_q;
  long long num_pages;
  int batch;
  int num_kv_indices;
  int tiles_per_head;            // schedule::tiles_per_head(total_q, batch, kBlockM)
  int partial_slots;             // merge slots the workspace holds for this configuration
  int split_blocks;              // 0: automatic split; -1: never; n > 0: chunks of at most n key blocks
  float sm_scale;                // natural-log scale of the logits
  float sm_scale_log2;           // sm_scale * log2(e): softmax runs in exp2
  int inline_batch;              // > 0: inline_plan holds the plan of these p.batch sequences
  int inline_plan[kInlinePlanInts];
};

constexpr int kNumQoHeads = 24;
constexpr int kNumKvHeads = 4;
constexpr int kGroup = kNumQoHeads / kNumKvHeads;  // 6 query heads per kv head
constexpr int kHeadDim = 128;

}  // namespace pagedattn
