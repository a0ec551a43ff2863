#!/usr/bin/env python3
"""Exports one small block per ATen op that a forward pass can run: the core ATen opset
(native_functions.yaml's `core` tag) and the composite ops torch.export keeps whole (interpolate,
pixel_shuffle, one_hot, std/var, index_add, ...), each in float32 and bfloat16 where the op takes
floats. The launch rules of these ops are checked against what kernelcount-validate measures for
these blocks on the GPU (validate/device_corpus.sh OUT data/corpus/opset).

Names are `opset-<op>__<variant>_<dtype>.pt2`: every op is its own family, so a leave-one-
family-out figure never sees the op it predicts. Shapes are activation-like (2x64x32x32,
8x1024) so that no op is launch-trivially small. Exports on the CPU (the tensors' device is
not part of what is predicted), saved without sample inputs. Run from the repository root with
torch 2.11 (stack traces then name this file by its relative path):
  python3 research/corpus/export_opset.py data/corpus/opset
"""
import os
import sys
import tempfile

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
from strip_weights import strip_weights  # noqa: E402

A = (2, 64, 32, 32)  # an activation
M = (8, 1024)  # a matrix of rows
S = (2, 128, 256)  # a sequence


def rn(shape, dt):
    return torch.randn(*shape, dtype=dt)


def pos(shape, dt):
    return (torch.rand(*shape) + 0.5).to(dt)


def idx(n, hi, shape=None):
    return torch.randint(0, hi, shape or (n,))


# name -> (function, input makers taking the float dtype, float dtypes to export)
FLOATS = (torch.float32, torch.bfloat16)
F32 = (torch.float32,)
BLOCKS = {}


def block(name, fn, *makers, dtypes=FLOATS):
    BLOCKS[name] = (fn, makers, dtypes)


UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "erf", "erfinv", "exp",
         "exp2", "expm1", "floor", "frac", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt",
         "sigmoid", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "relu", "isinf", "isnan",
         "isfinite", "logical_not", "signbit", "nan_to_num", "lgamma", "digamma", "i0", "sinc", "deg2rad"]
for op in UNARY:
    block(op, getattr(torch, op), lambda dt: rn(A, dt))
ACT = {"gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "silu": F.silu, "mish": F.mish,
       "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid, "elu": F.elu, "selu": F.selu, "celu": F.celu,
       "leaky_relu": F.leaky_relu, "softplus": F.softplus, "softsign": F.softsign, "hardtanh": F.hardtanh,
       "relu6": F.relu6, "tanhshrink": F.tanhshrink, "hardshrink": F.hardshrink, "softshrink": F.softshrink,
       "threshold": lambda x: F.threshold(x, 0.1, 0.0), "logsigmoid": F.logsigmoid, "glu": lambda x: F.glu(x, 1),
       "clamp": lambda x: x.clamp(-1, 1), "clamp_min": lambda x: x.clamp_min(0.1), "pow_scalar": lambda x: x.pow(3),
       "rsub": lambda x: 1 - x, "dropout_eval": lambda x: F.dropout(x, 0.1, training=False),
       "logit": lambda x: torch.logit(x.sigmoid())}
for name, fn in ACT.items():
    block(name, fn, lambda dt: rn(A, dt))
block("prelu", lambda x, w: F.prelu(x, w), lambda dt: rn(A, dt), lambda dt: rn((64,), dt))
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "fmod", "remainder", "atan2", "eq", "ne", "lt",
          "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "hypot", "copysign", "fmax", "fmin",
          "floor_divide", "xlogy"]
for op in BINARY:
    block(op, getattr(torch, op), lambda dt: rn(A, dt), lambda dt: pos(A, dt))
    block(op + "_bcast", getattr(torch, op), lambda dt: rn(A, dt), lambda dt: pos((1, 64, 1, 1), dt))
block("add_alpha", lambda a, b: torch.add(a, b, alpha=2), lambda dt: rn(A, dt), lambda dt: rn(A, dt))
block("div_floor", lambda a, b: torch.div(a, b, rounding_mode="floor"), lambda dt: rn(A, dt), lambda dt: pos(A, dt))
block("lerp", lambda a, b: torch.lerp(a, b, 0.3), lambda dt: rn(A, dt), lambda dt: rn(A, dt))
block("addcmul", lambda a, b, c: torch.addcmul(a, b, c), *[lambda dt: rn(A, dt)] * 3)
block("where", lambda c, a, b: torch.where(c > 0, a, b), *[lambda dt: rn(A, dt)] * 3)
block("where_scalar", lambda c, a: torch.where(c > 0, a, 0.0), lambda dt: rn(A, dt), lambda dt: rn(A, dt))
block("masked_fill", lambda x, m: x.masked_fill(m > 0, -1e4), lambda dt: rn(A, dt), lambda dt: rn((2, 1, 32, 32), dt))
for op in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
    block(op, getattr(torch, op), lambda dt: idx(0, 100, A), lambda dt: idx(0, 100, A), dtypes=F32)
block("bitwise_not", torch.bitwise_not, lambda dt: idx(0, 100, A), dtypes=F32)
# reductions
RED = {"sum": lambda x: x.sum(-1), "sum_all": lambda x: x.sum(), "mean": lambda x: x.mean((2, 3)),
       "amax": lambda x: x.amax(1), "amin": lambda x: x.amin(-1), "max_dim": lambda x: x.max(1)[0],
       "min_dim": lambda x: x.min(-1)[1], "max_all": lambda x: x.max(), "argmax": lambda x: x.argmax(1),
       "argmin": lambda x: x.argmin(-1), "prod": lambda x: x.prod(-1), "var": lambda x: x.var(1),
       "std": lambda x: x.std((2, 3), keepdim=True), "var_mean": lambda x: torch.var_mean(x, 1)[0],
       "std_mean": lambda x: torch.std_mean(x, -1)[1], "any": lambda x: (x > 0).any(-1),
       "all": lambda x: (x > 0).all(1), "logsumexp": lambda x: x.logsumexp(-1),
       "norm": lambda x: x.norm(dim=-1), "vector_norm": lambda x: torch.linalg.vector_norm(x, 2, dim=1),
       "normalize": lambda x: F.normalize(x, dim=1), "cumsum": lambda x: x.cumsum(-1),
       "cumprod": lambda x: x.cumprod(1), "cummax": lambda x: x.cummax(-1)[0],
       "softmax": lambda x: x.softmax(-1), "log_softmax": lambda x: x.log_softmax(1),
       "count_nonzero": lambda x: torch.count_nonzero(x, dim=-1), "median_dim": lambda x: x.median(-1)[0],
       "mode": lambda x: x.mode(-1)[0], "kthvalue": lambda x: x.kthvalue(3, -1)[0],
       "aminmax": lambda x: torch.aminmax(x, dim=-1)[0], "nansum": lambda x: x.nansum(-1),
       "mean_keepdim": lambda x: x.mean(-1, keepdim=True), "sum_dtype": lambda x: x.sum(1, dtype=torch.float32)}
for name, fn in RED.items():
    block(name, fn, lambda dt: rn(A, dt))
    if name not in ("mean", "std"):  # those reduce dims 2 and 3
        block(name + "_rows", fn, lambda dt: rn((8, 1024, 4), dt))
block("cosine_similarity", lambda a, b: F.cosine_similarity(a, b, dim=1), lambda dt: rn(A, dt), lambda dt: rn(A, dt))
block("cdist", lambda a, b: torch.cdist(a, b), lambda dt: rn((2, 256, 64), dt), lambda dt: rn((2, 128, 64), dt), dtypes=F32)
block("pdist", lambda a: F.pdist(a), lambda dt: rn((128, 64), dt), dtypes=F32)
block("topk", lambda x: x.topk(5, -1)[0], lambda dt: rn(M, dt))
block("topk_large", lambda x: x.topk(100, -1)[1], lambda dt: rn(M, dt))
block("sort", lambda x: x.sort(-1)[0], lambda dt: rn(M, dt))
block("argsort", lambda x: x.argsort(1), lambda dt: rn(A, dt))
block("sort_small", lambda x: x.sort(-1)[0], lambda dt: rn((64, 32), dt))
# indexing
block("index_select", lambda x, i: x.index_select(0, i), lambda dt: rn(M, dt), lambda dt: idx(4, 8))
block("gather", lambda x, i: x.gather(1, i), lambda dt: rn(M, dt), lambda dt: idx(0, 1024, (8, 16)))
block("index_tensor", lambda x, i: x[i], lambda dt: rn(M, dt), lambda dt: idx(16, 8))
block("index_2d", lambda x, i, j: x[i, j], lambda dt: rn(M, dt), lambda dt: idx(16, 8), lambda dt: idx(16, 1024))
block("index_bool", lambda x: x[x > 0], lambda dt: rn(M, dt))
block("index_put", lambda x, i, v: x.index_put((i,), v), lambda dt: rn(M, dt), lambda dt: idx(4, 8),
      lambda dt: rn((4, 1024), dt))
block("index_put_acc", lambda x, i, v: x.index_put((i,), v, accumulate=True), lambda dt: rn(M, dt),
      lambda dt: idx(4, 8), lambda dt: rn((4, 1024), dt))
block("index_add", lambda x, i, v: x.index_add(0, i, v), lambda dt: rn(M, dt), lambda dt: idx(4, 8),
      lambda dt: rn((4, 1024), dt))
block("index_copy", lambda x, i, v: x.index_copy(0, i, v), lambda dt: rn(M, dt), lambda dt: torch.tensor([1, 3, 5, 7]),
      lambda dt: rn((4, 1024), dt))
block("index_fill", lambda x, i: x.index_fill(1, i, 0.0), lambda dt: rn(M, dt), lambda dt: idx(4, 1024))
block("scatter", lambda x, i, v: x.scatter(1, i, v), lambda dt: rn(M, dt), lambda dt: idx(0, 1024, (8, 16)),
      lambda dt: rn((8, 16), dt))
block("scatter_value", lambda x, i: x.scatter(1, i, 1.0), lambda dt: rn(M, dt), lambda dt: idx(0, 1024, (8, 16)))
block("scatter_add", lambda x, i, v: x.scatter_add(1, i, v), lambda dt: rn(M, dt), lambda dt: idx(0, 1024, (8, 16)),
      lambda dt: rn((8, 16), dt))
block("scatter_reduce", lambda x, i, v: x.scatter_reduce(1, i, v, "amax"), lambda dt: rn(M, dt),
      lambda dt: idx(0, 1024, (8, 16)), lambda dt: rn((8, 16), dt))
block("scatter_reduce_mean", lambda x, i, v: x.scatter_reduce(0, i, v, "mean", include_self=False),
      lambda dt: rn((64, 32), dt), lambda dt: idx(0, 64, (256, 32)), lambda dt: rn((256, 32), dt))
block("masked_scatter", lambda x, m, v: x.masked_scatter(m > 0, v), lambda dt: rn(M, dt), lambda dt: rn(M, dt),
      lambda dt: rn(M, dt))
block("masked_select", lambda x: x.masked_select(x > 0), lambda dt: rn(M, dt))
block("nonzero", lambda x: (x > 0).nonzero(), lambda dt: rn(M, dt))
block("take_along_dim", lambda x, i: torch.take_along_dim(x, i, 1), lambda dt: rn(M, dt),
      lambda dt: idx(0, 1024, (8, 4)))
block("embedding", lambda i, w: F.embedding(i, w), lambda dt: idx(0, 1000, (4, 64)), lambda dt: rn((1000, 256), dt))
block("embedding_bag", lambda i, w: F.embedding_bag(i, w, mode="mean"), lambda dt: idx(0, 1000, (16, 8)),
      lambda dt: rn((1000, 256), dt), dtypes=F32)
block("one_hot", lambda i: F.one_hot(i, 100), lambda dt: idx(0, 100, (8, 64)), dtypes=F32)
block("bincount", lambda i: torch.bincount(i, minlength=100), lambda dt: idx(0, 100, (1024,)), dtypes=F32)
block("histc", lambda x: torch.histc(x, 50, -2, 2), lambda dt: rn(M, dt), dtypes=F32)
block("repeat_interleave", lambda x: x.repeat_interleave(2, 0), lambda dt: rn(M, dt))
block("searchsorted", lambda s, v: torch.searchsorted(s, v), lambda dt: torch.arange(1024).to(dt).expand(8, 1024).contiguous(),
      lambda dt: rn((8, 16), dt) * 100, dtypes=F32)
block("bucketize", lambda x, b: torch.bucketize(x, b), lambda dt: rn(M, dt), lambda dt: torch.linspace(-2, 2, 16).to(dt))
block("unique", lambda i: torch.unique(i), lambda dt: idx(0, 50, (1024,)), dtypes=F32)
# layout, copies and shape ops
SHAPE = {"flip": lambda x: x.flip(-1), "flip2": lambda x: x.flip((2, 3)), "roll": lambda x: x.roll(3, -1),
         "roll2": lambda x: x.roll((1, 2), (2, 3)), "tril": lambda x: x.tril(), "triu": lambda x: x.triu(1),
         "repeat": lambda x: x.repeat(1, 2, 1, 1), "tile": lambda x: x.tile((2, 1)),
         "expand_contig": lambda x: x[:, :1].expand(2, 64, 32, 32).contiguous(),
         "permute_contig": lambda x: x.permute(0, 2, 3, 1).contiguous(), "transpose_reshape":
         lambda x: x.transpose(1, 2).reshape(2, 32, -1), "channels_last": lambda x: x.contiguous(memory_format=torch.channels_last),
         "clone": lambda x: x.clone(), "narrow_clone": lambda x: x.narrow(1, 0, 32).clone(),
         "diagonal": lambda x: x.diagonal(0, -2, -1).contiguous(), "diag_embed": lambda x: torch.diag_embed(x[..., :16]),
         "chunk_cat": lambda x: torch.cat(x.chunk(4, 1)[::-1], 1), "stack": lambda x: torch.stack([x, x * 2], 1),
         "split_add": lambda x: sum(x.split([16, 48], 1)[0].unbind(1)), "unfold": lambda x: x.unfold(-1, 4, 2).contiguous(),
         "im2col": lambda x: F.unfold(x, 3, padding=1),          "slice_scatter": lambda x: x.slice_scatter(x[:, :16] * 2, 1, 0, 16),
         "select_scatter": lambda x: x.select_scatter(x[:, 0] * 2, 1, 0),
         "pad_constant": lambda x: F.pad(x, (1, 1, 2, 2)), "pad_reflect": lambda x: F.pad(x, (1, 1, 2, 2), "reflect"),
         "pad_replicate": lambda x: F.pad(x, (1, 1, 2, 2), "replicate"), "pad_circular": lambda x: F.pad(x, (1, 1, 2, 2), "circular"),
         "pixel_shuffle": lambda x: F.pixel_shuffle(x, 2), "pixel_unshuffle": lambda x: F.pixel_unshuffle(x, 2),
         "channel_shuffle": lambda x: F.channel_shuffle(x, 4), "to_half": lambda x: x.half(), "to_float": lambda x: x.float(),
         "to_int": lambda x: x.long(), "zeros_like": lambda x: torch.zeros_like(x) + x, "full_like": lambda x: torch.full_like(x, 2.0),
         "rand_like": lambda x: torch.rand_like(x), "randn_like": lambda x: torch.randn_like(x),
         "bernoulli": lambda x: torch.bernoulli(x.sigmoid()), "dropout_train": lambda x: F.dropout(x, 0.1, training=True)}
for name, fn in SHAPE.items():
    block(name, fn, lambda dt: rn(A, dt))
FACTORY = {"arange": lambda x: x + torch.arange(1024, device=x.device, dtype=x.dtype),
           "zeros": lambda x: x + torch.zeros(8, 1024, device=x.device, dtype=x.dtype),
           "ones": lambda x: x * torch.ones(1024, device=x.device, dtype=x.dtype),
           "full": lambda x: x + torch.full((8, 1024), 2.0, device=x.device, dtype=x.dtype),
           "empty_fill": lambda x: torch.empty(8, 1024, device=x.device, dtype=x.dtype).fill_(1.0) + x,
           "linspace": lambda x: x + torch.linspace(0, 1, 1024, device=x.device, dtype=x.dtype),
           "eye": lambda x: x[:, :8] @ torch.eye(8, device=x.device, dtype=x.dtype),
           "tril_mask": lambda x: x.masked_fill(torch.ones(8, 1024, dtype=torch.bool, device=x.device).tril(), 0.0),
           "randperm": lambda x: x[:, torch.randperm(1024, device=x.device)],
           "scalar_tensor": lambda x: x * torch.tensor(2.0, dtype=x.dtype, device=x.device)}
for name, fn in FACTORY.items():
    block(name, fn, lambda dt: rn(M, dt))
# pooling, resampling, normalization
NN = {"max_pool2d": lambda x: F.max_pool2d(x, 3, 2, 1), "max_pool2d_idx": lambda x: F.max_pool2d(x, 2, return_indices=True)[1],
      "avg_pool2d": lambda x: F.avg_pool2d(x, 2), "avg_pool2d_pad": lambda x: F.avg_pool2d(x, 3, 1, 1, count_include_pad=False),
      "adaptive_avg_pool2d": lambda x: F.adaptive_avg_pool2d(x, 7), "adaptive_avg_pool2d_1": lambda x: F.adaptive_avg_pool2d(x, 1),
      "adaptive_max_pool2d": lambda x: F.adaptive_max_pool2d(x, 4), "lp_pool2d": lambda x: F.lp_pool2d(x, 2, 2),
      "nearest": lambda x: F.interpolate(x, scale_factor=2), "nearest_exact": lambda x: F.interpolate(x, scale_factor=2, mode="nearest-exact"),
      "bilinear": lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
      "bilinear_ac": lambda x: F.interpolate(x, size=(48, 48), mode="bilinear", align_corners=True),
      "bilinear_aa": lambda x: F.interpolate(x, size=(16, 16), mode="bilinear", antialias=True),
      "bicubic": lambda x: F.interpolate(x, scale_factor=2, mode="bicubic"),
      "group_norm": lambda x: F.group_norm(x, 8), "instance_norm": lambda x: F.instance_norm(x),
      "batch_norm_train": lambda x: F.batch_norm(x, None, None, training=True),
      "local_response_norm": lambda x: F.local_response_norm(x, 5), "layer_norm_cl": lambda x: F.layer_norm(x.permute(0, 2, 3, 1), (64,)),
      "rms_norm": lambda x: F.rms_norm(x.permute(0, 2, 3, 1), (64,)), "softmax2d": lambda x: F.softmax(x, 1),
      "grid_sample": lambda x: F.grid_sample(x, torch.zeros(2, 16, 16, 2, dtype=x.dtype), align_corners=False),
      "affine_grid": lambda x: F.affine_grid(x[:, :2, :3, 0], (2, 64, 16, 16), align_corners=False)}
for name, fn in NN.items():
    block(name, fn, lambda dt: rn(A, dt))
block("col2im", lambda x: F.fold(x, (16, 16), 2, stride=2), lambda dt: rn((2, 256, 64), dt))
block("max_pool1d", lambda x: F.max_pool1d(x, 3, 2), lambda dt: rn(S, dt))
block("avg_pool1d", lambda x: F.avg_pool1d(x, 2), lambda dt: rn(S, dt))
block("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 8), lambda dt: rn(S, dt))
block("linear_interp", lambda x: F.interpolate(x, scale_factor=2, mode="linear"), lambda dt: rn(S, dt))
block("max_pool3d", lambda x: F.max_pool3d(x, 2), lambda dt: rn((2, 16, 8, 16, 16), dt))
block("avg_pool3d", lambda x: F.avg_pool3d(x, 2), lambda dt: rn((2, 16, 8, 16, 16), dt))
block("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, 1), lambda dt: rn((2, 16, 8, 16, 16), dt))
block("trilinear", lambda x: F.interpolate(x, scale_factor=2, mode="trilinear"), lambda dt: rn((2, 16, 8, 16, 16), dt))
block("nearest3d", lambda x: F.interpolate(x, scale_factor=2), lambda dt: rn((2, 16, 8, 16, 16), dt))
block("pad_reflect1d", lambda x: F.pad(x, (3, 3), "reflect"), lambda dt: rn(S, dt))
block("pad_reflect3d", lambda x: F.pad(x, (1, 1, 1, 1, 1, 1), "reflect"), lambda dt: rn((2, 16, 8, 16, 16), dt))
block("pad_replicate3d", lambda x: F.pad(x, (1, 1, 1, 1, 1, 1), "replicate"), lambda dt: rn((2, 16, 8, 16, 16), dt))
# matrix products outside linear layers
block("mv", torch.mv, lambda dt: rn(M, dt), lambda dt: rn((1024,), dt))
block("dot", torch.dot, lambda dt: rn((1024,), dt), lambda dt: rn((1024,), dt))
block("outer", torch.outer, lambda dt: rn((256,), dt), lambda dt: rn((512,), dt))
block("addmv", lambda b, a, v: torch.addmv(b, a, v), lambda dt: rn((8,), dt), lambda dt: rn(M, dt), lambda dt: rn((1024,), dt))
block("addbmm", lambda b, x, y: torch.addbmm(b, x, y), lambda dt: rn((64, 32), dt), lambda dt: rn((4, 64, 128), dt),
      lambda dt: rn((4, 128, 32), dt))
block("bilinear_layer", lambda a, b, w: F.bilinear(a, b, w), lambda dt: rn((8, 32), dt), lambda dt: rn((8, 48), dt),
      lambda dt: rn((16, 32, 48), dt))
block("tensordot", lambda a, b: torch.tensordot(a, b, dims=([1, 2], [0, 1])), lambda dt: rn((8, 16, 32), dt),
      lambda dt: rn((16, 32, 64), dt))
block("kron", torch.kron, lambda dt: rn((16, 16), dt), lambda dt: rn((8, 8), dt))
block("baddbmm_alpha", lambda b, x, y: torch.baddbmm(b, x, y, alpha=0.5, beta=0.5), lambda dt: rn((4, 64, 32), dt),
      lambda dt: rn((4, 64, 128), dt), lambda dt: rn((4, 128, 32), dt))
block("matmul_vec", lambda x, v: x @ v, lambda dt: rn((4, 64, 128), dt), lambda dt: rn((128,), dt))
block("matmul_bcast", lambda x, y: x @ y, lambda dt: rn((4, 8, 64, 32), dt), lambda dt: rn((32, 48), dt))
block("matmul_4d", lambda x, y: x @ y, lambda dt: rn((4, 8, 64, 32), dt), lambda dt: rn((4, 8, 32, 48), dt))
block("fft_rfft", lambda x: torch.fft.rfft(x, dim=-1).abs(), lambda dt: rn(M, dt), dtypes=F32)
block("fft_fft2", lambda x: torch.fft.fft2(x).real, lambda dt: rn(A, dt), dtypes=F32)
block("fft_irfft", lambda x: torch.fft.irfft(torch.fft.rfft(x)), lambda dt: rn(M, dt), dtypes=F32)
block("triangular_solve", lambda a, b: torch.linalg.solve_triangular(a.tril() + 4 * torch.eye(64), b, upper=False),
      lambda dt: rn((64, 64), dt), lambda dt: rn((64, 16), dt), dtypes=F32)
# recurrent cells, spectral and index helpers hand-written models use
block("gru_cell", lambda x, h, wi, wh, bi, bh: torch.gru_cell(x, h, wi, wh, bi, bh), lambda dt: rn((8, 64), dt),
      lambda dt: rn((8, 128), dt), lambda dt: rn((384, 64), dt), lambda dt: rn((384, 128), dt), lambda dt: rn((384,), dt),
      lambda dt: rn((384,), dt))
block("lstm_cell", lambda x, h, c, wi, wh, bi, bh: torch.lstm_cell(x, (h, c), wi, wh, bi, bh)[0], lambda dt: rn((8, 64), dt),
      lambda dt: rn((8, 128), dt), lambda dt: rn((8, 128), dt), lambda dt: rn((512, 64), dt), lambda dt: rn((512, 128), dt),
      lambda dt: rn((512,), dt), lambda dt: rn((512,), dt))
block("rnn_tanh_cell", lambda x, h, wi, wh, bi, bh: torch.rnn_tanh_cell(x, h, wi, wh, bi, bh), lambda dt: rn((8, 64), dt),
      lambda dt: rn((8, 128), dt), lambda dt: rn((128, 64), dt), lambda dt: rn((128, 128), dt), lambda dt: rn((128,), dt),
      lambda dt: rn((128,), dt))
block("stft", lambda x: torch.stft(x, 256, 64, window=torch.ones(256), return_complex=True).abs(), lambda dt: rn((2, 4096), dt),
      dtypes=F32)
block("where_cond", lambda x: torch.where(x > 0)[1], lambda dt: rn(M, dt))
block("argwhere", lambda x: torch.argwhere(x > 0), lambda dt: rn(M, dt))
block("repeat_interleave_tensor", lambda x, r: x.repeat_interleave(r, 0), lambda dt: rn(M, dt),
      lambda dt: torch.full((8,), 2, dtype=torch.long))
block("triu_indices", lambda x: x[:, torch.triu_indices(32, 32, 1)[1]], lambda dt: rn(M, dt))
block("cross", lambda a, b: torch.linalg.cross(a, b, dim=-1), lambda dt: rn((1024, 3), dt), lambda dt: rn((1024, 3), dt))
block("linalg_norm", lambda x: torch.linalg.norm(x, dim=(-2, -1)), lambda dt: rn(A, dt))
block("renorm", lambda x: x.renorm(2, 0, 1.0), lambda dt: rn(M, dt))
block("clamp_tensor", lambda x, lo: torch.clamp(x, min=lo), lambda dt: rn(A, dt), lambda dt: rn((1, 64, 1, 1), dt))
block("masked_fill_scalar_tensor", lambda x, m: x.masked_fill(m > 0, torch.tensor(0.0)), lambda dt: rn(A, dt),
      lambda dt: rn((2, 1, 32, 32), dt))
block("instance_norm_affine", lambda x, w, b: F.instance_norm(x, weight=w, bias=b), lambda dt: rn(A, dt),
      lambda dt: rn((64,), dt), lambda dt: rn((64,), dt))
block("group_norm_affine", lambda x, w, b: F.group_norm(x, 8, w, b), lambda dt: rn(A, dt), lambda dt: rn((64,), dt),
      lambda dt: rn((64,), dt))
block("interp_area", lambda x: F.interpolate(x, size=(8, 8), mode="area"), lambda dt: rn(A, dt))
block("embedding_bag_sum", lambda i, w: F.embedding_bag(i, w, mode="sum"), lambda dt: idx(0, 1000, (16, 8)),
      lambda dt: rn((1000, 256), dt), dtypes=F32)
block("embedding_bag_max", lambda i, w: F.embedding_bag(i, w, mode="max"), lambda dt: idx(0, 1000, (16, 8)),
      lambda dt: rn((1000, 256), dt), dtypes=F32)
block("mode_long", lambda x: x.mode(-1)[0], lambda dt: rn((4, 4096), dt))
block("sort_long", lambda x: x.sort(-1)[0], lambda dt: rn((4, 16384), dt))
block("topk_rows", lambda x: x.topk(8, 1)[0], lambda dt: rn(A, dt))
block("scatter_reduce_sum", lambda x, i, v: x.scatter_reduce(0, i, v, "sum"), lambda dt: rn((64, 32), dt),
      lambda dt: idx(0, 64, (256, 32)), lambda dt: rn((256, 32), dt))
block("scatter_reduce_mean_self", lambda x, i, v: x.scatter_reduce(0, i, v, "mean"), lambda dt: rn((64, 32), dt),
      lambda dt: idx(0, 64, (256, 32)), lambda dt: rn((256, 32), dt))
block("index_add_dim1", lambda x, i, v: x.index_add(1, i, v), lambda dt: rn(M, dt), lambda dt: idx(16, 1024),
      lambda dt: rn((8, 16), dt))
block("addbmm_large", lambda b, x, y: torch.addbmm(b, x, y), lambda dt: rn((256, 256), dt), lambda dt: rn((8, 256, 512), dt),
      lambda dt: rn((8, 512, 256), dt))
block("mv_large", torch.mv, lambda dt: rn((4096, 1024), dt), lambda dt: rn((1024,), dt))
block("tensordot_large", lambda a, b: torch.tensordot(a, b, dims=([2], [0])), lambda dt: rn((8, 128, 256), dt),
      lambda dt: rn((256, 512), dt))

# sibling ops whose rules rested on another op's measurement
block("vdot", torch.vdot, lambda dt: rn((1024,), dt), lambda dt: rn((1024,), dt))
block("unique_dim", lambda i: torch.unique(i, dim=0), lambda dt: idx(0, 4, (256, 2)), dtypes=F32)
block("mv_8192", torch.mv, lambda dt: rn((8192, 1024), dt), lambda dt: rn((1024,), dt), dtypes=F32)
block("mv_16384", torch.mv, lambda dt: rn((16384, 512), dt), lambda dt: rn((512,), dt), dtypes=F32)
block("gru_cell_b32", lambda x, h, wi, wh, bi, bh: torch.gru_cell(x, h, wi, wh, bi, bh), lambda dt: rn((32, 128), dt),
      lambda dt: rn((32, 256), dt), lambda dt: rn((768, 128), dt), lambda dt: rn((768, 256), dt), lambda dt: rn((768,), dt),
      lambda dt: rn((768,), dt))
block("lstm_cell_b32", lambda x, h, c, wi, wh, bi, bh: torch.lstm_cell(x, (h, c), wi, wh, bi, bh)[0],
      lambda dt: rn((32, 128), dt), lambda dt: rn((32, 256), dt), lambda dt: rn((32, 256), dt),
      lambda dt: rn((1024, 128), dt), lambda dt: rn((1024, 256), dt), lambda dt: rn((1024,), dt), lambda dt: rn((1024,), dt))
block("lstm_cell_b1", lambda x, h, c, wi, wh, bi, bh: torch.lstm_cell(x, (h, c), wi, wh, bi, bh)[0],
      lambda dt: rn((1, 256), dt), lambda dt: rn((1, 512), dt), lambda dt: rn((1, 512), dt),
      lambda dt: rn((2048, 256), dt), lambda dt: rn((2048, 512), dt), lambda dt: rn((2048,), dt), lambda dt: rn((2048,), dt))
block("mode_long_rows", lambda x: x.mode(-1)[0], lambda dt: rn((16, 3000), dt))
block("sort_long_rows", lambda x: x.sort(-1)[0], lambda dt: rn((64, 8192), dt))
block("tensordot_perm", lambda a, b: torch.tensordot(a, b, dims=([0, 2], [1, 0])), lambda dt: rn((32, 16, 64), dt),
      lambda dt: rn((64, 32, 48), dt))

# Losses computed in a forward pass (a model that returns its loss, an auxiliary or commitment
# loss), at the shapes a model computes them on: logits of 8x1024 rows, activations.
L = (32, 1000)  # logits
block("mse_loss", F.mse_loss, lambda dt: rn(A, dt), lambda dt: rn(A, dt))
block("mse_loss_none", lambda a, b: F.mse_loss(a, b, reduction="none"), lambda dt: rn(A, dt), lambda dt: rn(A, dt))
block("l1_loss", F.l1_loss, lambda dt: rn(A, dt), lambda dt: rn(A, dt))
block("smooth_l1_loss", F.smooth_l1_loss, lambda dt: rn(A, dt), lambda dt: rn(A, dt))
block("huber_loss", F.huber_loss, lambda dt: rn(A, dt), lambda dt: rn(A, dt))
block("cross_entropy", F.cross_entropy, lambda dt: rn(L, dt), lambda dt: idx(L[0], L[1]))
block("cross_entropy_smooth", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1), lambda dt: rn(L, dt),
      lambda dt: idx(L[0], L[1]))
block("cross_entropy_probs", F.cross_entropy, lambda dt: rn(L, dt), lambda dt: rn(L, dt).softmax(-1))
block("cross_entropy_seq", lambda x, t: F.cross_entropy(x.flatten(0, 1), t.flatten()), lambda dt: rn((8, 128, 512), dt),
      lambda dt: idx(0, 512, (8, 128)))
block("nll_loss", F.nll_loss, lambda dt: rn(L, dt).log_softmax(-1), lambda dt: idx(L[0], L[1]))
block("bce_with_logits", F.binary_cross_entropy_with_logits, lambda dt: rn(L, dt), lambda dt: pos(L, dt) - 0.5)
block("bce", F.binary_cross_entropy, lambda dt: pos(L, dt) - 0.5, lambda dt: pos(L, dt) - 0.5)
block("kl_div", lambda a, b: F.kl_div(a, b, reduction="batchmean"), lambda dt: rn(L, dt).log_softmax(-1),
      lambda dt: rn(L, dt).softmax(-1))
block("cosine_embedding_loss", lambda a, b, y: F.cosine_embedding_loss(a, b, y), lambda dt: rn((64, 256), dt),
      lambda dt: rn((64, 256), dt), lambda dt: (idx(64, 2) * 2 - 1).to(dt))
block("margin_ranking_loss", F.margin_ranking_loss, lambda dt: rn((4096,), dt), lambda dt: rn((4096,), dt),
      lambda dt: (idx(4096, 2) * 2 - 1).to(dt))
block("triplet_margin_loss", F.triplet_margin_loss, lambda dt: rn((64, 256), dt), lambda dt: rn((64, 256), dt),
      lambda dt: rn((64, 256), dt))
block("poisson_nll_loss", F.poisson_nll_loss, lambda dt: rn(L, dt), lambda dt: pos(L, dt))
block("gaussian_nll_loss", F.gaussian_nll_loss, lambda dt: rn(L, dt), lambda dt: rn(L, dt), lambda dt: pos(L, dt))
block("soft_margin_loss", F.soft_margin_loss, lambda dt: rn(L, dt), lambda dt: (idx(0, 2, L) * 2 - 1).to(dt))
block("multilabel_soft_margin_loss", F.multilabel_soft_margin_loss, lambda dt: rn(L, dt), lambda dt: idx(0, 2, L).to(dt))
block("hinge_embedding_loss", F.hinge_embedding_loss, lambda dt: rn(L, dt), lambda dt: (idx(0, 2, L) * 2 - 1).to(dt))
# broadcast_tensors: views only
block("broadcast_tensors", lambda a, b: [t + 0 for t in torch.broadcast_tensors(a, b)], lambda dt: rn((64, 1, 32), dt),
      lambda dt: rn((1, 16, 32), dt))
# einsum in its batched-GEMM-with-permutes forms (mixture-of-experts dispatch and combine,
# attention written as einsum)
block("einsum_dispatch", lambda a, b: torch.einsum("nec,nd->ecd", a, b), lambda dt: rn((512, 8, 64), dt),
      lambda dt: rn((512, 256), dt))
block("einsum_combine", lambda a, b: torch.einsum("nec,ecd->nd", a, b), lambda dt: rn((512, 8, 64), dt),
      lambda dt: rn((8, 64, 256), dt))
block("einsum_attn", lambda q, k: torch.einsum("bhqd,bhkd->bhqk", q, k), lambda dt: rn((2, 8, 128, 64), dt),
      lambda dt: rn((2, 8, 128, 64), dt))
block("einsum_attn_out", lambda p, v: torch.einsum("bhqk,bkhd->bqhd", p, v), lambda dt: rn((2, 8, 128, 128), dt),
      lambda dt: rn((2, 128, 8, 64), dt))
block("einsum_outer", lambda a, b: torch.einsum("i,j->ij", a, b), lambda dt: rn((1024,), dt), lambda dt: rn((512,), dt))
block("einsum_trace_sum", lambda a: torch.einsum("bii->b", a), lambda dt: rn((16, 128, 128), dt))
# transposed convolutions at decoder shapes (UNet and VAE up-sampling, GAN generators, 1-d
# vocoders, 3-d video decoders)
block("conv_transpose2d_up2", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
      lambda dt: rn((4, 256, 32, 32), dt), lambda dt: rn((256, 128, 3, 3), dt), lambda dt: rn((128,), dt))
block("conv_transpose2d_k4s2", lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1),
      lambda dt: rn((8, 512, 8, 8), dt), lambda dt: rn((512, 256, 4, 4), dt))
block("conv_transpose2d_k2s2", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2),
      lambda dt: rn((2, 128, 64, 64), dt), lambda dt: rn((128, 64, 2, 2), dt), lambda dt: rn((64,), dt))
block("conv_transpose2d_gen", lambda x, w: F.conv_transpose2d(x, w, stride=1, padding=0),
      lambda dt: rn((16, 100, 1, 1), dt), lambda dt: rn((100, 512, 4, 4), dt))
block("conv_transpose1d_vocoder", lambda x, w, b: F.conv_transpose1d(x, w, b, stride=8, padding=4),
      lambda dt: rn((2, 512, 256), dt), lambda dt: rn((512, 256, 16), dt), lambda dt: rn((256,), dt))
block("conv_transpose3d_up2", lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2),
      lambda dt: rn((1, 64, 8, 16, 16), dt), lambda dt: rn((64, 32, 2, 2, 2), dt), lambda dt: rn((32,), dt))
block("conv2d_9x9", lambda x, w, b: F.conv2d(x, w, b, padding=4), lambda dt: rn((4, 64, 64, 64), dt),
      lambda dt: rn((64, 64, 9, 9), dt), lambda dt: rn((64,), dt))


class Block(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "data/corpus/opset"
    only = sys.argv[2] if len(sys.argv) > 2 else None
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    failed = []
    n = 0
    for name, (fn, makers, dtypes) in BLOCKS.items():
        if only and only not in name:
            continue
        for dt in dtypes:
            tag = {torch.float32: "fp32", torch.bfloat16: "bf16"}[dt]
            op = name.split("_bcast")[0].split("_rows")[0]
            path = os.path.join(out, "opset-%s__%s_%s.pt2" % (op, name, tag))
            try:
                args = tuple(m(dt) for m in makers)
                ep = torch.export.export(Block(fn), args)
                # Saved without the sample inputs and constants (validate runs random ones).
                with tempfile.TemporaryDirectory() as tmp:
                    full = os.path.join(tmp, os.path.basename(path))
                    torch.export.save(ep, full)
                    strip_weights(full, path)
                n += 1
            except Exception as e:  # an op that does not export (or not in this dtype) is listed
                failed.append("%s %s: %s" % (name, tag, str(e).splitlines()[0][:150]))
    print("export_opset: %d blocks -> %s" % (n, out))
    for f in failed:
        print("  not exported: " + f)


if __name__ == "__main__":
    main()
