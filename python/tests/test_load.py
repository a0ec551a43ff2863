"""kernelcount.load: the CLI's reports of every .pt2 in tests/models, byte for byte, and its
error lines for bad input."""

import glob
import os

import pytest

import kernelcount
from conftest import MODELS, ROOT, cli

PT2 = sorted(glob.glob(os.path.join(MODELS, "*.pt2")))
# TorchScript's bad inputs need LibTorch, which the package does not link.
BAD = sorted(p for p in glob.glob(os.path.join(MODELS, "bad", "*")) if not p.endswith(".pt"))


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


def test_torchscript_is_refused_with_one_line():
    with pytest.raises(kernelcount.Error) as e:
        kernelcount.load(os.path.join(MODELS, "traced_mlp.pt"))
    assert "\n" not in str(e.value) and "traced_mlp.pt" in str(e.value)
