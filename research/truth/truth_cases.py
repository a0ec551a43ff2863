"""The cases of ops_probe.py as modules: the probe's own ops, shapes and dtypes."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Case(nn.Module):
    """forward(*args) = fn(self, *args); modules given by keyword become submodules."""

    def __init__(self, fn, **modules):
        super().__init__()
        self.fn = fn
        for k, m in modules.items():
            setattr(self, k, m)

    def forward(self, *args):
        return self.fn(self, *args)


def cases(dev):
    torch.manual_seed(0)
    N = 1_000_000
    a = torch.randn(N, device=dev)
    b = torch.randn(N, device=dev)
    yield "add", Case(lambda s, a, b: a + b), (a, b)
    yield "add_relu", Case(lambda s, a, b: (a + b).relu()), (a, b)
    yield "mul_add_gelu", Case(lambda s, a, b: F.gelu(a * b + 1.0)), (a, b)
    yield "add_scalar", Case(lambda s, a: a + 1), (a,)
    yield "relu_inplace", Case(lambda s, a: a.clone().relu_()), (a,)
    for dt in [torch.float32, torch.bfloat16]:
        n = str(dt).split(".")[1]
        x = torch.randn(64, 512, 768, device=dev, dtype=dt)
        lin = nn.Linear(768, 3072, device=dev, dtype=dt)
        linnb = nn.Linear(768, 3072, bias=False, device=dev, dtype=dt)
        x2 = torch.randn(4096, 768, device=dev, dtype=dt)
        yield f"linear_bias_3d_{n}", Case(lambda s, x: s.l(x), l=lin), (x,)
        yield f"linear_bias_2d_{n}", Case(lambda s, x: s.l(x), l=lin), (x2,)
        yield f"linear_nobias_{n}", Case(lambda s, x: s.l(x), l=linnb), (x,)
        yield f"linear_bias_small_{n}", Case(lambda s, x: s.l(x), l=lin), (torch.randn(1, 768, device=dev, dtype=dt),)
        yield f"matmul_2d_{n}", Case(lambda s, p, q: p @ q), (x2, torch.randn(768, 768, device=dev, dtype=dt))
        yield f"bmm_{n}", Case(lambda s, p, q: p @ q), (
            torch.randn(32, 128, 64, device=dev, dtype=dt), torch.randn(32, 64, 128, device=dev, dtype=dt))
        yield f"matmul_transposed_k_{n}", Case(lambda s, q, k: q @ k.transpose(-2, -1)), (
            torch.randn(8, 12, 128, 64, device=dev, dtype=dt), torch.randn(8, 12, 128, 64, device=dev, dtype=dt))
        yield f"layer_norm_{n}", Case(lambda s, t: F.layer_norm(t, (768,))), (x,)
        yield f"softmax_{n}", Case(lambda s, t: t.softmax(-1)), (x,)
        yield f"gelu_{n}", Case(lambda s, t: F.gelu(t)), (x,)
        yield f"silu_{n}", Case(lambda s, t: F.silu(t)), (x,)
        yield f"sum_last_{n}", Case(lambda s, t: t.sum(-1)), (x,)
        yield f"mean_all_{n}", Case(lambda s, t: t.mean()), (x,)
        yield f"to_half_{n}", Case(lambda s, t: t.to(torch.float16)), (x,)
        yield f"contiguous_T_{n}", Case(lambda s, t: t.transpose(1, 2).contiguous()), (x,)
        yield f"view_reshape_{n}", Case(lambda s, t: t.view(64, 512, 12, 64).permute(0, 2, 1, 3)), (x,)
        yield f"cat_{n}", Case(lambda s, p, q: torch.cat([p, q], -1)), (x, x)
        img = torch.randn(32, 64, 56, 56, device=dev, dtype=dt)
        conv = nn.Conv2d(64, 64, 3, padding=1, device=dev, dtype=dt)
        convnb = nn.Conv2d(64, 64, 3, padding=1, bias=False, device=dev, dtype=dt)
        yield f"conv3x3_bias_{n}", Case(lambda s, t: s.c(t), c=conv), (img,)
        yield f"conv3x3_nobias_{n}", Case(lambda s, t: s.c(t), c=convnb), (img,)
        yield f"conv1x1_{n}", Case(lambda s, t: s.c(t), c=nn.Conv2d(64, 256, 1, bias=False, device=dev, dtype=dt)), (img,)
        yield f"batchnorm_eval_{n}", Case(lambda s, t: s.bn(t), bn=nn.BatchNorm2d(64, device=dev, dtype=dt).eval()), (img,)
        yield f"maxpool_{n}", Case(lambda s, t: F.max_pool2d(t, 3, 2, 1)), (img,)
        yield f"adaptive_avgpool_{n}", Case(lambda s, t: F.adaptive_avg_pool2d(t, 1)), (img,)
        q = torch.randn(8, 12, 512, 64, device=dev, dtype=dt)
        yield f"sdpa_{n}", Case(lambda s, q: F.scaled_dot_product_attention(q, q, q)), (q,)
        yield f"sdpa_causal_{n}", Case(lambda s, q: F.scaled_dot_product_attention(q, q, q, is_causal=True)), (q,)
        emb = nn.Embedding(50000, 768, device=dev, dtype=dt)
        yield f"embedding_{n}", Case(lambda s, i: s.e(i), e=emb), (torch.randint(0, 50000, (64, 512), device=dev),)
        yield f"dropout_train_{n}", Case(lambda s, t: F.dropout(t, 0.1, True)), (x,)
        yield f"dropout_eval_{n}", Case(lambda s, t: F.dropout(t, 0.1, False)), (x,)
    yield "zeros", Case(lambda s: torch.zeros(1000, 1000, device=dev)), ()
    yield "ones", Case(lambda s: torch.ones(1000, 1000, device=dev)), ()
    yield "arange", Case(lambda s: torch.arange(1000, device=dev)), ()
    yield "randn", Case(lambda s: torch.randn(1000, 1000, device=dev)), ()
    yield "empty", Case(lambda s: torch.empty(1000, 1000, device=dev)), ()
    yield "item", Case(lambda s, t: t.sum().item()), (a,)
    yield "to_cpu", Case(lambda s, t: t.cpu()), (a,)
    yield "cross_entropy", Case(lambda s, l, t: F.cross_entropy(l, t)), (
        torch.randn(512, 1000, device=dev), torch.randint(0, 1000, (512,), device=dev))
    yield "argmax", Case(lambda s, t: t.argmax(-1)), (torch.randn(512, 1000, device=dev),)
    yield "topk", Case(lambda s, t: tuple(t.topk(5, -1))), (torch.randn(512, 1000, device=dev),)
    yield "where", Case(lambda s, c, p, q: torch.where(c, p, q)), (a > 0, a, b)
    yield "masked_fill", Case(lambda s, t, m: t.masked_fill(m, 0.0)), (a, a > 0)
    yield "index_select", Case(lambda s, t, i: t[i]), (
        torch.randn(10000, 128, device=dev), torch.randint(0, 10000, (4096,), device=dev))
    yield "lstm", Case(lambda s, t: s.m(t), m=nn.LSTM(256, 256, 2, batch_first=True, device=dev)), (
        torch.randn(16, 64, 256, device=dev),)
    yield "group_norm", Case(lambda s, t: s.g(t), g=nn.GroupNorm(8, 64, device=dev)), (torch.randn(8, 64, 32, 32, device=dev),)
    yield "upsample_nearest", Case(lambda s, t: F.interpolate(t, scale_factor=2)), (torch.randn(8, 64, 32, 32, device=dev),)
    yield "pad", Case(lambda s, t: F.pad(t, (1, 1, 1, 1))), (torch.randn(8, 64, 32, 32, device=dev),)
    yield "expand_add", Case(lambda s, p, q: p + q), (torch.randn(64, 512, 768, device=dev), torch.randn(768, device=dev))
