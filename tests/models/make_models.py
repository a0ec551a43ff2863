"""Regenerate the test model files in tests/models/ and the bad inputs in tests/models/bad/.

Run from the repository root:  python tests/models/make_models.py
The output is deterministic (fixed seeds, fixed archive layout).
"""
import io
import json
import os
import pickle
import pickletools
import struct
import sys
import sysconfig
import zipfile

# TorchScript writes some module attributes in set order: fix string hashing so that
# the archives come out byte-identical on every run.
if __name__ == "__main__" and os.environ.get("PYTHONHASHSEED") != "0":
    os.execve(sys.executable, [sys.executable] + sys.argv, {**os.environ, "PYTHONHASHSEED": "0"})

sys.path.insert(0, "tests/models")

import torch  # noqa: E402
import models  # noqa: E402

OUT = "tests/models"
BAD = os.path.join(OUT, "bad")

# Python >= 3.10 turns relative import paths into absolute ones, so recorded stack
# traces and TorchScript source ranges name this checkout and the torch install.
# They are rewritten relative to the repository root, torch's parent folder and the
# standard library folder before the files are written.
_PREFIXES = sorted(
    {
        os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__))) + os.sep,
        os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep,
        os.path.abspath(os.getcwd()) + os.sep,
    },
    key=len,
    reverse=True,
)


def relative(text):
    for prefix in _PREFIXES:
        text = text.replace(prefix, "")
    return text


# ---------------------------------------------------------------- zip rewriting

def _info_like(orig, offset, compress_type):
    """A ZipInfo for orig's name with torch's layout: fixed date, data 64-byte aligned."""
    info = zipfile.ZipInfo(orig.filename, date_time=(1980, 0, 0, 0, 0, 0))
    info.compress_type = compress_type
    header = 30 + len(orig.filename.encode()) + 4
    pad = (64 - (offset + header) % 64) % 64
    info.extra = b"FB" + pad.to_bytes(2, "little") + b"Z" * pad
    return info


def rewrite_zip(src, dst, edit):
    """Copy src to dst entry by entry (same names, order, root folder and compression).

    edit(name, data) returns the new bytes of each entry, or None to leave it out.
    """
    with zipfile.ZipFile(src) as zin:
        entries = [(i, edit(i.filename, zin.read(i.filename))) for i in zin.infolist()]
    entries = [(i, data) for i, data in entries if data is not None]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zout:
        for orig, data in entries:
            zout.writestr(_info_like(orig, out.tell(), orig.compress_type), data)
    with open(dst, "wb") as f:
        f.write(out.getvalue())
    with zipfile.ZipFile(dst) as z:  # must still be an intact zip with the same records
        if z.testzip() is not None or z.namelist() != [i.filename for i, _ in entries]:
            raise RuntimeError(f"rewritten archive {dst} is not intact")


# ------------------------------------------------- TorchScript debug info paths

def _pickle_debug(obj):
    """Pickle a TorchScript debug table the way torch writes it (protocol 2, int lists
    via torch.jit._pickle.build_intlist), so torch.jit.load reads it back."""
    out = bytearray(b"\x80\x02")

    def emit(x):
        if isinstance(x, str):
            b = x.encode()
            out.extend(b"X" + struct.pack("<I", len(b)) + b)
        elif isinstance(x, int) and not isinstance(x, bool):
            if 0 <= x < 256:
                out.extend(b"K" + bytes([x]))
            elif 0 <= x < 65536:
                out.extend(b"M" + struct.pack("<H", x))
            else:
                out.extend(b"J" + struct.pack("<i", x))
        elif isinstance(x, tuple):
            out.extend(b"(")
            for y in x:
                emit(y)
            out.extend(b"t")
        elif isinstance(x, list) and all(type(y) is int for y in x):
            out.extend(b"ctorch.jit._pickle\nbuild_intlist\n(](")
            for y in x:
                emit(y)
            out.extend(b"etR")
        else:
            raise TypeError(f"unexpected value in debug table: {x!r}")

    emit(obj)
    out.extend(b".")
    return bytes(out)


def _relative_debug_pkl(data):
    fmt, table, records = pickle.loads(data)
    if fmt != "FORMAT_WITH_STRING_TABLE":
        raise RuntimeError(f"unknown TorchScript debug format {fmt!r}")
    # Traced ranges hold the whole Python stack; this script's own frames are dropped so
    # that the files depend only on models.py and torch.
    new_table = tuple("" if relative(s).startswith("tests/models/make_models.py(") else relative(s)
                      for s in table)

    def move(segs, offset):
        # Map a character offset in the old concatenated text to the new one.
        old = new = 0
        for k in segs:
            lo, ln = len(table[k]), len(new_table[k])
            if offset < old + lo:
                return new + min(offset - old, ln)
            old, new = old + lo, new + ln
        return new

    new_records = tuple(
        (byte_off, ((segs, fidx, line), move(segs, start), move(segs, end)), handle)
        for byte_off, ((segs, fidx, line), start, end), handle in records
    )
    out = _pickle_debug((fmt, new_table, new_records))
    if pickle.loads(out) != (fmt, new_table, new_records):
        raise RuntimeError("debug table did not round-trip")
    return out


def save_script(module, name):
    path = os.path.join(OUT, name)
    torch.jit.save(module, path)

    def edit(entry, data):
        return _relative_debug_pkl(data) if entry.endswith(".debug_pkl") else data

    rewrite_zip(path, path, edit)
    torch.jit.load(path)  # still loads


# ---------------------------------------------------------------- models

def export(name, model, args, dynamic_shapes=None, keep_sample_inputs=True):
    ep = torch.export.export(model.eval(), args, dynamic_shapes=dynamic_shapes, strict=False)
    # Subgraphs of higher-order ops (an autocast region) are submodules with their own graphs.
    for module in ep.graph_module.modules():
        for node in module.graph.nodes if hasattr(module, "graph") else ():
            if isinstance(node.meta.get("stack_trace"), str):
                node.meta["stack_trace"] = relative(node.meta["stack_trace"])
    if not keep_sample_inputs:
        # Large example inputs would dominate the file; the graph keeps all shapes.
        ep.example_inputs = None
    torch.export.save(ep, os.path.join(OUT, name))


def build(cls, *a, seed=0, **kw):
    torch.manual_seed(seed)
    return cls(*a, **kw)


def rand(*shape, dtype=torch.float32, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


class GRUTagger(torch.nn.Module):
    """A batch-first GRU over 32 steps of 2 sequences: compiled, each step's GEMM multiplies 2 rows,
    which pad_mm pads or keeps by timing it on the GPU. (Here, not in models.py, whose source the
    TorchScript archives carry.)"""

    def __init__(self):
        super().__init__()
        self.gru = torch.nn.GRU(16, 32, batch_first=True)
        self.head = torch.nn.Linear(32, 10)

    def forward(self, x):
        y, _ = self.gru(x)
        return self.head(y)


def make_recurrent():
    # Last: exporting a recurrent layer advances TorchScript's name mangling, which the archives
    # written after it would record.
    export("gru_tagger.pt2", build(GRUTagger), (rand(2, 32, 16),))


def make_exported():
    a, b = rand(256, 1024, seed=1), rand(256, 1024, seed=2)
    export("add.pt2", models.Add(), (a, b), keep_sample_inputs=False)
    export("add_relu.pt2", models.AddRelu(), (a, b), keep_sample_inputs=False)
    export("mul_add_gelu.pt2", models.MulAddGelu(), (a, b), keep_sample_inputs=False)

    export("mlp.pt2", build(models.MLP), (rand(32, 64),))

    cbr = build(models.ConvBnRelu)
    with torch.no_grad():  # non-trivial running statistics
        cbr.bn.running_mean.copy_(rand(16, seed=3) * 0.1)
        cbr.bn.running_var.copy_(rand(16, seed=4).abs() + 0.5)
    export("conv_bn_relu.pt2", cbr, (rand(2, 16, 32, 32),))

    export("transformer_block.pt2", build(models.TransformerBlock, d=64, heads=4, mlp_ratio=2),
           (rand(2, 16, 64),))

    batch = torch.export.Dim("batch", min=2, max=4096)
    export("dynamic_batch.pt2", build(models.MLP), (rand(32, 64),),
           dynamic_shapes=({0: batch},))

    export("bf16_linear.pt2", build(models.BF16Linear).to(torch.bfloat16),
           (rand(8, 64, dtype=torch.bfloat16),))

    export("autocast_off.pt2", build(models.AutocastOff).to(torch.bfloat16),
           (rand(2, 16, 64, dtype=torch.bfloat16),))

    export("spectral.pt2", models.Spectral(), (rand(2, 8, 8), rand(48, 48, seed=2)))


def make_control_flow():
    """cond, map, scan and while_loop: higher-order ops whose subgraphs eager runs as it goes."""
    export("control_flow.pt2", models.ControlFlow(), (rand(8, 16), rand(4, 16, seed=2), torch.tensor(0)))
    export("invoke_subgraph.pt2", build(models.SharedRegion), (rand(4, 16),))


def make_detection():
    """A model calling torchvision's ops (needs torchvision): LibTorch has no schema for them.
    Exported to .pt2 and traced to TorchScript."""
    boxes = rand(100, 4, seed=5).abs() * 20
    boxes[:, 2:] += boxes[:, :2]
    rois = torch.cat([torch.tensor([[0.0]] * 8 + [[1.0]] * 8), boxes[:16]], 1)
    args = (rand(2, 3, 64, 64), boxes, rand(100, seed=6).sigmoid(), rois)
    export("detection_head.pt2", build(models.DetectionHead), args, keep_sample_inputs=False)
    save_script(torch.jit.trace(build(models.DetectionHead).eval(), args), "traced_detection_head.pt")


def make_fast_path():
    """A trace that records an inference fast path, traced under no_grad as inference code is."""
    with torch.no_grad():
        save_script(torch.jit.trace(build(models.FastPathAttention).eval(), (rand(2, 16, 64),)),
                    "traced_fast_path_attention.pt")
        save_script(torch.jit.trace(build(models.FastPathEncoder).eval(), (rand(2, 16, 32),)),
                    "traced_fast_path_encoder.pt")


def make_torchscript():
    save_script(torch.jit.script(build(models.ScriptedControlFlow).eval()),
                "scripted_control_flow.pt")
    save_script(torch.jit.trace(build(models.MLP).eval(), (rand(32, 64),)), "traced_mlp.pt")
    save_script(torch.jit.trace(models.ShapeArith().eval(), (rand(8, 32),)),
                "traced_shape_arith.pt")
    save_script(torch.jit.trace(build(models.TransformerBlock, d=64, heads=4, mlp_ratio=2).eval(),
                                (rand(2, 16, 64),)), "traced_transformer_block.pt")
    save_script(torch.jit.script(build(models.ScriptedBranches).eval()), "scripted_branches.pt")
    ids = torch.randint(0, 100, (2, 8), generator=torch.Generator().manual_seed(5))
    mask = torch.ones(2, 8, dtype=torch.int64)
    save_script(torch.jit.trace(build(models.TokenModel).eval(), (ids, mask), strict=False),
                "traced_tokens.pt")
    cn = build(models.ConvNorms)
    with torch.no_grad():  # non-trivial running statistics
        cn.bn.running_mean.copy_(rand(16, seed=3) * 0.1)
        cn.bn.running_var.copy_(rand(16, seed=4).abs() + 0.5)
    save_script(torch.jit.trace(cn.eval(), (rand(2, 3, 16, 16),)), "traced_conv_norms.pt")
    save_script(torch.jit.script(build(models.ToHost).eval()), "scripted_to_host.pt")
    save_script(torch.jit.script(models.ScriptedFactory().eval()), "scripted_factory.pt")
    save_script(torch.jit.script(build(models.HostAnchors).eval()), "scripted_host_anchors.pt")
    save_script(torch.jit.script(models.RowLoop().eval()), "scripted_row_loop.pt")
    save_script(torch.jit.script(models.ListLoop().eval()), "scripted_list_loop.pt")
    make_loop_bounds()


def make_loop_bounds():
    save_script(torch.jit.script(build(models.WhileTrueLayer).eval()), "scripted_while_true.pt")
    save_script(torch.jit.script(build(models.HugeRangeLayer).eval()), "scripted_huge_range.pt")
    save_script(torch.jit.script(build(models.RowLoopLayer).eval()), "scripted_row_loop_layer.pt")


# ---------------------------------------------------------------- bad inputs

def _edit_model_json(fn):
    def edit(name, data):
        if not name.endswith("/models/model.json"):
            return data
        doc = json.loads(data)
        fn(doc["graph_module"]["graph"])
        return json.dumps(doc).encode()
    return edit


def _set_target(value):
    def fn(graph):
        graph["nodes"][0]["target"] = value
    return fn


def _huge_shape(graph):
    tv = graph["tensor_values"][next(iter(graph["tensor_values"]))]
    tv["sizes"] = [{"as_int": 4294967296}, {"as_int": 4294967296}, {"as_int": 4}]
    tv["strides"] = [{"as_int": 17179869184}, {"as_int": 4}, {"as_int": 1}]


def _missing_dtype(graph):
    del graph["tensor_values"][next(iter(graph["tensor_values"]))]["dtype"]


def deflate_zip(src, dst, claim=None):
    """Copy src to dst with every record deflated (as validate/strip_weights.py writes them);
    claim=(name, size) then rewrites that record's uncompressed size in the central directory,
    a lying size field."""
    with zipfile.ZipFile(src) as zin:
        entries = [(i, zin.read(i.filename)) for i in zin.infolist()]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zout:
        for orig, data in entries:
            zout.writestr(_info_like(orig, out.tell(), zipfile.ZIP_DEFLATED), data)
    raw = bytearray(out.getvalue())
    if claim:
        name, size = claim
        entry = raw.rindex(b"PK\x01\x02", 0, raw.rindex(name.encode()))
        raw[entry + 24:entry + 28] = struct.pack("<I", size)
    with open(dst, "wb") as f:
        f.write(raw)


def make_deflated():
    src = os.path.join(OUT, "traced_mlp.pt")
    deflate_zip(src, os.path.join(OUT, "traced_mlp_deflated.pt"))
    # 4,000,000,000 bytes from a few kilobytes: no deflate stream inflates that far.
    deflate_zip(src, os.path.join(BAD, "lying_size.pt"), ("traced_mlp/data/0", 4_000_000_000))
    # data.pkl's first string claims 2 GiB: libtorch's unpickler would allocate that before
    # finding the pickle short.
    def long_string(name, data):
        if not name.endswith("/data.pkl"):
            return data
        at = data.index(b"X")  # BINUNICODE: opcode, 4-byte length, text
        return data[:at + 1] + struct.pack("<I", 0x7fffffff) + data[at + 5:]
    rewrite_zip(src, os.path.join(BAD, "long_pickle_string.pt"), long_string)
    # data.pkl's first BINPUT becomes a LONG_BINPUT of memo entry 2^31 - 1: libtorch's unpickler
    # would grow its memo table to 32 GiB before reading on.
    def long_memo_index(name, data):
        if not name.endswith("/data.pkl"):
            return data
        at = next(pos for op, _, pos in pickletools.genops(data) if op.name == "BINPUT")
        return data[:at] + b"r" + struct.pack("<I", 0x7fffffff) + data[at + 2:]
    rewrite_zip(src, os.path.join(BAD, "long_memo_index.pt"), long_memo_index)
    # constants.pkl declares 200 elements for the first storage, whose record holds one int64:
    # libtorch sizes a storage by the declared count and would read past the 8-byte record.
    def long_storage(name, data):
        if not name.endswith("/constants.pkl"):
            return data
        return data.replace(b"cpuq\x04K\x01t", b"cpuq\x04K\xc8t", 1)
    rewrite_zip(os.path.join(OUT, "traced_shape_arith.pt"), os.path.join(BAD, "long_storage.pt"), long_storage)
    # Without its .debug_pkl records (a valid archive: debug info is optional) no op has a
    # source range with text behind it; the report names no line rather than failing.
    rewrite_zip(src, os.path.join(OUT, "traced_mlp_no_debug.pt"),
                lambda name, data: None if name.endswith(".debug_pkl") else data)


def make_bad():
    os.makedirs(BAD, exist_ok=True)
    save_script(torch.jit.script(models.NoShapeFunction()), "bad/no_shape_function.pt")
    add = os.path.join(OUT, "add.pt2")
    with open(add, "rb") as f:
        raw = f.read()
    with open(os.path.join(BAD, "empty.pt2"), "wb"):
        pass
    with open(os.path.join(BAD, "truncated.pt2"), "wb") as f:
        f.write(raw[: len(raw) // 2])
    with open(os.path.join(BAD, "not_a_zip.pt2"), "w") as f:
        f.write("this is not a PT2 archive, just some text\n")
    with zipfile.ZipFile(os.path.join(BAD, "foreign.zip"), "w") as z:
        z.writestr(zipfile.ZipInfo("notes/readme.txt", date_time=(1980, 1, 1, 0, 0, 0)),
                   "an unrelated file in an unrelated zip\n")
    for name, fn in [
        ("wrong_type.pt2", _set_target(42)),
        ("unknown_op.pt2", _set_target("torch.ops.aten.no_such_op.default")),
        ("huge_shape.pt2", _huge_shape),
        ("missing_field.pt2", _missing_dtype),
    ]:
        rewrite_zip(add, os.path.join(BAD, name), _edit_model_json(fn))


def main():
    if not os.path.isfile(os.path.join(OUT, "models.py")):
        sys.exit("run from the repository root: python tests/models/make_models.py")
    make_exported()
    make_control_flow()
    make_detection()
    make_torchscript()
    make_fast_path()
    make_bad()
    make_deflated()
    make_recurrent()
    for d in (OUT, BAD):
        for n in sorted(os.listdir(d)):
            p = os.path.join(d, n)
            if os.path.isfile(p) and not n.endswith((".py", ".md")):
                print(f"{os.path.getsize(p):>9}  {p}")


if __name__ == "__main__":
    main()
