"""GPU path on a Hopper GPU with torch: against a torch float32 reference on
synthetic cases and every seed workload, CUDA-graph capture and replay with
new index contents, two streams at once, the checked mode, error cases, the
drop-in wrapper (against FlashInfer's where installed) and DLPack (cupy).
Skipped, with the reason, without torch + CUDA + an sm_90 GPU + a wheel with kernels."""

import math
import threading
import zlib

import pytest

import pagedattn

torch = pytest.importorskip("torch", reason="GPU tests need torch")
if not torch.cuda.is_available():
    pytest.skip("GPU tests need a CUDA device (torch.cuda.is_available() is False)", allow_module_level=True)
if torch.cuda.get_device_capability(0) != (9, 0):
    pytest.skip(f"GPU tests need a Hopper (sm_90) GPU, found {torch.cuda.get_device_name(0)}",
                allow_module_level=True)
if not pagedattn.build_info()["kernels"]:
    pytest.skip("this pagedattn build has no GPU kernels (PAGEDATTN_NO_KERNELS)", allow_module_level=True)

from _reference import ATOL, RTOL, load_workloads  # noqa: E402

DEV = torch.device("cuda", 0)
H_Q, H_KV, D, GROUP = 24, 4, 128, 6
LN2 = math.log(2.0)


def torch_reference(q, k_cache, v_cache, qo, kv, idx, sm_scale):
    """float32 reference on the GPU, per sequence (index lists on the host)."""
    total_q = q.shape[0]
    out = torch.zeros(total_q, H_Q, D, dtype=torch.float32, device=q.device)
    lse = torch.full((total_q, H_Q), float("-inf"), dtype=torch.float32, device=q.device)
    kc = k_cache.reshape(-1, H_KV, D)
    vc = v_cache.reshape(-1, H_KV, D)
    for b in range(len(qo) - 1):
        q0, q1, k0, k1 = qo[b], qo[b + 1], kv[b], kv[b + 1]
        ql, kl = q1 - q0, k1 - k0
        if ql == 0 or kl == 0:
            continue
        pages = idx[k0:k1].long()
        K = kc[pages].float().repeat_interleave(GROUP, dim=1).permute(1, 2, 0)  # [24, 128, kl]
        V = vc[pages].float().repeat_interleave(GROUP, dim=1).permute(1, 0, 2)  # [24, kl, 128]
        Q = q[q0:q1].float().permute(1, 0, 2)  # [24, ql, 128]
        S = torch.matmul(Q, K) * sm_scale
        i = torch.arange(ql, device=q.device)[:, None]
        j = torch.arange(kl, device=q.device)[None, :]
        S.masked_fill_(~(j <= i + (kl - ql)), float("-inf"))
        m = S.amax(-1, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        P = torch.exp(S - m)
        l = P.sum(-1, keepdim=True)
        O = torch.where(l > 0, torch.matmul(P, V) / l.clamp_min(1e-30), torch.zeros(1, device=q.device))
        out[q0:q1] = O.permute(1, 0, 2)
        lse[q0:q1] = ((m + torch.log(l)) / LN2).squeeze(-1).transpose(0, 1)
    return out, lse


def assert_close(out, lse, ref_out, ref_lse):
    o = out.float()
    assert not torch.isnan(o).any() and not torch.isnan(lse).any()
    err = (o - ref_out).abs()
    bad = err > ATOL + RTOL * ref_out.abs()
    assert not bad.any(), f"{int(bad.sum())} output elements out of bound (max err {float(err.max()):.3g})"
    fin = torch.isfinite(ref_lse)
    assert torch.equal(torch.isneginf(lse), ~fin)
    lerr = (lse[fin] - ref_lse[fin]).abs()
    assert not (lerr > ATOL + RTOL * ref_lse[fin].abs()).any()


def make(q_lens, kv_lens, num_pages=None, seed=0, shuffle=True, repeat=False):
    g = torch.Generator(device="cpu").manual_seed(seed)
    qo = [0]
    kv = [0]
    for a, b in zip(q_lens, kv_lens):
        qo.append(qo[-1] + a)
        kv.append(kv[-1] + b)
    n_idx = kv[-1]
    num_pages = num_pages or n_idx + 5
    if repeat:
        idx = torch.randint(0, num_pages, (n_idx,), generator=g)
    else:
        idx = torch.randperm(num_pages, generator=g)[:n_idx] if shuffle else torch.arange(n_idx)
    total_q = qo[-1]
    gd = torch.Generator(device=DEV).manual_seed(seed)
    return dict(
        q=torch.randn(total_q, H_Q, D, generator=gd, device=DEV, dtype=torch.bfloat16),
        k_cache=torch.randn(num_pages, 1, H_KV, D, generator=gd, device=DEV, dtype=torch.bfloat16),
        v_cache=torch.randn(num_pages, 1, H_KV, D, generator=gd, device=DEV, dtype=torch.bfloat16),
        qo_indptr=torch.tensor(qo, dtype=torch.int32, device=DEV),
        kv_indptr=torch.tensor(kv, dtype=torch.int32, device=DEV),
        kv_indices=idx.to(torch.int32).to(DEV),
        qo=qo, kv=kv,
    )


def args(c):
    return [c[k] for k in ("q", "k_cache", "v_cache", "qo_indptr", "kv_indptr", "kv_indices")]


def poisoned(total_q):
    return (torch.full((total_q, H_Q, D), float("nan"), dtype=torch.bfloat16, device=DEV),
            torch.full((total_q, H_Q), float("nan"), dtype=torch.float32, device=DEV))


def ref(c, sm_scale):
    return torch_reference(c["q"], c["k_cache"], c["v_cache"], c["qo"], c["kv"], c["kv_indices"], sm_scale)


CASES = {
    "one_token": ([1], [1]),
    "kv_eq_q": ([37, 5, 300], [37, 5, 300]),
    "prefix": ([3, 200], [500, 333]),
    "q_gt_kv": ([10, 140], [4, 1]),
    "empty_seqs": ([0, 90, 0, 7], [12, 90, 3, 0]),
    "many_short": ([3] * 100, [17] * 100),
    "long": ([2048], [4096]),
    "long_prefix": ([256], [16384]),  # m192 (TileConfig::prefers_m192)
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_torch_reference(case):
    c = make(*CASES[case], seed=len(case))
    out, lse = poisoned(c["q"].shape[0])
    pagedattn.run(*args(c), 0.0883883, out, lse)
    torch.cuda.synchronize()
    assert_close(out, lse, *ref(c, 0.0883883))


def test_repeated_pages():
    c = make([64, 100], [128, 100], num_pages=40, repeat=True, seed=4)
    out, lse = pagedattn.attention(*args(c))
    torch.cuda.synchronize()
    assert_close(out, lse, *ref(c, 1 / math.sqrt(128)))


def seed_inputs(w):
    c = make([0], [0])  # placeholder structure
    g = torch.Generator(device=DEV).manual_seed(zlib.crc32(w["name"].encode()))
    c["q"] = torch.randn(w["total_q"], H_Q, D, generator=g, device=DEV, dtype=torch.bfloat16)
    c["k_cache"] = torch.randn(w["num_pages"], 1, H_KV, D, generator=g, device=DEV, dtype=torch.bfloat16)
    c["v_cache"] = torch.randn(w["num_pages"], 1, H_KV, D, generator=g, device=DEV, dtype=torch.bfloat16)
    c["qo"], c["kv"] = w["qo_indptr"], w["kv_indptr"]
    c["qo_indptr"] = torch.tensor(w["qo_indptr"], dtype=torch.int32, device=DEV)
    c["kv_indptr"] = torch.tensor(w["kv_indptr"], dtype=torch.int32, device=DEV)
    c["kv_indices"] = torch.tensor(w["kv_indices"], dtype=torch.int32, device=DEV)
    return c


SEEDS = load_workloads("seed")


@pytest.mark.parametrize("w", SEEDS, ids=[w["name"] for w in SEEDS])
def test_seed_workloads(w):
    c = seed_inputs(w)
    out, lse = poisoned(w["total_q"])
    pagedattn.run(*args(c), w["sm_scale"], out, lse)
    torch.cuda.synchronize()
    assert_close(out, lse, *ref(c, w["sm_scale"]))


def test_current_stream_and_stream_argument():
    c = make([50, 70], [80, 70], seed=7)
    r = ref(c, 0.1)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        out, lse = poisoned(c["q"].shape[0])
        pagedattn.run(*args(c), 0.1, out, lse)  # torch's current stream: s
    s.synchronize()
    assert_close(out, lse, *r)
    s2 = torch.cuda.Stream()
    s2.wait_stream(torch.cuda.current_stream())
    out2, lse2 = pagedattn.attention(*args(c), 0.1, stream=s2)
    s2.synchronize()
    assert_close(out2, lse2, *r)
    out3, lse3 = poisoned(c["q"].shape[0])
    torch.cuda.synchronize()
    pagedattn.run(*args(c), 0.1, out3, lse3, stream=s2.cuda_stream)  # raw handle
    s2.synchronize()
    assert_close(out3, lse3, *r)


def _new_contents(c, seed):
    """Same sizes (total_q, batch, num_kv_indices), other lengths and pages."""
    g = torch.Generator().manual_seed(seed)
    batch = len(c["qo"]) - 1
    total_q, n_idx, num_pages = c["qo"][-1], c["kv"][-1], c["k_cache"].shape[0]

    def split(total):
        cuts = sorted(torch.randint(0, total + 1, (batch - 1,), generator=g).tolist())
        return [0] + cuts + [total]

    qo = split(total_q)
    # kv_len >= q_len per sequence keeps every row visible; fall back to kv == q plus a prefix.
    kv = [0]
    extra = n_idx - total_q
    for b in range(batch):
        kv.append(kv[-1] + (qo[b + 1] - qo[b]) + (extra if b == batch - 1 else 0))
    idx = torch.randperm(num_pages, generator=g)[:n_idx].to(torch.int32)
    return qo, kv, idx


def test_graph_capture_and_replay_with_new_indices():
    c = make([100, 60, 40], [150, 60, 90], num_pages=600, seed=8)
    out, lse = poisoned(c["q"].shape[0])
    # No warm-up and no prepare(): the capture stream's workspace is made during capture.
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        pagedattn.run(*args(c), 0.09, out, lse)
    g.replay()
    torch.cuda.synchronize()
    assert_close(out, lse, *ref(c, 0.09))
    for seed in (1, 2, 3):
        qo, kv, idx = _new_contents(c, seed)
        c["qo_indptr"].copy_(torch.tensor(qo, dtype=torch.int32))
        c["kv_indptr"].copy_(torch.tensor(kv, dtype=torch.int32))
        c["kv_indices"].copy_(idx)
        c["q"].normal_()
        c["qo"], c["kv"] = qo, kv
        out.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        assert_close(out, lse, *ref(c, 0.09))


def test_graph_after_prepare_on_own_stream():
    c = make([33, 200], [33, 260], seed=12)
    s = torch.cuda.Stream()
    info = pagedattn.prepare(DEV, s)
    assert info["workspace_bytes"] > 0
    out, lse = poisoned(c["q"].shape[0])
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        pagedattn.run(*args(c), 0.09, out, lse)
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    assert_close(out, lse, *ref(c, 0.09))


def test_two_streams_at_once():
    cs = [make([500, 300], [700, 300], seed=20), make([64] * 30, [128] * 30, seed=21)]
    refs = [ref(c, 0.08) for c in cs]
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    outs = [poisoned(c["q"].shape[0]) for c in cs]
    torch.cuda.synchronize()
    for _ in range(20):  # interleaved launches on both streams, overlapping on the GPU
        for c, s, (o, l) in zip(cs, streams, outs):
            with torch.cuda.stream(s):
                pagedattn.run(*args(c), 0.08, o, l)
    torch.cuda.synchronize()
    for (o, l), r in zip(outs, refs):
        assert_close(o, l, *r)


def test_two_threads_two_streams():
    cs = [make([200, 100], [250, 100], seed=30 + i) for i in range(2)]
    refs = [ref(c, 0.08) for c in cs]
    outs = [poisoned(c["q"].shape[0]) for c in cs]
    errors = []

    def work(i):
        try:
            s = torch.cuda.Stream()
            with torch.cuda.stream(s):
                for _ in range(50):
                    pagedattn.run(*args(cs[i]), 0.08, *outs[i])
            s.synchronize()
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors
    for (o, l), r in zip(outs, refs):
        assert_close(o, l, *r)


def test_checked_mode_and_device_errors():
    c = make([20, 30], [20, 30], num_pages=64, seed=40)
    out, lse = poisoned(50)
    pagedattn.run_checked(*args(c), 0.09, out, lse)  # good data: no error
    bad = dict(c)
    bad["kv_indices"] = c["kv_indices"].clone()
    bad["kv_indices"][7] = 64  # == num_pages: out of range, only visible on the device
    with pytest.raises(pagedattn.DeviceIndexError):
        pagedattn.run_checked(*args(bad), 0.09, out, lse)
    assert issubclass(pagedattn.DeviceIndexError, ValueError)
    pagedattn.run_checked(*args(c), 0.09, out, lse)  # the flag was cleared
    pagedattn.run(*args(bad), 0.09, out, lse)  # unchecked: no error here...
    with pytest.raises(pagedattn.DeviceIndexError):
        pagedattn.take_device_errors()  # ...but reported by the check
    pagedattn.take_device_errors()  # cleared
    bad_ptr = dict(c)
    # past the end of kv_indices (50 entries): only visible on the device
    bad_ptr["kv_indptr"] = torch.tensor([0, 25, 60], dtype=torch.int32, device=DEV)
    with pytest.raises(pagedattn.DeviceIndexError):
        pagedattn.run_checked(*args(bad_ptr), 0.09, out, lse)


def test_checked_refused_during_capture():
    c = make([8], [8], seed=41)
    out, lse = poisoned(8)
    s = torch.cuda.Stream()
    pagedattn.prepare(DEV, s)
    g = torch.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="capturing"):
        with torch.cuda.graph(g, stream=s):
            pagedattn.run(*args(c), 0.09, out, lse, checked=True)


def test_gpu_errors_name_the_argument():
    c = make([5, 3], [7, 3], seed=50)
    out, lse = poisoned(8)
    a = args(c)
    cases = [
        (TypeError, "k_cache", lambda: pagedattn.run(a[0], a[1].half(), *a[2:], 0.1, out, lse)),
        (TypeError, "kv_indices", lambda: pagedattn.run(*a[:5], a[5].long(), 0.1, out, lse)),
        (TypeError, "lse", lambda: pagedattn.run(*a, 0.1, out, lse.double())),
        (ValueError, "v_cache", lambda: pagedattn.run(a[0], a[1], a[2].cpu(), *a[3:], 0.1, out, lse)),
        (ValueError, "output", lambda: pagedattn.run(*a, 0.1, out.cpu(), lse)),
        (ValueError, "q", lambda: pagedattn.run(a[0][:, :16], *a[1:], 0.1, out, lse)),
        (ValueError, "output", lambda: pagedattn.run(*a, 0.1, out.transpose(0, 1).contiguous().transpose(0, 1), lse)),
        (ValueError, "lse", lambda: pagedattn.run(*a, 0.1, out, lse[:, :20])),
        (ValueError, "kv_indptr", lambda: pagedattn.run(*a[:4], a[4][:2], a[5], 0.1, out, lse)),
        (ValueError, "output", lambda: pagedattn.run(*a, 0.1, a[0], lse)),  # output aliases q
        (ValueError, "sm_scale", lambda: pagedattn.run(*a, float("nan"), out, lse)),
        (TypeError, "v_cache", lambda: pagedattn.run(a[0], a[1], [1, 2], *a[3:], 0.1, out, lse)),
    ]
    for exc, name, f in cases:
        with pytest.raises(exc) as e:
            f()
        assert f"`{name}" in str(e.value), (name, str(e.value))
    # output overlapping lse's memory
    raw = torch.empty(8 * 24 * 128 * 2, dtype=torch.uint8, device=DEV)
    o = raw.view(torch.bfloat16).view(8, 24, 128)
    l = raw[: 8 * 24 * 4].view(torch.float32).view(8, 24)
    with pytest.raises(ValueError, match="overlaps"):
        pagedattn.run(*a, 0.1, o, l)


def test_tensor_reads_fast_and_attribute_paths_agree():
    """torch >= 2.10 tensors are read through torch's DLPack C exchange API;
    subclasses (nn.Parameter) and refused views take the attribute path. Both
    give the same launch: bitwise equal outputs; offsets into a larger
    buffer and size-1 dimensions with any stride are read correctly."""
    major, minor = (int(x) for x in torch.__version__.split(".")[:2])
    if (major, minor) >= (2, 10):
        assert pagedattn._native._torch_fast_path()
    c = make([9, 40], [20, 40], seed=77)
    a = args(c)
    out, lse = poisoned(49)
    pagedattn.run(*a, 0.1, out, lse)
    p = [torch.nn.Parameter(x, requires_grad=False) for x in a]
    out2, lse2 = poisoned(49)
    pagedattn.run(*p, 0.1, out2, lse2)
    big = torch.full((60, H_Q, D), float("nan"), dtype=torch.bfloat16, device=DEV)
    out3 = big[5:54]  # contiguous, storage offset 5 rows
    assert out3.is_contiguous() and out3.storage_offset() > 0
    lse3 = torch.full((49, H_Q), float("nan"), dtype=torch.float32, device=DEV)
    k4 = c["k_cache"].as_strided(c["k_cache"].shape, (H_KV * D, 7, D, 1))  # size-1 dim, odd stride
    assert k4.is_contiguous()
    pagedattn.run(a[0], k4, *a[2:], 0.1, out3, lse3)
    torch.cuda.synchronize()
    assert_close(out, lse, *ref(c, 0.1))
    for o, l in ((out2, lse2), (out3, lse3)):
        assert torch.equal(o, out) and torch.equal(l, lse)
    assert torch.isnan(big[:5]).all() and torch.isnan(big[54:]).all()


def test_bind():
    c = make([30, 50], [40, 50], seed=90)
    out, lse = poisoned(80)
    call = pagedattn.bind(*args(c), 0.09, out, lse)
    assert isinstance(call, pagedattn.BoundCall) and call.device == 0
    call()
    torch.cuda.synchronize()
    assert_close(out, lse, *ref(c, 0.09))
    c["q"].normal_()  # new contents, same tensors
    call(checked=True)
    assert_close(out, lse, *ref(c, 0.09))
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    call_s = pagedattn.bind(*args(c), 0.09, out, lse, stream=s)
    with torch.cuda.graph(g, stream=s):
        call_s()
    c["q"].normal_()
    g.replay()
    torch.cuda.synchronize()
    assert_close(out, lse, *ref(c, 0.09))
    with pytest.raises(ValueError, match="CUDA"):
        pagedattn.bind(*[x.cpu() for x in args(c)], 0.09, out.cpu(), lse.cpu())


def test_cpu_and_gpu_agree():
    c = make([40, 13], [60, 13], seed=60)
    out, lse = pagedattn.attention(*args(c), 0.09)
    cpu = [x.cpu() for x in args(c)]
    out_c, lse_c = pagedattn.attention(*cpu, 0.09)
    torch.cuda.synchronize()
    assert_close(out.cpu(), lse.cpu(), out_c.float(), lse_c)


# ---------------------------------------------------------------- drop-in wrapper

def wrapper_run(c, kv_cache, sm_scale, cls=pagedattn.BatchPrefillWithPagedKVCacheWrapper, ws=None):
    ws = ws if ws is not None else torch.empty(128 << 20, dtype=torch.uint8, device=DEV)
    w = cls(ws, "NHD")
    batch = len(c["qo"]) - 1
    w.plan(c["qo_indptr"], c["kv_indptr"], c["kv_indices"], torch.ones(batch, dtype=torch.int32, device=DEV),
           24, 4, 128, 1, causal=True, sm_scale=sm_scale, q_data_type=torch.bfloat16,
           kv_data_type=torch.bfloat16)
    return w.run(c["q"], kv_cache, return_lse=True)


def test_wrapper_tuple_and_single_tensor():
    c = make([70, 30], [90, 30], seed=70)
    r = ref(c, 0.09)
    o1, l1 = wrapper_run(c, (c["k_cache"], c["v_cache"]), 0.09)
    kv = torch.stack([c["k_cache"], c["v_cache"]], dim=1).contiguous()
    o2, l2 = wrapper_run(c, kv, 0.09)
    torch.cuda.synchronize()
    assert_close(o1, l1, *r)
    assert torch.equal(o1, o2) and torch.equal(l1, l2)


def _flashinfer():
    try:
        from flashinfer.prefill import BatchPrefillWithPagedKVCacheWrapper as FI
        return FI
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"FlashInfer is not importable here: {type(e).__name__}: {e}")


@pytest.mark.parametrize("w", SEEDS, ids=[w["name"] for w in SEEDS])
def test_wrapper_matches_flashinfer(w):
    FI = _flashinfer()
    c = seed_inputs(w)
    ours = wrapper_run(c, (c["k_cache"], c["v_cache"]), w["sm_scale"])
    theirs = wrapper_run(c, (c["k_cache"], c["v_cache"]), w["sm_scale"], cls=FI)
    torch.cuda.synchronize()
    # Both within the suite's bound of each other (and of the fp32 reference).
    assert_close(ours[0], ours[1], theirs[0].float(), theirs[1].float())
    assert_close(ours[0], ours[1], *ref(c, w["sm_scale"]))


# ---------------------------------------------------------------- host plans

@pytest.mark.parametrize("case", sorted(CASES))
def test_host_plan_is_bitwise_the_device_plan(case):
    """pagedattn.plan + run(plan=...) skips the kernel's planning step: same
    work units in the same order, so the same bits as the unplanned call."""
    c = make(*CASES[case], seed=3 + len(case))
    p = pagedattn.plan(c["qo"], c["kv"], device=0)
    assert p.device == 0 and p.config in ("m64", "m128", "m128d", "m128dv", "m192")
    out_d, lse_d = poisoned(c["q"].shape[0])
    pagedattn.run(*args(c), 0.0883883, out_d, lse_d)
    out_h, lse_h = poisoned(c["q"].shape[0])
    pagedattn.run(*args(c), 0.0883883, out_h, lse_h, plan=p)
    torch.cuda.synchronize()
    assert torch.equal(out_h, out_d) and torch.equal(lse_h, lse_d)
    assert_close(out_h, lse_h, *ref(c, 0.0883883))


def test_host_plan_refuses_other_calls():
    c = make([40, 13], [60, 13], seed=61)
    other = pagedattn.plan([0, 41, 54], [0, 60, 73], device=0)
    out, lse = poisoned(c["q"].shape[0])
    with pytest.raises(ValueError, match="plan"):
        pagedattn.run(*args(c), 0.09, out, lse, plan=other)
    with pytest.raises(ValueError):
        pagedattn.plan([0, 5, 3], [0, 5, 5], device=0)  # decreasing qo_indptr


def test_wrapper_host_indptrs_plan_on_the_host():
    """FlashInfer's callers often pass host index tensors to plan(): the
    wrapper copies them to the device and plans there once; same bits as
    with CUDA index tensors."""
    c = make([300, 20, 0, 77], [300, 500, 9, 77], seed=62)
    ws = torch.empty(128 << 20, dtype=torch.uint8, device=DEV)
    batch = len(c["qo"]) - 1
    results = []
    for where in ("cuda", "cpu"):
        w = pagedattn.BatchPrefillWithPagedKVCacheWrapper(ws, "NHD")
        w.plan(c["qo_indptr"].to(where), c["kv_indptr"].to(where), c["kv_indices"].to(where),
               torch.ones(batch, dtype=torch.int32, device=where), 24, 4, 128, 1, causal=True,
               sm_scale=0.09, q_data_type=torch.bfloat16)
        assert (w._host_plan is not None) == (where == "cpu")
        results.append(w.run(c["q"], (c["k_cache"], c["v_cache"]), return_lse=True))
    torch.cuda.synchronize()
    assert torch.equal(results[0][0], results[1][0]) and torch.equal(results[0][1], results[1][1])
    assert_close(*results[1], *ref(c, 0.09))


# ---------------------------------------------------------------- DLPack producers

class Foreign:
    """A CUDA array that is not a torch.Tensor: only the DLPack protocol."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_dlpack_producer():
    c = make([25, 40], [25, 60], seed=80)
    r = ref(c, 0.09)
    out, lse = poisoned(65)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    pagedattn.run(*[Foreign(x) for x in args(c)], 0.09, Foreign(out), Foreign(lse), stream=s)
    s.synchronize()
    assert_close(out, lse, *r)
    with pytest.raises(TypeError, match="`kv_indices`"):
        pagedattn.run(*[Foreign(x) for x in args(c)[:5]], Foreign(c["kv_indices"].long()), 0.09,
                      Foreign(out), Foreign(lse), stream=s)
    with pytest.raises(ValueError, match="`output`"):
        pagedattn.run(*[Foreign(x) for x in args(c)], 0.09, Foreign(out.transpose(0, 1).contiguous().transpose(0, 1)),
                      Foreign(lse), stream=s)
