"""Op shape sweeps: what eager PyTorch launches per single aten op, over thousands of shapes.

Each configuration (one op call: shapes, strides/layout, dtype, parameters) runs eagerly on
CUDA; per chunk of configurations, every one is warmed up (2 calls), then all of them run once
more inside ONE torch.profiler session, each inside its own record_function range. GPU work is
attributed to a configuration by Kineto's correlation: a kernel/memcpy/memset links to the CPU
op that launched it, and that op lies inside exactly one range. One JSON line per
configuration:

  {"family", "op", "params", "inputs": [[shape, stride, dtype], ...], "kernels", "memcpy",
   "memset", "kernel_names": [[name, consecutive repeats], ...] (memcpy/memset too, in launch
   order), "aten": [outermost aten ops], "error"?}

    python3 research/sweeps/sweep.py --out data/sweeps/sweep.jsonl [--families conv,gemm]
        [--deadline-s 400] [--quick] [--device cpu --no-profile]   (CPU dry run: builds and calls)
"""
import argparse
import bisect
import itertools
import json
import math
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

DEV = "cuda"
DT = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def rnd(shape, dtype="f32", layout="contig"):
    """A random tensor; layout: contig | cl (channels_last / _3d) | t (last two dims swapped,
    a transposed view) | perm (NHWC storage viewed as NCHW; same as cl for 4-D)."""
    shape = list(shape)
    dt = DT.get(dtype, dtype)
    if layout == "t":
        return torch.randn(*shape[:-2], shape[-1], shape[-2], device=DEV, dtype=dt).transpose(-1, -2)
    x = torch.randn(*shape, device=DEV, dtype=dt)
    if layout == "cl":
        x = x.to(memory_format=torch.channels_last if x.dim() == 4 else torch.channels_last_3d)
    return x


def desc(t):
    if isinstance(t, torch.Tensor):
        return [list(t.shape), list(t.stride()), str(t.dtype).replace("torch.", "")]
    return repr(t)[:40]


class Sweep:
    def __init__(self):
        self.cfgs = []  # (family, op, params, build) ; build() -> (fn, args)

    def add(self, family, op, params, build):
        self.cfgs.append((family, op, params, build))


def sample(grid, n, seed):
    """n distinct points of a dict-of-lists grid, drawn with a fixed seed (all when fewer)."""
    keys = list(grid)
    total = math.prod(len(grid[k]) for k in keys)
    r = random.Random(seed)
    if total <= n:
        return [dict(zip(keys, v)) for v in itertools.product(*(grid[k] for k in keys))]
    picks = set()
    while len(picks) < n:
        picks.add(tuple(r.randrange(len(grid[k])) for k in keys))
    return [{k: grid[k][i] for k, i in zip(keys, p)} for p in sorted(picks)]


# ---------------------------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------------------------

def conv_family(S, scale):
    # conv2d
    grid2 = dict(dtype=["f32", "bf16"], k=[1, 3, 5, 7], stride=[1, 2], dil=[1, 2], groups=["1", "dw", "g4"],
                 cin_cout=[(3, 32), (16, 16), (32, 64), (64, 64), (128, 128), (96, 384), (256, 256), (512, 512)],
                 hw=[7, 14, 28, 56, 112], batch=[1, 2, 8, 32], layout=["contig", "cl_in", "cl_both"], bias=[True, False])
    for p in sample(grid2, int(1400 * scale), 1):
        cin, cout = p["cin_cout"]
        if p["groups"] == "dw":
            g, cout = cin, cin
        elif p["groups"] == "g4":
            g = 4 if cin % 4 == 0 and cout % 4 == 0 else 1
        else:
            g = 1
        if cin * cout * p["hw"] ** 2 * p["batch"] > 256 * 256 * 56 * 56 * 8:
            p["batch"] = 1
        pad = p["dil"] * (p["k"] - 1) // 2
        S.add("conv", "conv2d", dict(p, cin=cin, cout=cout, g=g, pad=pad, cin_cout=None),
              lambda p=p, cin=cin, cout=cout, g=g, pad=pad: (
                  lambda x, w, b: F.conv2d(x, w, b, p["stride"], pad, p["dil"], g),
                  [rnd([p["batch"], cin, p["hw"], p["hw"]], p["dtype"], "cl" if p["layout"] != "contig" else "contig"),
                   rnd([cout, cin // g, p["k"], p["k"]], p["dtype"], "cl" if p["layout"] == "cl_both" else "contig"),
                   rnd([cout], p["dtype"]) if p["bias"] else None]))
    # conv1d
    grid1 = dict(dtype=["f32", "bf16"], k=[1, 3, 5, 7, 31], stride=[1, 2], dil=[1, 2], groups=["1", "dw"],
                 cin_cout=[(1, 64), (64, 64), (80, 256), (256, 256), (512, 512)], L=[16, 128, 1000, 4000],
                 batch=[1, 4, 16], bias=[True, False])
    for p in sample(grid1, int(300 * scale), 2):
        cin, cout = p["cin_cout"]
        g = cin if p["groups"] == "dw" else 1
        cout = cin if g > 1 else cout
        pad = p["dil"] * (p["k"] - 1) // 2
        S.add("conv", "conv1d", dict(p, cin=cin, cout=cout, g=g, pad=pad, cin_cout=None),
              lambda p=p, cin=cin, cout=cout, g=g, pad=pad: (
                  lambda x, w, b: F.conv1d(x, w, b, p["stride"], pad, p["dil"], g),
                  [rnd([p["batch"], cin, p["L"]], p["dtype"]), rnd([cout, cin // g, p["k"]], p["dtype"]),
                   rnd([cout], p["dtype"]) if p["bias"] else None]))
    # conv3d
    grid3 = dict(dtype=["f32", "bf16"], k=[(1, 1, 1), (3, 3, 3), (1, 3, 3), (3, 1, 1), (3, 7, 7), (2, 4, 4)],
                 stride=[(1, 1, 1), (1, 2, 2), (2, 2, 2)], groups=["1", "dw"],
                 cin_cout=[(3, 64), (64, 64), (64, 128), (128, 128), (256, 256), (96, 192)],
                 thw=[(4, 14, 14), (8, 28, 28), (16, 56, 56), (16, 112, 112)], batch=[1, 2],
                 layout=["contig", "cl_in", "cl_both"], bias=[True, False])
    for p in sample(grid3, int(350 * scale), 3):
        cin, cout = p["cin_cout"]
        g = cin if p["groups"] == "dw" else 1
        cout = cin if g > 1 else cout
        t, h, w_ = p["thw"]
        if cin * t * h * w_ * p["batch"] > 64 * 16 * 56 * 56 * 2:
            t, h, w_ = 8, 28, 28
        pad = tuple((k - 1) // 2 for k in p["k"])
        S.add("conv", "conv3d", dict(p, cin=cin, cout=cout, g=g, pad=pad, thw=(t, h, w_), cin_cout=None),
              lambda p=p, cin=cin, cout=cout, g=g, pad=pad, t=t, h=h, w_=w_: (
                  lambda x, w, b: F.conv3d(x, w, b, p["stride"], pad, 1, g),
                  [rnd([p["batch"], cin, t, h, w_], p["dtype"], "cl" if p["layout"] != "contig" else "contig"),
                   rnd([cout, cin // g, *p["k"]], p["dtype"], "cl" if p["layout"] == "cl_both" else "contig"),
                   rnd([cout], p["dtype"]) if p["bias"] else None]))
    # transposed
    gridt = dict(dtype=["f32", "bf16"], dims=[1, 2, 3], k=[2, 3, 4], stride=[1, 2], groups=[1, 4],
                 cin_cout=[(64, 32), (128, 64), (256, 256), (16, 3)], hw=[8, 16, 32], batch=[1, 4],
                 layout=["contig", "cl_in"], bias=[True, False])
    for p in sample(gridt, int(300 * scale), 4):
        cin, cout = p["cin_cout"]
        g = p["groups"] if cin % p["groups"] == 0 and cout % p["groups"] == 0 else 1
        d = p["dims"]
        hw = p["hw"] if d < 3 else min(p["hw"], 16)
        sp = [hw] * d
        fn = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[d]
        pad = (p["k"] - 1) // 2 if p["stride"] == 1 else max(0, (p["k"] - 2) // 2)
        lay = p["layout"] if d > 1 else "contig"
        S.add("conv", f"conv_transpose{d}d", dict(p, cin=cin, cout=cout, g=g, pad=pad, cin_cout=None, layout=lay),
              lambda p=p, cin=cin, cout=cout, g=g, sp=sp, fn=fn, d=d, pad=pad, lay=lay: (
                  lambda x, w, b: fn(x, w, b, p["stride"], pad, 0, g),
                  [rnd([p["batch"], cin, *sp], p["dtype"], "cl" if lay == "cl_in" else "contig"),
                   rnd([cin, cout // g, *([p["k"]] * d)], p["dtype"]),
                   rnd([cout], p["dtype"]) if p["bias"] else None]))


def gemm_family(S, scale):
    gl = dict(dtype=["f32", "bf16"], lead=[(1,), (7,), (64,), (512,), (4096,), (2, 128), (8, 512), (32, 197),
                                           (4, 8, 64), (2, 4, 16, 16)],
              kn=[(64, 64), (768, 768), (768, 3072), (3072, 768), (1024, 4096), (128, 32000), (4096, 11008),
                  (384, 1000), (96, 288), (2048, 1)],
              bias=[True, False], layout=["contig", "noncontig_in"])
    for p in sample(gl, int(700 * scale), 10):
        k, n = p["kn"]
        if math.prod(p["lead"]) * max(k, n) > 64 * 1024 * 1024:
            continue
        S.add("gemm", "linear", dict(p), lambda p=p, k=k, n=n: (
            lambda x, w, b: F.linear(x, w, b),
            [rnd([*p["lead"], k], p["dtype"]) if p["layout"] == "contig" else
             rnd([*p["lead"], 2 * k], p["dtype"])[..., ::2],
             rnd([n, k], p["dtype"]), rnd([n], p["dtype"]) if p["bias"] else None]))
    gm = dict(dtype=["f32", "bf16"], mkn=[(1, 768, 768), (64, 64, 64), (128, 512, 256), (512, 768, 3072),
                                          (4096, 1024, 1024), (7, 13, 17), (1024, 64, 1024), (8192, 8192, 64)],
              op=["mm", "addmm", "addmm_b1", "matmul", "addmm_beta0", "mm_out_dtype"],
              ta=[False, True], tb=[False, True])
    for p in sample(gm, int(500 * scale), 11):
        m, k, n = p["mkn"]
        op = p["op"]

        def build(p=p, m=m, k=k, n=n, op=op):
            a = rnd([m, k], p["dtype"], "t" if p["ta"] else "contig")
            b = rnd([k, n], p["dtype"], "t" if p["tb"] else "contig")
            if op == "mm":
                return (lambda a, b: torch.mm(a, b)), [a, b]
            if op == "matmul":
                return (lambda a, b: torch.matmul(a, b)), [a, b]
            if op == "addmm":
                return (lambda c, a, b: torch.addmm(c, a, b)), [rnd([n], p["dtype"]), a, b]
            if op == "addmm_b1":
                return (lambda c, a, b: torch.addmm(c, a, b)), [rnd([m, n], p["dtype"]), a, b]
            if op == "addmm_beta0":
                return (lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0)), [rnd([m, n], p["dtype"]), a, b]
            return (lambda a, b: torch.mm(a, b, out_dtype=torch.float32) if a.dtype == torch.bfloat16
                    else torch.mm(a, b)), [a, b]
        S.add("gemm", op, dict(p), build)
    gb = dict(dtype=["f32", "bf16"], shapes=[((32, 128, 64), (32, 64, 128)), ((96, 197, 64), (96, 64, 197)),
                                            ((8, 12, 512, 64), (8, 12, 64, 512)), ((2, 1, 64), (2, 64, 1)),
                                            ((16, 49, 32), (16, 32, 49)), ((4, 8, 128, 128), (128, 64)),
                                            ((4, 1, 64, 32), (1, 8, 32, 64)), ((8, 512, 768), (768, 768)),
                                            ((8, 512, 768), (8, 768, 768)), ((1, 4096, 4096), (4096, 4096))],
              op=["bmm_or_matmul", "baddbmm", "matmul_t"], tr=[False, True])
    for p in sample(gb, int(250 * scale), 12):
        sa, sb = p["shapes"]
        if p["op"] == "baddbmm" and not (len(sa) == 3 and len(sb) == 3):
            continue

        def build(p=p, sa=sa, sb=sb):
            a = rnd(sa, p["dtype"], "t" if p["tr"] else "contig")
            b = rnd(sb, p["dtype"])
            if p["op"] == "baddbmm":
                return (lambda c, a, b: torch.baddbmm(c, a, b, alpha=0.125)), [
                    rnd([sa[0], sa[1], sb[2]], p["dtype"]), a, b]
            if p["op"] == "matmul_t":  # q @ k^T style: second operand a transposed view
                bt = rnd([*sb[:-2], sb[-1], sb[-2]], p["dtype"]).transpose(-1, -2)
                return (lambda a, b: a @ b), [a, bt]
            if len(sa) == 3 and len(sb) == 3 and sa[0] == sb[0]:
                return (lambda a, b: torch.bmm(a, b)), [a, b]
            return (lambda a, b: torch.matmul(a, b)), [a, b]
        S.add("gemm", p["op"], dict(p), build)
    # einsum: windowed / axial / relative-position attention patterns
    eqs = [("bhqd,bhkd->bhqk", [(2, 8, 64, 32), (2, 8, 64, 32)]),
           ("bhqk,bhkd->bhqd", [(2, 8, 64, 64), (2, 8, 64, 32)]),
           ("bnwd,bnvd->bnwv", [(64, 4, 49, 32), (64, 4, 49, 32)]),
           ("bhxyd,bhxzd->bhxyz", [(2, 4, 16, 16, 32), (2, 4, 16, 16, 32)]),
           ("bhqd,qkd->bhqk", [(2, 8, 64, 32), (64, 64, 32)]),
           ("bqhd,bkhd->bhqk", [(2, 128, 8, 64), (2, 128, 8, 64)]),
           ("bhqk,bkhd->bqhd", [(2, 8, 128, 128), (2, 128, 8, 64)]),
           ("bij,bjk->bik", [(8, 64, 32), (8, 32, 16)]),
           ("ij,jk->ik", [(256, 128), (128, 64)]),
           ("bi,bi->b", [(64, 128), (64, 128)]),
           ("bi,bj->bij", [(64, 32), (64, 16)]),
           ("bchw,cd->bdhw", [(2, 64, 14, 14), (64, 32)]),
           ("b h i d, b h j d -> b h i j", [(4, 12, 197, 64), (4, 12, 197, 64)]),
           ("bhwc,hkc->bhwk", [(2, 14, 14, 64), (14, 14, 64)]),
           ("bhwc,wkc->bhwk", [(2, 14, 14, 64), (14, 14, 64)]),
           ("ii->i", [(64, 64)]), ("bii->bi", [(8, 64, 64)]), ("ij->ji", [(64, 32)]), ("bij->b", [(8, 64, 64)])]
    for (eq, shapes), dtype in itertools.product(eqs, ["f32", "bf16"]):
        S.add("gemm", "einsum", dict(eq=eq, shapes=shapes, dtype=dtype),
              lambda eq=eq, shapes=shapes, dtype=dtype: (
                  lambda *t: torch.einsum(eq, *t), [rnd(s, dtype) for s in shapes]))


def sdpa_family(S, scale):
    g = dict(dtype=["f32", "bf16", "f16"], d=[32, 64, 80, 128, 256], lq_lk=[(1, 128), (64, 64), (128, 128),
                                                                          (197, 197), (512, 512), (77, 77), (128, 1024)],
             heads=[(2, 8), (8, 12), (1, 4)],
             mask=["none", "causal", "bool_LS", "bool_B11S", "bool_B1LS", "bool_BHLS", "float_LS", "float_B11S",
                   "float_B1LS", "float_BHLS", "float_11LS", "bool_11LS"],
             layout=["contig", "bshd"])
    for p in sample(g, int(700 * scale), 20):
        lq, lk = p["lq_lk"]
        b, h = p["heads"]
        if p["mask"] == "causal" and lq != lk:
            continue

        def build(p=p, lq=lq, lk=lk, b=b, h=h):
            def qkv(l):
                if p["layout"] == "bshd":
                    return rnd([b, l, h, p["d"]], p["dtype"]).transpose(1, 2)
                return rnd([b, h, l, p["d"]], p["dtype"])
            q, k, v = qkv(lq), qkv(lk), qkv(lk)
            m = p["mask"]
            mask = None
            if m not in ("none", "causal"):
                kind, shp = m.split("_")
                dims = {"LS": [lq, lk], "B11S": [b, 1, 1, lk], "B1LS": [b, 1, lq, lk], "BHLS": [b, h, lq, lk],
                        "11LS": [1, 1, lq, lk]}[shp]
                mask = (torch.rand(dims, device=DEV) > 0.2) if kind == "bool" else rnd(dims, p["dtype"])
            causal = m == "causal"
            return (lambda q, k, v, mask: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)), [
                q, k, v, mask]
        S.add("sdpa", "scaled_dot_product_attention", dict(p, b=b, h=h, lq=lq, lk=lk), build)


def norm_family(S, scale):
    g = dict(dtype=["f32", "bf16"], shape=[(8, 512, 768), (2, 197, 384), (4096, 1024), (2, 56, 56, 96), (8, 128, 4096),
                                           (2, 7, 7, 768), (32, 64)],
             layout=["contig", "permuted"], affine=[True, False])
    for p in sample(g, 200, 30):
        shp = p["shape"]

        def build(p=p, shp=shp):
            if p["layout"] == "permuted":  # channels-last LayerNorm: NCHW storage permuted to N..C
                x = rnd([shp[0], shp[-1], *shp[1:-1]], p["dtype"]).movedim(1, -1)
            else:
                x = rnd(shp, p["dtype"])
            n = shp[-1]
            w = rnd([n], p["dtype"]) if p["affine"] else None
            b = rnd([n], p["dtype"]) if p["affine"] else None
            return (lambda x, w, b: F.layer_norm(x, (n,), w, b)), [x, w, b]
        S.add("norm", "layer_norm", dict(p), build)
        S.add("norm", "rms_norm", dict(p), lambda p=p, shp=shp: (
            lambda x, w: F.rms_norm(x, (shp[-1],), w),
            [rnd(shp, p["dtype"]) if p["layout"] == "contig" else rnd([shp[0], shp[-1], *shp[1:-1]], p["dtype"]).movedim(1, -1),
             rnd([shp[-1]], p["dtype"]) if p["affine"] else None]))
    gb = dict(dtype=["f32", "bf16"], shape=[(32, 64, 56, 56), (2, 256, 14, 14), (8, 128), (4, 64, 8, 28, 28),
                                            (16, 80, 100), (1, 3, 224, 224)], layout=["contig", "cl"],
              wdtype=["same", "f32"])
    for p in sample(gb, 120, 31):
        shp = p["shape"]
        lay = p["layout"] if len(shp) >= 4 else "contig"
        S.add("norm", "batch_norm_eval", dict(p, layout=lay), lambda p=p, shp=shp, lay=lay: (
            lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, False),
            [rnd(shp, p["dtype"], lay)] + [rnd([shp[1]], p["dtype"] if p["wdtype"] == "same" else "f32").abs() + 0.5
                                           for _ in range(4)]))
    gg = dict(dtype=["f32", "bf16"], shape=[(8, 64, 56, 56), (2, 320, 32, 32), (4, 32, 16), (2, 512, 8, 8)],
              groups=[1, 8, 32], layout=["contig", "cl"])
    for p in sample(gg, 60, 32):
        shp = p["shape"]
        lay = p["layout"] if len(shp) == 4 else "contig"
        S.add("norm", "group_norm", dict(p, layout=lay), lambda p=p, shp=shp, lay=lay: (
            lambda x, w, b: F.group_norm(x, p["groups"], w, b),
            [rnd(shp, p["dtype"], lay), rnd([shp[1]], p["dtype"]), rnd([shp[1]], p["dtype"])]))
    for dtype, shp in itertools.product(["f32", "bf16"], [(8, 64, 56, 56), (2, 256, 16, 16)]):
        S.add("norm", "instance_norm", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp: (
            lambda x: F.instance_norm(x), [rnd(shp, dtype)]))
    # softmax / log_softmax ride along (attention paths)
    for dtype, shp, dim in itertools.product(["f32", "bf16"], [(8, 12, 128, 128), (2, 1000), (4096, 32000), (64, 49, 49)],
                                             [-1, 1]):
        S.add("norm", "softmax", dict(dtype=dtype, shape=shp, dim=dim), lambda dtype=dtype, shp=shp, dim=dim: (
            lambda x: torch.softmax(x, dim), [rnd(shp, dtype)]))
        S.add("norm", "log_softmax", dict(dtype=dtype, shape=shp, dim=dim), lambda dtype=dtype, shp=shp, dim=dim: (
            lambda x: torch.log_softmax(x, dim), [rnd(shp, dtype)]))


def reduction_family(S, scale):
    ops = {"sum": lambda x, d, k: x.sum(d, keepdim=k) if d is not None else x.sum(),
           "mean": lambda x, d, k: x.mean(d, keepdim=k) if d is not None else x.mean(),
           "amax": lambda x, d, k: x.amax(d, keepdim=k) if d is not None else x.amax(),
           "amin": lambda x, d, k: x.amin(d, keepdim=k) if d is not None else x.amin(),
           "max_dim": lambda x, d, k: x.max(d if isinstance(d, int) else -1, keepdim=k),
           "argmax": lambda x, d, k: x.argmax(d if isinstance(d, int) else None, keepdim=k if isinstance(d, int) else False),
           "std": lambda x, d, k: x.std(d, keepdim=k) if d is not None else x.std(),
           "var": lambda x, d, k: x.var(d, keepdim=k) if d is not None else x.var(),
           "var_mean": lambda x, d, k: torch.var_mean(x, d, keepdim=k) if d is not None else torch.var_mean(x),
           "std_mean": lambda x, d, k: torch.std_mean(x, d, keepdim=k) if d is not None else torch.std_mean(x),
           "prod": lambda x, d, k: x.prod(d if isinstance(d, int) else -1, keepdim=k),
           "norm2": lambda x, d, k: torch.linalg.vector_norm(x, 2, d, keepdim=k),
           "logsumexp": lambda x, d, k: torch.logsumexp(x, d if d is not None else -1, keepdim=k),
           "any": lambda x, d, k: (x > 0).any(d if isinstance(d, int) else -1, keepdim=k),
           "count_nonzero": lambda x, d, k: torch.count_nonzero(x, d)}
    g = dict(op=list(ops), dtype=["f32", "bf16"], shape=[(8, 512, 768), (2, 64, 56, 56), (4096, 1000), (1000000,),
                                                       (16, 3, 7, 7), (2, 197, 768)],
             dim=["last", "first", "mid", "last2", "all"], keepdim=[False, True], layout=["contig", "t"])
    for p in sample(g, int(650 * scale), 40):
        shp = p["shape"]
        nd = len(shp)
        d = {"last": -1, "first": 0, "mid": 1 if nd > 2 else 0, "last2": (-2, -1) if nd > 1 else -1, "all": None}[p["dim"]]
        lay = p["layout"] if nd > 1 else "contig"
        S.add("reduction", p["op"], dict(p, dim_value=d, layout=lay), lambda p=p, shp=shp, d=d, lay=lay: (
            lambda x: ops[p["op"]](x, d, p["keepdim"]), [rnd(shp, p["dtype"], lay)]))
    # scans
    scans = {"cumsum": torch.cumsum, "cumprod": torch.cumprod, "logcumsumexp": torch.logcumsumexp,
             "cummax": lambda x, d: torch.cummax(x, d)}
    for op, dtype, shp, dim in itertools.product(scans, ["f32", "bf16"], [(8, 512), (2, 128, 768), (1000000,), (64, 4096)],
                                                 [-1, 0]):
        S.add("scan", op, dict(dtype=dtype, shape=shp, dim=dim), lambda op=op, dtype=dtype, shp=shp, dim=dim: (
            lambda x: scans[op](x, dim), [rnd(shp, dtype)]))
    for dtype, shp in itertools.product(["int64", "int32", "bool"], [(8, 512), (2, 4096)]):
        S.add("scan", "cumsum_int", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp: (
            lambda x: torch.cumsum(x, -1),
            [(torch.randn(shp, device=DEV) > 0).to(getattr(torch, dtype))]))


def index_family(S, scale):
    i64 = lambda hi, shape: torch.randint(0, hi, shape, device=DEV)
    for dtype, (n, d), idx in itertools.product(["f32", "bf16"], [(50000, 768), (1000, 64), (32128, 512), (100, 4096)],
                                                [(8, 512), (1,), (4096,), (2, 77)]):
        S.add("index", "embedding", dict(dtype=dtype, vocab=n, dim=d, idx=idx), lambda dtype=dtype, n=n, d=d, idx=idx: (
            lambda w, i: F.embedding(i, w), [rnd([n, d], dtype), i64(n, idx)]))
        S.add("index", "index_select", dict(dtype=dtype, src=(n, d), idx=idx[-1]), lambda dtype=dtype, n=n, d=d, idx=idx: (
            lambda w, i: torch.index_select(w, 0, i), [rnd([n, d], dtype), i64(n, (idx[-1],))]))
    for dtype, shp, dim in itertools.product(["f32", "bf16"], [(64, 1000), (8, 12, 128, 128), (4096, 256)], [-1, 0]):
        S.add("index", "gather", dict(dtype=dtype, shape=shp, dim=dim), lambda dtype=dtype, shp=shp, dim=dim: (
            lambda x, i: torch.gather(x, dim, i), [rnd(shp, dtype), i64(shp[dim], shp)]))
        S.add("index", "scatter", dict(dtype=dtype, shape=shp, dim=dim), lambda dtype=dtype, shp=shp, dim=dim: (
            lambda x, i, s: x.scatter(dim, i, s), [rnd(shp, dtype), i64(shp[dim], shp), rnd(shp, dtype)]))
        S.add("index", "scatter_add", dict(dtype=dtype, shape=shp, dim=dim), lambda dtype=dtype, shp=shp, dim=dim: (
            lambda x, i, s: x.scatter_add(dim, i, s), [rnd(shp, dtype), i64(shp[dim], shp), rnd(shp, dtype)]))
        S.add("index", "scatter_reduce_amax", dict(dtype=dtype, shape=shp, dim=dim), lambda dtype=dtype, shp=shp, dim=dim: (
            lambda x, i, s: x.scatter_reduce(dim, i, s, "amax"), [rnd(shp, dtype), i64(shp[dim], shp), rnd(shp, dtype)]))
        S.add("index", "scatter_value", dict(dtype=dtype, shape=shp, dim=dim), lambda dtype=dtype, shp=shp, dim=dim: (
            lambda x, i: x.scatter(dim, i, 1.0), [rnd(shp, dtype), i64(shp[dim], shp)]))
        S.add("index", "take_along_dim", dict(dtype=dtype, shape=shp, dim=dim), lambda dtype=dtype, shp=shp, dim=dim: (
            lambda x, i: torch.take_along_dim(x, i, dim), [rnd(shp, dtype), i64(shp[dim], shp)]))
    for dtype, (n, d), m, inplace in itertools.product(["f32", "bf16"], [(1000, 64), (50000, 768), (16, 16)],
                                                       [8, 512, 4096], [False, True]):
        S.add("index", "index_add", dict(dtype=dtype, shape=(n, d), nidx=m, inplace=inplace),
              lambda dtype=dtype, n=n, d=d, m=m, inplace=inplace: (
                  (lambda x, i, s: x.index_add_(0, i, s)) if inplace else (lambda x, i, s: x.index_add(0, i, s)),
                  [rnd([n, d], dtype), i64(n, (m,)), rnd([m, d], dtype)]))
        S.add("index", "index_copy", dict(dtype=dtype, shape=(n, d), nidx=m),
              lambda dtype=dtype, n=n, d=d, m=m: (lambda x, i, s: x.index_copy(0, i, s),
                                                   [rnd([n, d], dtype), torch.randperm(n, device=DEV)[:min(m, n)],
                                                    rnd([min(m, n), d], dtype)]))
    for shp, ncls in itertools.product([(8,), (8, 512), (4096,), (2, 7, 7)], [2, 10, 1000, -1]):
        nc = ncls if ncls > 0 else 10
        S.add("index", "one_hot", dict(shape=shp, num_classes=ncls), lambda shp=shp, ncls=ncls, nc=nc: (
            lambda i: F.one_hot(i, ncls), [i64(nc, shp)]))
    # advanced indexing
    adv = {"x[idx]": lambda x, i, m: x[i], "x[:, idx]": lambda x, i, m: x[:, i], "x[mask]": lambda x, i, m: x[m],
           "x[idx]=v": lambda x, i, m: x.index_put((i,), torch.ones((), device=x.device, dtype=x.dtype)),
           "x[idx]=t": lambda x, i, m: x.index_put((i,), x[i] * 2),
           "x[idx]+=t": lambda x, i, m: x.index_put((i,), x[i], accumulate=True),
           "x[mask]=0": lambda x, i, m: x.masked_fill(m.view(-1, *([1] * (x.dim() - 1))) if m.dim() == 1 else m, 0.0),
           "x[idx,idx]": lambda x, i, m: x[i, i], "x[arange,idx]": lambda x, i, m: x[torch.arange(i.numel(), device=x.device) % x.shape[0], i],
           "x[..., idx]": lambda x, i, m: x[..., i], "masked_select": lambda x, i, m: torch.masked_select(x, m.view(-1, *([1] * (x.dim() - 1)))),
           "nonzero": lambda x, i, m: torch.nonzero(m)}
    for op, dtype, shp, nidx in itertools.product(adv, ["f32", "bf16"], [(64, 1000), (8, 197, 768), (4096,)], [4, 64]):
        S.add("index", "index:" + op, dict(dtype=dtype, shape=shp, nidx=nidx), lambda op=op, dtype=dtype, shp=shp, nidx=nidx: (
            lambda x, i, m: adv[op](x, i, m), [rnd(shp, dtype), i64(min(shp[0], shp[-1] if len(shp) > 1 else shp[0]), (nidx,)),
                                               torch.rand(shp[0], device=DEV) > 0.5]))


def where_family(S, scale):
    shapes = [((8, 512, 768), (8, 512, 768)), ((8, 12, 128, 128), (8, 1, 1, 128)), ((8, 12, 128, 128), (128, 128)),
              ((4096,), (4096,)), ((2, 64, 56, 56), (2, 1, 56, 56)), ((8, 1, 1, 128), (8, 1, 1, 128))]
    forms = {"where_t_t": lambda c, x: torch.where(c, x, x * 0),
             "where_t_scalar": lambda c, x: torch.where(c, x, -1e4),
             "where_scalar_t": lambda c, x: torch.where(c, 0.0, x),
             "where_scalar_scalar": lambda c, x: torch.where(c, 1.0, 0.0),
             "where_t_neg_inf": lambda c, x: torch.where(c, x, float("-inf")),
             "where_t_finfo_min": lambda c, x: torch.where(c, x, torch.finfo(x.dtype).min),
             "where_t_tensor0d": lambda c, x: torch.where(c, x, torch.tensor(-1e4, device=x.device, dtype=x.dtype)),
             "where_t_tensor0d_f32": lambda c, x: torch.where(c, x, torch.tensor(-1e4, device=x.device)),
             "where_t_cputensor0d": lambda c, x: torch.where(c, x, torch.tensor(-1e4, dtype=x.dtype)),
             "masked_fill_scalar": lambda c, x: x.masked_fill(c, -1e4),
             "masked_fill_neg_inf": lambda c, x: x.masked_fill(c, float("-inf")),
             "masked_fill_tensor0d": lambda c, x: x.masked_fill(c, torch.tensor(-1e4, device=x.device, dtype=x.dtype)),
             "masked_fill_": lambda c, x: x.clone().masked_fill_(c, 0.0),
             "where_cond_only": lambda c, x: torch.where(c)}
    for form, dtype, (xs, cs), cdt in itertools.product(forms, ["f32", "bf16"], shapes, ["bool", "uint8_ne"]):
        if form in ("where_cond_only",) and (dtype != "f32" or cdt != "bool"):
            continue
        if cdt != "bool" and form not in ("where_t_scalar", "masked_fill_scalar"):
            continue

        def build(form=form, dtype=dtype, xs=xs, cs=cs, cdt=cdt):
            c = torch.rand(cs, device=DEV) > 0.3
            x = rnd(xs, dtype)
            if cdt == "uint8_ne":
                cu = c.to(torch.uint8)
                return (lambda cu, x: forms[form](cu != 0, x)), [cu, x]
            return forms[form], [c, x]
        S.add("where", form, dict(dtype=dtype, x=xs, cond=cs, cond_dtype=cdt), build)
    # attention-mask construction inside graphs (BERT / T5 style), piece by piece
    for dtype, (b, s) in itertools.product(["f32", "bf16"], [(2, 128), (8, 512)]):
        dt = DT[dtype]
        S.add("where", "mask:bert_extended", dict(dtype=dtype, b=b, s=s), lambda dt=dt, b=b, s=s: (
            lambda m: (1.0 - m[:, None, None, :].to(dt)) * torch.finfo(dt).min, [torch.ones(b, s, device=DEV, dtype=torch.long)]))
        S.add("where", "mask:bool_expand_sdpa_style", dict(dtype=dtype, b=b, s=s), lambda dt=dt, b=b, s=s: (
            lambda m: m[:, None, None, :].bool().expand(b, 1, s, s), [torch.ones(b, s, device=DEV, dtype=torch.long)]))
        S.add("where", "mask:causal_triu", dict(dtype=dtype, b=b, s=s), lambda dt=dt, b=b, s=s: (
            lambda x: torch.full((s, s), torch.finfo(dt).min, device=DEV, dtype=dt).triu(1), [rnd([1], dtype)]))
        S.add("where", "mask:t5_relpos_bucket", dict(dtype=dtype, b=b, s=s), lambda dt=dt, b=b, s=s: (
            lambda x: (torch.arange(s, device=DEV)[None, :] - torch.arange(s, device=DEV)[:, None]).abs().clamp(max=31),
            [rnd([1], dtype)]))


def resample_family(S, scale):
    g = dict(mode=["nearest", "bilinear", "bicubic", "nearest-exact", "area"], dtype=["f32", "bf16"],
             shape=[(2, 64, 14, 14), (1, 3, 224, 224), (8, 256, 32, 32), (2, 19, 64, 64)],
             how=["scale2", "scale0.5", "size_odd", "size_same"], align=[False, True], layout=["contig", "cl"])
    for p in sample(g, int(250 * scale), 50):
        if p["align"] and p["mode"] not in ("bilinear", "bicubic"):
            continue
        shp = p["shape"]

        def build(p=p, shp=shp):
            kw = {}
            if p["how"] == "scale2":
                kw["scale_factor"] = 2.0
            elif p["how"] == "scale0.5":
                kw["scale_factor"] = 0.5
            elif p["how"] == "size_odd":
                kw["size"] = (shp[2] * 3 // 2 + 1, shp[3] * 3 // 2 + 1)
            else:
                kw["size"] = (shp[2], shp[3])
            if p["mode"] in ("bilinear", "bicubic"):
                kw["align_corners"] = p["align"]
            return (lambda x: F.interpolate(x, mode=p["mode"], **kw)), [rnd(shp, p["dtype"], p["layout"])]
        S.add("resample", "interpolate", dict(p), build)
    for mode, dtype, dims in itertools.product(["nearest", "linear"], ["f32", "bf16"], [1, 3]):
        m = mode if dims == 1 else ("trilinear" if mode == "linear" else "nearest")
        shp = [2, 16, 64] if dims == 1 else [2, 16, 4, 14, 14]
        S.add("resample", "interpolate", dict(mode=m, dtype=dtype, shape=shp, how="scale2"), lambda m=m, dtype=dtype, shp=shp: (
            lambda x: F.interpolate(x, scale_factor=2, mode=m), [rnd(shp, dtype)]))
    for op, r, dtype, shp, lay in itertools.product(["pixel_shuffle", "pixel_unshuffle"], [2, 4], ["f32", "bf16"],
                                                    [(2, 64, 16, 16), (1, 48, 56, 56), (8, 256, 8, 8)], ["contig", "cl"]):
        S.add("resample", op, dict(r=r, dtype=dtype, shape=shp, layout=lay), lambda op=op, r=r, dtype=dtype, shp=shp, lay=lay: (
            lambda x: getattr(F, op)(x, r), [rnd(shp, dtype, lay)]))
    pools = {"max_pool2d_3s2": lambda x: F.max_pool2d(x, 3, 2, 1), "avg_pool2d_2": lambda x: F.avg_pool2d(x, 2),
             "adaptive_avg_1": lambda x: F.adaptive_avg_pool2d(x, 1), "adaptive_avg_7": lambda x: F.adaptive_avg_pool2d(x, 7),
             "adaptive_max_1": lambda x: F.adaptive_max_pool2d(x, 1), "max_pool2d_idx": lambda x: F.max_pool2d(x, 2, return_indices=True),
             "avg_pool2d_3s1p1_noinc": lambda x: F.avg_pool2d(x, 3, 1, 1, count_include_pad=False)}
    for op, dtype, shp, lay in itertools.product(pools, ["f32", "bf16"], [(32, 64, 112, 112), (2, 512, 7, 7), (8, 96, 55, 55)],
                                                 ["contig", "cl"]):
        S.add("resample", "pool:" + op, dict(dtype=dtype, shape=shp, layout=lay), lambda op=op, dtype=dtype, shp=shp, lay=lay: (
            pools[op], [rnd(shp, dtype, lay)]))
    for dtype, shp in itertools.product(["f32", "bf16"], [(2, 64, 8, 56, 56), (2, 512, 2, 7, 7)]):
        S.add("resample", "pool:max_pool3d", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp: (
            lambda x: F.max_pool3d(x, (1, 3, 3), (1, 2, 2), (0, 1, 1)), [rnd(shp, dtype)]))
        S.add("resample", "pool:adaptive_avg_pool3d", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp: (
            lambda x: F.adaptive_avg_pool3d(x, 1), [rnd(shp, dtype)]))


def rnn_family(S, scale):
    g = dict(cell=["LSTM", "GRU", "RNN_TANH", "RNN_RELU"], layers=[1, 2, 3], bidir=[False, True], batch_first=[False, True],
             seq=[1, 8, 32, 128], batch=[1, 8], hidden=[(64, 64), (256, 256), (80, 128)], dtype=["f32", "bf16"],
             bias=[True, False])
    for p in sample(g, int(320 * scale), 60):
        inp, hid = p["hidden"]

        def build(p=p, inp=inp, hid=hid):
            cls = {"LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU, "RNN_TANH": torch.nn.RNN, "RNN_RELU": torch.nn.RNN}[p["cell"]]
            kw = dict(nonlinearity="relu") if p["cell"] == "RNN_RELU" else {}
            m = cls(inp, hid, p["layers"], bias=p["bias"], batch_first=p["batch_first"], bidirectional=p["bidir"],
                    device=DEV, dtype=DT[p["dtype"]], **kw).eval()
            shp = [p["batch"], p["seq"], inp] if p["batch_first"] else [p["seq"], p["batch"], inp]
            return (lambda x: m(x)), [rnd(shp, p["dtype"])]
        S.add("rnn", p["cell"], dict(p, input_size=inp, hidden_size=hid, hidden=None), build)
    # LSTM with initial state given, and LSTM with projections
    for dtype, seq in itertools.product(["f32", "bf16"], [16, 64]):
        S.add("rnn", "LSTM_h0c0", dict(dtype=dtype, seq=seq, layers=2, hidden_size=256), lambda dtype=dtype, seq=seq: (
            (lambda m: (lambda x, h, c: m(x, (h, c))))(torch.nn.LSTM(256, 256, 2, batch_first=True, device=DEV, dtype=DT[dtype])),
            [rnd([4, seq, 256], dtype), rnd([2, 4, 256], dtype), rnd([2, 4, 256], dtype)]))
        S.add("rnn", "LSTM_proj", dict(dtype=dtype, seq=seq, layers=2, hidden_size=256, proj_size=64), lambda dtype=dtype, seq=seq: (
            (lambda m: (lambda x: m(x)))(torch.nn.LSTM(256, 256, 2, batch_first=True, proj_size=64, device=DEV, dtype=DT[dtype])),
            [rnd([4, seq, 256], dtype)]))
        S.add("rnn", "LSTM_unflattened", dict(dtype=dtype, seq=seq, layers=2, hidden_size=256), lambda dtype=dtype, seq=seq: (
            (lambda m: (lambda x, *w: torch._VF.lstm(x, (torch.zeros(2, 4, 256, device=DEV, dtype=DT[dtype]),) * 2, list(w),
                                                      True, 2, 0.0, False, False, True)))(None),
            [rnd([4, seq, 256], dtype)] + [rnd(s, dtype) for s in [[1024, 256], [1024, 256], [1024], [1024]] * 2]))


def copy_family(S, scale):
    dts = ["f32", "bf16"]
    for dtype, shp in itertools.product(dts, [(8, 512, 768), (32, 64, 56, 56), (2, 197, 12, 64), (4096,)]):
        nd = len(shp)
        S.add("copy", "contiguous_T", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp, nd=nd: (
            lambda x: x.transpose(0, -1).contiguous(), [rnd(shp, dtype)]))
        S.add("copy", "clone", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp: (lambda x: x.clone(), [rnd(shp, dtype)]))
        for to in ["f32", "bf16", "f16", "int64", "bool"]:
            S.add("copy", "to_dtype", dict(dtype=dtype, to=to, shape=shp), lambda dtype=dtype, shp=shp, to=to: (
                lambda x: x.to(DT.get(to) or getattr(torch, to)), [rnd(shp, dtype)]))
        if nd == 4:
            S.add("copy", "to_channels_last", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp: (
                lambda x: x.contiguous(memory_format=torch.channels_last), [rnd(shp, dtype)]))
            S.add("copy", "permute_0213_contiguous", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp: (
                lambda x: x.permute(0, 2, 1, 3).contiguous(), [rnd(shp, dtype)]))
        S.add("copy", "to_cpu", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp: (lambda x: x.cpu(), [rnd(shp, dtype)]))
        S.add("copy", "flip", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp: (lambda x: x.flip(-1), [rnd(shp, dtype)]))
        S.add("copy", "roll", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp: (
            lambda x: x.roll(3, -1), [rnd(shp, dtype)]))
        if nd >= 3:
            S.add("copy", "roll2d", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp: (
                lambda x: torch.roll(x, (3, 3), (1, 2)), [rnd(shp, dtype)]))
        S.add("copy", "repeat", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp, nd=nd: (
            lambda x: x.repeat(*([2] + [1] * (nd - 1))), [rnd(shp, dtype)]))
        S.add("copy", "expand_contiguous", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp, nd=nd: (
            lambda x: x[:1].expand(4, *shp[1:]).contiguous(), [rnd(shp, dtype)]))
        S.add("copy", "tril", dict(dtype=dtype, shape=shp), lambda dtype=dtype, shp=shp: (
            lambda x: x.tril() if x.dim() >= 2 else x, [rnd(shp, dtype)]))
    # cat / stack
    for dtype, n, shp, dim, mixed in itertools.product(dts, [2, 3, 8, 33], [(8, 128, 64), (2, 64, 28, 28), (1, 768)], [0, 1, -1],
                                                       [False, True]):
        def build(dtype=dtype, n=n, shp=shp, dim=dim, mixed=mixed):
            ts = [rnd(shp, dtype) for _ in range(n)]
            if mixed:
                ts[0] = rnd([*shp[:-2], shp[-1], shp[-2]], dtype).transpose(-1, -2) if len(shp) > 2 else rnd([shp[1], shp[0]], dtype).t()
            return (lambda *t: torch.cat(t, dim)), ts
        S.add("copy", "cat", dict(dtype=dtype, n=n, shape=shp, dim=dim, mixed_layout=mixed), build)
    for dtype, n, shp, dim in itertools.product(dts, [2, 4, 16], [(8, 128, 64), (2, 64, 28, 28)], [0, -1]):
        S.add("copy", "stack", dict(dtype=dtype, n=n, shape=shp, dim=dim), lambda dtype=dtype, n=n, shp=shp, dim=dim: (
            lambda *t: torch.stack(t, dim), [rnd(shp, dtype) for _ in range(n)]))
    # pad
    for mode, dtype, shp, padv in itertools.product(["constant", "reflect", "replicate", "circular"], dts,
                                                    [(2, 64, 56, 56), (8, 128, 768), (2, 16, 8, 28, 28)],
                                                    ["1111", "0101", "neg"]):
        nd = len(shp)
        pads = {"1111": (1, 1, 1, 1), "0101": (0, 1, 0, 1), "neg": (-1, -1, 0, 0) if mode == "constant" else (2, 2, 2, 2)}[padv]
        if nd == 3:
            pads = pads[:2]
        if nd == 5:
            pads = pads + (1, 1)
        S.add("copy", "pad", dict(mode=mode, dtype=dtype, shape=shp, pad=pads), lambda mode=mode, dtype=dtype, shp=shp, pads=pads: (
            lambda x: F.pad(x, pads, mode=mode), [rnd(shp, dtype)]))
    # factories and small things models build in-graph
    facs = {"zeros": lambda: torch.zeros(8, 512, 768, device=DEV), "ones": lambda: torch.ones(8, 512, device=DEV),
            "full": lambda: torch.full((512, 512), -1e4, device=DEV), "arange": lambda: torch.arange(512, device=DEV),
            "arange_f": lambda: torch.arange(0, 64, 2, device=DEV, dtype=torch.float32),
            "empty": lambda: torch.empty(8, 512, 768, device=DEV), "zeros_bf16": lambda: torch.zeros(8, 512, 768, device=DEV, dtype=torch.bfloat16),
            "zeros_like": lambda: torch.zeros_like(torch.empty(1024, device=DEV)), "linspace": lambda: torch.linspace(0, 1, 100, device=DEV),
            "eye": lambda: torch.eye(64, device=DEV), "tensor_scalar": lambda: torch.tensor(3.0, device=DEV),
            "scalar_tensor": lambda: torch.scalar_tensor(3.0, device=DEV), "randn": lambda: torch.randn(1000, 1000, device=DEV),
            "rand_like": lambda: torch.rand(64, 64, device=DEV), "triu_ones": lambda: torch.ones(128, 128, device=DEV).triu(1),
            "meshgrid": lambda: torch.stack(torch.meshgrid(torch.arange(7, device=DEV), torch.arange(7, device=DEV), indexing="ij"))}
    for name, fn in facs.items():
        S.add("copy", "factory:" + name, {}, lambda fn=fn: ((lambda: fn()), []))


def gemm_f32_family(S, scale):
    """f32 GEMMs with few output tiles, where cuBLAS's split-K choice lives: a dense grid of
    M x K x N for linear with and without a bias (2-D input: one cuBLASLt call) and addmm."""
    g = dict(m=[16, 24, 32, 48, 64, 96, 98, 100, 128, 160, 196, 200, 225, 256, 300, 384, 392, 400, 448, 512, 640, 768, 1024],
             k=[2, 16, 32, 64, 96, 128, 160, 192, 240, 256, 320, 384, 448, 512, 640, 768, 1024, 1280, 1536, 2048, 3072, 4096],
             n=[10, 32, 64, 96, 128, 160, 192, 240, 256, 288, 320, 384, 448, 512, 640, 768, 1024, 1536],
             op=["linear_bias", "linear", "addmm"])
    for p in sample(g, int(4000 * scale), 90):
        m, k, n = p["m"], p["k"], p["n"]
        if p["op"] == "addmm":
            S.add("gemm_f32", "addmm", dict(p, dtype="f32"), lambda m=m, k=k, n=n: (
                lambda c, a, b: torch.addmm(c, a, b), [rnd([n]), rnd([m, k]), rnd([k, n])]))
        else:
            bias = p["op"] == "linear_bias"
            S.add("gemm_f32", "linear", dict(p, dtype="f32", bias=bias), lambda m=m, k=k, n=n, bias=bias: (
                lambda x, w, b: F.linear(x, w, b), [rnd([m, k]), rnd([n, k]), rnd([n]) if bias else None]))


def gemm_half_family(S, scale):
    """bf16 linear GEMMs over M x K x N: where cuBLASLt's stream-K kernels zero a workspace
    (a memset) and where it splits K."""
    g = dict(m=[64, 98, 128, 196, 256, 392, 512, 784, 1024, 1568, 2048, 3136, 4096, 6272, 8192, 12544],
             k=[64, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096],
             n=[64, 128, 192, 256, 384, 512, 768, 1000, 1024, 1152, 1536, 2048, 3072, 4096],
             bias=[True, False])
    for p in sample(g, int(2000 * scale), 92):
        m, k, n, bias = p["m"], p["k"], p["n"], p["bias"]
        S.add("gemm_half", "linear", dict(p, dtype="bf16"), lambda m=m, k=k, n=n, bias=bias: (
            lambda x, w, b: F.linear(x, w, b),
            [rnd([m, k], "bf16"), rnd([n, k], "bf16"), rnd([n], "bf16") if bias else None]))


def grouped_conv_family(S, scale):
    """Grouped and depthwise-multiplier convolutions by layout: when cuDNN loops over groups."""
    g = dict(dtype=["f32", "bf16"], dims=[1, 2], groups=[2, 4, 8, 16, 32, 64], cpg=[1, 2, 4, 8, 16, 32, 64],
             mult=[1, 2], k=[1, 3, 5], stride=[1, 2], hw=[7, 14, 28, 56], batch=[1, 2, 8],
             layout=["contig", "cl_in", "cl_both"], bias=[True, False])
    for p in sample(g, int(900 * scale), 91):
        cin = p["groups"] * p["cpg"]
        cout = cin * p["mult"]
        if cin > 1024:
            continue
        d = p["dims"]
        lay = p["layout"] if d == 2 else ("t_in" if p["layout"] != "contig" else "contig")
        sp = [p["hw"]] * d if d == 2 else [p["hw"] * p["hw"] // 4]
        fn = F.conv2d if d == 2 else F.conv1d
        pad = (p["k"] - 1) // 2

        def x_of(p=p, cin=cin, sp=sp, lay=lay, d=d):
            if d == 1 and lay == "t_in":  # [B, L, C] storage viewed as [B, C, L], as after a transpose
                return rnd([p["batch"], sp[0], cin], p["dtype"]).transpose(1, 2)
            return rnd([p["batch"], cin, *sp], p["dtype"], "cl" if lay in ("cl_in", "cl_both") else "contig")
        S.add("gconv", f"conv{d}d", dict(p, cin=cin, cout=cout, layout=lay),
              lambda p=p, cin=cin, cout=cout, fn=fn, pad=pad, x_of=x_of, lay=lay, d=d: (
                  lambda x, w, b: fn(x, w, b, p["stride"], pad, 1, p["groups"]),
                  [x_of(), rnd([cout, p["cpg"], *([p["k"]] * d)], p["dtype"], "cl" if lay == "cl_both" else "contig"),
                   rnd([cout], p["dtype"]) if p["bias"] else None]))


def conv_dense_family(S, scale):
    """Ungrouped conv2d, the bulk of every CNN, densely over the shape features cuDNN's engine
    heuristics read: batch, spatial size, channels in and out, kernel, stride, dtype, layout."""
    g = dict(dtype=["f32", "bf16"], k=[1, 3, 5, 7], stride=[1, 2],
             batch=[1, 2, 4, 8, 16, 32, 64], hw=[5, 7, 10, 12, 14, 20, 24, 28, 40, 48, 56, 80, 96, 112, 160],
             cin=[3, 16, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024, 1280, 2048],
             cout=[16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048],
             layout=["contig", "contig", "contig", "cl_both"])
    for p in sample(g, int(7000 * scale), 93):
        b, hw, cin, cout, k = p["batch"], p["hw"], p["cin"], p["cout"], p["k"]
        # keep each call under ~50 GMAC and 2 GiB of activations
        if b * cin * cout * hw * hw * k * k // p["stride"] ** 2 > 5e10 or b * max(cin, cout) * hw * hw > 5e8:
            continue
        S.add("conv_dense", "conv2d", dict(p, pad=(k - 1) // 2, g=1), lambda p=p, b=b, hw=hw, cin=cin, cout=cout, k=k: (
            lambda x, w: F.conv2d(x, w, None, p["stride"], (k - 1) // 2),
            [rnd([b, cin, hw, hw], p["dtype"], "cl" if p["layout"] == "cl_both" else "contig"),
             rnd([cout, cin, k, k], p["dtype"], "cl" if p["layout"] == "cl_both" else "contig")]))


def gemm_small_family(S, scale):
    """GEMMs with at most 16 rows (classifier heads, SE blocks, decoding): where cuBLASLt splits K
    or runs a GEMV-like kernel, f32 and bf16, linear with and without a bias, addmm."""
    g = dict(dtype=["f32", "bf16"], m=[1, 2, 3, 4, 6, 8, 12, 16],
             k=[16, 32, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1280, 1536, 2048, 3072, 4096],
             n=[8, 16, 32, 64, 128, 256, 384, 512, 768, 1000, 1024, 2048, 4096],
             op=["linear_bias", "linear", "addmm"])
    for p in sample(g, int(1500 * scale), 94):
        m, k, n, dt = p["m"], p["k"], p["n"], p["dtype"]
        if p["op"] == "addmm":
            S.add("gemm_small", "addmm", dict(p), lambda m=m, k=k, n=n, dt=dt: (
                lambda c, a, b: torch.addmm(c, a, b), [rnd([n], dt), rnd([m, k], dt), rnd([k, n], dt)]))
        else:
            bias = p["op"] == "linear_bias"
            S.add("gemm_small", "linear", dict(p, bias=bias), lambda m=m, k=k, n=n, bias=bias, dt=dt: (
                lambda x, w, b: F.linear(x, w, b), [rnd([m, k], dt), rnd([n, k], dt), rnd([n], dt) if bias else None]))


def gconv_wide_family(S, scale):
    """Grouped 2-d convolutions over wider group counts and channels per group than gconv (3 to 64
    groups, 2 to 128 channels each, kernels 1-7): where cuDNN runs one grouped call and where it
    loops over the groups, and how many launches each group costs."""
    g = dict(dtype=["f32", "bf16"], groups=[2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64],
             cpg=[2, 4, 8, 16, 24, 32, 48, 64, 96, 128], mult=[1, 2], k=[1, 3, 5, 7], stride=[1, 2],
             hw=[7, 14, 28, 56], batch=[1, 2, 4, 8, 32], layout=["contig", "contig", "cl_both"])
    for p in sample(g, int(2600 * scale), 95):
        cin = p["groups"] * p["cpg"]
        cout = cin * p["mult"]
        b, hw, k = p["batch"], p["hw"], p["k"]
        if cin > 2048 or b * cout * hw * hw > 2e8:
            continue
        lay = "cl" if p["layout"] == "cl_both" else "contig"
        S.add("gconv_wide", "conv2d", dict(p, cin=cin, cout=cout, pad=(k - 1) // 2, bias=False),
              lambda p=p, cin=cin, cout=cout, b=b, hw=hw, k=k, lay=lay: (
                  lambda x, w: F.conv2d(x, w, None, p["stride"], (k - 1) // 2, 1, p["groups"]),
                  [rnd([b, cin, hw, hw], p["dtype"], lay), rnd([cout, p["cpg"], k, k], p["dtype"], lay)]))


def sdpa_layout_family(S, scale):
    """Attention without a mask over head dims that are and are not multiples of 4 and 8, with q, k
    and v laid out as models make them: contiguous, [B, L, H, E] transposed, unbound from a
    [B, L, 3, H, E] projection, chunked from a [B, H, L, 3E] one, and from a channels-last
    convolution's output: which backend runs, and what the math path copies."""
    g = dict(dtype=["f32", "bf16"], d=[16, 20, 24, 30, 32, 36, 37, 40, 48, 60, 64, 80, 96, 100],
             l=[49, 64, 196], bh=[(2, 3), (12, 4), (1, 8)],
             layout=["contig", "bshd", "unbind", "chunk_last", "conv_cl"])
    for p in sample(g, int(700 * scale), 96):
        b, h = p["bh"]
        d, l, dt = p["d"], p["l"], p["dtype"]

        def build(p=p, b=b, h=h, d=d, l=l, dt=dt):
            lay = p["layout"]
            if lay == "contig":
                q, k, v = (rnd([b, h, l, d], dt) for _ in range(3))
            elif lay == "bshd":
                q, k, v = (rnd([b, l, h, d], dt).transpose(1, 2) for _ in range(3))
            elif lay == "unbind":
                q, k, v = rnd([b, l, 3, h, d], dt).permute(2, 0, 3, 1, 4).unbind(0)
            elif lay == "chunk_last":
                q, k, v = rnd([b, h, l, 3 * d], dt).chunk(3, -1)
            else:  # a channels-last conv output [B, H*3E, s, s] -> [B, H, L, 3E] -> chunks
                s_ = int(round(l ** 0.5))
                x = rnd([b, h * 3 * d, s_, s_], dt, "cl")
                q, k, v = x.reshape(b, h, 3 * d, s_ * s_).permute(0, 1, 3, 2).chunk(3, -1)
            return (lambda q, k, v: F.scaled_dot_product_attention(q, k, v)), [q, k, v]
        S.add("sdpa_layout", "scaled_dot_product_attention", dict(p, b=b, h=h), build)


def matmul_bcast_family(S, scale):
    """Batched matmul whose operands broadcast over batch dims or are 2-D, with contiguous and
    transposed/permuted left operands: what at::matmul folds into one mm, and what it copies
    (expand + reshape of a stride-0 or non-mergeable batch)."""
    g = dict(dtype=["f32", "bf16"], case=["b_h1", "a_h1", "b_2d", "b_3d_bcast", "same"],
             left=["contig", "t_last", "perm_bh"], bh=[(2, 4), (3, 8), (96, 4)], mkn=[(16, 16, 23), (64, 32, 64),
                                                                                     (256, 16, 64), (49, 64, 49)])
    for p in sample(g, int(400 * scale), 97):
        b, h = p["bh"]
        m, k, n = p["mkn"]
        dt = p["dtype"]

        def build(p=p, b=b, h=h, m=m, k=k, n=n, dt=dt):
            def left(hh):
                if p["left"] == "t_last":
                    return rnd([b, hh, k, m], dt).transpose(-1, -2)
                if p["left"] == "perm_bh":
                    return rnd([b, m, hh, k], dt).transpose(1, 2)
                return rnd([b, hh, m, k], dt)
            c = p["case"]
            if c == "b_h1":
                a, bb = left(h), rnd([b, 1, k, n], dt)
            elif c == "a_h1":
                a, bb = left(1), rnd([b, h, k, n], dt)
            elif c == "b_2d":
                a, bb = left(h), rnd([n, k], dt).t()
            elif c == "b_3d_bcast":
                a, bb = left(h), rnd([h, k, n], dt)
            else:
                a, bb = left(h), rnd([b, h, k, n], dt)
            return (lambda a, b_: torch.matmul(a, b_)), [a, bb]
        S.add("matmul_bcast", "matmul", dict(p, b=b, h=h, m=m, k=k, n=n), build)


def conv_align_family(S, scale):
    """Ungrouped conv2d whose channel counts are not multiples of 8 (HRNet's 18 and 36, GhostNet's
    odd widths): where cuDNN pads channels for its tensor-core kernels (a transform and zeroed
    workspaces) or takes another engine."""
    odd = [6, 10, 12, 18, 20, 36, 44, 60, 72, 100, 120, 136, 200, 260]
    g = dict(dtype=["f32", "bf16"], k=[1, 3, 5, 7], stride=[1, 2], batch=[1, 2, 3, 8, 32],
             hw=[7, 14, 28, 56, 112], cin=odd + [16, 64, 256], cout=odd + [16, 64, 256],
             layout=["contig", "contig", "contig", "cl_both"])
    for p in sample(g, int(2000 * scale), 98):
        b, hw, cin, cout, k = p["batch"], p["hw"], p["cin"], p["cout"], p["k"]
        if cin % 8 == 0 and cout % 8 == 0:
            continue
        if b * cin * cout * hw * hw * k * k // p["stride"] ** 2 > 5e10:
            continue
        S.add("conv_align", "conv2d", dict(p, pad=(k - 1) // 2, g=1), lambda p=p, b=b, hw=hw, cin=cin, cout=cout, k=k: (
            lambda x, w: F.conv2d(x, w, None, p["stride"], (k - 1) // 2),
            [rnd([b, cin, hw, hw], p["dtype"], "cl" if p["layout"] == "cl_both" else "contig"),
             rnd([cout, cin, k, k], p["dtype"], "cl" if p["layout"] == "cl_both" else "contig")]))


def gemm_align_family(S, scale):
    """2-D GEMMs (linear with and without a bias, mm) whose K or N is not a multiple of 8, f32 and
    bf16: the unaligned cuBLASLt kernels and their split-K."""
    g = dict(dtype=["f32", "bf16"], m=[16, 64, 128, 392, 1024, 1536, 4096, 12544],
             k=[16, 23, 49, 64, 100, 196, 300, 768], n=[10, 23, 49, 64, 100, 197, 300, 1000, 1001],
             op=["linear_bias", "linear", "mm"])
    for p in sample(g, int(1200 * scale), 99):
        m, k, n, dt = p["m"], p["k"], p["n"], p["dtype"]
        if k % 8 == 0 and n % 8 == 0:
            continue
        if p["op"] == "mm":
            S.add("gemm_align", "mm", dict(p), lambda m=m, k=k, n=n, dt=dt: (
                lambda a, b: torch.mm(a, b), [rnd([m, k], dt), rnd([k, n], dt)]))
        else:
            bias = p["op"] == "linear_bias"
            S.add("gemm_align", "linear", dict(p, bias=bias), lambda m=m, k=k, n=n, bias=bias, dt=dt: (
                lambda x, w, b: F.linear(x, w, b), [rnd([m, k], dt), rnd([n, k], dt), rnd([n], dt) if bias else None]))


def grad_fold_family(S, scale):
    """linear and matmul of an N-D left operand by a 2-D weight that does or does not require grad
    (TorchScript parameters do, as torch.jit.load leaves them), over left operands whose rows are
    and are not a view: matmul's should_fold folds by copying for a weight that requires grad,
    also through a view of it (w.t()). And pow(Tensor, Scalar) of a base of another dtype than the
    result (pow's meta function casts the base first)."""
    g = dict(dtype=["f32", "bf16"], op=["linear", "linear_nobias", "matmul_t"], wgrad=[True, False],
             left=["contig", "t_last", "perm"], b=[1, 2, 8], m=[7, 64, 196], k=[32, 196, 512], n=[16, 256])
    for p in sample(g, int(300 * scale), 99):
        def build(p=p):
            b, m, k, n, dt = p["b"], p["m"], p["k"], p["n"], p["dtype"]
            if p["left"] == "t_last":
                x = rnd([b, k, m], dt).transpose(-1, -2)
            elif p["left"] == "perm":
                x = rnd([m, b, k], dt).transpose(0, 1)
            else:
                x = rnd([b, m, k], dt)
            w = rnd([n, k], dt).requires_grad_(p["wgrad"])
            if p["op"] == "matmul_t":
                return (lambda a, w_: torch.matmul(a, w_.t())), [x, w]
            bias = rnd([n], dt).requires_grad_(p["wgrad"]) if p["op"] == "linear" else None
            return (lambda a, w_, b_: F.linear(a, w_, b_)), [x, w, bias]
        S.add("grad_fold", "matmul_wt" if p["op"] == "matmul_t" else "linear", dict(p), build)
    pg = dict(base=["int64", "int32", "f32", "bf16"], exp=[-0.5, 2.0, 0.5, 3], shape=[[], [7], [64, 33]])
    for p in sample(pg, 60, 100):
        def build(p=p):
            x = (torch.randint(1, 9, p["shape"], device=DEV, dtype=getattr(torch, p["base"]))
                 if p["base"].startswith("int") else rnd(p["shape"], p["base"]))
            return (lambda a, e=p["exp"]: torch.pow(a, e)), [x]
        S.add("grad_fold", "pow_scalar", dict(p), build)


def conv3d_dense_family(S, scale, family="conv3d_dense", seed=96):
    """Ungrouped conv3d (video networks: R3D/MC3/R(2+1)D's 3x3x3, 1x3x3 and 3x1x1 factorizations,
    S3D's separable blocks, 1x1x1 projections, 3x7x7 stems) over the features cuDNN's engine reads:
    batch, time, spatial size, channels in and out (aligned and not), kernel, stride, dtype, layout."""
    g = dict(dtype=["f32", "bf16"], k=[(1, 1, 1), (3, 3, 3), (1, 3, 3), (3, 1, 1), (3, 7, 7), (1, 7, 7), (5, 1, 1)],
             stride=[(1, 1, 1), (1, 1, 1), (1, 2, 2), (2, 2, 2), (2, 1, 1)],
             cin=[3, 16, 24, 32, 45, 64, 96, 128, 144, 192, 230, 256, 288, 320, 480, 512, 576, 832],
             cout=[16, 32, 45, 64, 96, 128, 144, 192, 256, 288, 384, 512, 576, 1024],
             t=[1, 2, 4, 8, 16], hw=[7, 14, 28, 56, 112], batch=[1, 2, 4],
             layout=["contig", "contig", "contig", "cl_both"], bias=[False, False, True])
    if family != "conv3d_dense":  # a second draw: more frames and maps
        g.update(t=[1, 2, 3, 4, 6, 8, 12, 16], hw=[7, 10, 14, 20, 28, 40, 56, 112])
    for p in sample(g, int(2400 * scale), seed):
        b, t, hw, cin, cout, k, st = p["batch"], p["t"], p["hw"], p["cin"], p["cout"], p["k"], p["stride"]
        if k[0] > 2 * t + 1:
            continue
        vol = b * t * hw * hw
        if vol * cin * cout * math.prod(k) // math.prod(st) > 5e10 or vol * max(cin, cout) > 4e8:
            continue
        pad = tuple((v - 1) // 2 for v in k)
        lay = "cl" if p["layout"] == "cl_both" else "contig"
        S.add(family, "conv3d", dict(p, pad=pad, g=1),
              lambda p=p, b=b, t=t, hw=hw, cin=cin, cout=cout, k=k, st=st, pad=pad, lay=lay: (
                  lambda x, w, bias: F.conv3d(x, w, bias, st, pad),
                  [rnd([b, cin, t, hw, hw], p["dtype"], lay), rnd([cout, cin, *k], p["dtype"], lay),
                   rnd([cout], p["dtype"]) if p["bias"] else None]))


def gconv_model_family(S, scale):
    """Grouped NCHW conv2d at the shapes grouped CNNs use (ResNeXt, RegNet, ResNeSt, NFNet, DPN,
    SE-ResNeXt, NextViT): 3x3 and 1x1, group widths 4-288 channels, 2-64 groups, channel
    multipliers 1-4, batch 1-32, maps 7-112: where cuDNN loops over the groups and where not."""
    g = dict(dtype=["f32", "bf16"], groups=[2, 3, 4, 6, 8, 11, 13, 16, 24, 27, 32, 48, 64],
             cpg=[4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 120, 128, 144, 168, 192, 232, 240, 256, 288],
             mult=[1, 1, 1, 2, 4], k=[3, 3, 3, 1], stride=[1, 1, 2], hw=[7, 14, 28, 56, 112],
             batch=[1, 2, 4, 8, 16, 32], bias=[False, False, True])
    for p in sample(g, int(2600 * scale), 97):
        cin = p["groups"] * p["cpg"]
        cout = cin * p["mult"]
        b, hw, k = p["batch"], p["hw"], p["k"]
        if cin > 4096 or b * cout * hw * hw > 2e8 or b * cin * hw * hw * p["cpg"] * p["mult"] * k * k > 5e10:
            continue
        S.add("gconv_model", "conv2d", dict(p, cin=cin, cout=cout, pad=(k - 1) // 2, layout="contig"),
              lambda p=p, cin=cin, cout=cout, b=b, hw=hw, k=k: (
                  lambda x, w, bias: F.conv2d(x, w, bias, p["stride"], (k - 1) // 2, 1, p["groups"]),
                  [rnd([b, cin, hw, hw], p["dtype"]), rnd([cout, p["cpg"], k, k], p["dtype"]),
                   rnd([cout], p["dtype"]) if p["bias"] else None]))


def conv_replay_family(S, scale):
    """The grouped (not depthwise) and 3-d convolutions of the measured model corpora, replayed
    alone at each model's exact shapes, strides and arguments: does cuDNN choose as it did inside
    the model? (A check of the sweeps' premise, not training data: the corpora's own
    measurements stay the only model samples of the trees.)"""
    replay_convs(S, "conv_replay", lambda xs, g, gemm_shaped: len(xs) == 5 and g == 1 or g > 1 and g != xs[1])


def conv1x1_replay_family(S, scale):
    """The corpora's ungrouped 1x1 convolutions at stride 1 without padding (the ones cuDNN can run
    as one cuBLASLt GEMM), replayed alone at each model's exact shapes and strides, once with the
    model's bias and once with the other choice: does a shape launch alone what it launched inside
    its model, and does a bias change the convolution's own launches?"""
    replay_convs(S, "conv1x1_replay", lambda xs, g, gemm_shaped: g == 1 and len(xs) == 4 and gemm_shaped,
                 both_biases=True)


def replay_convs(S, family, keep, both_biases=False):
    """Adds each distinct measured convolution of the corpora that keep(input sizes, groups,
    gemm_shaped) accepts, as the model called it (and with both_biases, with the bias flipped)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "generators"))
    from corpus_ops import CORPORA, model_files, parse_args
    names = {"float32": "f32", "bfloat16": "bf16", "float16": "f16"}
    seen = set()
    for corpus in CORPORA:
        for mname, d in model_files(corpus):
            for o in d.get("ops", []):
                if o.get("op") not in ("aten::conv1d", "aten::conv2d", "aten::conv3d") or tuple(o["args"]) in seen:
                    continue
                tensors, ints = parse_args(o["args"])
                if "input" not in tensors or "weight" not in tensors or tensors["input"][0] not in names:
                    continue
                dt, xs, xst = tensors["input"]
                _, ws, wst = tensors["weight"]
                g = (ints.get("groups") or [1])[0]
                dims = len(xs) - 2
                stride, pad, dil = (ints.get(k) or [dflt] for k, dflt in (("stride", 1), ("padding", 0), ("dilation", 1)))
                gemm_shaped = all(k == 1 for k in ws[2:]) and set(stride) == {1} and not any(pad)
                if not keep(xs, g, gemm_shaped):
                    continue
                seen.add(tuple(o["args"]))
                fn = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[dims]
                meas = o["measured"]

                def tensor(sizes, strides, dt=dt):
                    if strides is None:
                        return rnd(sizes, names[dt])
                    extent = 1 + sum((n - 1) * st for n, st in zip(sizes, strides))
                    return torch.randn(extent, device=DEV, dtype=DT[names[dt]]).as_strided(sizes, strides)
                model_bias = "bias" in tensors
                for has_bias in (model_bias, not model_bias) if both_biases else (model_bias,):
                    S.add(family, f"conv{dims}d",
                          dict(dtype=names[dt], corpus=corpus, model=mname, g=g, stride=stride, pad=pad, dil=dil,
                               bias=has_bias, model_bias=model_bias,
                               measured=[meas["kernels"], meas["memcpy"], meas["memset"]]),
                          lambda fn=fn, xs=xs, xst=xst, ws=ws, wst=wst, stride=stride, pad=pad, dil=dil, g=g,
                          has_bias=has_bias, tensor=tensor, dt=dt: (
                              lambda x, w, b: fn(x, w, b, stride, pad, dil, g),
                              [tensor(xs, xst), tensor(ws, wst), rnd([ws[0]], names[dt]) if has_bias else None]))


def gconv_dense_family(S, scale, family="gconv_dense", seed=98):
    """Grouped NCHW conv2d densely where one call and a loop over the groups alternate (gconv_model:
    from 24 channels a group up), at the batches, maps and group counts of grouped CNNs."""
    g = dict(dtype=["f32", "bf16"], groups=[2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 64],
             cpg=[16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 104, 112, 120, 128, 144, 160, 168, 192, 208, 224, 232, 240,
                  256, 288, 320],
             k=[3, 3, 3, 1], stride=[1, 1, 2], hw=[7, 14, 28, 56], batch=[1, 2, 3, 4, 8])
    if family != "gconv_dense":  # a second draw: also 4-12 channels a group, maps 10-40, batch 16
        g.update(cpg=[4, 8, 12] + g["cpg"], hw=[7, 10, 14, 20, 28, 40, 56], batch=[1, 2, 3, 4, 6, 8, 16])
    for p in sample(g, int(6000 * scale), seed):
        cin = p["groups"] * p["cpg"]
        b, hw, k = p["batch"], p["hw"], p["k"]
        if cin > 4096 or b * cin * hw * hw > 2e8:
            continue
        S.add(family, "conv2d", dict(p, cin=cin, cout=cin, pad=(k - 1) // 2, bias=False, layout="contig"),
              lambda p=p, cin=cin, b=b, hw=hw, k=k: (
                  lambda x, w: F.conv2d(x, w, None, p["stride"], (k - 1) // 2, 1, p["groups"]),
                  [rnd([b, cin, hw, hw], p["dtype"]), rnd([cin, p["cpg"], k, k], p["dtype"])]))


def sort_mode_family(S, scale):
    """sort and mode over long slices: segmented radix sort passes, mode's per-slice loop."""
    for (op, dt, rows, n) in itertools.product(["sort", "mode"], ["f32", "bf16", "f16", "i64"], [1, 4, 32],
                                               [1024, 2048, 2049, 4096, 4097, 8192, 65536, 1 << 20]):
        if op == "mode" and rows * n > (1 << 20):
            continue

        def build(op=op, dt=dt, rows=rows, n=n):
            x = torch.randint(0, 1000, (rows, n), device=DEV) if dt == "i64" else rnd([rows, n], dt)
            return ((lambda x: x.sort(-1)[0]) if op == "sort" else (lambda x: x.mode(-1)[0])), [x]
        S.add("sortmode", op, dict(dtype=dt, rows=rows, n=n), build)


def conv1x1_random_family(S, scale, family="conv1x1_random", bias=False):
    """Ungrouped 1x1 convolutions at stride 1 without padding, the ones cuDNN on a GPU can run as one
    cuBLASLt GEMM (engine 58, whose split-K and workspace choices are cuBLASLt's): random batch,
    size and channels, log-uniform, f32 and bf16, NCHW and channels last. No shape from a model.
    With bias (conv1x1_random_bias), the same draws with a bias."""
    r = random.Random(103)
    for _ in range(int(60_000 * scale)):
        dt = "f32" if r.random() < 0.6 else "bf16"
        layout = "cl_both" if r.random() < 0.3 else "contig"
        for _ in range(100):
            b, hw = gemm_dim(r, 1, 64), gemm_dim(r, 1, 112)
            cin, cout = gemm_dim(r, 8, 4096), gemm_dim(r, 8, 4096)
            if b * max(cin, cout) * hw * hw <= 2 ** 26 and b * cin * cout * hw * hw <= 2 ** 36:
                break
        p = dict(dtype=dt, layout=layout, batch=b, hw=hw, cin=cin, cout=cout, k=1, stride=1, pad=0, g=1)
        if bias:
            p["bias"] = True
        S.add(family, "conv2d", p, lambda p=p, b=b, hw=hw, cin=cin, cout=cout: (
            lambda x, w, *bb: F.conv2d(x, w, *bb),
            [rnd([b, cin, hw, hw], p["dtype"], "cl" if p["layout"] == "cl_both" else "contig"),
             rnd([cout, cin, 1, 1], p["dtype"], "cl" if p["layout"] == "cl_both" else "contig")]
            + ([rnd([cout], p["dtype"])] if bias else [])))


def reduction_random_family(S, scale):
    """Reductions at random: rank 1-4, sizes log-uniform, the storage order of the dims shuffled
    (so any stride pattern a permute gives), a random set of dims reduced (or all), f32 and bf16,
    over the ops that run ATen's reduce kernel. No shape from a model: a check of the reduce
    config port (passes/torch2_11/reduce_config.cc) on layouts the `reduction` sweep lacks."""
    r = random.Random(104)
    ops = {"sum": lambda x, d: x.sum(d) if d else x.sum(), "mean": lambda x, d: x.mean(d) if d else x.mean(),
           "amax": lambda x, d: x.amax(d) if d else x.amax(), "var": lambda x, d: x.var(d) if d else x.var(),
           "norm2": lambda x, d: torch.linalg.vector_norm(x, 2, d if d else None),
           "argmax": lambda x, d: x.argmax(d[0]) if d else x.argmax(),
           "max_dim": lambda x, d: x.max(d[0])[0] if d else x.max(), "prod": lambda x, d: x.prod(d[0]) if d else x.prod()}
    one_dim = ("argmax", "max_dim", "prod")
    for _ in range(int(4000 * scale)):
        rank = r.randint(1, 4)
        for _ in range(100):
            sizes = [gemm_dim(r, 1, 2048) for _ in range(rank)]
            if math.prod(sizes) <= 2 ** 24:
                break
        order = list(range(rank))
        r.shuffle(order)  # storage order: dims listed from the outermost
        op = r.choice(list(ops))
        if op in one_dim or r.random() < 0.5:
            dims = [r.randrange(rank)] if r.random() < 0.9 else []
        else:
            dims = sorted(r.sample(range(rank), r.randint(1, rank))) if r.random() < 0.9 else []
        p = dict(op=op, dtype="f32" if r.random() < 0.6 else "bf16", sizes=sizes, order=order, dims=dims)

        def build(p=p):
            stored = rnd([p["sizes"][d] for d in p["order"]], p["dtype"])
            x = stored.permute(*[p["order"].index(d) for d in range(len(p["sizes"]))])
            return (lambda x: ops[p["op"]](x, p["dims"])), [x]
        S.add("reduction_random", op, p, build)


def convt_decoder_family(S, scale):
    """Transposed convolutions at the shapes decoders, upsamplers and vocoders use: random
    channels (16-1024), sizes (4-128 in 2-d), kernel-stride pairs (k = s, k = 2s, odd k at stride
    1 or 2), with and without a bias, NCHW, float32 and bfloat16, 1-3 d."""
    r = random.Random(103)
    for _ in range(int(2400 * scale)):
        d = r.choice([1, 2, 2, 2, 3])
        dtype = r.choice(["f32", "bf16"])
        s = r.choice([1, 2, 2, 2, 4]) if d < 3 else r.choice([1, 2])
        k = r.choice([s, 2 * s, 3 if s <= 2 else 2 * s, 4 if s == 2 else s])
        pad = max(0, (k - s + 1) // 2)
        cin = r.choice([16, 32, 64, 96, 128, 192, 256, 384, 512, 768, 1024])
        cout = r.choice([1, 3, 16, 32, 64, 128, 256, 512]) if r.random() < 0.3 else max(1, cin // r.choice([1, 2, 4]))
        hw = {1: r.choice([16, 64, 256, 1024, 4096]), 2: r.choice([4, 8, 16, 32, 64, 128]), 3: r.choice([4, 8, 16])}[d]
        batch = r.choice([1, 2, 4, 8, 16])
        while batch * cin * hw ** d > 16 * 256 * 64 * 64 and batch > 1:
            batch //= 2
        bias = r.random() < 0.7
        fn = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[d]
        p = dict(dtype=dtype, dims=d, k=k, stride=s, pad=pad, cin=cin, cout=cout, hw=hw, batch=batch, bias=bias)
        S.add("convt_decoder", f"conv_transpose{d}d", p,
              lambda p=p, fn=fn, d=d: (
                  lambda x, w, b: fn(x, w, b, p["stride"], p["pad"]),
                  [rnd([p["batch"], p["cin"], *([p["hw"]] * d)], p["dtype"]),
                   rnd([p["cin"], p["cout"], *([p["k"]] * d)], p["dtype"]),
                   rnd([p["cout"]], p["dtype"]) if p["bias"] else None]))


def gemm_dim(r, lo, hi):
    """A GEMM extent drawn log-uniformly from [lo, hi]: half of them rounded to a multiple of 8 (as
    model widths mostly are), the rest left as drawn, so that unaligned leading dimensions occur."""
    v = int(round(math.exp(r.uniform(math.log(lo), math.log(hi)))))
    if v >= 8 and r.random() < 0.5:
        v = v // 8 * 8
    return max(lo, min(hi, v))


def gemm_random_family(S, scale, family="gemm_random", seed=101):
    """cuBLAS's and cuBLASLt's own choices (split-K and its reduction or zeroed workspace, stream-K,
    GEMV), which no library call answers without a GPU: random M x K x N, log-uniform over what models
    use and beyond, f32 and bf16, for each way ATen calls cuBLAS: linear with its bias fused (cuBLASLt
    epilogue, weight transposed), linear without one (mm by w.t()), addmm with a 1-D bias (row-major
    right operand), mm, and bmm with either operand transposed. No shape comes from a model."""
    r = random.Random(seed)
    ops = ["linear_bias", "linear", "addmm", "mm", "bmm"]
    for _ in range(int(100_000 * scale)):
        op = ops[r.randrange(len(ops))]
        dt = "f32" if r.random() < 0.65 else "bf16"
        b, ta, tb = 1, False, False
        for _ in range(100):  # redraw until the problem is small enough to time in a sweep
            if op == "bmm":
                b = gemm_dim(r, 1, 512)
                m, k, n = gemm_dim(r, 1, 4096), gemm_dim(r, 1, 4096), gemm_dim(r, 1, 4096)
                ta, tb = r.random() < 0.3, r.random() < 0.5
            else:
                wide = r.random() < 0.3  # else the extents models mostly have
                m = gemm_dim(r, 1, 65536) if wide else gemm_dim(r, 16, 32768)
                k, n = (gemm_dim(r, 1, 16384), gemm_dim(r, 1, 16384)) if wide else (gemm_dim(r, 32, 8192), gemm_dim(r, 32, 8192))
            if b * m * k * n <= 2 ** 35 and b * max(m * k, k * n, m * n) <= 2 ** 25:
                break
        p = dict(dtype=dt, b=b, m=m, k=k, n=n, ta=ta, tb=tb)
        if op == "bmm":
            S.add(family, "bmm", p, lambda b=b, m=m, k=k, n=n, ta=ta, tb=tb, dt=dt: (
                torch.bmm, [rnd([b, m, k], dt, "t" if ta else "contig"), rnd([b, k, n], dt, "t" if tb else "contig")]))
        elif op == "addmm":
            S.add(family, "addmm", p, lambda m=m, k=k, n=n, dt=dt: (
                torch.addmm, [rnd([n], dt), rnd([m, k], dt), rnd([k, n], dt)]))
        elif op == "mm":
            S.add(family, "mm", p, lambda m=m, k=k, n=n, dt=dt: (torch.mm, [rnd([m, k], dt), rnd([k, n], dt)]))
        else:
            bias = op == "linear_bias"
            S.add(family, "linear", dict(p, bias=bias), lambda m=m, k=k, n=n, bias=bias, dt=dt: (
                F.linear, [rnd([m, k], dt), rnd([n, k], dt), rnd([n], dt) if bias else None]))


def select_sizes_family(S, scale):
    """nonzero, masked_select and advanced indexing over the sizes and layouts that change their
    launches: nonzero's cub count is one kernel up to a tile and two above it, its select is
    skipped for 0-d inputs, its coordinates kernel needs rank >= 2, and a non-contiguous input is
    copied first; index's int indices are made contiguous when their broadcast strides differ."""
    sizes = [1, 7, 100, 450, 1000, 2048, 4095, 4096, 4097, 5000, 8192, 13500, 65536, 250000]
    for n, rank, layout, dtype in itertools.product(sizes, [1, 2, 3], ["contig", "t", "expand"], ["bool", "f32"]):
        if rank == 1 and layout == "t":
            continue
        shape = {1: [n], 2: [max(1, n // 8), 8] if n >= 8 else [n, 1], 3: [max(1, n // 16), 4, 4] if n >= 16 else [n, 1, 1]}[rank]

        def build(shape=shape, layout=layout, dtype=dtype):
            if layout == "expand":
                base = torch.rand([1] + shape[1:], device=DEV) > 0.5 if len(shape) > 1 else torch.rand(1, device=DEV) > 0.5
                x = base.expand(shape)
            elif layout == "t":
                x = (torch.rand(shape[:-2] + [shape[-1], shape[-2]], device=DEV) > 0.5).transpose(-1, -2)
            else:
                x = torch.rand(shape, device=DEV) > 0.5
            if dtype == "f32":
                x = x.float() if layout != "expand" else x.float().expand(shape)
            return (lambda m: torch.nonzero(m)), [x]
        S.add("select_sizes", "nonzero", dict(n=n, rank=rank, layout=layout, dtype=dtype), build)
    S.add("select_sizes", "nonzero", dict(n=1, rank=0, layout="contig", dtype="bool"),
          lambda: ((lambda m: torch.nonzero(m)), [torch.ones((), device=DEV, dtype=torch.bool)]))
    for n, mask in itertools.product([100, 4096, 20000], ["same", "row", "col", "scalar"]):
        shp = [max(1, n // 64), 64]
        mshape = {"same": shp, "row": [1, 64], "col": [shp[0], 1], "scalar": [1]}[mask]
        S.add("select_sizes", "masked_select", dict(n=n, mask=mask), lambda shp=shp, mshape=mshape: (
            lambda x, m: torch.masked_select(x, m), [rnd(shp), torch.rand(mshape, device=DEV) > 0.5]))
    forms = {"[B,1],[1,S]": ([8, 1], [1, 300]), "[1,1],[1,S]": ([1, 1], [1, 450]), "[S],[S]": ([450], [450]),
             "[B,S],[S]": ([8, 300], [300]), "[B,1],[B,S]": ([8, 1], [8, 300]), "[1],[S]": ([1], [450]),
             "[S],[1]": ([450], [1]), "[B,S],[B,S]t": ([8, 300], "t")}
    for form, (a, b) in forms.items():
        def build(a=a, b=b):
            x = rnd([500, 500])
            i = torch.randint(0, 500, a, device=DEV)
            j = torch.randint(0, 500, [a[1], a[0]], device=DEV).t() if b == "t" else torch.randint(0, 500, b, device=DEV)
            return (lambda x, i, j: x[i, j]), [x, i, j]
        S.add("select_sizes", "index:x[i,j]", dict(form=form), build)
    for n, rank in itertools.product([100, 4096, 20000], [1, 2]):
        shp = [n] if rank == 1 else [max(1, n // 64), 64]
        S.add("select_sizes", "index:x[mask]", dict(n=n, rank=rank), lambda shp=shp: (
            lambda x, m: x[m], [rnd(shp), torch.rand(shp, device=DEV) > 0.5]))


def opinfo_widen_family(S, scale):
    """The OpInfo rules measured at one size, widened (passes/torch2_11/linalg.cc, fft.cc, gemm.cc,
    conv.cc): eig/eigvals and the LDL factor and solve from 2 to 12 rows (an SPD matrix, which
    Bunch-Kaufman never swaps, and a random one); matrix_exp at 1-norms from 0.5 to 300 (each
    Taylor degree and squaring count); tensordot's [1, K] x [K, 1] product with a permuted operand;
    Hermitian and leading-dim inverse FFTs over more lengths; transposed convolutions on 1 to 16
    channels (the few-channel rule's edge) and with output paddings at the stride."""
    def spd(n, b=()):
        a = torch.randn(*b, n, n, device=DEV)
        return a @ a.mT + n * torch.eye(n, device=DEV)
    for n, kind in itertools.product([2, 3, 4, 5, 6, 8, 10, 12], ["spd", "random"]):
        make = (lambda n=n: spd(n)) if kind == "spd" else (lambda n=n: torch.randn(n, n, device=DEV))
        S.add("opinfo_widen", "linalg_eig", dict(n=n, kind=kind), lambda make=make: (torch.linalg.eig, [make()]))
        S.add("opinfo_widen", "linalg_eigvals", dict(n=n, kind=kind), lambda make=make: (torch.linalg.eigvals, [make()]))
        S.add("opinfo_widen", "linalg_ldl_factor_ex", dict(n=n, kind=kind),
              lambda make=make: (torch.linalg.ldl_factor_ex, [make()]))
        S.add("opinfo_widen", "linalg_ldl_factor", dict(n=n, kind=kind), lambda make=make: (torch.linalg.ldl_factor, [make()]))
        for k in [1, n]:
            def build(make=make, n=n, k=k):
                ld, piv = torch.linalg.ldl_factor(make())
                return torch.linalg.ldl_solve, [ld, piv, torch.randn(n, k, device=DEV)]
            S.add("opinfo_widen", "linalg_ldl_solve", dict(n=n, kind=kind, k=k), build)
    for n, norm, dtype, batch in itertools.product([2, 5, 12], [0.5, 2.0, 10.0, 30.0, 300.0], ["f32", "bf16"], [1, 5]):
        def build(n=n, norm=norm, dtype=dtype, batch=batch):
            a = torch.randn(batch, n, n, device=DEV)
            a = a * (norm / a.abs().sum(-2).amax(-1)).view(batch, 1, 1)
            return torch.linalg.matrix_exp, [(a if batch > 1 else a[0]).to(DT[dtype])]
        S.add("opinfo_widen", "matrix_exp", dict(n=n, norm=norm, dtype=dtype, batch=batch), build)
    for k, dtype in itertools.product([2, 4, 16, 256, 4096], ["f32", "bf16"]):
        S.add("opinfo_widen", "tensordot", dict(k=k, dtype=dtype), lambda k=k, dtype=dtype: (
            lambda a, b: torch.tensordot(a, b, dims=([0, 1], [2, 0])),
            [rnd([2, k // 2, 1], dtype), rnd([k // 2, 1, 2], dtype)]))
    for op, shape, s_, dims in itertools.product(["hfft2", "hfftn", "irfftn"], [[5, 6, 7], [4, 8, 16], [3, 10, 12]],
                                                 [None, "half"], [None, [1, 2]]):
        fn = getattr(torch.fft, op)
        s_arg = None if s_ is None else [max(1, shape[d] // 2) for d in (dims or range(len(shape) - 2 if op == "hfft2" else 0, len(shape)))]
        S.add("opinfo_widen", "fft_" + op, dict(shape=shape, s=s_arg, dim=dims), lambda fn=fn, shape=shape, s_arg=s_arg, dims=dims: (
            (lambda x: fn(x, s=s_arg, dim=dims, norm="ortho")) if dims else (lambda x: fn(x, s=s_arg, norm="ortho")),
            [rnd(shape)]))
    for dims, c, dtype, hw in itertools.product([1, 2, 3], [1, 2, 3, 4, 6, 8, 16], ["f32", "bf16"], [4, 8]):
        conv = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[dims]
        S.add("opinfo_widen", f"conv_transpose{dims}d", dict(c=c, dtype=dtype, hw=hw, big_output_padding=False),
              lambda conv=conv, dims=dims, c=c, dtype=dtype, hw=hw: (
                  lambda x, w, b: conv(x, w, b), [rnd([1, c] + [hw] * dims, dtype), rnd([c, c] + [3] * dims, dtype), rnd([c], dtype)]))
        S.add("opinfo_widen", f"conv_transpose{dims}d", dict(c=c, dtype=dtype, hw=hw, big_output_padding=True),
              lambda conv=conv, dims=dims, c=c, dtype=dtype, hw=hw: (
                  lambda x, w, b: conv(x, w, b, stride=2, output_padding=2, dilation=3),
                  [rnd([2, c] + [hw] * dims, dtype), rnd([c, c] + [3] * dims, dtype), rnd([c], dtype)]))


def linalg_sizes_family(S, scale):
    """torch.linalg over sizes and batches (float32): cuSOLVER, cuBLAS batched and MAGMA paths
    change with the matrix size and the batch (ATen's cuda/linalg/BatchLinearAlgebra.cpp picks
    per op), and empty matrices, scalar batches and size-1 dims take their own early returns.
    Square n from 0 to 512 by batch (), 1, 2, 3, 2x3, 16, 64 (n*n*batch kept under 2^22);
    rectangular m x n for the factorizations that take them; right-hand sides of 1, 2 and n
    columns and as vectors."""
    sizes = [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 24, 32, 33, 48, 64, 65, 100, 128, 256, 512]
    batches = [(), (1,), (2,), (3,), (2, 3), (16,), (64,)]
    rect = [0, 1, 2, 3, 4, 5, 8, 16, 33, 64, 128]
    r = random.Random(110)

    def fits(n, b, m=None):
        return (m or n) * n * max(1, math.prod(b)) <= (1 << 22)

    def sq(n, b, kind="random"):
        if kind == "spd":
            a = torch.randn(*b, n, n, device=DEV)
            return a @ a.mT + max(n, 1) * torch.eye(n, device=DEV)
        return torch.randn(*b, n, n, device=DEV)

    square_ops = {
        "lu_factor": lambda a: torch.linalg.lu_factor(a), "lu_factor_ex": lambda a: torch.linalg.lu_factor_ex(a),
        "lu": lambda a: torch.linalg.lu(a), "det": torch.linalg.det, "slogdet": torch.linalg.slogdet,
        "logdet": torch.logdet, "inv": torch.linalg.inv, "inv_ex": torch.linalg.inv_ex,
        "eig": torch.linalg.eig, "eigvals": torch.linalg.eigvals, "eigh": torch.linalg.eigh,
        "eigvalsh": torch.linalg.eigvalsh, "svd": lambda a: torch.linalg.svd(a, full_matrices=False),
        "svdvals": torch.linalg.svdvals, "pinv": torch.linalg.pinv,
        "pinv_hermitian": lambda a: torch.linalg.pinv(a, hermitian=True),
        "matrix_rank": torch.linalg.matrix_rank, "qr": torch.linalg.qr, "geqrf": torch.geqrf,
        "ldl_factor": torch.linalg.ldl_factor, "ldl_factor_ex": torch.linalg.ldl_factor_ex,
        "matrix_power_3": lambda a: torch.linalg.matrix_power(a, 3),
        "matrix_power_-2": lambda a: torch.linalg.matrix_power(a, -2),
        "matrix_power_0": lambda a: torch.linalg.matrix_power(a, 0),
        "cond": torch.linalg.cond,
    }
    spd_ops = {"cholesky": torch.linalg.cholesky, "cholesky_ex": torch.linalg.cholesky_ex,
               "cholesky_inverse": lambda a: torch.cholesky_inverse(torch.linalg.cholesky(a)),
               "cholesky_upper": lambda a: torch.linalg.cholesky(a, upper=True)}
    for name, fn in square_ops.items():
        for n, b in itertools.product(sizes, batches):
            if fits(n, b) and (n <= 64 or r.random() < 0.6):
                S.add("linalg_sizes", name, dict(n=n, batch=list(b)), lambda fn=fn, n=n, b=b: (fn, [sq(n, b)]))
    for name, fn in spd_ops.items():
        for n, b in itertools.product(sizes, batches):
            if fits(n, b):
                if name == "cholesky_inverse":  # the factor made outside the measured call
                    S.add("linalg_sizes", name, dict(n=n, batch=list(b)), lambda n=n, b=b: (
                        torch.cholesky_inverse, [torch.linalg.cholesky(sq(n, b, "spd"))]))
                else:
                    S.add("linalg_sizes", name, dict(n=n, batch=list(b)), lambda fn=fn, n=n, b=b: (fn, [sq(n, b, "spd")]))
    # solves: A (batch, n, n) with B of k columns or a vector
    for n, b, k in itertools.product(sizes, batches, [1, 2, "n", "vec"]):
        if not fits(n, b) or (n > 64 and r.random() < 0.5):
            continue
        cols = n if k == "n" else k
        def rhs(n=n, b=b, k=k, cols=cols):
            return torch.randn(*b, n, device=DEV) if k == "vec" else torch.randn(*b, n, cols, device=DEV)
        S.add("linalg_sizes", "solve", dict(n=n, batch=list(b), k=k), lambda n=n, b=b, rhs=rhs: (
            torch.linalg.solve, [sq(n, b), rhs()]))
        S.add("linalg_sizes", "solve_ex", dict(n=n, batch=list(b), k=k), lambda n=n, b=b, rhs=rhs: (
            torch.linalg.solve_ex, [sq(n, b), rhs()]))
        if k == "vec":
            continue
        S.add("linalg_sizes", "solve_left_false", dict(n=n, batch=list(b), k=k), lambda n=n, b=b, cols=cols: (
            lambda a, x: torch.linalg.solve(a, x, left=False), [sq(n, b), torch.randn(*b, cols, n, device=DEV)]))
        S.add("linalg_sizes", "cholesky_solve", dict(n=n, batch=list(b), k=k), lambda n=n, b=b, rhs=rhs: (
            torch.cholesky_solve, [rhs(), torch.linalg.cholesky(sq(n, b, "spd"))]))
        for adj in [False, True]:
            def build(n=n, b=b, rhs=rhs, adj=adj):
                lu, piv = torch.linalg.lu_factor(sq(n, b))
                return (lambda l, p, x: torch.linalg.lu_solve(l, p, x, adjoint=adj)), [lu, piv, rhs()]
            S.add("linalg_sizes", "lu_solve", dict(n=n, batch=list(b), k=k, adjoint=adj), build)
        def build_legacy(n=n, b=b, rhs=rhs):
            lu, piv = torch.linalg.lu_factor(sq(n, b))
            return torch.lu_solve, [rhs(), lu, piv]
        S.add("linalg_sizes", "lu_solve_legacy", dict(n=n, batch=list(b), k=k), build_legacy)
        def build_ldl(n=n, b=b, rhs=rhs):
            ld, piv = torch.linalg.ldl_factor(sq(n, b, "spd"))
            return torch.linalg.ldl_solve, [ld, piv, rhs()]
        S.add("linalg_sizes", "ldl_solve", dict(n=n, batch=list(b), k=k), build_ldl)
    # rectangular factorizations and norms
    rect_ops = {
        "lu_factor": lambda a: torch.linalg.lu_factor(a), "lu": lambda a: torch.linalg.lu(a),
        "qr": torch.linalg.qr, "qr_complete": lambda a: torch.linalg.qr(a, mode="complete"),
        "qr_r": lambda a: torch.linalg.qr(a, mode="r"), "qr_legacy": torch.qr, "geqrf": torch.geqrf,
        "svd": lambda a: torch.linalg.svd(a, full_matrices=False), "svd_full": torch.linalg.svd,
        "svdvals": torch.linalg.svdvals, "pinv": torch.linalg.pinv, "matrix_rank": torch.linalg.matrix_rank,
        "pinv_atol_rtol": lambda a: torch.linalg.pinv(a, atol=torch.tensor(0.1, device=DEV), rtol=torch.tensor(0.01, device=DEV)),
        "householder_product": None, "lu_unpack": None,
        **{f"matrix_norm_{o}": (lambda a, o=o: torch.linalg.matrix_norm(a, ord=o))
           for o in ["fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf")]},
        "matrix_norm_fro_dims": lambda a: torch.linalg.matrix_norm(a, dim=(-1, 0) if a.dim() == 2 else (-1, -3), keepdim=True),
        "matrix_norm_nuc_dims": lambda a: torch.linalg.matrix_norm(a, ord="nuc", dim=(-1, 0) if a.dim() == 2 else (-1, -3), keepdim=True),
    }
    for name, fn in rect_ops.items():
        for m, n, b in itertools.product(rect, rect, [(), (2,), (3,), (16,)]):
            if not fits(n, b, m) or r.random() < 0.55:
                continue
            if name == "householder_product":
                def build(m=m, n=n, b=b):
                    a, tau = torch.geqrf(torch.randn(*b, max(m, n), min(m, n), device=DEV))
                    return torch.linalg.householder_product, [a, tau]
                S.add("linalg_sizes", name, dict(m=max(m, n), n=min(m, n), batch=list(b)), build)
                S.add("linalg_sizes", name + "_tau0", dict(m=max(m, n), n=min(m, n), batch=list(b)), lambda m=m, n=n, b=b: (
                    torch.linalg.householder_product, [torch.randn(*b, max(m, n), min(m, n), device=DEV),
                                                       torch.randn(*b, 0, device=DEV)]))
            elif name == "lu_unpack":
                def build(m=m, n=n, b=b):
                    lu, piv = torch.linalg.lu_factor(torch.randn(*b, m, n, device=DEV))
                    return torch.lu_unpack, [lu, piv]
                S.add("linalg_sizes", name, dict(m=m, n=n, batch=list(b)), build)
            else:
                S.add("linalg_sizes", name, dict(m=m, n=n, batch=list(b)), lambda fn=fn, m=m, n=n, b=b: (
                    fn, [torch.randn(*b, m, n, device=DEV)]))
    # products and constructions
    for dims, dtype in itertools.product([[5, 4, 2], [5, 4, 0, 2], [5, 0, 2], [0, 4, 2], [3, 4, 5, 6], [8, 8, 8, 8, 8],
                                          [64, 32, 16], [1, 64, 1], [64, 1, 64, 1], [128, 256, 64, 32]], ["f32", "bf16"]):
        mats = [rnd([dims[i], dims[i + 1]], dtype) for i in range(len(dims) - 1)]
        if len(mats) >= 2:
            S.add("linalg_sizes", "multi_dot", dict(dims=dims, dtype=dtype), lambda mats=mats: (
                lambda *ms: torch.linalg.multi_dot(list(ms)), mats))
    for shape, N in itertools.product([[5], [2, 5], [3, 2, 4], [1], [0], [100]], [None, 1, 3, 6]):
        S.add("linalg_sizes", "vander", dict(shape=shape, N=N), lambda shape=shape, N=N: (
            lambda x: torch.linalg.vander(x, N=N), [torch.randn(*shape, device=DEV)]))
    for m, n, k, drv in itertools.product([1, 5, 33], [1, 5, 33], [1, 3], [None, "gels"]):
        if m < n:
            continue
        S.add("linalg_sizes", "lstsq", dict(m=m, n=n, k=k, driver=drv), lambda m=m, n=n, k=k, drv=drv: (
            lambda a, x: torch.linalg.lstsq(a, x, driver=drv), [torch.randn(m, n, device=DEV), torch.randn(m, k, device=DEV)]))


def opinfo_edges_family(S, scale):
    """The ops a forward pass rarely runs at its edges: empty and size-1 operands (cat with a
    legacy empty 1-D input, K = 0 GEMMs, 1x1 FFTs), unbatched and tiny 3-d convolutions, unique
    and unique_consecutive by option, combinations, multinomial, embedding_renorm_, gradient, and
    _chunk_cat over strided inputs."""
    for dtype in ["f32", "bf16"]:
        for shapes, dim in [([[0], [5, 5]], 1), ([[5, 5], [0]], 0), ([[0], [0]], 0), ([[0], [3, 4], [3, 4]], 1),
                            ([[3, 0], [3, 4]], 1), ([[3, 4], [3, 0], [3, 4]], 1), ([[5, 5], [5, 5]], 1),
                            ([[0], [2, 3, 4]], -1), ([[2, 0, 4], [2, 3, 4]], 1)]:
            S.add("opinfo_edges", "cat", dict(shapes=shapes, dim=dim, dtype=dtype), lambda shapes=shapes, dim=dim, dtype=dtype: (
                lambda *xs: torch.cat(xs, dim), [rnd(s, dtype) for s in shapes]))
        for beta, alpha, m, k, n, bias in itertools.product([1, 0.2, 0], [1, 0.6], [5, 64], [0, 1, 3], [10, 1], ["vec", "mat"]):
            S.add("opinfo_edges", "addmm", dict(beta=beta, alpha=alpha, m=m, k=k, n=n, bias=bias, dtype=dtype),
                  lambda beta=beta, alpha=alpha, m=m, k=k, n=n, bias=bias, dtype=dtype: (
                      lambda c, a, b: torch.addmm(c, a, b, beta=beta, alpha=alpha),
                      [rnd([n] if bias == "vec" else [m, n], dtype), rnd([m, k], dtype), rnd([k, n], dtype)]))
        for xs, ms in [([5], [5, 5]), ([1], [5, 5]), ([5, 5], [5]), ([5, 5], [5, 5]), ([3, 1, 5], [5, 5])]:
            S.add("opinfo_edges", "masked_fill_tensor", dict(x=xs, mask=ms, dtype=dtype), lambda xs=xs, ms=ms, dtype=dtype: (
                lambda x, m, v: x.masked_fill(m, v), [rnd(xs, dtype), torch.rand(*ms, device=DEV) > 0.5,
                                                      torch.tensor(0.5, device=DEV, dtype=DT[dtype])]))
        for op, shape in itertools.product(["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn"],
                                           [[1, 1], [1, 2], [2, 1], [2, 2], [1, 5], [3, 1, 1], [1, 1, 1], [4, 4], [2, 3, 4]]):
            if dtype != "f32":
                continue
            fn = getattr(torch.fft, op)
            S.add("opinfo_edges", "fft_" + op, dict(shape=shape), lambda fn=fn, shape=shape: (fn, [rnd(shape)]))
        for sorted_, inv, counts, shape, dim in itertools.product([False, True], [False, True], [False, True],
                                                                [[], [1], [7], [2, 3]], [None, 0]):
            if dim is not None and len(shape) == 0:
                continue
            S.add("opinfo_edges", "unique", dict(sorted=sorted_, inverse=inv, counts=counts, shape=shape, dim=dim, dtype=dtype),
                  lambda sorted_=sorted_, inv=inv, counts=counts, shape=shape, dim=dim, dtype=dtype: (
                      lambda x: torch.unique(x, sorted=sorted_, return_inverse=inv, return_counts=counts, dim=dim),
                      [torch.randint(0, 3, shape, device=DEV).to(DT[dtype])]))
            if sorted_:
                S.add("opinfo_edges", "unique_consecutive", dict(inverse=inv, counts=counts, shape=shape, dim=dim, dtype=dtype),
                      lambda inv=inv, counts=counts, shape=shape, dim=dim, dtype=dtype: (
                          lambda x: torch.unique_consecutive(x, return_inverse=inv, return_counts=counts, dim=dim),
                          [torch.randint(0, 3, shape, device=DEV).to(DT[dtype])]))
        for n, rr, repl in itertools.product([0, 1, 2, 3, 5, 8], [0, 1, 2, 3], [False, True]):
            S.add("opinfo_edges", "combinations", dict(n=n, r=rr, with_replacement=repl, dtype=dtype),
                  lambda n=n, rr=rr, repl=repl, dtype=dtype: (
                      lambda x: torch.combinations(x, rr, repl), [rnd([n], dtype)]))
        for shape, ns, repl in itertools.product([[4], [3, 4], [1, 1], [5, 200]], [1, 3, 4], [False, True]):
            if not repl and ns > shape[-1]:
                continue
            S.add("opinfo_edges", "multinomial", dict(shape=shape, num_samples=ns, replacement=repl, dtype=dtype),
                  lambda shape=shape, ns=ns, repl=repl, dtype=dtype: (
                      lambda p: torch.multinomial(p, ns, repl), [torch.rand(*shape, device=DEV).to(DT[dtype]) + 0.1]))
        for rows, idx, norm in itertools.product([5, 100], [[2, 2], [7], [0]], [1.0, 2.0, 3.0]):
            def build(rows=rows, idx=idx, norm=norm, dtype=dtype):
                w = rnd([rows, 5], dtype)
                i = torch.randint(0, rows, idx, device=DEV)
                return (lambda w, i: torch.embedding_renorm_(w, i, 1.0, norm)), [w, i]
            S.add("opinfo_edges", "embedding_renorm_", dict(rows=rows, idx=idx, norm_type=norm, dtype=dtype), build)
        for shape, dim, spacing, edge in itertools.product([[3, 3, 3], [5], [4, 6]], [None, 0, [0, -1]],
                                                          ["none", "scalar", "tensors"], [1, 2]):
            nd = len(shape)
            dims = [] if dim is None else (dim if isinstance(dim, list) else [dim])
            if any(d >= nd or d < -nd for d in dims) or any(shape[d] < edge + 1 for d in (dims or range(nd))):
                continue
            def build(shape=shape, dim=dim, spacing=spacing, edge=edge, dtype=dtype):
                x = rnd(shape, dtype)
                kw = {"edge_order": edge}
                if dim is not None:
                    kw["dim"] = dim
                if spacing == "scalar":
                    kw["spacing"] = 2.0
                elif spacing == "tensors":
                    ds = dims_of(shape, dim)
                    kw["spacing"] = [torch.arange(shape[d], device=DEV).to(DT[dtype]) * 0.5 for d in ds]
                return (lambda x: torch.gradient(x, **kw)), [x]
            S.add("opinfo_edges", "gradient", dict(shape=shape, dim=dim, spacing=spacing, edge_order=edge, dtype=dtype), build)
        for chunks, dim, layout in itertools.product([1, 3, 8], [0, 1], ["contig", "t"]):
            def build(chunks=chunks, dim=dim, layout=layout, dtype=dtype):
                xs = [rnd([2, 3, 3], dtype, layout), rnd([2, 3, 4], dtype, layout), rnd([2, 3, 271], dtype, layout)]
                return (lambda *xs: torch._chunk_cat(list(xs), dim, chunks)), xs
            S.add("opinfo_edges", "_chunk_cat", dict(num_chunks=chunks, dim=dim, layout=layout, dtype=dtype), build)
        for x, w, stride, pad, dil, bias in itertools.product(
                [[1, 5, 5, 5], [2, 1, 5, 5, 5], [1, 1, 1, 1, 10], [1, 4, 5, 2], [2, 3, 6, 6, 6]],
                [[1, 1, 3, 3, 3], [1, 1, 1, 1, 4], [2, 1, 2, 2, 2]], [1, 2], [0, 1], [1, 2], [True, False]):
            cin = x[0] if len(x) == 4 else x[1]
            if w[1] != cin:
                w = [w[0], cin] + w[2:]
            S.add("opinfo_edges", "conv3d", dict(x=x, w=w, stride=stride, padding=pad, dilation=dil, bias=bias, dtype=dtype),
                  lambda x=x, w=w, stride=stride, pad=pad, dil=dil, bias=bias, dtype=dtype: (
                      lambda a, b, c=None: F.conv3d(a, b, c, stride, pad, dil),
                      [rnd(x, dtype), rnd(w, dtype)] + ([rnd([w[0]], dtype)] if bias else [])))
            cout = 2
            S.add("opinfo_edges", "conv_transpose3d", dict(x=x, w=[cin, cout] + w[2:], stride=stride, padding=pad, dilation=dil,
                                                             bias=bias, dtype=dtype),
                  lambda x=x, w=w, cin=cin, cout=cout, stride=stride, pad=pad, dil=dil, bias=bias, dtype=dtype: (
                      lambda a, b, c=None: F.conv_transpose3d(a, b, c, stride, pad, stride - 1, 1, dil),
                      [rnd(x, dtype), rnd([cin, cout] + w[2:], dtype)] + ([rnd([cout], dtype)] if bias else [])))
        for shape in [[1, 1, 2, 2], [2, 3, 4, 4], [1, 2, 8, 8]]:
            def build(shape=shape, dtype=dtype):
                x = rnd(shape, dtype)
                y, i = F.max_pool2d(x, 2, return_indices=True)
                return (lambda y, i: F.max_unpool2d(y, i, 2)), [y, i]
            S.add("opinfo_edges", "max_unpool2d", dict(shape=shape, dtype=dtype), build)
        S.add("opinfo_edges", "matrix_power_empty", dict(dtype=dtype), lambda: (
            lambda a: torch.linalg.matrix_power(a, 0), [torch.randn(0, 2, 2, device=DEV)]))


def dims_of(shape, dim):
    if dim is None:
        return list(range(len(shape)))
    return [d % len(shape) for d in (dim if isinstance(dim, list) else [dim])]


FAMILIES = {"conv": conv_family, "gemm_random": gemm_random_family, "conv1x1_random": conv1x1_random_family, "gemm": gemm_family, "sdpa": sdpa_family, "norm": norm_family,
            "reduction": reduction_family, "index": index_family, "where": where_family, "resample": resample_family,
            "rnn": rnn_family, "copy": copy_family, "gemm_f32": gemm_f32_family, "gemm_half": gemm_half_family, "gconv": grouped_conv_family,
            "sortmode": sort_mode_family,
            "conv_dense": conv_dense_family, "gemm_small": gemm_small_family, "gconv_wide": gconv_wide_family,
            "sdpa_layout": sdpa_layout_family, "matmul_bcast": matmul_bcast_family, "conv_align": conv_align_family,
            "gemm_align": gemm_align_family, "grad_fold": grad_fold_family,
            "conv3d_dense": conv3d_dense_family, "gconv_model": gconv_model_family,
            "conv_replay": conv_replay_family, "gconv_dense": gconv_dense_family,
            "conv1x1_replay": conv1x1_replay_family, "reduction_random": reduction_random_family,
            "conv1x1_random_bias": lambda S, scale: conv1x1_random_family(S, scale, "conv1x1_random_bias", True),
            "gconv_dense2": lambda S, scale: gconv_dense_family(S, scale, "gconv_dense2", 99),
            "conv3d_dense2": lambda S, scale: conv3d_dense_family(S, scale, "conv3d_dense2", 100),
            "gemm_random_b": lambda S, scale: gemm_random_family(S, scale, "gemm_random_b", 102),
            "convt_decoder": convt_decoder_family, "select_sizes": select_sizes_family,
            "opinfo_widen": opinfo_widen_family, "linalg_sizes": linalg_sizes_family,
            "opinfo_edges": opinfo_edges_family}


# ---------------------------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------------------------

def profile_chunk(items, do_profile):
    """items: list of (index, record, fn, args). Fills record counts in place."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile, record_function
    live = []
    for idx, rec, fn, args in items:
        try:
            with torch.no_grad():
                fn(*args)
                fn(*args)
            live.append((idx, rec, fn, args))
        except Exception as e:  # noqa: BLE001
            rec["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
    if DEV == "cuda":
        torch.cuda.synchronize()
    if not do_profile or not live:
        return
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for idx, rec, fn, args in live:
            with record_function(f"kcsweep#{idx}"):
                fn(*args)
        torch.cuda.synchronize()
    raw = list(prof.profiler.kineto_results.events())
    ranges = sorted((e.start_ns(), e.end_ns(), int(e.name().split("#")[1])) for e in raw
                    if e.device_type() == DeviceType.CPU and e.name().startswith("kcsweep#"))
    starts = [r[0] for r in ranges]
    by_idx = {idx: rec for idx, rec, _, _ in live}
    for rec in by_idx.values():
        rec.update(kernels=0, memcpy=0, memset=0, kernel_names=[], aten=[])

    def owner(t):
        i = bisect.bisect_right(starts, t) - 1
        if i >= 0 and ranges[i][0] <= t <= ranges[i][1]:
            return by_idx.get(ranges[i][2])
        return None
    cpu = {}
    aten_ops = []
    for e in raw:
        if e.device_type() == DeviceType.CPU and e.linked_correlation_id() == 0:
            cpu[e.correlation_id()] = e.start_ns()
            if e.name().startswith("aten::"):
                aten_ops.append((e.start_ns(), -e.end_ns(), e.end_ns(), e.name(), e.start_thread_id()))
    # outermost aten ops per configuration
    aten_ops.sort()
    cur_end = {}
    for s, _, end, name, tid in aten_ops:
        rec = owner(s)
        if rec is None:
            continue
        key = (id(rec), tid)
        if s >= cur_end.get(key, -1):
            rec["aten"].append(name)
            cur_end[key] = end
    unattributed = 0
    for e in sorted((e for e in raw if e.device_type() == DeviceType.CUDA), key=lambda e: e.start_ns()):
        t = cpu.get(e.linked_correlation_id())
        rec = owner(t) if t is not None else None
        if rec is None:
            unattributed += 1
            continue
        n = e.name()
        if n.startswith("Memcpy"):
            rec["memcpy"] += 1
            rec["kernel_names"].append(n[:60])
        elif n.startswith("Memset"):
            rec["memset"] += 1
            rec["kernel_names"].append(n[:60])
        else:
            rec["kernels"] += 1
            rec["kernel_names"].append(n[:160])
    for rec in by_idx.values():
        if unattributed:
            rec["chunk_unattributed"] = unattributed
        # consecutive repeats folded: [name, times]
        folded = []
        for n in rec["kernel_names"]:
            if folded and folded[-1][0] == n:
                folded[-1][1] += 1
            else:
                folded.append([n, 1])
        rec["kernel_names"] = folded


def main():
    global DEV
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies the sampled grid sizes")
    ap.add_argument("--chunk", type=int, default=40)
    ap.add_argument("--deadline-s", type=float, default=1e9)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--limit", type=int, default=0, help="at most this many configurations per family")
    ap.add_argument("--shard", default="0/1", help="I/N: every Nth configuration from the Ith (parallel processes)")
    a = ap.parse_args()
    DEV = a.device
    t0 = time.time()
    torch.manual_seed(0)
    if DEV == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False  # PyTorch's default
    S = Sweep()
    fams = a.families.split(",")
    for f in fams:
        n0 = len(S.cfgs)
        FAMILIES[f](S, a.scale)
        if a.limit and len(S.cfgs) - n0 > a.limit:  # evenly spread over the family
            fam = S.cfgs[n0:]
            S.cfgs[n0:] = fam[::len(fam) // a.limit + 1]
    shard, shards = (int(x) for x in a.shard.split("/"))
    S.cfgs = S.cfgs[shard::shards]
    print(f"sweep: {len(S.cfgs)} configurations: " + ", ".join(
        f"{f} {sum(1 for c in S.cfgs if c[0] == f)}" for f in fams), flush=True)
    env = {"torch": torch.__version__, "cuda": torch.version.cuda,
           "cudnn": torch.backends.cudnn.version() if DEV == "cuda" else None,
           "device": torch.cuda.get_device_name() if DEV == "cuda" else DEV}
    done = 0
    with open(a.out, "w") as out:
        out.write(json.dumps({"meta": env, "configs": len(S.cfgs)}) + "\n")
        for c0 in range(0, len(S.cfgs), a.chunk):
            if time.time() - t0 > a.deadline_s:
                print(f"sweep: deadline after {done} configurations", flush=True)
                break
            items = []
            for idx in range(c0, min(c0 + a.chunk, len(S.cfgs))):
                fam, op, params, build = S.cfgs[idx]
                rec = {"id": idx, "family": fam, "op": op,
                       "params": {k: v for k, v in params.items() if v is not None}}
                try:
                    fn, args = build()
                    rec["inputs"] = [desc(t) for t in args]
                    items.append((idx, rec, fn, args))
                except Exception as e:  # noqa: BLE001
                    rec["error"] = f"build {type(e).__name__}: {str(e)[:200]}"
                    out.write(json.dumps(rec, default=str) + "\n")
            try:
                profile_chunk(items, not a.no_profile and DEV == "cuda")
            except Exception as e:  # noqa: BLE001  a chunk failing must not stop the sweep
                for _, rec, _, _ in items:
                    rec.setdefault("error", f"chunk {type(e).__name__}: {str(e)[:200]}")
            for _, rec, _, _ in items:
                out.write(json.dumps(rec, default=str) + "\n")
            out.flush()
            done += len(items)
            del items
            if DEV == "cuda":
                torch.cuda.empty_cache()
            if (c0 // a.chunk) % 10 == 0:
                print(f"sweep: {done}/{len(S.cfgs)} after {time.time() - t0:.0f} s", flush=True)
    print(f"sweep: wrote {done} configurations to {a.out} in {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
