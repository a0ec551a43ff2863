"""The measured model corpora as fit_conv.py and sweep.py's conv_replay read them: each corpus's
validate JSONs (validate/results/<corpus>/measured.tar.xz or its folder) and an op's arguments
parsed back from their `name=dtype[sizes]{strides}` and `name=[ints]` text. Standard library only
(sweep.py runs it on the GPU machine)."""
import json
import os
import re
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The corpora whose convolutions the trees learn from; a hold-out joins only after its first look.
CORPORA = ["broad", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "corpus"]
ARG = re.compile(r"^(\w+)=(\w+)\[([\d,]*)\](?:\{([\d,]*)\})?$")


def model_files(corpus):
    """(name, measured JSON) of one corpus, from its measured.tar.xz or its folder."""
    base = os.path.join(ROOT, "validate", "results", corpus)
    tgz = os.path.join(base, "measured.tar.xz")
    if os.path.exists(tgz):
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
