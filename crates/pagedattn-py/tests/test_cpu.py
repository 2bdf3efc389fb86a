"""CPU path (numpy arrays, and torch CPU tensors where torch is installed):
results against the naive reference of _reference.py, and every error case."""

import math

import ml_dtypes
import numpy as np
import pytest

import pagedattn
from _reference import H_KV, H_Q, D, check_close, make_case, reference

BF16 = np.dtype(ml_dtypes.bfloat16)


def inputs(q_lens, kv_lens, seed=0, repeat_pages=False, num_pages=None):
    rng = np.random.default_rng(seed)
    qo, kv, idx, total_q, num_pages = make_case(rng, q_lens, kv_lens, num_pages, repeat_pages)
    q = rng.standard_normal((total_q, H_Q, D), dtype=np.float32).astype(BF16)
    k = rng.standard_normal((num_pages, 1, H_KV, D), dtype=np.float32).astype(BF16)
    v = rng.standard_normal((num_pages, 1, H_KV, D), dtype=np.float32).astype(BF16)
    return dict(q=q, k_cache=k, v_cache=v, qo_indptr=qo, kv_indptr=kv, kv_indices=idx)


def outputs(total_q):
    # Poisoned: every element must be written.
    out = np.full((total_q, H_Q, D), np.nan, dtype=np.float32).astype(BF16)
    lse = np.full((total_q, H_Q), np.nan, dtype=np.float32)
    return out, lse


def ref_of(a, sm_scale):
    return reference(a["q"].astype(np.float32), a["k_cache"].astype(np.float32),
                     a["v_cache"].astype(np.float32), a["qo_indptr"], a["kv_indptr"],
                     a["kv_indices"], sm_scale)


def call(a, out, lse, sm_scale=0.0883883):
    pagedattn.run(a["q"], a["k_cache"], a["v_cache"], a["qo_indptr"], a["kv_indptr"],
                  a["kv_indices"], sm_scale, out, lse)


CASES = {
    "one_token": ([1], [1]),
    "kv_eq_q": ([37, 5, 64], [37, 5, 64]),
    "kv_gt_q_prefix": ([3, 20], [50, 33]),
    "q_gt_kv": ([10, 40], [4, 1]),  # rows that see no key: 0 / -inf
    "empty_q_seq": ([0, 9, 0], [12, 9, 3]),
    "empty_kv_seq": ([6, 4], [0, 4]),
    "all_empty": ([0, 0], [0, 0]),
    "long_one": ([130], [200]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_reference(case):
    q_lens, kv_lens = CASES[case]
    a = inputs(q_lens, kv_lens, seed=hash(case) % 1000)
    out, lse = outputs(a["q"].shape[0])
    call(a, out, lse, 0.0883883)
    check_close(out.astype(np.float32), lse, *ref_of(a, np.float32(0.0883883)))


def test_repeated_pages_any_order():
    a = inputs([17, 8, 30], [25, 8, 30], seed=3, repeat_pages=True, num_pages=9)
    assert len(set(a["kv_indices"].tolist())) < len(a["kv_indices"])  # repeats happen
    out, lse = outputs(a["q"].shape[0])
    call(a, out, lse, 0.1)
    check_close(out.astype(np.float32), lse, *ref_of(a, np.float32(0.1)))


def test_no_sequences():
    a = inputs([], [])
    assert a["q"].shape == (0, H_Q, D) and a["qo_indptr"].tolist() == [0]
    out, lse = outputs(0)
    call(a, out, lse)


def test_three_dim_caches_and_default_scale():
    a = inputs([12, 3], [20, 3], seed=5)
    a3 = dict(a, k_cache=a["k_cache"].reshape(-1, H_KV, D), v_cache=a["v_cache"].reshape(-1, H_KV, D))
    out, lse = pagedattn.attention(**a3)  # sm_scale defaults to 1/sqrt(128)
    assert out.dtype == BF16 and out.shape == a["q"].shape
    assert lse.dtype == np.float32 and lse.shape == a["q"].shape[:2]
    check_close(out.astype(np.float32), lse, *ref_of(a, np.float32(1 / math.sqrt(128))))
    assert abs(pagedattn.DEFAULT_SM_SCALE - 1 / math.sqrt(128)) < 1e-7


def test_run_checked_on_cpu_is_run():
    a = inputs([4], [6], seed=9)
    out, lse = outputs(4)
    pagedattn.run_checked(a["q"], a["k_cache"], a["v_cache"], a["qo_indptr"], a["kv_indptr"],
                          a["kv_indices"], 0.09, out, lse)
    check_close(out.astype(np.float32), lse, *ref_of(a, np.float32(0.09)))


def test_build_info():
    info = pagedattn.build_info()
    assert info["version"] == pagedattn.__version__
    assert isinstance(info["kernels"], bool)


# ---------------------------------------------------------------- errors

def base():
    a = inputs([5, 3], [7, 3], seed=11)
    out, lse = outputs(8)
    return dict(a, sm_scale=0.08, output=out, lse=lse)


ORDER = ("q", "k_cache", "v_cache", "qo_indptr", "kv_indptr", "kv_indices", "sm_scale", "output", "lse")


def go(a):
    pagedattn.run(*[a[k] for k in ORDER])


def expect(exc, a, *names):
    with pytest.raises(exc) as e:
        go(a)
    msg = str(e.value)
    for n in names:
        assert f"`{n}" in msg, f"{n!r} not named in: {msg}"
    return msg


@pytest.mark.parametrize("name,bad_dtype", [
    ("q", np.float32), ("k_cache", np.float16), ("v_cache", np.float32),
    ("qo_indptr", np.int64), ("kv_indptr", np.float32), ("kv_indices", np.int64),
    ("output", np.float32), ("lse", np.float64),
])
def test_wrong_dtype(name, bad_dtype):
    a = base()
    a[name] = a[name].astype(np.float32).astype(bad_dtype)
    expect(TypeError, a, name)


def test_big_endian_indices():
    a = base()
    a["kv_indices"] = a["kv_indices"].astype(">i4")
    expect(TypeError, a, "kv_indices")


@pytest.mark.parametrize("name,shape", [
    ("q", (8, 32, 128)), ("q", (8, 24)), ("k_cache", (16, 2, 4, 128)), ("k_cache", (16, 1, 8, 128)),
    ("v_cache", (16, 1, 4, 64)), ("qo_indptr", (3, 1)), ("kv_indices", (10, 1)),
    ("output", (8, 24, 64)), ("output", (7, 24, 128)), ("lse", (8, 23)), ("lse", (8, 24, 1)),
])
def test_wrong_shape(name, shape):
    a = base()
    dt = a[name].dtype
    a[name] = np.zeros(shape, dtype=np.float32).astype(dt)
    expect(ValueError, a, name)


def test_cache_page_counts_differ():
    a = base()
    a["v_cache"] = a["v_cache"][:-1]
    expect(ValueError, a, "v_cache")


def test_indptr_lengths_differ():
    a = base()
    a["kv_indptr"] = np.array([0, 10], dtype=np.int32)
    expect(ValueError, a, "kv_indptr")


def test_empty_indptr():
    a = base()
    a["qo_indptr"] = np.zeros(0, dtype=np.int32)
    a["kv_indptr"] = np.zeros(0, dtype=np.int32)
    expect(ValueError, a, "qo_indptr")


@pytest.mark.parametrize("name", ["q", "k_cache", "output", "lse"])
def test_non_contiguous(name):
    a = base()
    x = a[name]
    bigger = np.zeros(x.shape[:-1] + (2 * x.shape[-1],), dtype=x.dtype)
    a[name] = bigger[..., ::2]
    assert a[name].shape == x.shape and not a[name].flags.c_contiguous
    expect(ValueError, a, name)


@pytest.mark.parametrize("name", ["output", "lse"])
def test_read_only_output(name):
    a = base()
    a[name].setflags(write=False)
    expect(ValueError, a, name)


def test_output_aliases_q():
    a = base()
    a["output"] = a["q"]
    expect(ValueError, a, "output", "q")


def test_lse_aliases_output():
    a = base()
    raw = np.zeros(8 * 24 * 128 * 2, dtype=np.uint8)
    a["output"] = raw.view(BF16).reshape(8, 24, 128)
    a["lse"] = raw[: 8 * 24 * 4].view(np.float32).reshape(8, 24)
    expect(ValueError, a, "output", "lse")


def test_lse_aliases_kv_indices():
    a = base()
    raw = np.zeros(8 * 24, dtype=np.int32)
    raw[: len(a["kv_indices"])] = a["kv_indices"]
    a["kv_indices"] = raw[: len(a["kv_indices"])]
    a["lse"] = raw.view(np.float32).reshape(8, 24)
    expect(ValueError, a, "lse", "kv_indices")


@pytest.mark.parametrize("name,values", [
    ("qo_indptr", [1, 5, 8]),   # first entry not 0
    ("qo_indptr", [0, 6, 5]),   # decreasing, and wrong total
    ("qo_indptr", [0, 5, 9]),   # last != total_q
    ("kv_indptr", [0, 7, 11]),  # last != num_kv_indices
    ("kv_indptr", [0, -1, 10]),  # negative
])
def test_bad_indptr(name, values):
    a = base()
    a[name] = np.array(values, dtype=np.int32)
    expect(ValueError, a, name)


@pytest.mark.parametrize("page", [None, 10_000, -1])
def test_page_out_of_range(page):
    a = base()
    if page is None:
        page = a["k_cache"].shape[0]  # == num_pages: the first id out of range
    a["kv_indices"] = a["kv_indices"].copy()
    a["kv_indices"][4] = page
    msg = expect(ValueError, a, "kv_indices")
    assert str(page) in msg


@pytest.mark.parametrize("value,exc", [(float("nan"), ValueError), (float("inf"), ValueError),
                                       ("0.1", TypeError), (object(), TypeError)])
def test_bad_sm_scale(value, exc):
    a = base()
    a["sm_scale"] = value
    expect(exc, a, "sm_scale")


def test_not_an_array():
    a = base()
    a["q"] = a["q"].astype(np.float32).tolist()
    expect(TypeError, a, "q")
    a = base()
    a["kv_indices"] = a["kv_indices"].tolist()
    expect(TypeError, a, "kv_indices")


def test_attention_rejects_scalar_q():
    with pytest.raises(TypeError):
        pagedattn.attention(1.0, None, None, None, None, None)


# ---------------------------------------------------------------- wrapper (no torch needed to plan)

def plan_args(**over):
    a = base()
    kw = dict(qo_indptr=a["qo_indptr"], paged_kv_indptr=a["kv_indptr"],
              paged_kv_indices=a["kv_indices"], paged_kv_last_page_len=np.ones(2, np.int32),
              num_qo_heads=24, num_kv_heads=4, head_dim_qk=128, page_size=1, causal=True,
              q_data_type="bfloat16")
    kw.update(over)
    return kw


@pytest.mark.parametrize("over,what", [
    (dict(num_qo_heads=32), "num_qo_heads=32"), (dict(num_kv_heads=8), "num_kv_heads=8"),
    (dict(head_dim_qk=64), "head_dim_qk=64"), (dict(page_size=16), "page_size=16"),
    (dict(causal=False), "causal=False"), (dict(pos_encoding_mode="ROPE_LLAMA"), "pos_encoding_mode"),
    (dict(q_data_type="float16"), "q_data_type"), (dict(kv_data_type="float8_e4m3fn"), "kv_data_type"),
    (dict(logits_soft_cap=30.0), "logits_soft_cap"), (dict(window_left=128), "window_left"),
    (dict(custom_mask=np.ones(3, bool)), "custom masks"), (dict(head_dim_vo=64), "head_dim_vo"),
    (dict(use_fp16_qk_reduction=True), "use_fp16_qk_reduction"),
])
def test_wrapper_outside_definition(over, what):
    w = pagedattn.BatchPrefillWithPagedKVCacheWrapper(None, "NHD")
    with pytest.raises(NotImplementedError) as e:
        w.plan(**plan_args(**over))
    assert what in str(e.value) and "supports" in str(e.value)


def test_wrapper_layout_and_order():
    with pytest.raises(NotImplementedError, match="kv_layout"):
        pagedattn.BatchPrefillWithPagedKVCacheWrapper(None, "HND")
    w = pagedattn.BatchPrefillWithPagedKVCacheWrapper(None)
    with pytest.raises(RuntimeError, match="plan"):
        w.run(None, None)
    w.plan(**plan_args(head_dim_qk=None, head_dim=128))  # alias accepted
    with pytest.raises(NotImplementedError, match="lse_layout"):
        w.run(None, None, lse_layout="HN")
    with pytest.raises(NotImplementedError, match="sinks"):
        w.run(None, None, sinks=np.zeros(24))
    with pytest.raises(ValueError, match="paged_kv_last_page_len"):
        w.plan(**plan_args(paged_kv_last_page_len=np.ones(3, np.int32)))


# ---------------------------------------------------------------- torch CPU tensors

def test_torch_cpu_tensors_and_wrapper():
    torch = pytest.importorskip("torch")
    a = inputs([9, 0, 21], [15, 4, 21], seed=21)
    t = {k: torch.from_numpy(v.view(np.int16)).view(torch.bfloat16) if v.dtype == BF16 else torch.from_numpy(v)
         for k, v in a.items()}
    out = torch.full(t["q"].shape, float("nan"), dtype=torch.bfloat16)
    lse = torch.full(t["q"].shape[:2], float("nan"), dtype=torch.float32)
    pagedattn.run(t["q"], t["k_cache"], t["v_cache"], t["qo_indptr"], t["kv_indptr"], t["kv_indices"],
                  0.07, out, lse)
    ref = ref_of(a, np.float32(0.07))
    check_close(out.float().numpy(), lse.numpy(), *ref)
    out2, lse2 = pagedattn.attention(t["q"], t["k_cache"], t["v_cache"], t["qo_indptr"], t["kv_indptr"],
                                     t["kv_indices"], 0.07)
    assert isinstance(out2, torch.Tensor) and torch.equal(out2, out) and torch.equal(lse2, lse)

    w = pagedattn.BatchPrefillWithPagedKVCacheWrapper(torch.empty(1, dtype=torch.uint8), "NHD")
    w.plan(t["qo_indptr"], t["kv_indptr"], t["kv_indices"], torch.ones(3, dtype=torch.int32), 24, 4, 128, 1,
           causal=True, sm_scale=0.07, q_data_type=torch.bfloat16)
    o3, l3 = w.run(t["q"], (t["k_cache"], t["v_cache"]), return_lse=True)
    assert torch.equal(o3, out) and torch.equal(l3, lse)
    kv = torch.stack([t["k_cache"], t["v_cache"]], dim=1)  # [N, 2, 1, 4, 128]
    o4 = w.run(t["q"], kv)
    assert torch.equal(o4, out)
    _, l5 = w.run(t["q"], kv, return_lse=True, lse_base="ln")
    fin = torch.isfinite(lse)
    assert torch.allclose(l5[fin], lse[fin] * math.log(2.0))

    with pytest.raises(TypeError, match="`k_cache`"):
        pagedattn.run(t["q"], t["k_cache"].float(), t["v_cache"], t["qo_indptr"], t["kv_indptr"],
                      t["kv_indices"], 0.07, out, lse)
    with pytest.raises(ValueError, match="`output`"):
        pagedattn.run(t["q"], t["k_cache"], t["v_cache"], t["qo_indptr"], t["kv_indptr"],
                      t["kv_indices"], 0.07, out.transpose(0, 1).contiguous().transpose(0, 1), lse)


def test_without_a_driver():
    if pagedattn.build_info()["driver_present"]:
        pytest.skip("libcuda is present here")
    with pytest.raises(RuntimeError, match="libcuda"):
        pagedattn.prepare(0)
    pagedattn.take_device_errors(0)  # nothing ever launched: no error


def test_run_dps_has_the_definitions_nine_parameters():
    import inspect

    params = inspect.signature(pagedattn.run_dps).parameters
    assert list(params) == ["q", "k_cache", "v_cache", "qo_indptr", "kv_indptr", "kv_indices", "sm_scale",
                            "output", "lse"]
    a = inputs([6], [9], seed=13)
    out, lse = outputs(6)
    pagedattn.run_dps(a["q"], a["k_cache"], a["v_cache"], a["qo_indptr"], a["kv_indptr"], a["kv_indices"],
                      0.09, out, lse)
    check_close(out.astype(np.float32), lse, *ref_of(a, np.float32(0.09)))
