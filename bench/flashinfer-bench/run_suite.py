#!/usr/bin/env python3
"""Runs FlashInfer-Bench's own benchmark and evaluator (its Benchmark class,
persistent runner, DefaultEvaluator and timing) on our workload files, for
pagedattn's solution and FlashInfer's wrapper baseline in one call, and prints
a table: per workload the suite's latency and status of both, the speedup
(baseline / ours) and the geomean. Writes suite_results.json and
suite_results.md under --out. Needs a CUDA GPU; see device_run.sh.

Workloads: every line of workloads/*.jsonl becomes a suite workload whose
q, k_cache and v_cache are "random" (drawn by the suite: randn bf16) and
whose qo_indptr, kv_indptr and kv_indices are safetensors blobs from the
file; sm_scale is a scalar.
"""
import argparse
import json
import math
import os
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEF_NAME = "gqa_paged_prefill_causal_h24_kv4_d128_ps1"
OP_TYPE = "gqa_paged"
OURS, BASE = "pagedattn", "flashinfer_wrapper"


def build_trace_set(root: Path, workload_files, only=None):
    """Definition, both solutions and the workloads (with their index blobs)
    laid out as a FlashInfer-Trace dataset under `root`."""
    import torch
    from safetensors.torch import save_file

    if root.exists():
        shutil.rmtree(root)
    (root / "definitions" / OP_TYPE).mkdir(parents=True)
    shutil.copy(HERE / f"{DEF_NAME}.json", root / "definitions" / OP_TYPE / f"{DEF_NAME}.json")
    for sol, author in ((OURS, "pagedattn"), (BASE, "flashinfer")):
        d = root / "solutions" / author / OP_TYPE / DEF_NAME
        d.mkdir(parents=True)
        shutil.copy(HERE / f"solution_{sol}.json", d / f"{sol}.json")
    blob_dir = root / "blob" / "workloads" / OP_TYPE / DEF_NAME
    blob_dir.mkdir(parents=True)
    wl_dir = root / "workloads" / OP_TYPE
    wl_dir.mkdir(parents=True)
    names = []
    with open(wl_dir / f"{DEF_NAME}.jsonl", "w") as out:
        for path in workload_files:
            for line in open(path):
                if not line.strip():
                    continue
                w = json.loads(line)
                if only and not any(o in w["name"] for o in only):
                    continue
                blob = blob_dir / f"{w['name']}.safetensors"
                save_file({k: torch.tensor(w[k], dtype=torch.int32)
                           for k in ("qo_indptr", "kv_indptr", "kv_indices")}, str(blob))
                rel = str(blob.relative_to(root))
                trace = {
                    "definition": DEF_NAME,
                    "workload": {
                        "uuid": w["name"],
                        "axes": {"len_indptr": len(w["qo_indptr"]), "total_q": w["total_q"],
                                 "num_kv_indices": len(w["kv_indices"]), "num_pages": w["num_pages"]},
                        "inputs": {
                            "q": {"type": "random"}, "k_cache": {"type": "random"},
                            "v_cache": {"type": "random"},
                            **{k: {"type": "safetensors", "path": rel, "tensor_key": k}
                               for k in ("qo_indptr", "kv_indptr", "kv_indices")},
                            "sm_scale": {"type": "scalar", "value": w["sm_scale"]},
                        },
                    },
                    "solution": None,
                    "evaluation": None,
                }
                out.write(json.dumps(trace) + "\n")
                names.append(w["name"])
    return names


def versions():
    import importlib.metadata as md

    v = {}
    for p in ("flashinfer-bench", "flashinfer-python", "pagedattn", "torch", "apache-tvm-ffi",
              "cupti-python", "pydantic"):
        try:
            v[p] = md.version(p)
        except md.PackageNotFoundError:
            v[p] = None
    try:
        import flashinfer_bench

        v["flashinfer_bench.__version__"] = getattr(flashinfer_bench, "__version__", None)
        v["flashinfer_bench.path"] = os.path.dirname(flashinfer_bench.__file__)
    except Exception as e:  # noqa: BLE001
        v["flashinfer_bench.error"] = repr(e)
    try:
        import pagedattn

        v["pagedattn.build"] = {k: x for k, x in pagedattn.build_info().items() if k != "ptxas_report"}
    except Exception as e:  # noqa: BLE001
        v["pagedattn.error"] = repr(e)
    return v


def timing_protocol():
    """What this flashinfer-bench's time_runnable does, read from its source."""
    import inspect

    from flashinfer_bench.bench import timing

    src = inspect.getsource(timing)
    if "bench_gpu_time_with_cupti" in src:
        return ("CUPTI span of one call (first kernel start to last kernel end, copies included), "
                "L2 flushed before each call, no CUDA graph; median of the timed calls per trial, "
                "mean over trials")
    return ("CUDA events around one call after a device synchronise (host launch time included), "
            "L2 flushed before each call, arguments cloned outside the timed region; mean per trial, "
            "mean over trials")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", nargs="+", default=[str(REPO / "workloads" / "seed.jsonl")])
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/suite_out"))
    ap.add_argument("--only", nargs="*", help="substrings of workload names to keep")
    ap.add_argument("--warmup", type=int, default=None, help="override the suite's warm-up runs (default 10)")
    ap.add_argument("--iterations", type=int, default=None, help="override timed runs per trial (default 50)")
    ap.add_argument("--trials", type=int, default=None, help="override trials (default 3)")
    ap.add_argument("--profile-reference", action="store_true",
                    help="also time the definition's reference (slow; off by default)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per solution evaluation")
    args = ap.parse_args()

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    root = out / "trace_set"
    t0 = time.time()
    names = build_trace_set(root, args.workloads, args.only)
    print(f"trace set with {len(names)} workloads at {root}", flush=True)

    import logging

    from flashinfer_bench import Benchmark, BenchmarkConfig, TraceSet

    logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(levelname)s %(name)s: %(message)s")
    over = {k: v for k, v in (("warmup_runs", args.warmup), ("iterations", args.iterations),
                              ("num_trials", args.trials)) if v is not None}
    cfg = BenchmarkConfig(profile_baseline=args.profile_reference, timeout_seconds=args.timeout, **over)
    ts = TraceSet.from_path(str(root))
    bench = Benchmark(ts, cfg)
    try:
        result = bench.run_all(dump_traces=True)
    finally:
        bench.close()
    traces = result.traces.get(DEF_NAME, [])

    by = {}
    for t in traces:
        ev = t.evaluation
        rec = {"status": ev.status.value}
        if ev.performance is not None:
            rec["latency_us"] = ev.performance.latency_ms * 1e3
        if ev.correctness is not None:
            rec["max_abs_err"] = ev.correctness.max_absolute_error
            rec["max_rel_err"] = ev.correctness.max_relative_error
        if ev.status.value != "PASSED":
            rec["log_tail"] = (ev.log or "")[-3000:]
        rec["hardware"] = ev.environment.hardware
        by.setdefault(t.workload.uuid, {})[t.solution] = rec

    rows, speedups = [], []
    for n in names:
        r = by.get(n, {})
        o, b = r.get(OURS, {}), r.get(BASE, {})
        sp = None
        if o.get("status") == "PASSED" and b.get("status") == "PASSED":
            sp = b["latency_us"] / o["latency_us"]
            speedups.append(sp)
        rows.append({"workload": n, "ours": o, "baseline": b, "speedup": sp})
    geo = math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else None
    passed_ours = sum(1 for r in rows if r["ours"].get("status") == "PASSED")
    passed_base = sum(1 for r in rows if r["baseline"].get("status") == "PASSED")

    def cell(x):
        if not x:
            return "missing", "-"
        return x["status"], f"{x['latency_us']:.1f}" if "latency_us" in x else "-"

    hw = next((x.get("hardware") for r in rows for x in (r["ours"], r["baseline"]) if x.get("hardware")), "?")
    lines = [
        f"FlashInfer-Bench protocol: {timing_protocol()}.",
        f"Hardware: {hw}. {len(rows)} workloads; ours PASSED {passed_ours}, baseline PASSED {passed_base}.",
        "",
        "| workload | ours us | ours status | FlashInfer wrapper us | baseline status | speedup |",
        "| --- | ---: | --- | ---: | --- | ---: |",
    ]
    for r in rows:
        so, lo = cell(r["ours"])
        sb, lb = cell(r["baseline"])
        sp = f"{r['speedup']:.2f}" if r["speedup"] else "-"
        lines.append(f"| {r['workload']} | {lo} | {so} | {lb} | {sb} | {sp} |")
    lines.append(f"| **geomean** | | | | | **{geo:.3f}** |" if geo else "| **geomean** | | | | | - |")
    table = "\n".join(lines)
    res = {"definition": DEF_NAME, "protocol": timing_protocol(), "versions": versions(),
           "config": cfg.model_dump() if hasattr(cfg, "model_dump") else __import__("dataclasses").asdict(cfg), "rows": rows, "geomean_speedup": geo,
           "passed": {"ours": passed_ours, "baseline": passed_base}, "seconds": time.time() - t0}
    (out / "suite_results.json").write_text(json.dumps(res, indent=2, default=str))
    (out / "suite_results.md").write_text(table + "\n")
    for r in rows:
        for who in ("ours", "baseline"):
            if r[who].get("status") not in (None, "PASSED"):
                print(f"--- {r['workload']} {who} {r[who]['status']}:\n{r[who].get('log_tail', '')}\n")
    print(table)
    print(f"total {time.time() - t0:.0f}s")
    return 0 if passed_ours == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
