#!/usr/bin/env python3
"""Offline check of the suite files without a GPU (needs torch, flashinfer-bench,
safetensors and pagedattn installed): builds the trace set run_suite.py would,
loads it with the suite's TraceSet (schema validation), builds our solution with
the suite's BuilderRegistry (import + signature check), draws inputs with the
suite's gen_inputs on the CPU, and compares the definition's reference with our
solution (CPU backend) by the suite's compute_error_stats.
  python3 bench/flashinfer-bench/check_offline.py [--only seed00 seed02]"""
import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_suite  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=["seed00", "seed01", "seed02"])
    args = ap.parse_args()
    import torch
    from flashinfer_bench import TraceSet
    try:
        from flashinfer_bench.bench.config import ResolvedEvalConfig
    except ImportError:  # flashinfer-bench 0.1.2
        from flashinfer_bench.bench.config import BenchmarkConfig as ResolvedEvalConfig
    from flashinfer_bench.bench.evaluators.utils import allocate_outputs
    from flashinfer_bench.bench.utils import compute_error_stats, gen_inputs, load_safetensors
    from flashinfer_bench.compile import BuilderRegistry

    root = Path(tempfile.mkdtemp()) / "trace_set"
    names = run_suite.build_trace_set(root, [run_suite.REPO / "workloads" / "seed.jsonl"], args.only)
    ts = TraceSet.from_path(str(root))
    d = ts.definitions[run_suite.DEF_NAME]
    sols = {s.name: s for s in ts.solutions[run_suite.DEF_NAME]}
    assert set(sols) == {run_suite.OURS, run_suite.BASE}, sols.keys()
    reg = BuilderRegistry.get_instance()
    ref = reg.build_reference(d)
    ours = reg.build(d, sols[run_suite.OURS])
    cfg = ResolvedEvalConfig()
    ok = True
    for wt in ts.workloads[run_suite.DEF_NAME]:
        w = wt.workload
        st = load_safetensors(d, w, root)
        inp = gen_inputs(d, w, device="cpu", safe_tensors=st)
        r_out = ref(*inp)
        out = allocate_outputs(d, inp, "cpu")
        ours(*inp, *out)
        for name, a, b in zip(("output", "lse"), out, r_out):
            abs_e, rel_e, bad, ratio = compute_error_stats(a, b, cfg)
            fin = bool(torch.isfinite(a).all())
            print(f"{w.uuid:24s} {name:6s} max_abs={abs_e:.3g} max_rel={rel_e:.3g} exceeds={bad} finite={fin}")
            ok &= (not bad) and fin
    print("OK" if ok else "FAILED", len(names), "workloads")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
