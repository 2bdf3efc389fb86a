#!/usr/bin/env python3
"""Where a work unit's cycles go: launches the `unitcost` diagnostic cubin
(`python3 scripts/variant-src.py unitcost DIR && SRC=DIR bash
scripts/build-variant.sh unitcost`) on one workload, on the GPU machine, and
prints the per-unit account from its counters (g_uc).

    python3 scripts/unitcost.py dist/var/unitcost.cubin WORKLOADS.jsonl NAME \
        --kernel m128d [--reps 20] [--json out.json]

The kernel is launched directly through the CUDA driver (ctypes), with the
device-built plan (Params.plan = null) and no split (split_blocks = -1; --split 0 automatic), each
launch after an L2 flush, like the bench; the output is checked against a
float32 reference of the first sequences first. The counters are clock64
cycles of consumer thread 0 (warpgroup 0) and producer thread 0, summed over
every unit of every CTA; the account divides them by the units (or blocks)
and gives each part's share of a unit's time, which does not depend on the
clock. A cubin without the counters (the shipped one) is only timed, so
the stamps' own cost shows by difference. Needs torch (for buffers, events
and the reference) and libcuda.
"""
import argparse
import ctypes
import json
import math
import sys

NUM_QO, NUM_KV, GROUP, D = 24, 4, 6, 128
KERNELS = {  # entry point, rows per tile, threads, CTAs per SM (attention.cu)
    "m128": ("paged_prefill_m128", 128, 384, 1),
    "m128d": ("paged_prefill_m128d", 128, 384, 1),
    "m128dv": ("paged_prefill_m128dv", 128, 384, 1),
    "m64": ("paged_prefill_m64", 64, 256, 2),
    "m192": ("paged_prefill_m192", 192, 512, 1),
}
COUNTERS = ["q_wait", "k0_wait", "first_block", "other_blocks", "last_pv", "unit", "units", "blocks",
            "p_decode", "p_qslot_wait", "p_ring", "p_units", "cta_span", "ctas", "end_wait", "p_ids",
            "first_q_wait", "first_q_at", "first_k_at", "epi_bar1", "epi_stage", "epi_copy",
            "p_first_decoded_at", "p_first_q_issued_at", "p_ticket_wait", "p_decode_only", "p_plan_ready_at"]
NC = 32  # g_uc entries


class Params(ctypes.Structure):  # attn/params.cuh, in order
    _fields_ = [(n, ctypes.c_void_p) for n in
                ("q", "k_cache", "v_cache", "qo_indptr", "kv_indptr", "kv_indices", "out", "lse",
                 "ws_counters", "ws_sem", "ws_partial_lse", "ws_partial_o", "plan")] + [
        ("total_q", ctypes.c_longlong), ("num_pages", ctypes.c_longlong),
        ("batch", ctypes.c_int), ("num_kv_indices", ctypes.c_int), ("tiles_per_head", ctypes.c_int),
        ("partial_slots", ctypes.c_int), ("split_blocks", ctypes.c_int),
        ("sm_scale", ctypes.c_float), ("sm_scale_log2", ctypes.c_float),
        ("inline_batch", ctypes.c_int), ("inline_plan", ctypes.c_int * 124)]  # no inline plan: 0


def load_workload(path, name):
    for line in open(path):
        w = json.loads(line)
        if w["name"] == name or w["name"].startswith(name):
            return w
    sys.exit(f"{name}: not in {path}")


def account(c):
    """Per-unit means and shares from the counter deltas `c` (dict)."""
    u, b = max(c["units"], 1), max(c["blocks"], 1)
    epi = c["unit"] - c["k0_wait"] - c["first_block"] - c["other_blocks"] - c["last_pv"]
    rows = [
        ("consumer: wait for the unit's Q slot (q_full)", c["q_wait"] / u),
        ("consumer: wait for the first K block", c["k0_wait"] / u),
        ("consumer: first block (QK, softmax, P)", c["first_block"] / u),
        ("consumer: the other blocks", c["other_blocks"] / u),
        ("consumer: last P V and finalize", c["last_pv"] / u),
        ("consumer: epilogue (merge, stores) and the rest", epi / u),
    ]
    per_unit = c["unit"] / u + c["q_wait"] / u
    ctas = max(c["ctas"], 1)
    first = {"consumer_first_q_wait": c["first_q_wait"] / ctas, "consumer_first_q_at": c["first_q_at"] / ctas,
             "consumer_first_k_at": c["first_k_at"] / ctas,
             "producer_plan_ready_at": c["p_plan_ready_at"] / ctas,
             "producer_first_unit_decoded_at": c["p_first_decoded_at"] / ctas,
             "producer_first_q_issued_at": c["p_first_q_issued_at"] / ctas,
             "later_units_q_wait": (c["q_wait"] - c["first_q_wait"]) / max(u - c["ctas"], 1)}
    epilogue = {"first_barrier": c["epi_bar1"] / u, "staging_and_second_barrier": c["epi_stage"] / u,
                "copies": c["epi_copy"] / u}
    out = {"first_unit": first, "epilogue": epilogue, "units": c["units"], "blocks": c["blocks"], "ctas": c["ctas"],
           "blocks_per_unit": c["blocks"] / u, "cycles_per_unit": per_unit,
           "cycles_per_other_block": c["other_blocks"] / max(c["blocks"] - c["units"], 1),
           "cta_span_cycles": c["cta_span"] / max(c["ctas"], 1),
           "end_wait_cycles_per_cta": c["end_wait"] / max(c["ctas"], 1),
           "producer": {"decode_per_unit": c["p_decode"] / max(c["p_units"], 1),
                        "qslot_wait_per_unit": c["p_qslot_wait"] / max(c["p_units"], 1),
                        "ticket_wait_per_unit": c["p_ticket_wait"] / max(c["p_units"], 1),
                        "decode_only_per_unit": c["p_decode_only"] / max(c["p_units"], 1),
                        "ring_wait_per_block": c["p_ring"] / b, "ids_wait_per_block": c["p_ids"] / b},
           "consumer": [{"part": k, "cycles": v, "share": v / per_unit if per_unit else 0.0} for k, v in rows]}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cubin")
    ap.add_argument("workloads")
    ap.add_argument("name")
    ap.add_argument("--kernel", choices=sorted(KERNELS), required=True)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json")
    ap.add_argument("--split", type=int, default=-1,
                    help="the kernel's split_blocks: -1 never (default), 0 automatic, n > 0 chunks of n key blocks")
    a = ap.parse_args()
    import torch  # noqa: E402 (the GPU machine has it; the build machine need not)

    w = load_workload(a.workloads, a.name)
    fn, block_m, threads, per_sm = KERNELS[a.kernel]
    dev = torch.device("cuda", 0)
    torch.cuda.init()
    cu = ctypes.CDLL("libcuda.so.1")

    def ck(r, what):
        if r != 0:
            sys.exit(f"{what}: CUDA error {r}")
    ctx = ctypes.c_void_p()
    ck(cu.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
    if not ctx.value:
        torch.zeros(1, device=dev)
        ck(cu.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
    mod = ctypes.c_void_p()
    ck(cu.cuModuleLoad(ctypes.byref(mod), a.cubin.encode()), "cuModuleLoad")
    func = ctypes.c_void_p()
    ck(cu.cuModuleGetFunction(ctypes.byref(func), mod, fn.encode()), "cuModuleGetFunction")

    def get_global(sym):  # the symbol's device address, or None
        ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        ok = cu.cuModuleGetGlobal_v2(ctypes.byref(ptr), ctypes.byref(size), mod, sym.encode()) == 0
        return ptr.value if ok else None

    def read(ptr, n, ctype):
        buf = (ctype * n)()
        torch.cuda.synchronize()
        ck(cu.cuMemcpyDtoH_v2(buf, ctypes.c_uint64(ptr), ctypes.c_size_t(ctypes.sizeof(buf))), "cuMemcpyDtoH")
        return list(buf)
    smem_sym = get_global(fn + "_smem_bytes")
    if smem_sym is None:
        sys.exit(f"{a.cubin}: no {fn}_smem_bytes")
    smem = read(smem_sym, 1, ctypes.c_int)[0]
    ck(cu.cuFuncSetAttribute(func, 8, smem), "cuFuncSetAttribute")  # MAX_DYNAMIC_SHARED_SIZE_BYTES
    g_uc = get_global("g_uc")  # absent in the shipped cubin: then only the time (the stamps' cost, by difference)
    has_uc = g_uc is not None

    total_q, num_pages = w["total_q"], w["num_pages"]
    qo, kv, idx = w["qo_indptr"], w["kv_indptr"], w["kv_indices"]
    batch = len(qo) - 1
    if a.kernel in ("m128d", "m128dv", "m192") and batch > 64:
        sys.exit(f"{a.kernel} builds plans of 64 sequences at most on the device")
    g = torch.Generator(device=dev).manual_seed(1)
    q = torch.randn(total_q, NUM_QO, D, device=dev, generator=g).to(torch.bfloat16)
    k = torch.randn(num_pages, 1, NUM_KV, D, device=dev, generator=g).to(torch.bfloat16)
    v = torch.randn(num_pages, 1, NUM_KV, D, device=dev, generator=g).to(torch.bfloat16)
    i32 = lambda x: torch.tensor(x, dtype=torch.int32, device=dev)
    qo_t, kv_t, idx_t = i32(qo), i32(kv), i32(idx if idx else [0])
    out = torch.empty(max(total_q, 1), NUM_QO, D, dtype=torch.bfloat16, device=dev)
    lse = torch.empty(max(total_q, 1), NUM_QO, dtype=torch.float32, device=dev)
    ws = torch.zeros(64, dtype=torch.int32, device=dev)
    # Merge slots for --split (a slot per split unit): semaphores, partial lse and O.
    slots = 2048 if a.split >= 0 else 0
    sem = torch.zeros(max(slots * 3, 1), dtype=torch.int32, device=dev)
    part_lse = torch.zeros(max(slots * block_m * 4, 1), dtype=torch.float32, device=dev)  # float2 a row and warpgroup
    part_o = torch.zeros(max(slots * block_m * D, 1), dtype=torch.float32, device=dev)
    sm = torch.cuda.get_device_properties(0).multi_processor_count
    p = Params(q.data_ptr(), k.data_ptr(), v.data_ptr(), qo_t.data_ptr(), kv_t.data_ptr(), idx_t.data_ptr(),
               out.data_ptr(), lse.data_ptr(), ws.data_ptr(), sem.data_ptr(), part_lse.data_ptr(),
               part_o.data_ptr(), None, total_q, num_pages, batch, len(idx), GROUP * total_q // block_m + batch,
               slots, a.split, w["sm_scale"], w["sm_scale"] * math.log2(math.e))
    grid = per_sm * sm
    args = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.pointer(p), ctypes.c_void_p))
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

    def launch():
        ck(cu.cuLaunchKernel(func, ctypes.c_uint(grid), 1, 1, ctypes.c_uint(threads), 1, 1, ctypes.c_uint(smem), stream, args, None),
           "cuLaunchKernel")

    # Correctness first: the first sequences against a float32 reference.
    out.fill_(float("nan"))
    launch()
    torch.cuda.synchronize()
    worst = 0.0
    for b in range(min(batch, 4)):
        q0, q1, k0, k1 = qo[b], qo[b + 1], kv[b], kv[b + 1]
        if q1 == q0:
            continue
        pages = idx_t[k0:k1].long()
        kk = k[pages, 0].float().repeat_interleave(GROUP, dim=1)  # [kv, 24, D]
        vv = v[pages, 0].float().repeat_interleave(GROUP, dim=1)
        qs = max(q0, q1 - 512)  # a long sequence's last 512 tokens only (the reference's memory)
        s = torch.einsum("qhd,khd->hqk", q[qs:q1].float(), kk) * w["sm_scale"]
        delta = (k1 - k0) - (q1 - q0)
        rows = torch.arange(qs - q0, q1 - q0, device=dev)
        mask = torch.arange(k1 - k0, device=dev)[None, :] <= rows[:, None] + delta
        s = s.masked_fill(~mask[None], float("-inf"))
        ref = torch.einsum("hqk,khd->qhd", torch.softmax(s, dim=-1).nan_to_num(0.0), vv)
        got = out[qs:q1].float()
        seen = mask.any(dim=1)
        worst = max(worst, (got[seen] - ref[seen]).abs().max().item() if seen.any() else 0.0)
    ok = worst <= 2e-2 and not math.isnan(worst)
    print(f"{w['name']} ({a.kernel}, grid {grid}, {threads} threads, {smem} B smem): "
          f"max abs err vs fp32 {worst:.2e} ({'ok' if ok else 'FAIL'})")
    if not ok:
        sys.exit(1)

    flush = torch.empty(2 * 60 * 1024 * 1024, dtype=torch.uint8, device=dev)
    for _ in range(3):
        flush.zero_()
        launch()
    before = read(g_uc, NC, ctypes.c_ulonglong) if has_uc else [0] * NC
    times = []
    for _ in range(a.reps):
        flush.zero_()
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        launch()
        e1.record()
        times.append((e0, e1))
    torch.cuda.synchronize()  # the events must be complete before elapsed_time
    after = read(g_uc, NC, ctypes.c_ulonglong) if has_uc else [0] * NC
    us = sorted(e0.elapsed_time(e1) * 1000 for e0, e1 in times)[len(times) // 2]
    if not has_uc:
        print(f"median {us:.1f} us over {a.reps} launches (no counters in this cubin)")
        if a.json:
            json.dump({"name": w["name"], "kernel": a.kernel, "median_us": us, "reps": a.reps}, open(a.json, "w"))
        return
    c = {n: (after[i] - before[i]) for i, n in enumerate(COUNTERS)}
    r = account(c)
    r.update(name=w["name"], kernel=a.kernel, median_us=us, reps=a.reps)
    print(f"median {us:.1f} us over {a.reps} launches; {c['units'] // a.reps} units, "
          f"{r['blocks_per_unit']:.2f} blocks per unit, {c['ctas'] // a.reps} CTAs")
    other = f"{r['cycles_per_other_block']:.0f} cycles each" if c["blocks"] > c["units"] else "none"
    print(f"per unit: {r['cycles_per_unit']:.0f} cycles (wait included); other blocks "
          f"{other}; CTA span {r['cta_span_cycles']:.0f}, end wait "
          f"{r['end_wait_cycles_per_cta']:.0f} per CTA")
    for x in r["consumer"]:
        print(f"  {x['part']:<48} {x['cycles']:9.0f}  {100 * x['share']:5.1f}%")
    pr = r["producer"]
    print(f"  producer: decode+hand-over {pr['decode_per_unit']:.0f} / unit, Q-slot wait "
          f"{pr['qslot_wait_per_unit']:.0f} / unit (of the decode+hand-over: ticket wait {pr['ticket_wait_per_unit']:.0f}, "
          f"decode {pr['decode_only_per_unit']:.0f}), ring waits {pr['ring_wait_per_block']:.0f} / block, "
          f"page-id wait {pr['ids_wait_per_block']:.0f} / block")
    f, e = r["first_unit"], r["epilogue"]
    print(f"  a CTA's first unit, cycles from its entry: plan ready at {f['producer_plan_ready_at']:.0f}, "
          f"producer decoded it at {f['producer_first_unit_decoded_at']:.0f}, "
          f"issued its Q at {f['producer_first_q_issued_at']:.0f}; consumers had its Q at "
          f"{f['consumer_first_q_at']:.0f} (waited {f['consumer_first_q_wait']:.0f}), its first K at "
          f"{f['consumer_first_k_at']:.0f}; later units' Q wait {f['later_units_q_wait']:.0f} each")
    print(f"  epilogue per unit: first barrier {e['first_barrier']:.0f}, staging + second barrier "
          f"{e['staging_and_second_barrier']:.0f}, copies {e['copies']:.0f}")
    if a.json:
        json.dump(r, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
