#!/usr/bin/env python3
"""Exports small programs built on torch.export's higher-order ops, the control flow a .pt2 can
hold: `cond` on a data-dependent predicate (true and false taken), `map` over a leading dimension,
`scan` with a carry, `while_loop` with a known number of trips, and nested forms. Each keeps its
sample inputs (a loop counter or a predicate must hold the value the case is about), so the real
run on the GPU takes the branch and the trips the name says.

Names are `control-<op>__<case>_fp32.pt2` (the higher-order op is the family). Exports on the
host; the real run moves the program to the GPU.
  python3 research/corpus/export_control_flow.py OUT
"""
import os
import sys

import torch
from torch._higher_order_ops.map import map as hmap
from torch._higher_order_ops.scan import scan
from torch._higher_order_ops.while_loop import while_loop

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
from strip_weights import relative_in_place  # noqa: E402

CASES = {}


def case(op, name, *inputs):
    def register(cls):
        CASES["control-%s__%s_fp32" % (op, name)] = (cls, inputs)
        return cls
    return register


def rn(*shape):
    return torch.randn(*shape)


@case("cond", "data_true", torch.ones(64, 256))
@case("cond", "data_false", -torch.ones(64, 256))
class CondOnData(torch.nn.Module):
    """The branch hangs on the input's values: eager reads the predicate on the host."""
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: (x * 2).relu().sin(), lambda x: x - 1, (x,))


@case("cond", "linear_branches", torch.ones(8, 128))
class CondLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(128, 128)
        self.b = torch.nn.Linear(128, 128)

    def forward(self, x):
        return torch.cond(x.mean() > 0, lambda x: self.a(x).relu(), lambda x: self.b(x), (x,))


@case("map", "rows4", rn(4, 32, 64), rn(64))
@case("map", "rows16", rn(16, 32, 64), rn(64))
class MapRows(torch.nn.Module):
    def forward(self, xs, y):
        return hmap(lambda x, y: (x + y).sin(), xs, y)


@case("map", "matmul8", rn(8, 64, 64), rn(64, 64))
class MapMatmul(torch.nn.Module):
    def forward(self, xs, w):
        return hmap(lambda x, w: (x @ w).relu(), xs, w)


@case("scan", "cumsum6", rn(128), rn(6, 128))
@case("scan", "cumsum20", rn(128), rn(20, 128))
class ScanSum(torch.nn.Module):
    def forward(self, init, xs):
        def step(c, x):
            n = c + x
            return n, n.sin()
        return scan(step, init, xs)


@case("scan", "rnn10", rn(4, 64), rn(10, 4, 64), rn(64, 64))
class ScanRnn(torch.nn.Module):
    def forward(self, h, xs, w):
        def step(h, x):
            n = torch.tanh(x + h @ w)
            return n, n.clone()
        return scan(step, h, xs)


@case("while_loop", "trips5", torch.tensor(0), rn(64, 64))
@case("while_loop", "trips0", torch.tensor(7), rn(64, 64))
class WhileTrips(torch.nn.Module):
    def forward(self, i, x):
        return while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, (x * 2).tanh()), (i, x))


@case("autocast", "linear_bf16", rn(32, 128))
class AutocastLinear(torch.nn.Module):
    """An autocast region that is on: its matmuls run in bfloat16 with casts around them."""
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(128, 256)

    def forward(self, x):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            y = self.lin(x).relu()
        return y.float() + 1


@case("cond", "nested_map", torch.ones(4, 16, 32))
class CondOfMap(torch.nn.Module):
    def forward(self, xs):
        return torch.cond(xs.sum() > 0, lambda xs: hmap(lambda x: x.cos(), xs), lambda xs: xs.neg(), (xs,))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/control"
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name, (cls, inputs) in CASES.items():
        try:
            ep = torch.export.export(cls(), tuple(inputs), strict=False)
            torch.export.save(ep, os.path.join(out, name + ".pt2"))
            relative_in_place(os.path.join(out, name + ".pt2"))
            print("exported " + name)
        except Exception as e:  # a case this torch cannot export is listed, not fatal
            print("not exported %s: %s" % (name, str(e).splitlines()[0][:200]))


if __name__ == "__main__":
    main()
