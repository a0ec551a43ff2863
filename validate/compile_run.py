"""What torch.compile launches for an exported program: the compiled program's real run.

Each `.pt2` is loaded as validate/real_run.py loads it (random weights where the archive keeps
none, inputs from its sample inputs or random), its module compiled with `torch.compile` in the
default mode (Inductor), called under `torch.no_grad()` until compiled and warm, and one call is
profiled with torch.profiler. Recorded per model:
  - totals: kernels, memcpy, memset, host syncs of the profiled call (every GPU record in it);
  - kernels: the GPU records in launch order (name, and "triton" / "extern" / "memcpy" / "memset");
  - graphs: for each graph Inductor compiled, its output code's kernels with the FX source nodes and
    ATen ops Inductor says each holds ("Topologically Sorted Source Nodes: [...], Original ATen:
    [...]") and the launch sequence of its `call` (Triton kernels, extern kernels, fallbacks);
  - pad_mm: each answer Inductor's pad_mm gave while compiling (whether it padded a GEMM, and the
    benchmark times it decided by, or that a cache held the answer): record_pad_mm_decisions;
  - the output code itself, kept beside the JSON (`<name>.code.py.xz`), for the mechanisms.
Inductor's FX graph cache is off, so every model's output code is written by its own compile.

Several models compile at once (--jobs), but no two use the GPU for timing at once: Inductor
takes some choices by timing on the GPU (pad_mm pads a GEMM whose padded form its benchmark finds
faster; Triton picks a kernel's launch configuration), and another process's kernels on the GPU
would change those timings and so what the compiled program launches. Every Inductor benchmark
and every model's warm-up and profiled calls hold one lock (a file in OUT_DIR), as a compile alone
on the GPU would; only the compiling call's own first run of its kernels goes unlocked.

    python3 validate/compile_run.py OUT_DIR MODEL.pt2 [...] [--jobs 6] [--timeout 300] [--deadline-s S]

Writes OUT_DIR/<name>.compiled.json and OUT_DIR/real_status.jsonl (validate/real_run.py's driver:
worker processes, a crashed model costs only its own worker).
"""
import glob
import lzma
import os
import re
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import real_run  # noqa: E402

SOURCE_LINE = re.compile(r"#\s*Topologically Sorted Source Nodes:\s*\[(.*?)\],\s*Original ATen:\s*\[(.*?)\]")
KERNEL_DEF = re.compile(r"^(\w+)\s*=\s*async_compile\.(triton|cuda|cpp\w*)\(\s*'(\w+)'", re.M)
LAUNCH = re.compile(r"^\s*(?:\w+\s*=\s*)?(\w+)\.run\(|^\s*(?:\w+\s*=\s*)?(extern_kernels\.\w+)\(|"
                    r"^\s*(?:\w+\s*=\s*)?(torch\.ops\.\w+\.\w+(?:\.\w+)?)\(|^\s*(\w+)\.zero_\(\)", re.M)


def _split(text):
    return [x.strip() for x in text.split(",") if x.strip()]


def parse_output_code(code):
    """The kernels an output code defines (with the source nodes each holds) and the launches its
    `call` makes, in order."""
    kernels = {}
    pending = None
    for line in code.splitlines():
        m = SOURCE_LINE.search(line)
        if m:
            pending = (_split(m.group(1)), _split(m.group(2)))
            continue
        d = KERNEL_DEF.match(line)
        if d:
            nodes, aten = pending or ([], [])
            kernels[d.group(1)] = {"kind": d.group(2), "source_nodes": nodes, "aten": aten}
            pending = None
    body = code.split("def call(", 1)[1] if "def call(" in code else ""
    body = body.split("\ndef ", 1)[0].split("\nclass ", 1)[0]
    launches = []
    pending = None
    for line in body.splitlines():
        m = SOURCE_LINE.search(line)
        if m:
            pending = (_split(m.group(1)), _split(m.group(2)))
            continue
        x = LAUNCH.match(line)
        if not x:
            continue
        triton, extern, fallback, zeroed = x.groups()
        if triton and triton in kernels:
            launches.append({"kernel": triton, "kind": "triton"})
        elif extern:
            launches.append({"kernel": extern, "kind": "extern",
                             "source_nodes": pending[0] if pending else [], "aten": pending[1] if pending else []})
        elif fallback:
            launches.append({"kernel": fallback, "kind": "fallback",
                             "source_nodes": pending[0] if pending else [], "aten": pending[1] if pending else []})
        elif zeroed:
            launches.append({"kernel": zeroed + ".zero_", "kind": "memset"})
        pending = None
    return {"kernels": kernels, "launches": launches}


def profile_call(fn, args):
    import torch
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile
    from crosscheck_profiler import CALL_MARK, HOST_SYNC_CALLS
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        with torch.profiler.record_function(CALL_MARK):
            fn(*args)
        torch.cuda.synchronize()
    raw = list(prof.profiler.kineto_results.events())
    marks = [e for e in raw if e.name() == CALL_MARK]
    start, end = (marks[0].start_ns(), marks[0].end_ns()) if marks else (0, float("inf"))
    syncs = sum(1 for e in raw if e.name() in HOST_SYNC_CALLS and start <= e.start_ns() <= end)
    records = []
    for e in sorted((e for e in raw if e.device_type() == DeviceType.CUDA and e.name() != CALL_MARK),
                    key=lambda e: e.start_ns()):
        name = e.name()
        kind = ("memcpy" if name.startswith("Memcpy") else "memset" if name.startswith("Memset")
                else "triton" if name.startswith("triton_") else "extern")
        records.append({"name": name[:200], "kind": kind})
    totals = {"kernels": sum(r["kind"] in ("triton", "extern") for r in records),
              "triton_kernels": sum(r["kind"] == "triton" for r in records),
              "memcpy": sum(r["kind"] == "memcpy" for r in records),
              "memset": sum(r["kind"] == "memset" for r in records), "host_syncs": syncs}
    return totals, records


def drop_metadata_asserts(gm):
    """Removes the exported graph's `_assert_tensor_metadata` checks, which launch nothing in the
    eager run. Dynamo cannot trace them: its fake tensors say `cuda:0` where the export recorded
    `cuda`, and the check fails ("Tensor device mismatch! Expected: cuda, Got: cuda:0")."""
    import torch
    dropped = 0
    for mod in gm.modules():
        if not isinstance(mod, torch.fx.GraphModule):
            continue
        for node in list(mod.graph.nodes):
            if node.op == "call_function" and node.target is torch.ops.aten._assert_tensor_metadata.default \
                    and not node.users:
                mod.graph.erase_node(node)
                dropped += 1
        mod.recompile()
    return dropped


class GpuLock:
    """An exclusive lock shared by the worker processes (flock on one file): held while timing or
    measuring on the GPU. Re-entrant within a process, as a benchmark can run inside a call."""

    def __init__(self, path):
        self.path, self.depth, self.f = path, 0, None

    def __enter__(self):
        import fcntl
        if self.depth == 0 and self.path:
            self.f = open(self.path, "a")
            fcntl.flock(self.f, fcntl.LOCK_EX)
        self.depth += 1

    def __exit__(self, *exc):
        self.depth -= 1
        if self.depth == 0 and self.f:
            self.f.close()  # closing releases the lock
            self.f = None


GPU_LOCK = GpuLock(os.environ.get("KC_GPU_LOCK"))


def lock_inductor_benchmarks():
    """Every Inductor benchmark (pad_mm's, Triton's autotuning) under GPU_LOCK: the benchmarker is
    one object that all of them call, so its method is wrapped once."""
    from torch._inductor.runtime import benchmarking
    bench = benchmarking.benchmarker.benchmark_gpu
    if getattr(bench, "kc_locked", False):  # a worker measures many models: wrapped once
        return

    def locked(*args, **kwargs):
        with GPU_LOCK:
            return bench(*args, **kwargs)

    locked.kc_locked = True
    benchmarking.benchmarker.benchmark_gpu = locked


# pad_mm's answers for the model being compiled, in the order Inductor asked: each GEMM whose
# padding it considered past the compute-bound check, with where the answer came from.
PAD_MM_DECISIONS = []
COMPILE_STARTED = [0.0]  # when the model's compiling call began (time.time())


def record_pad_mm_decisions():
    """Records every answer pad_mm gives (torch/_inductor/fx_passes/pad_mm.py), as the compiled
    program's own account of which GEMMs it padded and why: its benchmark's two times (`ori_ms`, the
    GEMM as it stands, `pad_ms`, the pads and the aligned GEMM; padded when ori_ms > 1.1 pad_ms),
    or the answer a cache of an earlier compile in the same worker held (pad_mm keeps both the
    answers and the original GEMM's times in Inductor's LocalCache, keyed by the operands' sizes,
    strides and dtype). _should_pad calls these module functions by name, so wrapping them sees
    each one; wrapped once per process."""
    from torch._inductor.fx_passes import pad_mm
    if getattr(pad_mm.is_padded_faster, "kc_recorded", False):
        return
    faster, cached, base_time = pad_mm.is_padded_faster, pad_mm.get_cached_should_pad, \
        pad_mm.get_cached_base_mm_benchmark_time
    base_from_cache = {}

    def is_padded_faster(key, ori_time, pad_time):
        padded = faster(key, ori_time, pad_time)
        # t_s: seconds into the compile, as a first benchmark after the CPU's work may find the
        # GPU idle (its clocks down) and time the original GEMM slow.
        PAD_MM_DECISIONS.append({"key": key, "pads": bool(padded), "from": "benchmark",
                                 "ori_ms": ori_time, "pad_ms": pad_time,
                                 "t_s": round(time.time() - COMPILE_STARTED[0], 3),
                                 "ori_from_cache": base_from_cache.pop("last", False)})
        return padded

    def get_cached_should_pad(key):
        answer = cached(key)
        if answer is not None:
            PAD_MM_DECISIONS.append({"key": key, "pads": bool(answer), "from": "cache"})
        return answer

    def get_cached_base_mm_benchmark_time(key):
        t = base_time(key)
        base_from_cache["last"] = t is not None
        return t

    is_padded_faster.kc_recorded = True
    pad_mm.is_padded_faster = is_padded_faster
    pad_mm.get_cached_should_pad = get_cached_should_pad
    pad_mm.get_cached_base_mm_benchmark_time = get_cached_base_mm_benchmark_time


def measure_one(path, warmup, cache_dir, out_dir):
    import torch
    import torch._inductor.config as inductor_config
    inductor_config.fx_graph_cache = False
    lock_inductor_benchmarks()
    record_pad_mm_decisions()
    PAD_MM_DECISIONS.clear()
    ep, weights, placement = real_run.load(path)
    module = ep.module()
    dropped = drop_metadata_asserts(module)
    args, kwargs, inputs = real_run.inputs_for(ep, placement != "as saved")
    compiled = torch.compile(module)
    fn = (lambda *a: compiled(*a, **kwargs)) if kwargs else compiled
    started = time.time()
    t0 = COMPILE_STARTED[0] = time.time()
    with torch.no_grad():
        fn(*args)
        torch.cuda.synchronize()
        compile_s = time.time() - t0
        with GPU_LOCK:
            for _ in range(warmup):
                fn(*args)
            torch.cuda.synchronize()
            totals, records = profile_call(fn, args)
    # The output code this compile wrote (the cache is this worker's own and the FX graph cache
    # is off, so a file written since the compile began is this model's).
    codes = []
    for f in sorted(glob.glob(os.path.join(cache_dir, "**", "*.py"), recursive=True)):
        if os.path.getmtime(f) + 1 < started:
            continue
        text = open(f, errors="replace").read()
        if "def call(" in text and "async_compile" in text:
            codes.append(text)
    name = os.path.splitext(os.path.basename(path))[0]
    if codes:
        with lzma.open(os.path.join(out_dir, name + ".code.py.xz"), "wt", preset=9) as f:
            f.write("\n\n# ==== next graph ====\n\n".join(codes))
    return {"model": path, "torch": torch.__version__, "device": torch.cuda.get_device_name(),
            "run": "torch.compile(ep.module()) (default mode, Inductor) under torch.no_grad(), after its "
                   "compiling call and %d warm-up calls" % warmup,
            "gpu_timing": "alone (Inductor's benchmarks and the measured calls under one lock)"
                          if GPU_LOCK.path else "shared with other compiles",
            "weights": weights, "inputs": inputs, "placement": placement, "compile_s": round(compile_s, 1),
            "metadata_asserts_dropped": dropped, "pad_mm": list(PAD_MM_DECISIONS),
            "totals": totals, "kernels": records, "graphs": [parse_output_code(c) for c in codes]}


def main():
    p = real_run.arguments(__doc__.split("\n\n")[0], 6, 300, "seconds per model, compile included")
    p.add_argument("--compile-threads", type=int, default=2, help="Inductor's compile workers per process")
    a = p.parse_args()
    if a.worker:
        real_run.import_all(a.imports, "compile_run")
        cache_dir = os.environ.get("TORCHINDUCTOR_CACHE_DIR", os.path.join(a.out_dir, "inductor-cache"))

        def on_error(name):
            # The first line names the failure; the cause sits deeper (a fake-tensor error wraps it).
            print(f"compile_run: {name}:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)

        real_run.worker(a.out_dir, a.models, a.timeout, lambda path: measure_one(path, a.warmup, cache_dir, a.out_dir),
                        suffix=".compiled.json", record=lambda r: {"kernels": r["totals"]["kernels"]},
                        on_error=on_error)
        return
    out = os.path.abspath(a.out_dir)
    # Each worker its own Inductor cache, so the output code a compile writes is found by time.
    real_run.drive(out, [os.path.abspath(m) for m in a.models], a.jobs, a.warmup, a.timeout, a.deadline_s, None,
                   a.imports, script=__file__, suffix=".compiled.json",
                   worker_env=lambda k: {"TORCHINDUCTOR_CACHE_DIR": os.path.join(out, f".w{k}", "inductor-cache"),
                                         "KC_GPU_LOCK": os.path.join(out, ".gpu.lock"),
                                         "TORCHINDUCTOR_COMPILE_THREADS": str(a.compile_threads)})
    for wd in glob.glob(os.path.join(out, ".w*")):
        for f in glob.glob(os.path.join(wd, "*.code.py.xz")):
            os.replace(f, os.path.join(out, os.path.basename(f)))


if __name__ == "__main__":
    main()
