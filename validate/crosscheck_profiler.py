"""Counts what eager PyTorch launches for a model with torch.profiler, as a check on
kernelcount-validate's own CUPTI counts, which it must match for the whole model.

    python3 validate/crosscheck_profiler.py MODEL.pt2 [--validate-json V.json] [--out FILE]
    python3 validate/crosscheck_profiler.py MODEL.pt --input 32x64:float32 [...]

A .pt2 runs as `torch.export.load(...).module()` moved to the GPU, a TorchScript model through
torch.jit with graph optimizations off; inputs are random with the recorded shapes, after two
warm-up calls, as kernelcount-validate does. It runs in its own process: CUPTI takes one
profiler per process. With --validate-json it compares its totals (and its per-op kernel
counts, in order) with that kernelcount-validate JSON and exits 1 when the totals differ.
"""
import argparse
import json
import sys
import zipfile

import torch
import torch.export.passes
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile


def random_tensor(shape, dtype, device="cuda"):
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(shape, dtype=dtype, device=device)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, device=device).bool()
    return torch.randint(0, 2, shape, device=device).to(dtype)


def parse_input(spec):
    shape, _, dtype = spec.partition(":")
    shape = shape.split("=")[-1]
    sizes = [int(s) for s in shape.split("x")] if shape else []
    return random_tensor(sizes, getattr(torch, dtype or "float32"))


def load_torchscript(path):
    """A TorchScript module as torch.jit.load leaves it: a model saved on a GPU keeps each tensor
    where it was saved (its literal constants on the host); one saved on the host moves there whole."""
    module = torch.jit.load(path).eval()
    if "cuda" not in {t.device.type for t in list(module.parameters()) + list(module.buffers())}:
        module = torch.jit.load(path, map_location="cuda").eval()
    return module


def load(path, input_specs):
    """Returns (callable, args) on the GPU."""
    with zipfile.ZipFile(path) as z:
        is_torchscript = not any(n.endswith("models/model.json") for n in z.namelist())
    if is_torchscript:
        return load_torchscript(path), [parse_input(s) for s in input_specs]
    ep = torch.export.load(path)
    ep = torch.export.passes.move_to_device_pass(ep, "cuda")
    if ep.example_inputs is not None:
        args, _ = ep.example_inputs
        args = [random_tensor(a.shape, a.dtype) if isinstance(a, torch.Tensor) else a for a in args]
    else:
        user = set(ep.graph_signature.user_inputs)
        vals = [n.meta["val"] for n in ep.graph.nodes if n.op == "placeholder" and n.name in user]
        args = [random_tensor([int(s) for s in v.shape], v.dtype) for v in vals]
    return ep.module(), args


# CUDA runtime calls that make the host wait for the GPU: what kernelcount counts as a host sync
# (`.item()`, a nonzero's size, a copy to pageable host memory end in cudaStreamSynchronize; a
# plain cudaMemcpy waits too). cudaStreamWaitEvent makes the GPU, not the host, wait.
HOST_SYNC_CALLS = frozenset(("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy",
                             "cudaMemcpy2D", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cuStreamSynchronize",
                             "cuCtxSynchronize", "cuEventSynchronize", "cuMemcpyDtoH_v2", "cuMemcpyHtoD_v2"))
CALL_MARK = "kernelcount.measured_call"


def measure(fn, args, warmup=2):
    with torch.no_grad(), torch.jit.optimized_execution(False):
        for _ in range(warmup):
            fn(*args)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            # The mark bounds the call: the synchronize after it is the profiler's, not the model's.
            with torch.profiler.record_function(CALL_MARK):
                fn(*args)
            torch.cuda.synchronize()
    # Raw Kineto events: GPU work links (linked_correlation_id) to the innermost CPU op that
    # launched it; each such op belongs to the outermost aten op around it on its thread.
    raw = list(prof.profiler.kineto_results.events())
    # Dispatcher ops of any namespace (aten::, torchvision::, a custom op library's).
    cpu_ops = sorted((e for e in raw if e.device_type() == DeviceType.CPU and e.linked_correlation_id() == 0
                      and "::" in e.name()), key=lambda e: (e.start_ns(), -e.end_ns()))
    outermost, top_of, current = [], {}, {}
    for e in cpu_ops:
        top = current.get(e.start_thread_id())
        if top is None or e.start_ns() >= top["end"]:
            top = {"op": e.name(), "start": e.start_ns(), "end": e.end_ns(), "thread": e.start_thread_id(),
                   "kernels": 0, "memcpy": 0, "memset": 0, "host_syncs": 0, "kernel_names": [], "memcpy_kinds": []}
            outermost.append(top)
            current[e.start_thread_id()] = top
        top_of[e.correlation_id()] = top
    total = {"kernels": 0, "memcpy": 0, "memset": 0, "host_syncs": 0}
    unattributed = {"kernels": 0, "memcpy": 0, "memset": 0, "host_syncs": 0}
    # Host syncs: runtime calls inside the measured call, each given to the outermost op on its
    # thread whose span holds it.
    marks = [e for e in raw if e.name() == CALL_MARK]
    call_start, call_end = (marks[0].start_ns(), marks[0].end_ns()) if marks else (0, float("inf"))
    for e in raw:
        if e.name() not in HOST_SYNC_CALLS or not call_start <= e.start_ns() <= call_end:
            continue
        total["host_syncs"] += 1
        top = next((o for o in outermost if o["thread"] == e.start_thread_id() and o["start"] <= e.start_ns() <= o["end"]),
                   None)
        (top if top is not None else unattributed)["host_syncs"] += 1
    # The mark's range shows on the GPU's timeline too (a user annotation), and is no work.
    gpu = (e for e in raw if e.device_type() == DeviceType.CUDA and e.name() != CALL_MARK)
    for e in sorted(gpu, key=lambda e: e.start_ns()):
        name = e.name()
        key = "memcpy" if name.startswith("Memcpy") else "memset" if name.startswith("Memset") else "kernels"
        total[key] += 1
        top = top_of.get(e.linked_correlation_id())
        (top if top is not None else unattributed)[key] += 1
        if top is not None and key == "kernels":
            top["kernel_names"].append(name[:400])
        elif top is not None and key == "memcpy":
            top["memcpy_kinds"].append(name)
    ops = [{k: v for k, v in o.items() if k not in ("start", "end", "thread")} for o in outermost]
    return total, ops, unattributed


def compare(total, ops, validate_json):
    with open(validate_json) as f:
        v = json.load(f)
    measured = v["summary"]["measured"]
    agree = all(total[k] == measured[k] for k in ("kernels", "memcpy", "memset"))
    print(f"whole model: profiler {total}, kernelcount-validate {measured}: {'AGREE' if agree else 'DISAGREE'}")
    # Per op, in order, among ops that launched anything (views launch nothing in both).
    ours = [(o["op"], o["measured"]["kernels"], o["measured"]["memcpy"], o["measured"]["memset"])
            for o in v["ops"] if o["measured"]["kernels"] or o["measured"]["memcpy"] or o["measured"]["memset"]]
    theirs = [(o["op"], o["kernels"], o["memcpy"], o["memset"]) for o in ops
              if o["kernels"] or o["memcpy"] or o["memset"]]
    same = [a[1:] for a in ours] == [b[1:] for b in theirs]
    print(f"per op (ops that launched work, in order): {'AGREE' if same else 'DIFFER'}")
    if not same:
        for i in range(max(len(ours), len(theirs))):
            a = ours[i] if i < len(ours) else None
            b = theirs[i] if i < len(theirs) else None
            print(f"  {i}: validate {a}  profiler {b}")
    return agree


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model")
    p.add_argument("--input", action="append", default=[], help="TorchScript input, 32x64:float32")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--validate-json", help="kernelcount-validate --format json output to compare with")
    p.add_argument("--out", help="write the counts as JSON here")
    a = p.parse_args()
    fn, args = load(a.model, a.input)
    total, ops, unattributed = measure(fn, args, a.warmup)
    result = {"model": a.model, "torch": torch.__version__, "device": torch.cuda.get_device_name(),
              "warmup": a.warmup, "totals": total, "ops": ops, "unattributed": unattributed}
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1)
    print(f"{a.model}: {total['kernels']} kernels, {total['memcpy']} memcpy, {total['memset']} memset")
    if a.validate_json and not compare(total, ops, a.validate_json):
        sys.exit(1)


if __name__ == "__main__":
    main()
