"""The measured model corpora as fit_conv.py and sweep.py's conv_replay read them: each corpus's
validate JSONs (data/results/<corpus>/measured.tar.xz or its folder) and an op's arguments
parsed back from their `name=dtype[sizes]{strides}` and `name=[ints]` text. The truth of a set
measured as its real run alone (torchscript_heldout, torchscript_rest: data/truth_from_reports.sh)
holds no arguments: its ops are kernelcount's own, so report_args takes them from kernelcount's
report of each model, in the same text. Standard library only (sweep.py runs it on the GPU machine)."""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The corpora whose convolutions the trees learn from; a hold-out joins only after its first look.
CORPORA = ["broad", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "corpus"]
# Where each corpus's models are, where not data/corpus/<corpus> (a TorchScript archive comes
# with a manifest of --input specs beside it).
MODELS = {"corpus": "data/corpus/models", "torchscript": "data/corpus/torchscript/models.tar.xz",
          "torchscript_heldout": "data/corpus/torchscript_heldout/models.tar.xz",
          "torchscript_rest": "data/corpus/torchscript_rest/models.tar.xz"}
ARG = re.compile(r"^(\w+)=(\w+)\[([\d,]*)\](?:\{([\d,]*)\})?$")


# A commit whose measured.tar.xz to read instead of the working tree's, for every corpus that has one
# there (fit_conv.py --truth-at); None: the working tree's.
TRUTH_AT = [None]


def truth_at(corpus):
    """The corpus's measured.tar.xz as of TRUTH_AT (bytes), or None where it is not there."""
    if TRUTH_AT[0] is None:
        return None
    if subprocess.run(["git", "-C", ROOT, "cat-file", "-e", f"{TRUTH_AT[0]}^{{commit}}"]).returncode:
        sys.exit(f"corpus_ops: commit {TRUTH_AT[0]} is not in this clone's history (its truth is read from there)")
    # A commit from before data/ was split out of validate/ keeps the results under validate/results.
    for folder in ("data/results", "validate/results"):
        run = subprocess.run(["git", "-C", ROOT, "show", f"{TRUTH_AT[0]}:{folder}/{corpus}/measured.tar.xz"],
                             capture_output=True)
        if run.returncode == 0:
            return run.stdout
    return None


def model_files(corpus):
    """(name, measured JSON) of one corpus, from its measured.tar.xz (as of TRUTH_AT where set and
    there) or its folder."""
    base = os.path.join(ROOT, "data", "results", corpus)
    tgz = os.path.join(base, "measured.tar.xz")
    pinned = truth_at(corpus)
    if pinned is not None:
        import io
        with tarfile.open(fileobj=io.BytesIO(pinned)) as t:
            for m in t.getmembers():
                if m.name.endswith(".json"):
                    yield os.path.basename(m.name)[:-5], json.load(t.extractfile(m))
    elif os.path.exists(tgz):
        with tarfile.open(tgz) as t:
            for m in t.getmembers():
                if m.name.endswith(".json"):
                    yield os.path.basename(m.name)[:-5], json.load(t.extractfile(m))
    elif os.path.isdir(base):
        for f in sorted(os.listdir(base)):
            if f.endswith(".json"):
                with open(os.path.join(base, f)) as fh:
                    d = json.load(fh)
                if isinstance(d, dict) and "ops" in d:
                    yield f[:-5], d


def parse_args(args):
    """An op's recorded arguments as ({name: (dtype, sizes, strides or None)}, {name: ints or None})."""
    tensors, ints = {}, {}
    for a in args:
        m = ARG.match(a)
        if m:
            tensors[m.group(1)] = (m.group(2), [int(v) for v in m.group(3).split(",") if v],
                                   [int(v) for v in m.group(4).split(",")] if m.group(4) else None)
        elif "=" in a:
            k, v = a.split("=", 1)
            ints[k] = [int(x) for x in re.findall(r"-?\d+", v)] if v != "None" else None
    return tensors, ints


def models_present(corpus):
    return os.path.exists(os.path.join(ROOT, MODELS.get(corpus, f"data/corpus/{corpus}")))


def models_of(corpus, tmp):
    """(name, model path, --input specs) of each measured model of a corpus (an archive is unpacked
    under tmp)."""
    where = os.path.join(ROOT, MODELS.get(corpus, f"data/corpus/{corpus}"))
    inputs = {}
    if where.endswith(".tar.xz"):
        with tarfile.open(where) as t:
            t.extractall(os.path.join(tmp, corpus), filter="data")
        manifest = os.path.join(os.path.dirname(where), "manifest.jsonl")
        for line in open(manifest):
            if line.strip():
                r = json.loads(line)
                inputs[r["name"]] = r.get("inputs", [])
        where = os.path.join(tmp, corpus)
        subs = [os.path.join(where, d) for d in os.listdir(where) if os.path.isdir(os.path.join(where, d))]
        where = subs[0] if len(subs) == 1 else where
    out = []
    for name, _ in model_files(corpus):
        for ext in (".pt2", ".pt"):
            path = os.path.join(where, name + ext)
            if os.path.exists(path):
                out.append((name, path, inputs.get(name, [])))
                break
        else:
            sys.exit(f"corpus_ops: no model file for {corpus}/{name} in {os.path.relpath(where, ROOT)}")
    return out


def report(kc, path, inputs):
    """kernelcount's JSON report of a model (the rules alone)."""
    cmd = [kc, path, "--format", "json", "--no-measured"] + [a for spec in inputs for a in ("--input", spec)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"{path}: {run.stderr.strip().splitlines()[-1] if run.stderr.strip() else 'failed'}")
    return json.loads(run.stdout)


def dense(sizes):
    st, acc = [0] * len(sizes), 1
    for i in range(len(sizes) - 1, -1, -1):
        st[i], acc = acc, acc * sizes[i]
    return st


def arg_text(arg, tensors):
    """One argument of a report's op as validate prints it: `name=dtype[sizes]` with `{strides}`
    where they are not row-major dense, `name=[ints]`, `name=value`."""
    name = arg["name"]
    if "tensor" in arg:
        t = tensors.get(arg["tensor"])
        if t is None or "shape" not in t:
            return f"{name}=?"
        sizes = t["shape"]
        strides = t.get("strides")
        text = f"{name}={t['dtype']}[{','.join(map(str, sizes))}]"
        return text + (f"{{{','.join(map(str, strides))}}}" if strides is not None and strides != dense(sizes) else "")
    v = arg.get("value")
    if isinstance(v, list):
        return f"{name}=[{','.join(str(x) for x in v)}]"
    return f"{name}={v}"  # None, True, False, numbers as Python prints them


def report_ops(report_json, wanted):
    """{op index: (argument texts, [input, weight] run-time strides)} of a report's ops named in wanted."""
    out = {}
    for op in report_json["ops"]:
        if op["op"] not in wanted:
            continue
        tensors = {t["name"]: t for t in op.get("inputs", [])}
        out[op["index"]] = (op["op"], [arg_text(a, tensors) for a in op.get("args", [])],
                            [t.get("runtime_strides") for t in op.get("inputs", [])[:2]])
    return out


def report_args(corpus, kc, tmp, wanted):
    """{model: {op index: (op, argument texts, run-time strides)}} for a corpus whose truth holds no
    arguments, from kernelcount's report of each model (its ops are the truth's, index for index)."""
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        jobs = {name: pool.submit(report, kc, path, inputs) for name, path, inputs in models_of(corpus, tmp)}
        return {name: report_ops(job.result(), wanted) for name, job in sorted(jobs.items())}
