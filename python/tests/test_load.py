"""kernelcount.load: the CLI's reports of every .pt2 and TorchScript .pt in tests/models, byte
for byte, its error lines for bad input, and one line where torch cannot load a .pt."""

import glob
import json
import os
import subprocess
import sys
import types

import pytest

import kernelcount
from conftest import MODELS, ROOT, cli

PT2 = sorted(glob.glob(os.path.join(MODELS, "*.pt2")))
BAD = sorted(glob.glob(os.path.join(MODELS, "bad", "*")))
# Every TorchScript model of tests/models with the input shapes its tests give it (a .pt carries
# none): the golden cases' --input, or the loader tests' where no golden case names the file.
TORCHSCRIPT = {
    "scripted_branches.pt": ["4x16x32"],
    "scripted_control_flow.pt": ["8x64:float32"],
    "scripted_factory.pt": ["64x4"],
    "scripted_host_anchors.pt": ["6x8"],
    "scripted_host_anchors_cuda.pt": ["6x8"],
    "scripted_list_loop.pt": ["5x16"],
    "scripted_row_loop.pt": ["40x16"],
    "scripted_row_loop_layer.pt": ["40x16"],
    "scripted_to_host.pt": ["4x16"],
    "scripted_to_host_cuda.pt": ["4x16"],
    "traced_conv_norms.pt": ["2x3x16x16"],
    "traced_detection_head.pt": {"x": "2x3x64x64:float32", "boxes": "100x4:float32", "scores": "100:float32",
                                 "rois": "16x5:float32"},
    "traced_fast_path_attention.pt": ["2x16x64:float32"],
    "traced_fast_path_encoder.pt": ["2x16x32:float32"],
    "traced_mlp.pt": ["32x64:float32"],
    "traced_mlp_deflated.pt": ["32x64:float32"],
    "traced_mlp_no_debug.pt": ["32x64:float32"],
    "traced_shape_arith.pt": ["2x16:float32"],
    "traced_tokens.pt": {"attention_mask": "2x8:int64", "input_ids": "2x8:int64"},
    "traced_transformer_block.pt": ["2x16x64:float32"],
    "traced_transformer_block_cuda.pt": ["2x16x64:float32"],
    "traced_transformer_block_gpu_trace.pt": ["2x16x64:float32"],
}


def input_args(inputs):
    pairs = inputs.items() if isinstance(inputs, dict) else ((None, spec) for spec in inputs)
    return [a for name, spec in pairs for a in ("--input", f"{name}={spec}" if name else spec)]


def test_every_test_model_is_found():
    assert len(PT2) >= 14


@pytest.mark.parametrize("path", PT2, ids=os.path.basename)
def test_json_and_text_equal_the_cli(path):
    r = kernelcount.load(path)
    status, out, err = cli(path, "--format", "json")
    assert status == 0, err
    assert r.to_json() == out
    assert r.how == "archive"
    assert r.eager_kernels == r.data["totals"]["eager_kernels"]
    assert r.table(top=3) == cli(path, "--top", "3")[1]
    assert r.table(by="op") == cli(path, "--by", "op")[1]


def test_dims_and_target_are_the_cli_options():
    path = os.path.join(MODELS, "dynamic_batch.pt2")
    r = kernelcount.load(path, dims={"s77": 64}, target="torch2.11-h200")
    assert r.to_json() == cli(path, "--dim", "s77=64", "--target", "torch2.11-h200", "--format", "json")[1]
    assert r.to_json() != kernelcount.load(path).to_json()


def error_line(*args):
    status, out, err = cli(*args)
    assert status == 2 and err.startswith("kernelcount: error: "), err
    return err[len("kernelcount: error: "):].rstrip("\n")


@pytest.mark.parametrize("path", [os.path.join(MODELS, "no_such_model.pt2"), os.path.join(ROOT, "README.md"),
                                  os.path.join(MODELS, "bad")] + BAD, ids=os.path.basename)
def test_bad_input_raises_the_cli_error_line(path):
    with pytest.raises(kernelcount.Error) as e:
        kernelcount.load(path)
    assert str(e.value) == error_line(path)


def test_bad_option_raises_the_cli_error_line():
    path = os.path.join(MODELS, "add.pt2")
    with pytest.raises(kernelcount.Error) as e:
        kernelcount.load(path, target="no-such-gpu")
    assert str(e.value) == error_line(path, "--target", "no-such-gpu")
    with pytest.raises(kernelcount.Error) as e:
        kernelcount.load(path, dims={"nope": 3})
    assert str(e.value) == error_line(path, "--dim", "nope=3")


# TorchScript models refused by design: loops whose trip count no model could finish.
REFUSED = {
    "scripted_while_true.pt": (["8x16"], "a loop runs its body 9223372036854775807 times"),
    "scripted_huge_range.pt": (["8x16"], "a loop runs its body 1000000000000 times"),
}


def test_every_torchscript_model_is_listed():
    listed = sorted(list(TORCHSCRIPT) + list(REFUSED))
    assert listed == sorted(os.path.basename(p) for p in glob.glob(os.path.join(MODELS, "*.pt")))


@pytest.mark.parametrize("name", sorted(TORCHSCRIPT))
def test_torchscript_json_and_text_equal_the_cli(name):
    # With torchvision's own kernels in the dispatcher too (its nms refuses meta tensors), as in
    # a user's process: the shapes are the CLI's, which never loads torchvision.
    import torchvision  # noqa: F401

    path, inputs = os.path.join(MODELS, name), TORCHSCRIPT[name]
    r = kernelcount.load(path, inputs=inputs)
    status, out, err = cli(path, *input_args(inputs), "--format", "json")
    assert status == 0, err
    assert r.to_json() == out
    assert r.data["model"]["format"] == "torchscript"
    assert r.table(by="op") == cli(path, *input_args(inputs), "--by", "op")[1]


def test_torch_is_imported_for_a_torchscript_model_alone():
    # A fresh interpreter: the package imports torch on the first .pt, before the library opens.
    code = ("import sys, kernelcount; m = sys.argv[1]; "
            "a = kernelcount.load(m + '/mlp.pt2').eager_kernels; print('torch' in sys.modules); "
            "b = kernelcount.load(m + '/traced_mlp.pt', inputs=['32x64:float32']).eager_kernels; "
            "print('torch' in sys.modules, a, b)")
    out = subprocess.check_output([sys.executable, "-c", code, MODELS], text=True).split()
    assert out[:2] == ["False", "True"]
    assert int(out[3]) == json.loads(cli(os.path.join(MODELS, "traced_mlp.pt"), "--input", "32x64:float32",
                                         "--format", "json")[1])["totals"]["eager_kernels"]


def test_torchvision_imports_after_a_torchscript_model():
    # A fresh interpreter: a .pt loaded first, then torchvision imported, as a user's notebook does.
    # Were the .pt's torchvision operators defined by kernelcount, the import would abort on them.
    code = ("import sys, kernelcount; m = sys.argv[1]; "
            "k = kernelcount.load(m + '/traced_mlp.pt', inputs=['32x64:float32']).eager_kernels; "
            "import torchvision; print(k, torchvision.ops.nms.__name__)")
    p = subprocess.run([sys.executable, "-c", code, MODELS], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[1] == "nms"


def test_torchscript_input_errors_are_the_cli_lines():
    path = os.path.join(MODELS, "traced_mlp.pt")
    for inputs in ([], ["32x64:nope"], ["32x64", "32x64"]):
        with pytest.raises(kernelcount.Error) as e:
            kernelcount.load(path, inputs=inputs)
        assert str(e.value) == error_line(path, *input_args(inputs))


def refusal(monkeypatch, **patches):
    """The error loading a .pt with the package's view of torch patched."""
    from kernelcount import _torchscript

    for name, value in patches.items():
        if name == "torch":
            monkeypatch.setitem(sys.modules, "torch", value)
        else:
            monkeypatch.setattr(_torchscript, name, value)
    with pytest.raises(kernelcount.Error) as e:
        kernelcount.load(os.path.join(MODELS, "traced_mlp.pt"), inputs=["32x64"])
    line = str(e.value)
    assert "\n" not in line and line.startswith(os.path.join(MODELS, "traced_mlp.pt") + ": TorchScript models need ")
    return line


def test_torchscript_without_torch_is_refused_with_one_line(monkeypatch):
    assert "import torch" in refusal(monkeypatch, torch=None)  # None in sys.modules: ImportError


def test_torchscript_with_another_torch_is_refused_with_one_line(monkeypatch):
    line = refusal(monkeypatch, torch=types.SimpleNamespace(__version__="2.10.1+cu128"))
    assert line.endswith("PyTorch 2.11, the release kernelcount's TorchScript library is built against; "
                         "this environment has torch 2.10.1+cu128")


def test_torchscript_without_the_library_is_refused_with_one_line(monkeypatch):
    assert "built without it" in refusal(monkeypatch, LIBRARY="/nonexistent/libkernelcount-torchscript.so")


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_unbounded_loops_are_refused_as_the_cli_refuses_them(name):
    inputs, message = REFUSED[name]
    with pytest.raises(kernelcount.Error, match=message):
        kernelcount.load(os.path.join(MODELS, name), inputs=inputs)
