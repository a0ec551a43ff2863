"""Shared fixtures: the CLI built beside the package (its reports are the reference), and the
test models of tests/models as tests/models/make_models.py exports them."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, "tests", "models")
CLI = os.environ.get("KERNELCOUNT_CLI", os.path.join(ROOT, "build", "kernelcount"))


def cli(*args):
    """`kernelcount ARGS...`: (exit status, stdout, stderr)."""
    p = subprocess.run([CLI, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def cli_json(path, *args):
    status, out, err = cli(path, "--format", "json", *args)
    assert status == 0, err
    return json.loads(out)


@pytest.fixture(scope="session")
def specs():
    """{name: (model, args, dynamic_shapes)} of every .pt2 make_models.py exports: its own
    export() is replaced by one that keeps what it was given."""
    sys.path.insert(0, MODELS)
    import make_models

    found = {}

    def keep(name, model, args, dynamic_shapes=None, keep_sample_inputs=True):
        found[name] = (model.eval(), args, dynamic_shapes)

    make_models.export = keep
    make_models.save_script = lambda *a, **k: None  # its TorchScript twins are not wanted
    make_models.make_exported()
    make_models.make_control_flow()
    try:
        make_models.make_detection()
    except RuntimeError:
        pass  # torch.jit.trace of the TorchScript twin; the export was kept before it
    assert "detection_head.pt2" in found
    # A first call imports what forward imports (torchvision.ops, whose import asks its library
    # for its CUDA version through torch.ops): later exports then record the same ops.
    import torch

    with torch.no_grad():
        for model, args, _ in found.values():
            model(*args)
    return found
