"""Measure the CUDA kernels, memcpys and memsets one forward pass of each corpus model launches.

For every corpus entry (the models of export_corpus.py, in float32 and bfloat16) this
records, with torch.profiler (CUDA activity) after warm-up runs:
  eager     the eager model's forward (after 2 warm-ups), under torch.no_grad;
  graph     the exported program's module (torch.export, strict=False) run eagerly: the
            exact aten ops that the .pt2 files hold;
  compiled  torch.compile(model) (default mode, Inductor), after the compile warm-up.
Events whose name starts with "Memcpy"/"Memset" count as memcpy/memset, every other
CUDA event as a kernel (the convention of the ground-truth op probe).

Each entry runs in a fresh Python process; an error (or a crash) in one entry is
recorded and the others go on. Results are merged into --out-json, keyed by entry name:
    {"resnet50_fp32": {"eager": {...}, "graph": {...}, "compiled": {...}, "info": {...}}}

    python research/corpus/profile_counts.py --out-json counts.json
    python research/corpus/profile_counts.py --device cpu --quick --no-profile   # builders only
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import export_corpus as corpus  # noqa: E402


def count_cuda(fn, warm, names=True):
    """Run fn warm times, then once under the profiler; count its CUDA events."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    kernels, copies = [], []
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            (copies if e.name.startswith(("Memcpy", "Memset")) else kernels).append(e.name[:120])
    out = {"kernels": len(kernels),
           "memcpy": sum(n.startswith("Memcpy") for n in copies),
           "memset": sum(n.startswith("Memset") for n in copies)}
    if names:
        out["names"] = kernels
        out["copy_names"] = copies
    return out


def _phase(result, key, fn):
    t0 = time.perf_counter()
    try:
        result[key] = fn()
    except Exception as ex:
        result[key] = {"error": f"{type(ex).__name__}: {ex}"[:2000],
                       "traceback": traceback.format_exc()[-3000:]}
    result[key]["seconds"] = round(time.perf_counter() - t0, 3)


def measure(name, opts):
    """Worker body: all measurements of one corpus entry, in this (fresh) process."""
    import torch

    (entry,) = [e for e in corpus.entries(name, corpus.DTYPES) if e[0] == name]
    _, spec, dt = entry
    model, args, kwargs = corpus.instantiate(spec, dt, opts.device, opts.quick)
    info = {"model": spec.name, "family": spec.family, "dtype": dt, "quick": opts.quick,
            "inputs": corpus.describe(args, kwargs), "torch": torch.__version__,
            "device": opts.device}
    if torch.device(opts.device).type == "cuda":
        info["device_name"] = torch.cuda.get_device_name()
    res = {"info": info}

    if opts.no_profile:  # builder check only: one plain forward
        def forward_once():
            with torch.no_grad():
                out = model(*args, **kwargs)
            leaves = [t for t in torch.utils._pytree.tree_leaves(out) if isinstance(t, torch.Tensor)]
            return {"outputs": [list(t.shape) for t in leaves]}
        _phase(res, "forward", forward_once)
        return res

    names = not opts.no_names

    def eager():
        with torch.no_grad():
            return count_cuda(lambda: model(*args, **kwargs), warm=2, names=names)

    def graph():
        with torch.no_grad():
            ep = torch.export.export(model, args, kwargs, strict=False)
            gm = ep.module()
            return count_cuda(lambda: gm(*args, **kwargs), warm=2, names=names)

    def compiled():
        torch._dynamo.reset()
        cm = torch.compile(model)
        with torch.no_grad():
            t0 = time.perf_counter()
            cm(*args, **kwargs)  # compiles
            compile_s = time.perf_counter() - t0
            out = count_cuda(lambda: cm(*args, **kwargs), warm=2, names=names)
        out["compile_seconds"] = round(compile_s, 3)
        return out

    _phase(res, "eager", eager)
    if not opts.no_graph:
        _phase(res, "graph", graph)
    if not opts.no_compile:
        _phase(res, "compiled", compiled)
    return res


def run_isolated(name, opts, argv_flags):
    """Run one entry in a fresh interpreter; returns its result or an error record."""
    with tempfile.TemporaryDirectory() as tmp:
        result_file = os.path.join(tmp, "result.json")
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", name,
               "--result-file", result_file] + argv_flags
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=opts.timeout)
        except subprocess.TimeoutExpired as ex:
            tail = (ex.stderr or b"")[-3000:]
            if isinstance(tail, bytes):
                tail = tail.decode(errors="replace")
            return {"error": f"timed out after {opts.timeout}s", "log_tail": tail}
        if p.returncode != 0 or not os.path.exists(result_file):
            return {"error": f"worker exited with status {p.returncode}",
                    "log_tail": (p.stdout + p.stderr)[-3000:]}
        with open(result_file) as f:
            return json.load(f)


def summary(res):
    parts = []
    for key in ("eager", "graph", "compiled", "forward"):
        r = res.get(key)
        if r is None:
            continue
        if "error" in r:
            parts.append(f"{key}: ERROR {r['error'][:80]}")
        elif key == "forward":
            parts.append(f"forward ok {r['outputs'][:2]}")
        else:
            parts.append(f"{key} {r['kernels']}k/{r['memcpy']}cp/{r['memset']}ms")
    return "; ".join(parts) if parts else res.get("error", "")[:200]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-json", default="corpus_counts.json",
                    help="results file; existing entries for other models are kept")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--dtypes", default="fp32,bf16", help="comma-separated: fp32,bf16")
    ap.add_argument("--only", help="comma-separated model or entry names, e.g. resnet50,gpt2_bf16")
    ap.add_argument("--quick", action="store_true", help="tiny inputs (for CPU dry runs)")
    ap.add_argument("--no-profile", action="store_true",
                    help="only build each model and run one forward (works on CPU)")
    ap.add_argument("--no-compile", action="store_true", help="skip the torch.compile measurement")
    ap.add_argument("--no-graph", action="store_true",
                    help="skip running the exported program's module")
    ap.add_argument("--no-names", action="store_true", help="do not record kernel names")
    ap.add_argument("--in-process", action="store_true",
                    help="run every entry in this process (no isolation; for debugging)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per entry (isolated runs)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--result-file", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)

    if a.worker:
        res = measure(a.worker, a)
        with open(a.result_file, "w") as f:
            json.dump(res, f)
        return 0

    dtypes = [d.strip() for d in a.dtypes.split(",") if d.strip()]
    bad = [d for d in dtypes if d not in corpus.DTYPES]
    if bad:
        ap.error(f"unknown dtype(s) {bad}; choose from {sorted(corpus.DTYPES)}")
    todo = corpus.entries(a.only, dtypes)
    if not a.no_profile and a.device != "cuda" and not a.device.startswith("cuda:"):
        ap.error("profiling needs a CUDA device; use --no-profile for builder checks")

    flags = ["--device", a.device]
    for flag in ("quick", "no_profile", "no_compile", "no_graph", "no_names"):
        if getattr(a, flag):
            flags.append("--" + flag.replace("_", "-"))

    try:
        with open(a.out_json) as f:
            results = json.load(f)
    except (OSError, ValueError):
        results = {}
    failed = 0
    for name, _, _ in todo:
        t0 = time.perf_counter()
        if a.in_process:
            try:
                res = measure(name, a)
            except Exception as ex:
                res = {"error": f"{type(ex).__name__}: {ex}"[:2000]}
        else:
            res = run_isolated(name, a, flags)
        bad_entry = "error" in res or any(
            isinstance(v, dict) and "error" in v for k, v in res.items() if k != "info")
        failed += bad_entry
        results[name] = res
        print(f"{name:28s} {time.perf_counter() - t0:6.1f}s  {summary(res)}", flush=True)
        tmp = a.out_json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(results, f, indent=1)
        os.replace(tmp, a.out_json)
    print(f"{len(todo) - failed} ok, {failed} with errors; results: {a.out_json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
