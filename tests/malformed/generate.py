#!/usr/bin/env python3
"""Writes the malformed-input corpus: thousands of broken or hostile inputs made from the test
models in tests/models/, one case per line of OUT/cases.jsonl, for tests/malformed/run.py.

Every class of the hardening issue is covered: scalar (rank-0) and wrong-rank operands,
symbolic sizes that divide by zero or overflow, deeply nested expressions and JSON, long
hint chains, huge tables, huge strings and stack traces, graphs used before defined or
reversed, byte totals beyond int64, FIFOs and devices as model, -o and --baseline, -o naming
an input, bad flags (--input "=32x64"), broken baselines, damaged zips and TorchScript
archives, pickle memo indices past the pickle's end, and random structural and byte
mutations of model.json.

Usage: generate.py OUT [--sample N] [--no-big]
  --sample N  keep about N cases, every class represented, no multi-megabyte ones (for ctest)
  --no-big    leave out the cases whose files are large once inflated (1 GB padding, 512 MB
              string, 100,000-entry tables)
Deterministic: the same arguments write the same corpus.
"""
import argparse
import copy
import json
import os
import pickletools
import random
import shutil
import struct
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, "tests", "models")
PT2 = ["add.pt2", "add_relu.pt2", "bf16_linear.pt2", "conv_bn_relu.pt2", "dynamic_batch.pt2", "mlp.pt2",
       "mul_add_gelu.pt2", "transformer_block.pt2"]
TS = {"traced_mlp.pt": ["--input", "32x64:float32"], "traced_mlp_deflated.pt": ["--input", "32x64:float32"],
      "traced_shape_arith.pt": ["--input", "8x16:float32"],
      "scripted_control_flow.pt": ["--input", "4x8:float32"]}
INT64_MIN = -(2 ** 63)
INT64_MAX = 2 ** 63 - 1


class Corpus:
    def __init__(self, out):
        self.out = out
        self.files = os.path.join(out, "files")
        os.makedirs(self.files, exist_ok=True)
        self.cases = []

    def path(self, name):
        return os.path.join(self.files, name)

    def add(self, cls, args, expect="any", stdout=None, big=False):
        """expect: "2" (must be refused), "0" (must succeed) or "any" (exit 0, 1 or 2)."""
        self.cases.append({"id": len(self.cases), "class": cls, "args": args, "expect": expect,
                           "stdout": stdout, "big": big})

    def write_pt2(self, name, src, model_json, compress=False, extra=None):
        """A copy of the archive `src` with models/model.json replaced by `model_json` (str or bytes)."""
        dst = self.path(name)
        with zipfile.ZipFile(os.path.join(MODELS, src)) as zin, \
                zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as zout:
            for info in zin.infolist():
                data = zin.read(info.filename)
                if info.filename.endswith("models/model.json"):
                    data = model_json if isinstance(model_json, bytes) else model_json.encode()
                zout.writestr(info.filename, data)
        return dst

    def save(self):
        with open(os.path.join(self.out, "cases.jsonl"), "w") as f:
            for c in self.cases:
                f.write(json.dumps(c) + "\n")


def model_json(src):
    with zipfile.ZipFile(os.path.join(MODELS, src)) as z:
        name = [n for n in z.namelist() if n.endswith("models/model.json")][0]
        return json.loads(z.read(name))


def graph(j):
    return j["graph_module"]["graph"]


def sizes_of(dims):
    return [{"as_int": d} for d in dims]


def contiguous_strides(dims):
    out, s = [], 1
    for d in reversed(dims):
        out.append(s)
        s *= max(d, 1)
    return list(reversed(out))


def set_shape(j, name, dims):
    tv = graph(j)["tensor_values"][name]
    tv["sizes"] = sizes_of(dims)
    tv["strides"] = sizes_of(contiguous_strides(dims))


def op_nodes(j, prefix):
    return [n for n in graph(j)["nodes"] if n["target"].startswith(prefix)]


def tensor_args(node):
    out = []
    for a in node["inputs"]:
        arg = a["arg"]
        if "as_tensor" in arg:
            out.append(arg["as_tensor"]["name"])
    return out


# --- classes -----------------------------------------------------------------------------------

def wrong_ranks(c, rng):
    """Operands of GEMM, conv, norm, SDPA, cat... edited to every rank 0-5 (rank 0: the segfaults)."""
    for src in PT2:
        base = model_json(src)
        for ni, node in enumerate(graph(base)["nodes"]):
            names = tensor_args(node) + [o["as_tensor"]["name"] for o in node["outputs"] if "as_tensor" in o]
            for t in names:
                for rank in range(6):
                    j = copy.deepcopy(base)
                    dims = [rng.choice([1, 2, 3, 4, 8]) for _ in range(rank)]
                    set_shape(j, t, dims)
                    name = f"rank_{src}_{ni}_{t}_{rank}.pt2"
                    c.write_pt2(name, src, json.dumps(j))
                    c.add("wrong_rank", [c.path(name)])


def symbolic(c, rng):
    """Symbolic sizes that trap (x // 0, INT64_MIN // -1, Mod, /), overflow, nest deeply, or chain hints."""
    exprs = ["s77 // 0", "FloorDiv(s77, 0)", "Mod(s77, 0)", "PythonMod(s77, 0)", "s77 % 0", "s77 / 0",
             "CeilDiv(s77, 0)", f"FloorDiv({INT64_MIN}, -1)", f"Mod(-9223372036854775807 - 1, -1)",
             "(-9223372036854775807 - 1) // -1", "(-9223372036854775807 - 1) / -1", "(-9223372036854775807 - 1) % -1",
             "CeilDiv(-9223372036854775807 - 1, -1)", "Abs(-9223372036854775807 - 1)", "-(-9223372036854775807 - 1)",
             "9223372036854775807 + s77", "s77 * 9223372036854775807", "2 ** 64", "s77 ** 70", "99999999999999999999",
             "s77 - 9223372036854775807 - 9223372036854775807", "IntTrueDiv(s77, 0)", "Max()", "Min(s77,)",
             "s77 // (s77 - s77)", "Mod(s77, s77 - s77)", "FloorDiv(s77, 2) // (1 - 1)", "(" * 20000 + "s77" + ")" * 20000,
             "FloorDiv(" * 50000 + "s77" + ", 2)" * 50000, "-" * 100000 + "s77", "Max(" + ", ".join(["s77"] * 20000) + ")",
             " + ".join(f"x{i}" for i in range(30000)), "Symbol('s77'" + "(" * 10000, "s77 +", "", "Symbol(", "(s77",
             "s77)", "FloorDiv(s77)", "s77 ** -1", "s77 // -1", "0 ** 0", "(-1) ** 63", "2 ** 63", "2 ** 62"]
    base = model_json("dynamic_batch.pt2")
    tvs = list(graph(base)["tensor_values"].items())
    sym_tensors = [n for n, v in tvs if any("as_expr" in s for s in v["sizes"])]
    for ei, e in enumerate(exprs):
        for where in ("size", "stride", "hint", "sym_int", "arg"):
            j = copy.deepcopy(base)
            t = rng.choice(sym_tensors)
            tv = graph(j)["tensor_values"][t]
            expr = {"as_expr": {"expr_str": e, "hint": None}}
            if where == "size":
                tv["sizes"][0] = expr
            elif where == "stride":
                tv["strides"][0] = expr
            elif where == "hint":
                tv["sizes"][0] = {"as_expr": {"expr_str": e, "hint": {"as_int": 4}}}
            elif where == "sym_int":
                graph(j)["sym_int_values"]["sym_bad"] = expr
            else:
                tv["sizes"][0] = {"as_expr": {"expr_str": "s77 + s_bad", "hint": expr}}
            name = f"sym_{ei}_{where}.pt2"
            c.write_pt2(name, "dynamic_batch.pt2", json.dumps(j))
            c.add("symbolic", [c.path(name)])
            c.add("symbolic_dim", [c.path(name), "--dim", "s77=0"])
    # Valid expressions whose values divide by zero only once --dim sets s77 = 0, and a baseline
    # model that traps.
    j = copy.deepcopy(base)
    graph(j)["tensor_values"][sym_tensors[0]]["sizes"][0] = {"as_expr": {"expr_str": "FloorDiv(64, s77)", "hint": {"as_int": 1}}}
    c.write_pt2("sym_div_by_dim.pt2", "dynamic_batch.pt2", json.dumps(j))
    c.add("symbolic", [c.path("sym_div_by_dim.pt2"), "--dim", "s77=0"], expect="2")
    c.add("symbolic", [os.path.join(MODELS, "dynamic_batch.pt2"), "--baseline", c.path("sym_0_size.pt2")], expect="2")
    c.add("symbolic", [os.path.join(MODELS, "dynamic_batch.pt2"), "--baseline", c.path("sym_7_size.pt2")], expect="2")
    # Chains of hints: each hint another unevaluable expression with a hint, 100 / 100,000 deep.
    for depth in (100, 1000, 100000):
        j = copy.deepcopy(base)
        graph(j)["tensor_values"][sym_tensors[0]]["sizes"][0] = "@CHAIN@"
        # Written as text: Python's own encoder recurses.
        chain = "".join(f'{{"as_expr": {{"expr_str": "u{i}", "hint": ' for i in range(depth)) + '{"as_int": 4}' + "}}" * depth
        name = f"hint_chain_{depth}.pt2"
        c.write_pt2(name, "dynamic_batch.pt2", json.dumps(j).replace('"@CHAIN@"', chain), compress=True)
        c.add("hint_chain", [c.path(name)], big=depth > 1000)


def huge_tables(c, rng, big):
    """100,000+ tensor_values or sym_int_values; and a byte total beyond int64."""
    base = model_json("add.pt2")
    for n in ([1000, 100000, 200000] if big else [1000]):
        j = copy.deepcopy(base)
        tv = graph(j)["tensor_values"]
        proto = next(iter(tv.values()))
        for i in range(n):
            tv[f"extra_{i}"] = copy.deepcopy(proto)
        c.write_pt2(f"many_tensors_{n}.pt2", "add.pt2", json.dumps(j), compress=True)
        c.add("huge_table", [c.path(f"many_tensors_{n}.pt2")], big=n > 1000)
        j = copy.deepcopy(base)
        sv = graph(j)["sym_int_values"]
        for i in range(n):
            sv[f"sym_{i}"] = {"as_int": i} if i % 2 else {"as_name": f"sym_{i + 1}"}
        c.write_pt2(f"many_syms_{n}.pt2", "add.pt2", json.dumps(j), compress=True)
        c.add("huge_table", [c.path(f"many_syms_{n}.pt2")], big=n > 1000)
    # Three tensors of 2^60 floats: each fits int64 bytes, their sum does not.
    for k, dims in enumerate([[2 ** 30, 2 ** 30], [2 ** 60], [2 ** 20, 2 ** 20, 2 ** 20], [2 ** 61], [2 ** 62]]):
        j = copy.deepcopy(base)
        for t in graph(j)["tensor_values"]:
            set_shape(j, t, dims)
        name = f"overflow_bytes_{k}.pt2"
        c.write_pt2(name, "add.pt2", json.dumps(j))
        c.add("byte_overflow", [c.path(name)], expect="2")
        c.add("byte_overflow", [c.path(name), "--format", "json"], expect="2")


def graph_order(c, rng):
    """Nodes reversed, shuffled, reading their own output, or reading a value no node writes."""
    for src in PT2:
        base = model_json(src)
        nodes = graph(base)["nodes"]
        if len(nodes) < 2:
            continue
        j = copy.deepcopy(base)
        graph(j)["nodes"].reverse()
        c.write_pt2(f"reversed_{src}", src, json.dumps(j))
        c.add("graph_order", [c.path(f"reversed_{src}")], expect="2")
        for k in range(10):
            j = copy.deepcopy(base)
            rng.shuffle(graph(j)["nodes"])
            c.write_pt2(f"shuffled_{k}_{src}", src, json.dumps(j))
            c.add("graph_order", [c.path(f"shuffled_{k}_{src}")])
        for ni, node in enumerate(nodes):
            if not any("as_tensor" in o for o in node["outputs"]) or not tensor_args(node):
                continue
            j = copy.deepcopy(base)
            n2 = graph(j)["nodes"][ni]
            out = next(o["as_tensor"]["name"] for o in n2["outputs"] if "as_tensor" in o)
            for a in n2["inputs"]:
                if "as_tensor" in a["arg"]:
                    a["arg"]["as_tensor"]["name"] = out
                    break
            c.write_pt2(f"self_read_{ni}_{src}", src, json.dumps(j))
            c.add("graph_order", [c.path(f"self_read_{ni}_{src}")], expect="2")
            j = copy.deepcopy(base)
            del graph(j)["nodes"][ni]
            c.write_pt2(f"no_producer_{ni}_{src}", src, json.dumps(j))
            c.add("graph_order", [c.path(f"no_producer_{ni}_{src}")])
            if ni + 1 < len(nodes):
                j = copy.deepcopy(base)
                ns = graph(j)["nodes"]
                ns[ni], ns[ni + 1] = ns[ni + 1], ns[ni]
                c.write_pt2(f"swapped_{ni}_{src}", src, json.dumps(j))
                c.add("graph_order", [c.path(f"swapped_{ni}_{src}")])


def big_strings(c, big):
    """Long stack traces (source-line parsing), a 512 MB string, 1 GB of whitespace, deep JSON."""
    base = model_json("add_relu.pt2")
    line = 'File "tests/models/models.py", line 18, in forward\n    return (x + y).relu()\n'
    for size, tag in ([(1 << 20, "1m"), (50 << 20, "50m")] if big else [(1 << 20, "1m")]):
        for style in ("frames", "nonl", "file_only"):
            j = copy.deepcopy(base)
            if style == "frames":
                trace = line * (size // len(line))
            elif style == "nonl":
                trace = 'File "a.py", line 1' * (size // 19)
            else:
                trace = 'File "' * (size // 6)
            graph(j)["nodes"][0]["metadata"]["stack_trace"] = trace
            name = f"stack_{tag}_{style}.pt2"
            c.write_pt2(name, "add_relu.pt2", json.dumps(j), compress=True)
            c.add("big_string", [c.path(name)], expect="0" if size <= (1 << 20) else "any", big=size > (1 << 20))
        j = copy.deepcopy(base)
        graph(j)["nodes"][0]["metadata"]["nn_module_stack"] = "a,b,c;" * (size // 6)
        c.write_pt2(f"module_stack_{tag}.pt2", "add_relu.pt2", json.dumps(j), compress=True)
        c.add("big_string", [c.path(f"module_stack_{tag}.pt2")], big=size > (1 << 20))
    if big:
        text = json.dumps(base)
        c.write_pt2("padded_1g.pt2", "add_relu.pt2", text[:-1] + " " * (1 << 30) + "}", compress=True)
        c.add("big_string", [c.path("padded_1g.pt2")], expect="2", big=True)
        j = copy.deepcopy(base)
        j["padding"] = "x" * (512 << 20)
        c.write_pt2("string_512m.pt2", "add_relu.pt2", json.dumps(j), compress=True)
        c.add("big_string", [c.path("string_512m.pt2")], expect="2", big=True)
    for depth in (100, 10000, 1000000):
        text = json.dumps(base)
        nested = "[" * depth + "]" * depth
        c.write_pt2(f"deep_json_{depth}.pt2", "add_relu.pt2", text[:-1] + ', "deep": ' + nested + "}", compress=True)
        c.add("deep_json", [c.path(f"deep_json_{depth}.pt2")], expect="2", big=depth > 10000)


def json_mutations(c, rng, n):
    """Random structural edits of model.json: a value replaced by another type, deleted, or duplicated."""
    replacements = [None, 0, -1, 1, INT64_MAX, INT64_MIN, 2 ** 64, 1.5, -1e308, "", "x", "torch.ops.aten.add.Tensor",
                    [], {}, [[]], {"as_tensor": {"name": "nosuch"}}, {"as_int": -1}, {"as_expr": {"expr_str": "s0 // 0"}},
                    {"as_none": None}, True, "\n".join(["multi", "line"]), "Symbol('s0')"]

    def paths(j, prefix=()):
        yield prefix
        if isinstance(j, dict):
            for k, v in j.items():
                yield from paths(v, prefix + (k,))
        elif isinstance(j, list):
            for i, v in enumerate(j):
                yield from paths(v, prefix + (i,))

    bases = {src: model_json(src) for src in PT2}
    all_paths = {src: [p for p in paths(b) if p] for src, b in bases.items()}
    for k in range(n):
        src = PT2[k % len(PT2)]
        j = copy.deepcopy(bases[src])
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            p = rng.choice(all_paths[src])
            parent = j
            try:
                for key in p[:-1]:
                    parent = parent[key]
                op = rng.random()
                if op < 0.6:
                    parent[p[-1]] = copy.deepcopy(rng.choice(replacements))
                elif op < 0.85:
                    if isinstance(parent, dict):
                        del parent[p[-1]]
                    else:
                        parent.pop(p[-1])
                elif isinstance(parent, list):
                    parent.insert(p[-1], copy.deepcopy(parent[p[-1]]))
                else:
                    parent[p[-1]] = [parent[p[-1]], parent[p[-1]]]
            except (KeyError, IndexError, TypeError, AttributeError):
                pass
        name = f"mut_{k}.pt2"
        c.write_pt2(name, src, json.dumps(j))
        c.add("json_mutation", [c.path(name)])


def byte_mutations(c, rng, n):
    """model.json text truncated or with bytes flipped: invalid JSON, bad UTF-8, control characters."""
    for k in range(n):
        src = PT2[k % len(PT2)]
        text = bytearray(json.dumps(model_json(src)).encode())
        r = rng.random()
        if r < 0.3:
            text = text[:rng.randrange(len(text))]
        else:
            for _ in range(rng.choice([1, 2, 5, 20])):
                text[rng.randrange(len(text))] = rng.randrange(256)
        name = f"bytes_{k}.pt2"
        c.write_pt2(name, src, bytes(text))
        c.add("byte_mutation", [c.path(name)])


def archives(c, rng, n):
    """Damaged zips: whole-file truncation and byte flips, for .pt2 and TorchScript archives."""
    srcs = PT2 + list(TS)
    for k in range(n):
        src = srcs[k % len(srcs)]
        data = bytearray(open(os.path.join(MODELS, src), "rb").read())
        r = rng.random()
        if r < 0.3:
            data = data[:rng.randrange(len(data))]
        else:
            for _ in range(rng.choice([1, 4, 16, 64])):
                data[rng.randrange(len(data))] = rng.randrange(256)
        ext = ".pt" if src.endswith(".pt") else ".pt2"
        name = f"zip_{k}{ext}"
        with open(c.path(name), "wb") as f:
            f.write(data)
        c.add("archive" if ext == ".pt2" else "torchscript", [c.path(name)] + TS.get(src, []))


def torchscript(c, rng, n):
    """TorchScript archives with their code and pickles edited (out of the hardening scope, reported)."""
    edits = [("(", 5000), ("[", 5000), ("x", 0), ("\x00", 0), ("", 0)]
    for k in range(n):
        src = list(TS)[k % len(TS)]
        name = f"ts_{k}.pt"
        with zipfile.ZipFile(os.path.join(MODELS, src)) as zin, zipfile.ZipFile(c.path(name), "w") as zout:
            infos = zin.infolist()
            victim = rng.choice([i.filename for i in infos if i.filename.endswith((".py", ".pkl"))])
            for info in infos:
                data = zin.read(info.filename)
                if info.filename == victim:
                    data = bytearray(data)
                    what, count = rng.choice(edits)
                    if count:
                        pos = rng.randrange(len(data) + 1)
                        data[pos:pos] = (what * count + ")" * count if what == "(" else what * count).encode()
                    elif what == "":
                        data = data[:rng.randrange(len(data) + 1)]
                    elif data:
                        data[rng.randrange(len(data))] = ord(what)
                    data = bytes(data)
                zout.writestr(info, data)
        c.add("torchscript", [c.path(name)] + TS[src])
    ts = os.path.join(MODELS, "traced_mlp.pt")
    for spec in ["nosuch=32x64", "x=32x64:float99", "32x", "x", "", "32x64:", "=32x64", "-1x64", "99999999999999999999x2",
                 "4294967296x4294967296x4", "32x64,32x64", "32x64:float32:float32", "0x64"]:
        c.add("flags", [ts, "--input", spec], expect="0" if spec == "0x64" else "2")
    c.add("flags", [ts, "--input", "32x64", "--input", "32x64"], expect="2")
    c.add("flags", [ts, "--input", "32x64x9"], expect="2")


def pickle_memo(c):
    """TorchScript pickles whose memo index (LONG_BINPUT) is past the pickle's end: libtorch's
    unpickler grows its memo table to the index, 16 bytes an entry, before reading on."""
    for src in TS:
        for index in (0x7fffffff, 0xffffffff, 0x72727272):
            for pkl in ("data.pkl", "constants.pkl", ".debug_pkl"):
                name = f"memo_{index:x}_{pkl.strip('.')}_{src}"
                with zipfile.ZipFile(os.path.join(MODELS, src)) as zin, zipfile.ZipFile(c.path(name), "w") as zout:
                    edited = False
                    for info in zin.infolist():
                        data = zin.read(info.filename)
                        if not edited and info.filename.endswith(pkl):
                            puts = [pos for op, _, pos in pickletools.genops(data) if op.name == "BINPUT"]
                            if puts:
                                data = data[:puts[0]] + b"r" + struct.pack("<I", index) + data[puts[0] + 2:]
                                edited = True
                        zout.writestr(info, data)
                if edited:
                    c.add("pickle_memo", [c.path(name)] + TS[src], expect="2")


def special_files(c):
    """FIFOs, devices and directories as model, -o and --baseline; -o naming an input; full disks."""
    fifo = c.path("fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    model = os.path.join(MODELS, "add.pt2")
    report = c.path("report_ok.json")
    for bad in (fifo, "/dev/zero", "/dev/null", "/dev/full", c.files, "/nonexistent/x.pt2"):
        c.add("special_file", [bad], expect="2")
        c.add("special_file", [model, "--baseline", bad], expect="2")
        c.add("special_file", [model, "--baseline", bad + ".json" if bad == fifo else bad], expect="2")
    os.makedirs(c.path("fifo_dir"), exist_ok=True)
    fifo_json = c.path("fifo_dir/base.json")
    if not os.path.exists(fifo_json):
        os.mkfifo(fifo_json)
    c.add("special_file", [model, "--baseline", fifo_json], expect="2")
    for out in (fifo, "/dev/full", c.files, "/nonexistent/dir/out.txt"):
        c.add("output", [model, "-o", out], expect="2")
    copy_model = c.path("model_copy.pt2")
    shutil.copy(model, copy_model)
    c.add("output", [copy_model, "-o", copy_model], expect="2")
    c.add("output", [copy_model, "--baseline", copy_model, "-o", copy_model], expect="2")
    c.add("output", [model, "-o", c.path("out_ok.txt")], expect="0")
    c.add("output", [model, "--format", "json", "-o", report], expect="0")
    c.add("output", [model], expect="2", stdout="/dev/full")
    c.add("output", [model, "--format", "json"], expect="2", stdout="/dev/full")
    c.add("output", ["--list-rules"], expect="2", stdout="/dev/full")


def flags(c):
    model = os.path.join(MODELS, "dynamic_batch.pt2")
    for f in ("--max-kernels", "--max-fused-kernels", "--max-unknown", "--max-syncs"):
        for v in ("99999999999999999999", "9223372036854775808", "-1", "1.5", "x", "", "0x10", " 5"):
            c.add("flags", [model, f, v], expect="2")
        c.add("flags", [model, f, "9223372036854775807"], expect="0")
        c.add("flags", [model, f, "0"], expect="1" if f in ("--max-kernels", "--max-fused-kernels") else "0")
    for v in ("1e400", "-5", "9.3e18", "nan", "inf", "5Q", "", "M"):
        c.add("flags", [model, "--max-bytes", v], expect="2")
    for v in ("s77=99999999999999999999", "s77=-1", "s77=", "=4", "s77", "s77=4=4", "nosuch=4", "s77=1e3",
              "s77=5000", "s77=0"):
        c.add("flags", [model, "--dim", v], expect="2")
    c.add("flags", [model, "--max-kernel-increase", "99999999999999999999", "--baseline", model], expect="2")
    c.add("flags", [model, "--format", "yaml"], expect="2")
    c.add("flags", [model, "--by", "\n"], expect="2")
    c.add("flags", [model, "--target", "x\ny"], expect="2")
    c.add("flags", [model, "--nosuchflag"], expect="2")


def baselines(c, rng, n):
    """--baseline reports: negative, huge, missing or mistyped totals; deep, huge or invalid JSON."""
    model = os.path.join(MODELS, "add.pt2")
    good = json.load(open(os.path.join(ROOT, "tests", "golden", "add_relu.json")))
    keys = list(good["totals"])

    def write(name, obj_or_text):
        with open(c.path(name), "w") as f:
            f.write(obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text))
        return c.path(name)

    for key in keys:
        # The comparison reads the integer totals; the time floors (seconds) it does not need.
        needed = isinstance(good["totals"][key], int)
        for v in (-1, INT64_MIN, INT64_MAX, 2 ** 64, 1.5, "1", None, [], {}):
            j = copy.deepcopy(good)
            j["totals"][key] = v
            ok = isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= INT64_MAX
            c.add("baseline", [model, "--baseline", write(f"base_{key}_{len(c.cases)}.json", j)],
                  expect="any" if ok or not needed else "2")
        j = copy.deepcopy(good)
        del j["totals"][key]
        c.add("baseline", [model, "--baseline", write(f"base_del_{key}.json", j)], expect="2" if needed else "any")
    for v in ([{"module": "m", "eager_kernels": -5, "hbm_bytes": -1}], [{"module": 5}], [1, 2], "x", [{"eager_kernels": "x"}]):
        j = copy.deepcopy(good)
        j["by_module"] = v
        c.add("baseline", [model, "--baseline", write(f"base_mod_{len(c.cases)}.json", j)], expect="2")
    j = copy.deepcopy(good)
    for key in keys:
        j["totals"][key] = INT64_MAX
    c.add("baseline", [model, "--baseline", write("base_max.json", j), "--max-kernel-increase", "0"])
    for depth in (100, 100000):
        c.add("baseline", [model, "--baseline", write(f"base_deep_{depth}.json", "[" * depth + "]" * depth)], expect="2")
    for text in ("", "{", "null", "[]", '{"schema": 5}', '{"schema": "kernelcount.report/1"}',
                 '{"schema": "kernelcount.report/1", "totals": []}', "\x00\x01", '{"a": "\\ud800"}'):
        c.add("baseline", [model, "--baseline", write(f"base_text_{len(c.cases)}.json", text)], expect="2")
    text = json.dumps(good)
    for k in range(n):
        t = bytearray(text.encode())
        for _ in range(rng.choice([1, 3, 10])):
            t[rng.randrange(len(t))] = rng.randrange(32, 127)
        c.add("baseline", [model, "--baseline", write(f"base_bytes_{k}.json", t.decode("latin-1"))])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--no-big", action="store_true")
    a = ap.parse_args()
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    c = Corpus(a.out)
    rng = random.Random(20261130)
    big = not a.no_big and not a.sample
    special_files(c)
    flags(c)
    baselines(c, rng, 200)
    symbolic(c, rng)
    huge_tables(c, rng, big)
    graph_order(c, rng)
    big_strings(c, big)
    torchscript(c, rng, 150)
    archives(c, rng, 400)
    byte_mutations(c, rng, 400)
    json_mutations(c, rng, 2300)
    wrong_ranks(c, rng)
    pickle_memo(c)
    cases = c.cases
    if not big:
        cases = [x for x in cases if not x["big"]]
    if a.sample:
        # Every class, then an even spread over the rest.
        by_class = {}
        for x in cases:
            by_class.setdefault(x["class"], []).append(x)
        keep = []
        per = max(1, a.sample // len(by_class))
        for xs in by_class.values():
            step = max(1, len(xs) // per)
            keep += xs[::step][:per]
        cases = sorted(keep, key=lambda x: x["id"])
    c.cases = cases
    c.save()
    classes = {}
    for x in cases:
        classes[x["class"]] = classes.get(x["class"], 0) + 1
    print(f"{len(cases)} cases in {a.out}: " + ", ".join(f"{k} {v}" for k, v in sorted(classes.items())))


if __name__ == "__main__":
    sys.exit(main())
