"""The strides a convolution of the measured corpora really reads on the GPU, where they are not
the ones its model recorded: data/sweeps/conv_runtime_strides.json.gz.

A .pt2 records export-time fake-tensor strides, and validate prints an op's arguments with them.
On the GPU a cuDNN convolution returns its output channels last when its input or weight is
(cudnn_conv_suggest_memory_format), where the export records a contiguous output, so a
convolution fed from there (through gelu, a norm, another convolution) reads a channels-last
input that its recorded arguments call NCHW. cuDNN chooses its engine, and ATen its layout
copies, from the strides it really gets. kernelcount's layout pass (passes/layout.h) derives those
run-time strides; this script asks it for every convolution of every corpus model and keeps the
ones that differ, so that fit_conv.py learns each measured convolution under the layout it ran
in, as the rules will see it.

    python3 research/sweeps/runtime_strides.py [--kernelcount build/kernelcount] [--check] [--corpus CORPUS...]

A corpus whose models are not here (torchscript_heldout's and torchscript_rest's traces are kept
out of the repository: their READMEs say how to make them again) keeps its entry from --out.

Output: {corpus: {model: {op index: [input strides, weight strides]}}}, either null where it is
the recorded one; only convolutions with a difference are listed. Standard library only.
"""
import argparse
import concurrent.futures
import gzip
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "generators"))
from corpus_ops import CORPORA, ROOT, models_of, models_present  # noqa: E402

OUT = os.path.join(ROOT, "data", "sweeps", "conv_runtime_strides.json.gz")
CORPUS_LIST = CORPORA + ["torchscript", "torchscript_heldout", "torchscript_rest"]
CONV_OPS = ("aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::_convolution")


def differing(kc, path, inputs):
    """{op index: [input strides, weight strides]} of a model's convolutions whose run-time strides
    differ from the recorded ones."""
    cmd = [kc, path, "--format", "json", "--no-measured"] + [a for spec in inputs for a in ("--input", spec)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"{path}: {run.stderr.strip().splitlines()[-1] if run.stderr.strip() else 'failed'}")
    out = {}
    for op in json.loads(run.stdout)["ops"]:
        if op["op"] not in CONV_OPS or len(op["inputs"]) < 2:
            continue
        rt = [t.get("runtime_strides") for t in op["inputs"][:2]]
        if any(rt):
            out[str(op["index"])] = rt
    return out


def collect(kc, corpora, kept):
    """The differing strides of the given corpora; every other corpus's, and one whose models are
    not here (the TorchScript sets' traces are kept out of the repository), as kept has them."""
    result = {}
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for corpus in CORPUS_LIST:
            if corpus not in corpora or not models_present(corpus):
                if corpus in corpora:
                    print(f"runtime_strides: {corpus}'s models are not here; its entry kept", file=sys.stderr)
                if corpus in kept:
                    result[corpus] = kept[corpus]
                continue
            jobs = {name: pool.submit(differing, kc, path, inputs) for name, path, inputs in models_of(corpus, tmp)}
            found = {name: job.result() for name, job in sorted(jobs.items())}
            result[corpus] = {name: ops for name, ops in found.items() if ops}
    return result


def encode(result):
    return gzip.compress(json.dumps(result, sort_keys=True, separators=(",", ":")).encode(), mtime=0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernelcount", default=os.path.join(ROOT, "build", "kernelcount"))
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", action="store_true", help="fail when --out differs from what kernelcount gives now")
    ap.add_argument("--corpus", nargs="+", choices=CORPUS_LIST, default=CORPUS_LIST,
                    help="only these corpora; the others' entries are kept from --out")
    a = ap.parse_args()
    kept = {}
    if os.path.exists(a.out):
        with gzip.open(a.out, "rt") as f:
            kept = json.load(f)
    result = collect(a.kernelcount, a.corpus, kept)
    data = encode(result)
    n = sum(len(ops) for models in result.values() for ops in models.values())
    summary = ", ".join(f"{c} {sum(len(o) for o in result[c].values())}" for c in CORPUS_LIST if c in result)
    if a.check:
        if not os.path.exists(a.out) or open(a.out, "rb").read() != data:
            sys.exit(f"runtime_strides: {os.path.relpath(a.out, ROOT)} is out of date; rerun research/sweeps/runtime_strides.py")
        print(f"runtime_strides: {n} convolutions, as recorded ({summary})")
        return
    with open(a.out, "wb") as f:
        f.write(data)
    print(f"runtime_strides: {n} convolutions read other strides than recorded ({summary}); "
          f"wrote {os.path.relpath(a.out, ROOT)}")


if __name__ == "__main__":
    main()
