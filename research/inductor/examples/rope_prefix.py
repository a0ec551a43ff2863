"""DINOv3's rotary embedding as timm's eva.py computes it (a 16 x 16 grid of patches, 5 prefix
tokens left unrotated, bfloat16 activations, float32 angles), for lowering_probe.py."""
import math

import torch


def rotate_half(x):
    x1, x2 = x.chunk(2, -1)
    return torch.cat([-x2, x1], -1)


class RopePrefix(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("periods", torch.rand(16) + 1)

    def forward(self, qkv):
        coords_h = torch.arange(0.5, 16, dtype=torch.float32) / 16
        coords_w = torch.arange(0.5, 16, dtype=torch.float32) / 16
        coords = torch.stack(torch.meshgrid(coords_h, coords_w, indexing="ij"), dim=-1)
        coords = coords.flatten(0, 1) * 2.0 - 1.0
        angles = 2 * math.pi * coords[:, :, None] / self.periods[None, None, :]
        angles = angles.flatten(1, 2)
        sin, cos = torch.sin(angles), torch.cos(angles)
        rope = torch.cat([torch.cat([sin, sin], -1), torch.cat([cos, cos], -1)], -1)
        sin_, cos_ = rope.chunk(2, -1)
        q, k, v = qkv.reshape(4, 261, 3, 6, 64).permute(2, 0, 3, 1, 4).unbind(0)

        def apply(t):
            prefix, patches = t[:, :, :5], t[:, :, 5:]
            patches = (patches * cos_ + rotate_half(patches) * sin_).to(t.dtype)
            return torch.cat([prefix, patches], 2)

        return torch.nn.functional.scaled_dot_product_attention(apply(q), apply(k), v)


model = RopePrefix()
inputs = (torch.randn(4, 261, 1152, dtype=torch.bfloat16),)
