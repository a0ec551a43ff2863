"""Inductor's lowering decisions for a small program, read on the host without a GPU.

kernelcount's `--fusion inductor` models which loops Inductor inlines into their readers and which
it computes into memory (GraphLowering.run_node's realize_hint, mark_reuse and the opcount
thresholds; ir.StorageBox). Those decisions are taken on the FX graph before any code is generated,
and PyTorch 2.11 takes them alike on every device but where a lowering tests the device. This
script runs torch.compile on the CPU with the two such tests that touch realization taken the
GPU's way (lowering.cat's pointwise cat, disabled on the CPU; StorageBox.should_realize_on_reuse's
CPU-only rule for exp and sigmoid), and prints, for each node of the graph Inductor lowers:

  NODE  inlined  ops=N reads=R nontrivial=T users=U    its loop, as OpCounterCSE counts it
  NODE  REALIZED KIND BUFFER [ops=...]                  a buffer of its own at that point (a loop's counts)

then the buffers the graph ends with and the nodes each computes (a loop realized later, by a
reader's expand or a concat, shows there). `--show NODE,...` prints those nodes' loop bodies
(ir.Loops.inner_fn_str). What it does not show: layouts, reductions' splits, pad_mm and the
scheduler's fusion, which depend on the device; compiled runs on the GPU measure those.

The program is a Python file defining `model` (a torch.nn.Module) and `inputs` (a tuple of CPU
tensors); research/inductor/examples/ holds the ones docs/accuracy.md cites. Run with the PyTorch
2.11 environment scripts/setup.sh makes (`python/setup.sh --env` prints its python):
  $(python/setup.sh --env) research/inductor/lowering_probe.py \\
      research/inductor/examples/rope_prefix.py [--show mul_5]
"""
import argparse
import inspect
import os
import runpy
import sys

os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")  # a cached graph is not lowered again

import torch  # noqa: E402
import torch._inductor.graph as graph  # noqa: E402
import torch._inductor.lowering as lowering  # noqa: E402
from torch._inductor import ir  # noqa: E402


def gpu_cat():
    """Re-register lowering.cat with its CPU branch (always a ConcatKernel) taken the GPU's way."""
    src = inspect.getsource(lowering.cat)
    cpu_branch = "    if cpu_device:\n        return TensorBox(ir.ConcatKernel.create(inputs, dim))"
    if cpu_branch not in src:
        sys.exit("lowering_probe: this PyTorch's lowering.cat has no CPU branch to take the GPU's way; "
                 "the probe is written against PyTorch 2.11")
    src = src.replace(cpu_branch, "    if False:\n        pass")
    for key in (torch.ops.aten.cat.default, torch.ops.aten.cat):
        lowering.lowerings.pop(key, None)
    exec(compile(src, "lowering.cat (GPU branch)", "exec"), lowering.__dict__)


def storage_of(result):
    box = result.data if isinstance(result, ir.TensorBox) else None
    while box is not None and not isinstance(box, ir.StorageBox) and isinstance(box, (ir.BaseView, ir.MutableBox)):
        box = box.data
    return box if isinstance(box, ir.StorageBox) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("program", help="a Python file defining `model` and `inputs`")
    ap.add_argument("--show", default="", help="comma-separated node names whose loop bodies to print")
    a = ap.parse_args()
    show = set(filter(None, a.show.split(",")))

    gpu_cat()
    ir.StorageBox.should_realize_on_reuse.__globals__["is_cpu"] = lambda _: False

    run_node = graph.GraphLowering.run_node

    def probed_run_node(self, n):
        result = run_node(self, n)
        box = storage_of(result)
        if box is not None and isinstance(box.data, ir.Pointwise):
            oc = box.data.inner_fn_opcount()
            print(f"  {n.name:28s} inlined  ops={oc.num_ops} reads={len(oc.read_buffers)} "
                  f"nontrivial={oc.nontrivial_read_count} users={len(n.users)}")
            if n.name in show:
                print(box.data.inner_fn_str())
        elif box is not None:
            loop = getattr(box.data, "data", None)
            counts = ""
            if isinstance(loop, ir.Loops):
                oc = loop.inner_fn_opcount()
                counts = (f" ops={oc.num_ops} reads={len(oc.read_buffers)} "
                          f"nontrivial={oc.nontrivial_read_count} users={len(n.users)}")
            print(f"  {n.name:28s} REALIZED {type(box.data).__name__} {getattr(box.data, 'name', '')}{counts}")
        return result

    lowering_run = graph.GraphLowering.run

    def probed_run(self, *args):
        out = lowering_run(self, *args)
        print("buffers:")
        for buf in self.buffers:
            origins = sorted(o.name for o in getattr(buf, "origins", ()) if hasattr(o, "name"))
            print(f"  {buf.get_name():10s} {type(buf).__name__:18s} {' '.join(origins)}")
        return out

    graph.GraphLowering.run_node = probed_run_node
    graph.GraphLowering.run = probed_run
    program = runpy.run_path(a.program)
    with torch.no_grad():
        torch.compile(program["model"])(*program["inputs"])


if __name__ == "__main__":
    main()
