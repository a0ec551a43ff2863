"""Studies behind FINDINGS.md's sections on cuDNN's own heuristics (needs scikit-learn):

  engines  how far cuDNN's chosen engine (and its knobs) alone decides what a convolution
           launches: the share of measured convolutions whose outcome is the most frequent one
           of their (tree, engine) and (tree, engine, knobs) groups;
  curve    the shape-only trees' leave-one-family-out accuracy with a random share of the
           sweep shapes beside the models' (FRACTION ...), at the tree sizes fit_conv.py chose;
  gpu-gemm where the GPU itself took engine 58 (cuBLASLt's GEMM, never offered without a GPU)
           among the measured shapes, by kind, and whether its measured instances in the
           corpora had a layout transform, against the 1x1 instances of other engines;
  conv1x1  the random 1x1 convolutions of data/sweeps/conv1x1_random.jsonl.xz by their launches;
  gemm-tree whether the GEMM tree (passes/targets/h200/gemm_tree.inc, f32 without TF32) tells
           which of the broad corpus's f32 NCHW 1x1 convolutions that ran a GEMM split K;
  replay   the corpora's 1x1 convolutions replayed alone (data/sweeps/conv1x1_replay.jsonl.xz): how
           many launched what they launched in their model, and whether the ones that did not
           read other strides at run time than their model recorded (conv_runtime_strides.json.gz);
  bias     the random 1x1 convolutions with and without a bias (data/sweeps/conv1x1_random_bias.csv.xz):
           whether a bias changes the convolution's own launches.

    python3 research/sweeps/conv_studies.py engines
    python3 research/sweeps/conv_studies.py gpu-gemm
    python3 research/sweeps/conv_studies.py gemm-tree
    python3 research/sweeps/conv_studies.py conv1x1
    python3 research/sweeps/conv_studies.py replay
    python3 research/sweeps/conv_studies.py bias
    python3 research/sweeps/conv_studies.py curve 0.01 0.25 0.5 1
"""
import collections
import contextlib
import io
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "generators"))
import fit_conv as fc  # noqa: E402

SIZES = {"f32_nchw": 400, "f32_nhwc": 16, "half_nchw": 96, "half_nhwc": 8, "f32_ncdhw": 48, "f32_ndhwc": 8,
         "half_ncdhw": 48, "half_ndhwc": 16, "f32_grouped": 256, "half_grouped": 400}


def engines(rows):
    n = len(fc.FEATURES)
    for name, key in (("engine", lambda f: f[n]), ("engine and knobs", lambda f: tuple(f[n:n + 1 + len(fc.KNOBS)]))):
        groups = collections.defaultdict(collections.Counter)
        for tree, f, label, *_ in rows:
            groups[(tree, key(f))][label] += 1
        right = sum(c.most_common(1)[0][1] for c in groups.values())
        print(f"by (tree, {name}): {len(groups)} groups, the most frequent outcome is right for {right}/{len(rows)} "
              f"({100 * right / len(rows):.1f}%)")


def curve(sweep, measured, fractions):
    for frac in fractions:
        rng = random.Random(0)
        rows = [r for r in sweep if rng.random() < frac] + fc.distinct(measured)
        fitted = {n: fc.fit_only([r for r in rows if r[0] == n], n, SIZES[n], False)
                  for n, _ in fc.TREES if any(r[0] == n for r in rows)}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            fc.lofo(rows, measured, fitted, SIZES, False)
        print(f"sweep share {frac}: {out.getvalue().splitlines()[0]}")


def gpu_gemm():
    import json
    kinds = collections.defaultdict(lambda: [0, 0])
    for query, gpu in fc.gpu_engine.items():
        q = json.loads(query)
        if gpu < 0:
            continue
        one = all(k == 1 for k in q["w"][2:])
        kind = ("1x1 stride 1 unpadded ungrouped" if fc.gemm_shaped(q) else "other 1x1" if one else "not 1x1",
                q["dtype"], "channels last" if q["cl"] else "NCHW", f"{len(q['x']) - 2}-d")
        kinds[kind][0] += gpu == fc.GPU_GEMM_ENGINE
        kinds[kind][1] += 1
    for kind, (n58, n) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        print(f"{', '.join(kind)}: engine {fc.GPU_GEMM_ENGINE} for {n58}/{n} shapes")
    transforms = collections.defaultdict(lambda: [0, 0])
    for corpus in fc.CORPORA:
        for _, d in fc.model_files(corpus):
            for o in d.get("ops", []):
                if o.get("op") not in fc.CONV_OPS:
                    continue
                tensors, ints = fc.parse_args(o["args"])
                if "input" not in tensors or "weight" not in tensors:
                    continue
                dt, xs, xst = tensors["input"]
                _, ws, wst = tensors["weight"]
                sp = len(ws) - 2
                q = {"x": xs, "w": ws, "stride": fc.per_dim(ints.get("stride"), sp, 1),
                     "pad": fc.per_dim(ints.get("padding"), sp, 0)}
                if (ints.get("groups") or [1])[0] != 1 or len(xs) not in (4, 5) or not fc.gemm_shaped(q):
                    continue
                cl = fc.channels_last(xs, xst) or fc.channels_last(ws, wst)
                gpu = fc.gpu_engine.get(fc.engine_query(dt, xs, ws, cl, q["stride"], q["pad"], [1] * sp))
                names = " ".join(str(n) for n in o["measured"].get("kernel_names", []))
                t = transforms["engine 58" if gpu == fc.GPU_GEMM_ENGINE else "other engines"]
                t[0] += "nchwToNhwc" in names or "nhwcToNchw" in names
                t[1] += 1
    for what, (k, n) in sorted(transforms.items()):
        print(f"measured 1x1 instances, {what}: {k}/{n} with a layout transform")


def gemm_tree():
    import os
    import re

    import fit_gemm
    import numpy as np
    path = os.path.join(fc.ROOT, "passes", "targets", "h200", "gemm_tree.inc")
    nodes = [(int(m[1]), float(m[2]), int(m[3]), int(m[4]), int(m[5]))
             for m in re.finditer(r"\{(-?\d+), ([^,]+), (-?\d+), (-?\d+), (\d+), \d+, \d+\}", open(path).read())]

    def kernels(call):
        x = [float(np.float32(v)) for v in fit_gemm.features(*call)]
        i = 0
        while nodes[i][0] >= 0:
            i = nodes[i][2] if x[nodes[i][0]] <= nodes[i][1] else nodes[i][3]
        return nodes[i][4]
    table = collections.Counter()
    for _, d in fc.model_files("broad"):
        for o in d.get("ops", []):
            if o.get("op") != "aten::conv2d":
                continue
            tensors, ints = fc.parse_args(o["args"])
            if "input" not in tensors or "weight" not in tensors or (ints.get("groups") or [1])[0] != 1:
                continue
            dt, xs, xst = tensors["input"]
            _, ws, wst = tensors["weight"]
            q = {"x": xs, "w": ws, "stride": fc.per_dim(ints.get("stride"), 2, 1),
                 "pad": fc.per_dim(ints.get("padding"), 2, 0)}
            if dt != "float32" or not fc.gemm_shaped(q) or fc.channels_last(xs, wst) or fc.channels_last(xs, xst):
                continue
            names = " ".join(str(n) for n in o["measured"].get("kernel_names", []))
            if "gemm" not in names.lower() or "implicit" in names or "fprop" in names:
                continue  # not the GEMM engine
            n, c, h, w = xs
            split = kernels((0, 0, 0, 0, 1, 1, n * h * w, c, ws[0])) == 2
            table[("measured split-K" if "splitKreduce" in names else "measured without", split)] += 1
    for what in ("measured split-K", "measured without"):
        said, total = table[(what, True)], table[(what, True)] + table[(what, False)]
        print(f"f32 NCHW 1x1 convolutions run as a GEMM, {what}: {total}; the GEMM tree says split-K for {said}")


def conv1x1():
    import json
    import lzma
    counts = collections.Counter()
    with lzma.open(fc.CONV1X1_SWEEP, "rt") as f:
        for line in f:
            r = json.loads(line)
            if "kernels" in r:
                counts[(r["kernels"], r["memset"])] += 1
    for (k, m), n in counts.most_common():
        print(f"{k} kernels, {m} memsets: {n} convolutions")


def replay():
    import gzip
    import json
    import lzma
    import os
    results = os.path.join(fc.ROOT, "data", "sweeps")
    with gzip.open(fc.RUNTIME_STRIDES, "rt") as f:
        runtime = json.load(f)
    # (corpus, model, input sizes, weight sizes): whether such a convolution of the model reads
    # other strides at run time than recorded.
    diverges = collections.defaultdict(bool)
    for corpus in fc.CORPORA:
        for name, d in fc.model_files(corpus):
            differ = runtime.get(corpus, {}).get(name, {})
            for o in d.get("ops", []):
                tensors, _ = fc.parse_args(o.get("args", []))
                if "input" in tensors and "weight" in tensors:
                    key = (corpus, name, str(tensors["input"][1]), str(tensors["weight"][1]))
                    diverges[key] |= str(o["index"]) in differ
    same, bias_same, pairs = collections.Counter(), 0, collections.defaultdict(dict)
    with lzma.open(os.path.join(results, "conv1x1_replay.jsonl.xz"), "rt") as f:
        for line in f:
            r = json.loads(line)
            p = r["params"]
            got = [r["kernels"], r["memcpy"], r["memset"]]
            pairs[(json.dumps(r["inputs"][:2]), p["corpus"], p["model"])][p["bias"]] = got
            if p["bias"] != p["model_bias"]:
                continue
            key = (p["corpus"], p["model"], str(r["inputs"][0][0]), str(r["inputs"][1][0]))
            same[(got == p["measured"], diverges[key])] += 1
    for b in pairs.values():
        bias_same += b[True][0] - 1 == b[False][0] and b[True][2] == b[False][2]
    total = sum(same.values())
    print(f"{total} distinct 1x1 convolutions of the corpora replayed alone with their model's bias: "
          f"{same[(True, False)] + same[(True, True)]} launched what they launched in their model; of the "
          f"{same[(False, False)] + same[(False, True)]} that did not, {same[(False, True)]} read other strides at "
          f"run time than their model recorded (of those that did, {same[(True, True)]})")
    print(f"with the bias flipped: the convolution's own launches the same for {bias_same} of {len(pairs)}")


def bias():
    import json
    import lzma
    import os
    with lzma.open(fc.CONV1X1_SWEEP, "rt") as f:
        plain = [json.loads(line) for line in f]
    plain = [r for r in plain if "kernels" in r]
    with lzma.open(os.path.join(fc.ROOT, "data", "sweeps", "conv1x1_random_bias.csv.xz"), "rt") as f:
        biased = [[int(v) for v in line.split(",")] for line in f if not line.startswith("#")]
    assert len(biased) == len(plain), "conv1x1_random_bias.csv.xz has a line per convolution of conv1x1_random"
    same = sum(r["kernels"] == k - 1 and r["memcpy"] == c and r["memset"] == s for r, (k, c, s) in zip(plain, biased))
    print(f"{len(plain)} random 1x1 convolutions: with a bias, {same} launch their launches without it and one "
          f"kernel more (the bias add)")


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("engines", "curve", "gpu-gemm", "gemm-tree", "conv1x1", "replay",
                                                "bias"):
        sys.exit(__doc__)
    if sys.argv[1] == "conv1x1":
        return conv1x1()
    if sys.argv[1] == "bias":
        return bias()
    if sys.argv[1] == "replay":
        return replay()
    fc.load_engines()
    if sys.argv[1] == "gpu-gemm":
        return gpu_gemm()
    if sys.argv[1] == "gemm-tree":
        return gemm_tree()
    sweep, measured = fc.samples(fc.SWEEPS), fc.model_samples()
    if fc.PENDING:
        sys.exit("conv_studies: run fit_conv.py first (cuDNN's answers for every convolution)")
    if sys.argv[1] == "engines":
        engines(sweep + measured)
    else:
        curve(sweep, measured, [float(v) for v in sys.argv[2:]] or [0.01, 0.25, 0.5, 1])


if __name__ == "__main__":
    main()
