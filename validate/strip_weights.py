"""Copies a .pt2 archive without its weights, constants and sample inputs.

kernelcount reads only models/model.json, so the stripped archive analyzes the same while
weighing kilobytes; it is how the repository keeps real models small. Records are deflated
(libtorch's reader inflates them; torch.export.load expects the weights and cannot load it).
Usage: python validate/strip_weights.py IN.pt2 OUT.pt2
"""
import os
import re
import sys
import types
import zipfile

DROP = ("/data/weights/", "/data/constants/", "/data/sample_inputs/")
# Stack traces name installed packages by the exporting machine's paths; keep them from
# site-packages on ("site-packages/torchvision/models/resnet.py").
SITE = re.compile(rb'(File \\")[^"\\]*?/(site-packages|dist-packages)/')
# This checkout's own files by their path from its root ("research/corpus/export_opset.py").
ROOT = re.compile(rb'(File \\")' + re.escape(os.path.dirname(os.path.dirname(os.path.abspath(__file__))).encode()) + rb'/')


def relative_sources(data):
    """A model.json's stack traces without the exporting machine's paths."""
    return ROOT.sub(rb"\1", SITE.sub(rb"\1\2/", data))


def load_relative(relpath, name):
    """Imports a source file under the relative path given (run from the repository root), so
    that stack traces and TorchScript source ranges recorded from it name that path."""
    mod = types.ModuleType(name)
    mod.__file__ = relpath
    sys.modules[name] = mod
    with open(relpath) as f:
        exec(compile(f.read(), relpath, "exec"), mod.__dict__)
    return mod


def strip_weights(src, dst):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if any(d in info.filename for d in DROP):
                continue
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json"):
                data = relative_sources(data)
            zout.writestr(info.filename, data, compress_type=zipfile.ZIP_DEFLATED)


def relative_in_place(path):
    """Rewrites an archive, weights and sample inputs kept, with relative_sources' stack traces."""
    tmp = path + ".tmp"
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json"):
                data = relative_sources(data)
            zout.writestr(info.filename, data, compress_type=zipfile.ZIP_DEFLATED)
    os.replace(tmp, path)


if __name__ == "__main__":
    strip_weights(sys.argv[1], sys.argv[2])
