"""kernelcount.analyze: torch.export with the user's torch, the archive handed to the core."""

import os
import tempfile

from ._report import HOW, Report, _load_args


def analyze(model, example_inputs, kwargs=None, *, dynamic_shapes=None, strict=False, target=None, dims=None):
    import torch

    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    ep = torch.export.export(model, tuple(example_inputs), kwargs, dynamic_shapes=dynamic_shapes, strict=strict)
    # The core reads an archive from a path: the export is saved into a temporary folder that
    # lives as long as the report (table() and diff() read it again).
    keep = tempfile.TemporaryDirectory(prefix="kernelcount-")
    path = os.path.join(keep.name, "model.pt2")
    torch.export.save(ep, path)
    name = type(model).__name__ if isinstance(model, torch.nn.Module) else getattr(model, "__name__", "model")
    return Report(path, how="export", display=f"{name} ({HOW['export']})", args=_load_args(target, dims), keep=keep)
