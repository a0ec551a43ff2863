"""kernelcount.analyze: torch.export with the user's torch, the archive handed to the core."""

import os
import tempfile

from ._report import HOW, Report, _load_args


def analyze(model, example_inputs, kwargs=None, *, dynamic_shapes=None, strict=False, target=None, dims=None,
            fusion=None):
    import torch

    args = _load_args(target, dims, fusion=fusion)  # a bad argument fails before the export
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    ep = torch.export.export(model, tuple(example_inputs), kwargs, dynamic_shapes=dynamic_shapes, strict=strict)
    # The core reads an archive from a path: the export is saved into a temporary folder that
    # lives as long as the report (table() and diff() read it again), its weights left out.
    keep = tempfile.TemporaryDirectory(prefix="kernelcount-")
    path = os.path.join(keep.name, "model.pt2")
    _save_without_weights(ep, path)
    name = type(model).__name__ if isinstance(model, torch.nn.Module) else getattr(model, "__name__", "model")
    return Report(path, how="export", display=f"{name} ({HOW['export']})", args=args, keep=keep)


def _save_without_weights(ep, path):
    """torch.export.save of the program with its weights, constants and example inputs on the
    meta device: the same models/model.json (the core reads nothing else) without writing a
    model's gigabytes. Where this torch's ExportedProgram is not laid out as expected, the
    program is saved as it is."""
    import copy

    import torch

    def meta(v):
        t = v.detach().to("meta")
        return torch.nn.Parameter(t, requires_grad=v.requires_grad) if isinstance(v, torch.nn.Parameter) else t

    try:
        light = copy.copy(ep)
        light._state_dict = {k: meta(v) for k, v in ep.state_dict.items()}
        light._constants = {k: meta(v) if isinstance(v, torch.Tensor) else v for k, v in ep.constants.items()}
        light.example_inputs = None
    except (AttributeError, TypeError, RuntimeError):
        light = ep
    torch.export.save(light, path)
