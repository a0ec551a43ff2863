#!/usr/bin/env python3
"""Exports PyTorch's own OpInfo samples (torch.testing._internal's op_db: sample inputs for
nearly every op, written by PyTorch's developers, not by us) as one small .pt2 per sample, so
that the launch rules are checked against ops and shapes nobody here chose.

For every OpInfo whose CUDA dtypes include float32 or bfloat16 (else its first integer or bool
dtype), the first --samples sample inputs are exported with torch.export (strict=False), the
sample's tensors as the program's inputs and everything else baked in. The archive keeps the
sample inputs: index and offset arguments must stay valid, so the real run uses them as stored.
Names are `opinfo-<op>__s<k>_<dtype>.pt2` (dots in op names become '_'): every op is its own
family, so a leave-one-family-out figure never sees the op it predicts. Exports on the host (the
real run moves the program to the GPU, as for the opset corpus), with seeded sample values; one record per sample, exported
or not and why, in OUT/manifest.jsonl.
  python3 research/corpus/export_opinfo.py OUT [--samples 3] [--first 0] [--jobs 2] [--only mse_loss,einsum]
--first K skips each op's first K samples: `--first 3 --samples 2` exports samples 3 and 4, which
the corpus (samples 0-2) never held, as a held-out set of the same ops at other shapes.
--reference exports PyTorch's reference inputs instead (OpInfo.reference_inputs: for the ops that
define them, more cases than their sample inputs: broadcasting, non-contiguous and extremal
operands, other shapes), less each one equal in structure to one of the op's sample inputs
(tensor shapes, dtypes and strides with every other argument); named `opinfo-<op>__r<k>_<dtype>`,
k counting the reference inputs kept. Ops without reference inputs of their own export nothing.
--names FILE exports only the samples named in FILE (one name a line, as `opinfo-cdist__s32_fp32`;
`#` starts a comment), of those --first and --samples select: a list research/accuracy/opinfo_scan.py
wrote, to measure exactly the samples it found.
--list-names prints the name of every sample the other arguments pick, exported or not, without
exporting (two minutes on two cores for the 19,094 reference inputs): the universe
research/corpus/draw_opinfo.py draws the next look's programs from.
"""
import argparse
import itertools
import json
import multiprocessing
import os
import signal
import sys
import time
import types
import unittest
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
from strip_weights import relative_in_place  # noqa: E402

TAGS = {"float32": "fp32", "bfloat16": "bf16", "int64": "i64", "int32": "i32", "bool": "bool", "uint8": "u8"}


def _op_db():
    # torch.testing._internal imports expecttest for its TestCase base class only; op_db's
    # sample inputs never use it, so a machine without the package gets unittest's TestCase.
    try:
        import expecttest  # noqa: F401
    except ImportError:
        sys.modules["expecttest"] = types.SimpleNamespace(TestCase=unittest.TestCase)
    from torch.testing._internal.common_methods_invocations import op_db
    return op_db


def family(op):
    name = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
    return "opinfo-" + name.replace(".", "_")


def dtypes_of(op):
    import torch
    cuda = op.supported_dtypes("cuda")
    floats = [d for d in (torch.float32, torch.bfloat16) if d in cuda]
    if floats:
        return floats
    for d in (torch.int64, torch.int32, torch.bool, torch.uint8):
        if d in cuda:
            return [d]
    return []


def structure(sample):
    """A sample's structure: its tensors' shapes, dtypes and strides, every other argument's repr."""
    import torch
    import torch.utils._pytree as pytree
    flat, spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
    return repr(spec) + repr([(tuple(v.shape), str(v.dtype), v.stride()) if isinstance(v, torch.Tensor) else repr(v)
                              for v in flat])


def reference_only(op, dt):
    """The op's reference inputs that are not one of its sample inputs (nothing for an op without
    reference inputs of its own)."""
    if op.reference_inputs_func is None:
        return
    seen = {structure(s) for s in op.sample_inputs("cpu", dt, requires_grad=False)}
    for s in op.reference_inputs("cpu", dt, requires_grad=False):
        key = structure(s)
        if key not in seen:
            seen.add(key)
            yield s


def _remove(path):
    if os.path.exists(path):
        os.remove(path)


class _Timeout(Exception):
    pass


def picked_samples(op, dt, first, samples, reference):
    """The samples export_op exports for one OpInfo and dtype, seeded as it seeds them."""
    import torch
    tag = TAGS[str(dt).replace("torch.", "")]
    # Sample values come from the global generator: seeded by name, a re-export on another
    # machine with the same PyTorch writes the same inputs.
    torch.manual_seed(zlib.crc32(("%s %s%s" % (family(op), tag, " reference" if reference else "")).encode()))
    if reference:
        return list(itertools.islice(reference_only(op, dt), first + samples))[first:]
    return list(itertools.islice(op.sample_inputs("cpu", dt, requires_grad=False), first + samples))[first:]


def sample_name(op, dt, k, reference):
    return "%s__%s%d_%s" % (family(op), "r" if reference else "s", k, TAGS[str(dt).replace("torch.", "")])


def sample_names(task):
    """The names export_op would give one OpInfo's samples, without exporting them (an OpInfo
    whose samples cannot be made names none)."""
    index, first, samples, reference = task
    op = _op_db()[index]
    found = []
    for dt in dtypes_of(op):
        try:
            gen = picked_samples(op, dt, first, samples, reference)
        except Exception:
            continue
        found += [sample_name(op, dt, k, reference) for k in range(first, first + len(gen))]
    return found


def export_op(task):
    """Exports the first `samples` samples of one OpInfo in each dtype; returns manifest records."""
    index, out, first, samples, timeout, names, reference = task
    import torch
    import torch.utils._pytree as pytree
    op = _op_db()[index]
    records = []

    def on_alarm(signum, frame):
        raise _Timeout()

    signal.signal(signal.SIGALRM, on_alarm)
    for dt in dtypes_of(op):
        tag = TAGS[str(dt).replace("torch.", "")]
        try:
            gen = picked_samples(op, dt, first, samples, reference)
        except Exception as e:
            records.append({"family": family(op), "dtype": tag, "error": "samples: " + str(e).splitlines()[0][:200]})
            continue
        for k, s in enumerate(gen, start=first):
            name = sample_name(op, dt, k, reference)
            if names is not None and name not in names:
                continue
            rec = {"family": family(op), "name": name, "op": op.name, "variant": op.variant_test_name,
                   "dtype": tag, "sample": k}
            flat, spec = pytree.tree_flatten((s.input, s.args, s.kwargs))
            where = [i for i, v in enumerate(flat) if isinstance(v, torch.Tensor)]
            tensors = tuple(flat[i] for i in where)
            rec["sample_inputs"] = [[list(t.shape), str(t.dtype).replace("torch.", "")] for t in tensors]

            class Sample(torch.nn.Module):
                def forward(self, *xs):
                    vals = list(flat)
                    for i, x in zip(where, xs):
                        vals[i] = x
                    inp, args, kwargs = pytree.tree_unflatten(vals, spec)
                    out = op.op(inp, *args, **kwargs)
                    # torch.return_types (max with dim, sort, ...) do not serialize; their fields do.
                    return tuple(out) if isinstance(out, tuple) else out

            t0 = time.time()
            signal.alarm(timeout)
            try:
                ep = torch.export.export(Sample(), tensors, strict=False)
                torch.export.save(ep, os.path.join(out, name + ".pt2"))
                relative_in_place(os.path.join(out, name + ".pt2"))
                rec["nodes"] = sum(1 for n in ep.graph.nodes if n.op == "call_function")
            except _Timeout:
                rec["error"] = "export: timed out after %d s" % timeout
                _remove(os.path.join(out, name + ".pt2"))
            except BaseException as e:  # a sample that does not export is listed with its reason
                msg = (str(e).strip().splitlines() or [type(e).__name__])[0]
                rec["error"] = "export: %s: %s" % (type(e).__name__, msg[:200])
                _remove(os.path.join(out, name + ".pt2"))  # a save that failed half-way
            finally:
                signal.alarm(0)
            rec["seconds"] = round(time.time() - t0, 2)
            records.append(rec)
    return records


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--first", type=int, default=0, help="skip each op's first K samples")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--only", help="comma-separated op names (OpInfo names, e.g. nn.functional.mse_loss)")
    ap.add_argument("--names", help="a file of sample names: export only these")
    ap.add_argument("--reference", action="store_true", help="the ops' reference inputs that are not sample inputs")
    ap.add_argument("--list", action="store_true", help="print the OpInfos picked and their dtypes")
    ap.add_argument("--list-names", action="store_true",
                    help="print the name of every sample picked, exported or not, without exporting")
    a = ap.parse_args()
    db = _op_db()
    only = set(a.only.split(",")) if a.only else None
    names = None
    if a.names:
        with open(a.names) as f:
            names = {line.split("#")[0].strip() for line in f} - {""}
    wanted = {n.rsplit("__", 1)[0] for n in names} if names is not None else None
    picked = [i for i, op in enumerate(db) if (not only or op.name in only or family(op) in only) and dtypes_of(op)
              and (wanted is None or family(op) in wanted)]
    if a.list:
        for i in picked:
            print(family(db[i]), " ".join(str(d).replace("torch.", "") for d in dtypes_of(db[i])))
        return
    if a.list_names:
        with multiprocessing.get_context("spawn").Pool(a.jobs, maxtasksperchild=20) as pool:
            for found in pool.imap(sample_names, [(i, a.first, a.samples, a.reference) for i in picked]):
                for name in found:
                    if names is None or name in names:
                        print(name)
        return
    os.makedirs(a.out, exist_ok=True)
    tasks = [(i, a.out, a.first, a.samples, a.timeout, names, a.reference) for i in picked]
    n = failed = 0
    with open(os.path.join(a.out, "manifest.jsonl"), "w") as man, \
            multiprocessing.get_context("spawn").Pool(a.jobs, maxtasksperchild=20) as pool:
        for recs in pool.imap_unordered(export_op, tasks):
            for r in recs:
                man.write(json.dumps(r) + "\n")
                n += "error" not in r
                failed += "error" in r
            man.flush()
    print("export_opinfo: %d samples exported, %d not, from %d OpInfos -> %s" % (n, failed, len(picked), a.out))


if __name__ == "__main__":
    main()
