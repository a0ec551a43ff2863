"""How many nodes the FX graph Inductor lowers holds, read on the host without a GPU.

GraphLowering.decide_layout_opt keeps a graph's layout (no channels-last convolutions) when it
holds 300 nodes or more per convolution; kernelcount estimates that count from the exported ops
(passes/inductor_externs.cc, Builder::fx_nodes). The count is taken after AOTAutograd's
decompositions and the post-grad passes, which run alike on every device, so torch.compile on the
CPU shows it. With no argument, prints the nodes of each linear resampling (1-3 dims, align_corners
or not, float32 and bfloat16) as the difference from the same program without it; with a .pt2,
the count for that program (its sample inputs random, the archive's weights or random ones).
Run with the PyTorch 2.11 environment scripts/setup.sh makes (`python/setup.sh --env`):
  $(python/setup.sh --env) research/inductor/fx_nodes_probe.py [MODEL.pt2]
"""
import os
import re
import sys

os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")  # a cached graph is not lowered again

import torch  # noqa: E402
import torch._inductor.graph as graph  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch.utils._pytree as pytree  # noqa: E402

COUNTS = []
_decide = graph.GraphLowering.decide_layout_opt


def _counting(gm, *, is_inference):
    COUNTS.append(len(list(gm.graph.nodes)))
    return _decide(gm, is_inference=is_inference)


graph.GraphLowering.decide_layout_opt = staticmethod(_counting)


def nodes(module, *args, **kwargs):
    COUNTS.clear()
    torch._dynamo.reset()
    with torch.no_grad():
        torch.compile(module)(*args, **kwargs)
    return COUNTS[-1]


class Scaled(torch.nn.Module):
    def __init__(self, mode=None, align_corners=None):
        super().__init__()
        self.mode, self.align_corners = mode, align_corners

    def forward(self, x):
        if self.mode:
            x = F.interpolate(x, scale_factor=2, mode=self.mode, align_corners=self.align_corners)
        return x * 3


def resampling_table():
    for dt in (torch.float32, torch.bfloat16):
        for mode, shape in (("linear", (1, 4, 9)), ("bilinear", (1, 4, 9, 9)), ("trilinear", (1, 4, 5, 5, 5))):
            for ac in (False, True):
                x = torch.randn(shape, dtype=dt)
                extra = nodes(Scaled(mode, ac), x) - nodes(Scaled(), x)
                print(f"{str(dt).replace('torch.', ''):9s} {mode:9s} align_corners={ac!s:5s} {extra} nodes")


def program(path):
    """The node count of an exported program, run on the host with random inputs."""
    import torch.export.passes
    from torch.export.graph_signature import InputKind
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
    torch.export.passes.move_to_device_pass = lambda ep, location: ep  # stays on the host
    import real_run
    while True:
        try:
            ep, _, _ = real_run.load(path)
            break
        except (NotImplementedError, ModuleNotFoundError) as e:
            # An output class of a library not installed here (transformers' ModelOutput): a
            # stand-in of that name unflattens the outputs as a tuple.
            cause = e
            while cause is not None and "Deserializing" not in str(cause):
                cause = cause.__context__
            m = cause and re.search(r"Deserializing ([\w.]+) in pytree is not registered", str(cause))
            if not m:
                raise
            cls = type(m.group(1).rsplit(".", 1)[-1], (), {})
            pytree.register_pytree_node(cls, lambda x: ([], None), lambda vals, ctx: tuple(vals),
                                        serialized_type_name=m.group(1))
    vals = {n.name: n.meta["val"] for n in ep.graph.nodes if n.op == "placeholder"}
    specs = [s for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    flat = [torch.randn(tuple(vals[s.arg.name].shape)).to(vals[s.arg.name].dtype) for s in specs]
    args, kwargs = pytree.tree_unflatten(flat, ep.call_spec.in_spec)
    convs = sum(1 for n in ep.graph.nodes if "convolution" in str(n.target) or "conv2d" in str(n.target))
    print(f"{path}: {nodes(ep.module(), *args, **kwargs)} nodes, {convs} convolutions in the exported graph")


if __name__ == "__main__":
    program(sys.argv[1]) if len(sys.argv) > 1 else resampling_table()
