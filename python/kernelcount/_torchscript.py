"""TorchScript (.pt) files: the CLI's TorchScript library, shipped in the package, run against the
user's own torch.

libkernelcount-torchscript.so links libtorch_cpu and libc10 but the package carries neither:
importing torch first loads both (and the CUDA libraries a CUDA build of torch preloads), and the
dynamic linker then resolves the library's needs to those already loaded. The library was
compiled against one LibTorch release, so the torch found must be that release.
"""

import importlib.util
import os

LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libkernelcount-torchscript.so")


def _release(version):
    """'2.11.0+cu130' -> '2.11'."""
    return ".".join(version.split("+")[0].split(".")[:2])


def library():
    """Called by the core on the first .pt of a run: (the library's path, "") once torch is
    imported and of the release the library was built against, else ("", why not)."""
    from . import _core

    want = _release(_core.libtorch_version)
    if not os.path.exists(LIBRARY):
        return "", ("TorchScript models need kernelcount's TorchScript library, and this package was built "
                    "without it (no LibTorch at build time; docs/python.md); a .pt2 export needs none")
    try:
        import torch
    except ImportError as e:
        return "", f"TorchScript models need PyTorch {want} in this environment (import torch: {e})"
    have = getattr(torch, "__version__", "unknown")
    if _release(str(have)) != want:
        return "", (f"TorchScript models need PyTorch {want}, the release kernelcount's TorchScript library "
                    f"is built against; this environment has torch {have}")
    # torchvision defines its operators once per process, and aborts the process when they are
    # defined already. The library defines them for a .pt that calls them unless they exist, so
    # torchvision, where installed, is imported first: its definitions are then the ones used, and
    # a later `import torchvision` in the user's process finds itself already loaded.
    if importlib.util.find_spec("torchvision") is not None:
        try:
            import torchvision  # noqa: F401
        except Exception:  # a broken install: the library's own definitions serve the .pt
            pass
    return LIBRARY, ""
