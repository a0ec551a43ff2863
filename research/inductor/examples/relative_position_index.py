"""BEiT's relative position index (data2vec-vision, BEiT: a 14 x 14 window with a class token),
built in place on a permuted copy, then gathered from the bias table, for lowering_probe.py."""
import torch

WH = WW = 14


class RelativePositionBias(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn((2 * WH - 1) * (2 * WW - 1) + 3, 12))

    def forward(self, scores):
        coords = torch.stack(torch.meshgrid([torch.arange(WH), torch.arange(WW)], indexing="ij"))
        flat = torch.flatten(coords, 1)
        rel = (flat[:, :, None] - flat[:, None, :]).permute(1, 2, 0).contiguous()
        rel[:, :, 0] += WH - 1
        rel[:, :, 1] += WW - 1
        rel[:, :, 0] *= 2 * WW - 1
        index = torch.zeros(size=(WH * WW + 1,) * 2, dtype=rel.dtype)
        index[1:, 1:] = rel.sum(-1)
        index[0, 0:] = self.table.shape[0] - 3
        index[0:, 0] = self.table.shape[0] - 2
        index[0, 0] = self.table.shape[0] - 1
        bias = self.table[index.view(-1)].view(WH * WW + 1, WH * WW + 1, -1).permute(2, 0, 1)
        return scores + bias.contiguous()


model = RelativePositionBias()
inputs = (torch.randn(2, 12, 197, 197),)
