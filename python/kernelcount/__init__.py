"""kernelcount in Python: the CUDA kernels, memcpys and HBM traffic eager PyTorch launches.

    import kernelcount
    r = kernelcount.analyze(model, (x,))          # torch.export in this process, then the core
    r = kernelcount.load("model.pt2")             # an archive on disk (or a TorchScript .pt)
    with kernelcount.count() as kc:               # the ATen ops a forward runs (dispatch mode)
        model(x)
    r.eager_kernels, r.table(), r.ops (a DataFrame), r.to_json(), r.diff(other)

The analysis is the CLI's own C++ (kernelcount._core), without LibTorch. Importing this
package imports neither torch nor pandas, nor the core itself: each is imported when first
needed, so that `import kernelcount` costs about a millisecond (python/bench_import.py).
"""

__all__ = ["Error", "Report", "Review", "analyze", "count", "load", "targets"]
__version__ = "0.1.0"


def analyze(model, example_inputs, kwargs=None, *, dynamic_shapes=None, strict=False,
            target=None, dims=None, fusion=None):
    """Exports `model` with torch.export (your torch) and analyzes the export in this process.

    example_inputs: a tuple of positional inputs (a single tensor is taken as one input);
    dynamic_shapes and strict go to torch.export.export; dims gives symbolic sizes values
    ({"s0": 64}, the CLI's --dim); fusion="inductor" is the CLI's --fusion inductor. The report
    says it came from an in-process export.
    """
    from ._export import analyze as _analyze

    return _analyze(model, example_inputs, kwargs, dynamic_shapes=dynamic_shapes, strict=strict,
                    target=target, dims=dims, fusion=fusion)


def count(target=None, *, fake=False, name=None, fusion=None):
    """A context manager recording the ATen ops that run inside it, then analyzing them.

        with kernelcount.count() as kc:
            model(x)
        kc.eager_kernels, kc.report.table()

    Counts models that do not export (graph breaks, Python control flow). The ops are those
    torch.export would record (taken at PyTorch's pre-dispatch level); tensors on the CPU or
    meta are counted as if on the target's GPU. fake=True runs the forward under a
    FakeTensorMode (no real compute; data-dependent Python control flow then fails).
    fusion="inductor": the fused columns are the model of what torch.compile launches.
    """
    from ._dispatch import Counter
    from ._report import _load_args

    _load_args(None, None, fusion=fusion)  # a bad fusion is an error here, before the forward
    return Counter(target=target, fake=fake, name=name, fusion=fusion)


def targets():
    """The names of the targets this build knows; the first is the default."""
    from ._report import _targets

    return _targets()


def load(path, *, target=None, dims=None, inputs=None, fusion=None):
    """Reads a model file and analyzes it, as `kernelcount PATH`: a .pt2 (torch.export.save's
    archive) or a TorchScript .pt, whose input shapes `inputs` gives as the CLI's --input does
    (["8x3x224x224:float32"], or {"input_ids": "2x8:int64", ...}). fusion="inductor" is the
    CLI's --fusion inductor: the fused columns are then the model of what torch.compile
    (Inductor) launches, with the greedy pointwise plan's beside them.

    Raises kernelcount.Error with the CLI's message for a missing or foreign file. A .pt is
    loaded by the CLI's TorchScript library against your torch, imported then (it must be the
    PyTorch release the package was built against, 2.11).
    """
    from ._report import load as _load

    return _load(path, target=target, dims=dims, inputs=inputs, fusion=fusion)


def __getattr__(name):
    # Error, Report and Review load the core on first use (PEP 562).
    if name in ("Error", "Report", "Review"):
        from . import _report

        return getattr(_report, name)
    raise AttributeError(f"module 'kernelcount' has no attribute {name!r}")
