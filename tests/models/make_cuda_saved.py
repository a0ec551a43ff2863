"""Make tests/models/*_cuda.pt: TorchScript archives as a GPU machine saves them, without a GPU
(the traced transformer block, and a scripted model that moves a result to the host).

A TorchScript archive records where each tensor lived when it was saved. Every storage in
data.pkl (parameters, buffers) and constants.pkl (tensor constants) is pickled as the persistent
id ('storage', <torch.XStorage>, key, location, numel) with location 'cpu' or 'cuda:0';
torch.jit.load puts each tensor back there unless given map_location, so on a machine without a
GPU such a file fails with "Could not run 'aten::empty_strided' with arguments from the 'CUDA'
backend". The bytes of the storages and the code do not depend on the device (a trace on the
GPU would also name cuda:0 in device arguments of factories; these models have none, and the
scripted one names the host explicitly, as code written for a GPU does).

This script copies the CPU-saved archive and rewrites the location string of every persistent id
from 'cpu' to 'cuda:0' (pickletools finds them; later ids reuse the first string through the
pickle memo), keeping the zip's layout. It then checks the result: every storage says cuda:0,
plain torch.jit.load fails here as on any machine without a GPU, and with map_location='cpu'
the module computes exactly what the original does.

Run from the repository root after make_models.py:  python tests/models/make_cuda_saved.py
"""
import io
import os
import pickle
import pickletools
import struct
import sys
import zipfile

sys.path.insert(0, "tests/models")

import torch  # noqa: E402
from make_models import rewrite_zip, rand  # noqa: E402

# (archive saved on the host, the GPU-saved copy, an example input, whether the tensor constants
# move too). A trace made on a GPU keeps its literal constants (torch.tensor(4) in d // h) on the
# host, as the traces of data/corpus/torchscript do: _gpu_trace is that file; _cuda has every
# storage on the GPU, as a module whose constants were made there would.
MODELS = [
    ("tests/models/traced_transformer_block.pt", "tests/models/traced_transformer_block_cuda.pt", (2, 16, 64), True),
    ("tests/models/traced_transformer_block.pt", "tests/models/traced_transformer_block_gpu_trace.pt", (2, 16, 64),
     False),
    ("tests/models/scripted_to_host.pt", "tests/models/scripted_to_host_cuda.pt", (4, 16), True),
    ("tests/models/scripted_host_anchors.pt", "tests/models/scripted_host_anchors_cuda.pt", (6, 8), True),
]
DEVICE = "cuda:0"
MEMO_OPS = {"BINPUT", "LONG_BINPUT", "MEMOIZE"}


def _location_positions(data):
    """Byte offsets of the location strings written literally in persistent ids."""
    ops = [op for op in pickletools.genops(data) if op[0].name not in MEMO_OPS]
    found = []
    for i, (op, arg, pos) in enumerate(ops):
        # ('storage', GLOBAL torch.XStorage, key, location, numel): the location is the string
        # two items after the storage type.
        if (op.name == "BINUNICODE" and i >= 2 and ops[i - 2][0].name == "GLOBAL"
                and str(ops[i - 2][1]).endswith("Storage") and ops[i - 1][0].name == "BINUNICODE"):
            found.append((pos, arg))
    return found


def relocate(data):
    out, last = bytearray(), 0
    for pos, arg in _location_positions(data):
        if arg != "cpu":
            raise RuntimeError(f"unexpected storage location {arg!r}")
        new = DEVICE.encode()
        out += data[last:pos] + b"X" + struct.pack("<I", len(new)) + new
        last = pos + 1 + 4 + len(arg.encode())
    return bytes(out + data[last:])


class _Any:
    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass


class _Locations(pickle.Unpickler):
    """Reads a TorchScript pickle without torch, keeping only the storage locations."""

    def __init__(self, data):
        super().__init__(io.BytesIO(data))
        self.locations = []

    def find_class(self, module, name):
        return _Any

    def persistent_load(self, pid):
        self.locations.append(pid[3])
        return _Any()


def storage_locations(data):
    u = _Locations(data)
    u.load()
    return u.locations


def make(src, dst, shape, constants_too):
    if not os.path.isfile(src):
        sys.exit(f"run from the repository root after make_models.py ({src} is missing)")

    moved = ("/data.pkl", "/constants.pkl") if constants_too else ("/data.pkl",)

    def edit(name, data):
        return relocate(data) if name.endswith(moved) else data

    rewrite_zip(src, dst, edit)

    with zipfile.ZipFile(dst) as z:
        for name in z.namelist():
            if name.endswith(("/data.pkl", "/constants.pkl")):
                locs = storage_locations(z.read(name))
                want = DEVICE if name.endswith(moved) else "cpu"
                if any(loc != want for loc in locs):
                    raise RuntimeError(f"{name}: storages on {set(locs)}, not {want}")
    if not torch.cuda.is_available():
        try:
            torch.jit.load(dst)
            raise RuntimeError("loaded without a GPU: the archive does not say cuda")
        except RuntimeError as e:  # a CPU build: no 'CUDA' backend; a CUDA build: no driver
            if "CUDA" not in str(e) and "NVIDIA" not in str(e):
                raise
    x = rand(*shape)
    want = torch.jit.load(src)(x)
    got = torch.jit.load(dst, map_location="cpu")(x)
    if not all(torch.equal(a, b) for a, b in zip(torch.utils._pytree.tree_leaves(want),
                                                  torch.utils._pytree.tree_leaves(got))):
        raise RuntimeError("the relocated module computes something else")
    print(f"{os.path.getsize(dst):>9}  {dst} (storages on {DEVICE}{'' if constants_too else ', constants on the host'})")


def main():
    for src, dst, shape, constants_too in MODELS:
        make(src, dst, shape, constants_too)


if __name__ == "__main__":
    main()
