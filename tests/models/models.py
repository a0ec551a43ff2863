"""Small nn.Module definitions used to build the test model files in this folder."""
import torch  # noqa: F401
import torch.nn as nn
import torch.nn.functional as F


class Add(nn.Module):
    """Elementwise a + b."""

    def forward(self, a, b):
        return a + b


class AddRelu(nn.Module):
    """(a + b).relu()."""

    def forward(self, a, b):
        return (a + b).relu()


class MulAddGelu(nn.Module):
    """gelu(a * b + 1.0)."""

    def forward(self, a, b):
        return F.gelu(a * b + 1.0)


class MLP(nn.Module):
    """Linear -> GELU -> Linear with a residual add."""

    def __init__(self, d: int = 64, hidden: int = 128):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, d)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(x)))


class ConvBnRelu(nn.Module):
    """Conv2d 3x3 -> BatchNorm2d -> ReLU."""

    def __init__(self, c: int = 16):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.bn = nn.BatchNorm2d(c)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


class TransformerBlock(nn.Module):
    """Pre-norm transformer block: causal SDPA attention and a GELU MLP, each with a residual."""

    def __init__(self, d: int = 64, heads: int = 4, mlp_ratio: int = 4):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, mlp_ratio * d)
        self.fc2 = nn.Linear(mlp_ratio * d, d)

    def forward(self, x):
        b, s, d = x.shape
        h = self.heads
        qkv = self.qkv(self.ln1(x)).reshape(b, s, 3, h, d // h).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        a = a.transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(a)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class BF16Linear(nn.Module):
    """A single Linear layer (converted to bfloat16 by the generator)."""

    def __init__(self, d: int = 64):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        return self.fc(x)


class ScriptedControlFlow(nn.Module):
    """TorchScript control flow: a shape-derived loop, a fixed loop and an if on a shape."""

    def __init__(self, d: int = 64):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        y = x
        for _ in range(x.size(0) // 4):
            y = y * 2.0
        for _ in range(3):
            y = self.fc(y)
        if x.size(-1) > 32:
            y = y.relu()
        else:
            y = y.sigmoid()
        return y


class ShapeArith(nn.Module):
    """Shape arithmetic from tensor sizes (as in attention code) followed by pointwise ops."""

    def forward(self, x):
        h = x.size(1) // 4
        y = x.view(x.size(0), h, 4)
        return (y * 2.0).relu().reshape(x.size(0), -1) + x


class ScriptedBranches(nn.Module):
    """torch.jit.script: an if on the rank, a ModuleList loop, an if on a size with an early return."""

    def __init__(self, d: int = 32, n: int = 3):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(d, d) for _ in range(n)])
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        if x.dim() == 2:
            x = x.unsqueeze(0)
        for layer in self.layers:
            x = F.gelu(layer(x))
        if x.size(1) > 8:
            return self.norm(x)
        return x * 2.0


class TokenModel(nn.Module):
    """Transformers-style: int64 tokens and a mask by name, embedding, a dict of outputs."""

    def __init__(self, vocab: int = 100, d: int = 32):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, input_ids, attention_mask):
        h = self.embed(input_ids) * attention_mask.unsqueeze(-1).to(torch.float32)
        h = self.ln(h)
        return {"logits": self.head(h), "pooled": h.mean(1)}, h[:, 0]


class ConvNorms(nn.Module):
    """Conv2d, BatchNorm2d (eval), GroupNorm, ReLU, pooling and a Linear head."""

    def __init__(self, c: int = 16, classes: int = 10):
        super().__init__()
        self.conv = nn.Conv2d(3, c, 3, padding=1)
        self.bn = nn.BatchNorm2d(c)
        self.gn = nn.GroupNorm(4, c)
        self.fc = nn.Linear(c, classes)

    def forward(self, x):
        x = torch.relu(self.gn(self.bn(self.conv(x))))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class NoShapeFunction(nn.Module):
    """An op with neither a C++ meta kernel nor a TorchScript shape function (cummax)."""

    def forward(self, x):
        return torch.cummax(x, 0).values


class ToHost(nn.Module):
    """A Linear on the model's device, its result moved to the host and summed there."""

    def __init__(self, d: int = 16):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        y = self.fc(x)
        z = y.to("cpu") + torch.zeros(y.size(-1), device="cpu")
        return z.sum(), y.relu()


class ScriptedFactory(nn.Module):
    """torch.zeros without a device, as large as the batch makes it, summed with the input."""

    def forward(self, x):
        z = torch.zeros(x.size(0), 4096, 1024)
        return x.sum() + z.sum()


class AutocastOff(nn.Module):
    """Attention scores in float32 inside an autocast-disabled region, which torch.export
    keeps as a higher-order op (wrap_with_autocast) around a subgraph."""

    def __init__(self, d: int = 64):
        super().__init__()
        self.qk = nn.Linear(d, 2 * d)

    def forward(self, x):
        q, k = self.qk(x).chunk(2, dim=-1)
        with torch.autocast("cpu", enabled=False):
            s = q.float() @ k.float().transpose(-1, -2)
        return s.softmax(-1)


class DetectionHead(nn.Module):
    """A detector's post-processing: torchvision's nms over scored boxes and roi_align over a
    feature map, ops that live in torchvision's library and not in LibTorch."""

    def __init__(self, c: int = 8):
        super().__init__()
        self.conv = nn.Conv2d(3, c, 3, padding=1)

    def forward(self, x, boxes, scores, rois):
        import torchvision.ops

        f = self.conv(x).relu()
        keep = torchvision.ops.nms(boxes, scores, 0.5)
        pooled = torchvision.ops.roi_align(f, rois, (7, 7), spatial_scale=0.25, sampling_ratio=2)
        return pooled.mean(), keep


class FastPathAttention(nn.Module):
    """nn.MultiheadAttention in eval, traced under no_grad: the trace records its inference fast
    path (aten::_native_multi_head_attention), which torch.export never does."""

    def __init__(self, d: int = 64, heads: int = 4):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x, need_weights=False)[0]


class ControlFlow(nn.Module):
    """torch.export's control flow, each a higher-order op around subgraphs: cond on the data,
    map over rows, scan with a carry, and while_loop."""

    def forward(self, x, xs, i):
        from torch._higher_order_ops.map import map as hmap
        from torch._higher_order_ops.scan import scan
        from torch._higher_order_ops.while_loop import while_loop

        y = torch.cond(x.sum() > 0, lambda x: (x * 2).relu().sin(), lambda x: x - 1, (x,))
        m = hmap(lambda r, b: (r + b).sin(), xs, y[0])
        c, ys = scan(lambda c, r: (c + r, (c * r).cos()), y[0], xs)
        _, z = while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, z.tanh()), (i, c))
        return y, m, ys, z


class RowLoop(nn.Module):
    """A scripted loop whose trip count is the input's row count over 4: the loader unrolls it
    trip by trip, so a large input meets its bound."""

    def forward(self, x):
        for _ in range(x.size(0) // 4):
            x = x * 2
        return x


class FastPathEncoder(nn.Module):
    """nn.TransformerEncoder in eval, traced under no_grad: each layer is recorded whole as
    aten::_transformer_encoder_layer_fwd, its inference fast path."""

    def __init__(self, d: int = 32, heads: int = 4):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d, heads, 2 * d, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class HostAnchors(nn.Module):
    """Anchor points built on the host from the input's size, as detectors build them: an arange
    without a device, arithmetic with a host scalar tensor, a meshgrid and a stack, then moved to
    the model's device (a host-to-device copy) and used beside its activations."""

    def __init__(self, d: int = 8):
        super().__init__()
        self.fc = nn.Linear(d, 2)

    def forward(self, x):
        n = x.size(0)
        steps = (torch.arange(n) + 0.5) / torch.tensor(float(n))
        ys, xs = torch.meshgrid([steps, steps], indexing="ij")
        grid = torch.stack([xs, ys], -1).reshape(-1, 2).to(x.device)
        return self.fc(x).repeat(n, 1) + grid


from typing import List  # noqa: E402  (here, not at the top: traced models keep their line numbers)


class ListLoop(nn.Module):
    """A scripted loop that appends each trip's result to a list: the list is state the next trip
    changes, so the loader unrolls it trip by trip (and a large input meets its bound)."""

    def forward(self, x):
        ys: List[torch.Tensor] = []
        for i in range(x.size(0)):
            ys.append(x[i] * 2)
        return torch.stack(ys)


@torch.compiler.nested_compile_region
def _shared_block(x, w):
    return torch.relu(x @ w) + 1


class SharedRegion(nn.Module):
    """A region marked with torch.compiler.nested_compile_region and called twice: torch.export
    keeps its graph once and calls it through the invoke_subgraph higher-order op."""

    def __init__(self, d: int = 16):
        super().__init__()
        self.w = nn.Parameter(torch.randn(d, d))

    def forward(self, x):
        return _shared_block(_shared_block(x, self.w), self.w)


class WhileTrueLayer(nn.Module):
    """`while True` around a layer with no way out: the loader counts the body's trips instead of
    running them, and refuses a count no model could finish."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)

    def forward(self, x):
        while True:
            x = self.lin(x)
        return x


class HugeRangeLayer(nn.Module):
    """A layer in a loop of 10**12 trips (written as a literal: TorchScript types 10**12 as a
    float)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)

    def forward(self, x):
        for _ in range(1000000000000):
            x = self.lin(x)
        return x


class RowLoopLayer(nn.Module):
    """A layer in a loop of `x.size(0) // 4` trips: a million trips at 4,000,000 rows."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)

    def forward(self, x):
        for _ in range(x.size(0) // 4):
            x = self.lin(x)
        return x


class Spectral(nn.Module):
    """Counts the values decide: eigvals (geev's balancing rounds) and a pseudo-inverse past 32
    columns (gesvdj's Jacobi sweeps until convergence)."""

    def forward(self, x, y):
        return torch.linalg.eigvals(x), torch.linalg.pinv(y)
