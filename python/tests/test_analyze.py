"""kernelcount.analyze: torch.export in this process gives the CLI's report of the same export
(identical JSON but for the model's name), and the committed archive's totals."""

import json
import os

import pytest
import torch

import kernelcount
from conftest import MODELS, cli_json

NAMES = ["add.pt2", "add_relu.pt2", "mul_add_gelu.pt2", "mlp.pt2", "conv_bn_relu.pt2", "transformer_block.pt2",
         "dynamic_batch.pt2", "bf16_linear.pt2", "autocast_off.pt2", "control_flow.pt2", "invoke_subgraph.pt2",
         "detection_head.pt2"]


def without_name(report):
    d = json.loads(report) if isinstance(report, str) else report
    d["model"].pop("path")
    return d


@pytest.mark.parametrize("name", NAMES)
def test_in_process_equals_the_cli_on_its_export(name, specs, tmp_path):
    model, args, dynamic_shapes = specs[name]
    r = kernelcount.analyze(model, args, dynamic_shapes=dynamic_shapes)
    assert r.how == "export"
    assert r.model == f"{type(model).__name__} (torch.export in this process)"
    path = str(tmp_path / name)
    torch.export.save(torch.export.export(model, args, dynamic_shapes=dynamic_shapes, strict=False), path)
    assert without_name(r.to_json()) == without_name(cli_json(path))
    # The committed archive was exported the same way (its source paths made relative), in a
    # fresh process, where torchvision's first import inside forward recorded ops of its own.
    committed = cli_json(os.path.join(MODELS, name))
    first_import = sum(op["op"] == "torchvision::_cuda_version" for op in committed["ops"])
    assert r.totals == dict(committed["totals"], ops=committed["totals"]["ops"] - first_import)


def test_a_single_tensor_is_one_input(specs):
    model, args, _ = specs["mlp.pt2"]
    assert kernelcount.analyze(model, args[0]).totals == kernelcount.analyze(model, args).totals


def test_a_model_that_does_not_export_raises_torchs_error():
    class DataDependent(torch.nn.Module):
        def forward(self, x):
            return x.relu() if x.sum() > 0 else x.sin()

    with pytest.raises(Exception) as e:
        kernelcount.analyze(DataDependent(), (torch.ones(4),))
    assert not isinstance(e.value, kernelcount.Error)


def test_the_weights_are_not_written(specs, tmp_path):
    model, args, _ = specs["conv_bn_relu.pt2"]
    big = torch.nn.Sequential(model, torch.nn.Flatten(), torch.nn.Linear(16 * 32 * 32, 1024))
    r = kernelcount.analyze(big, args)
    full = tmp_path / "full.pt2"
    torch.export.save(torch.export.export(big, args), str(full))
    weights = sum(p.numel() * p.element_size() for p in big.parameters())
    assert os.path.getsize(full) > weights > 64 << 20
    assert os.path.getsize(r.path) < 1 << 20
    assert without_name(r.to_json()) == without_name(cli_json(str(full)))


class CpuAttention(torch.nn.Module):
    """nn.MultiheadAttention over [S, B, E], as torchvision's ViT calls it."""

    def __init__(self):
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(64, 4)

    def forward(self, x):
        return self.attn(x, x, x, need_weights=False)[0]


def test_a_view_only_the_hosts_layout_allows_is_a_gpu_failure():
    # Exported on the CPU in float32, the attention's output permute is contiguous there and the
    # export drops its .contiguous(); the GPU's memory-efficient kernel writes [B, S, H, D], which
    # the recorded view cannot merge: eager PyTorch and torch.compile raise there.
    with torch.no_grad():
        r = kernelcount.analyze(CpuAttention().eval(), (torch.randn(8, 2, 64),))
    (f,) = r.data["gpu_failures"]
    assert r.data["ops"][f["op"]]["op"] == "aten::view"
    assert f["input_sizes"] == [8, 2, 4, 16] and f["runtime_strides"] == [64, 512, 16, 1]
    assert "does not run on the GPU as exported" in r._repr_html_()
    # In bfloat16 cuDNN attention keeps the query's layout: the view holds.
    with torch.no_grad():
        r = kernelcount.analyze(CpuAttention().eval().to(torch.bfloat16), (torch.randn(8, 2, 64, dtype=torch.bfloat16),))
    assert r.data["gpu_failures"] == []
    assert "does not run on the GPU" not in r._repr_html_()
