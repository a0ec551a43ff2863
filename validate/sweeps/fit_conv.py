"""Fits cuDNN's engine choice for ungrouped convolutions from the shape sweeps and the measured
corpora and writes it as decision trees for the launch rules
(passes/targets/h200/conv_engine_trees.inc).

Which engine cuDNN's heuristics pick for an ungrouped convolution (and so whether ATen's call
adds layout transforms, an output transform, a split-K reduction or a zeroed workspace) is
decided inside cuDNN by a learned heuristic, from the problem's shape. The sweeps measured it
over thousands of shapes; a decision tree over the same shape features per (dtype class,
layout) reproduces it for shapes between the measured ones. The label is what cuDNN launches
for the convolution itself (bias add and ATen's layout copies removed: the rules add those by
mechanism); the features are the ones the engine sees: kernel, stride, dilation, batch, input
height and width, channels in and out, output pixels, the implicit GEMM's M and K. Ungrouped 1-2 d
convolutions only: trees fitted on grouped and 3-d ones as well did worse out of sample than
the rules' buckets for those (see conv_sample).

Trained on the sweep configurations (families conv_dense, conv: conv1d and conv2d, groups = 1)
and on the convolutions measured in the model corpora (validate/results/: broad, fresh, fresh2,
fresh3, fresh4, corpus), one sample per distinct shape and family, where real models put their
shapes densely and the random sweep only sparsely. A hold-out measured later must not be added
here before its first look. Prints each tree's 5-fold cross-validated accuracy and, with --lofo,
the leave-one-family-out accuracy over the corpora's convolution instances: each family
predicted by trees fitted without it. Needs scikit-learn.

    python3 validate/sweeps/fit_conv.py [--out passes/targets/h200/conv_engine_trees.inc] [--check] [--lofo]
"""
import argparse
import collections
import gzip
import json
import math
import os
import re
import sys
import tarfile

import numpy as np
from sklearn.model_selection import KFold, cross_val_score
from sklearn.tree import DecisionTreeClassifier

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SWEEPS = os.path.join(ROOT, "validate", "sweeps", "results", "sweep.jsonl.gz")
OUT = os.path.join(ROOT, "passes", "targets", "h200", "conv_engine_trees.inc")
# Measured model corpora the trees learn from (validate/results/<set>/measured.tgz or *.json).
CORPORA = ["broad", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "corpus"]
# Feature order; passes/targets/h200/conv_engine.cc fills the same array.
# c_in_align and c_out_align: the largest of 1, 2, 4, 8 dividing the channel count (tensor-core
# kernels want multiples of 8; cuDNN pads others: sweep conv_align).
FEATURES = ["kernel", "stride", "dilation", "batch", "height", "width", "c_in", "c_out", "out_pixels", "gemm_m",
            "gemm_k", "c_in_align", "c_out_align"]
# (name, is_half, channels_last) -> most leaves: chosen by cross-validation (more leaves stop
# paying off beyond these).
TREES = [("f32_nchw", False, False, 96), ("f32_nhwc", False, True, 32), ("half_nchw", True, False, 64),
         ("half_nhwc", True, True, 32)]


def channels_last(sizes, strides):
    """c10's is_channels_last_strides_2d/3d: strides ordered C fastest, then W, H, (D), N."""
    n = len(sizes)
    if n not in (4, 5) or strides is None:
        return False
    order, mn = [1] + list(range(n - 1, 1, -1)) + [0], 0
    for d in order:
        if sizes[d] == 0 or strides[d] < mn:
            return False
        if d == 0 and mn == strides[1]:
            return False
        mn = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


def out_size(n, k, stride, pad, dil):
    return (n + 2 * pad - dil * (k - 1) - 1) // stride + 1


def per_dim(v, dims, fallback):
    if v is None:
        return [fallback] * dims
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return v * dims if len(v) == 1 else v


def conv_sample(dt, xs, xst, ws, wst, groups, stride, pad, dil, counts, bias, source):
    """One convolution as (is_half, channels_last, features, (kernels, memset), source), the
    kernels those of cuDNN's call alone; None for what the rules decide without a tree."""
    kernels, memcpy, memset = counts
    rank = len(xs)
    # Grouped and 3-d convolutions keep their rules: in a trial, trees fitted on them did worse
    # out of sample (each family left out) than the rules' buckets.
    if rank not in (3, 4) or len(ws) != rank or groups != 1 or memcpy:
        return None
    dims = rank - 2
    stride, pad, dil = per_dim(stride, dims, 1), per_dim(pad, dims, 0), per_dim(dil, dims, 1)
    if len(stride) != dims or len(pad) != dims or len(dil) != dims:
        return None
    kernels -= 1 if bias else 0
    if rank == 3:  # ATen views a 1-d convolution as a 2-d one with H = 1, after input.contiguous()
        kernels -= 0 if xst is None or xst == dense_strides(xs) else 1
        xs, ws, xst, wst = [xs[0], xs[1], 1, xs[2]], [ws[0], ws[1], 1, ws[2]], None, None
        stride, pad, dil = [1] + stride, [0] + pad, [1] + dil
    x_cl, w_cl = channels_last(xs, xst), channels_last(ws, wst)
    cl = x_cl or w_cl  # cudnn_conv_suggest_memory_format
    cin, cout = xs[1], ws[0]
    depthwise = groups > 1 and groups == cin and cout % cin == 0
    if cl:
        kernels -= (0 if x_cl else 1) + (0 if w_cl else 1)  # ATen's copies to channels last
        if depthwise and rank == 5 and dt == "float32" and cin < 256:
            return None  # the per-channel loop rule
    else:
        if depthwise:
            return None  # ATen's own depthwise kernel
        if xst is not None and xst != dense_strides(xs):
            kernels -= 1  # ATen's input.contiguous()
    if kernels < 1:
        return None
    out_pixels = (out_size(xs[2], ws[2], stride[0], pad[0], dil[0]) *
                  out_size(xs[3], ws[3], stride[1], pad[1], dil[1]))
    f = [max(ws[2], ws[3]), max(stride), max(dil), xs[0], xs[2], xs[3], cin, cout, out_pixels, xs[0] * out_pixels,
         cin * ws[2] * ws[3], math.gcd(cin, 8), math.gcd(cout, 8)]
    return (dt != "float32", cl, f, (kernels, memset), source)


def samples(path):
    """Every usable convolution of the sweeps."""
    out = []
    with gzip.open(path, "rt") as f:
        for line in f:
            if '"conv' not in line:
                continue
            d = json.loads(line)
            p = d.get("params", {})
            if d.get("family") not in ("conv_dense", "conv", "conv_align") or "error" in d or "kernels" not in d:
                continue
            if d["op"] not in ("conv1d", "conv2d"):
                continue
            (xs, xst, dt), (ws, wst, _) = d["inputs"][0], d["inputs"][1]
            groups = p.get("g", 1)
            k = ws[2:]
            pad = p.get("pad", [(v - 1) // 2 for v in k])
            bias = len(d["inputs"]) > 2 and isinstance(d["inputs"][2], list)
            s = conv_sample(dt, xs, xst, ws, wst, groups, p.get("stride", 1), pad, p.get("dil", 1),
                            (d["kernels"], d["memcpy"], d["memset"]), bias, "sweep")
            if s:
                out.append(s)
    return out


ARG = re.compile(r"^(\w+)=(\w+)\[([\d,]*)\](?:\{([\d,]*)\})?$")


def dense_strides(sizes):
    st, acc = [0] * len(sizes), 1
    for i in range(len(sizes) - 1, -1, -1):
        st[i], acc = acc, acc * sizes[i]
    return st


def model_files(corpus):
    """(name, measured JSON) of one corpus, from its .tgz or its folder."""
    base = os.path.join(ROOT, "validate", "results", corpus)
    tgz = os.path.join(base, "measured.tgz")
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


def model_samples():
    """Convolutions measured in real models, one per instance, with the model's family."""
    out = []
    for corpus in CORPORA:
        for name, d in model_files(corpus):
            family = name.split("__")[0] if "__" in name else re.sub(r"_(fp32|bf16)$", "", name)
            for o in d.get("ops", []):
                if o.get("op") not in ("aten::conv1d", "aten::conv2d"):
                    continue
                tensors, ints = {}, {}
                for a in o["args"]:
                    m = ARG.match(a)
                    if m:
                        tensors[m.group(1)] = (m.group(2), [int(v) for v in m.group(3).split(",") if v],
                                               [int(v) for v in m.group(4).split(",")] if m.group(4) else None)
                    elif "=" in a:
                        k, v = a.split("=", 1)
                        ints[k] = [int(x) for x in re.findall(r"-?\d+", v)] if v != "None" else None
                if "input" not in tensors or "weight" not in tensors:
                    continue
                dt, xs, xst = tensors["input"]
                _, ws, wst = tensors["weight"]
                meas = o["measured"]
                s = conv_sample(dt, xs, xst, ws, wst, (ints.get("groups") or [1])[0], ints.get("stride"),
                                ints.get("padding"), ints.get("dilation"),
                                (meas["kernels"], meas["memcpy"], meas["memset"]), "bias" in tensors, family)
                if s:
                    out.append(s)
    return out


def distinct(rows):
    """One sample per distinct (shape, source), with that shape's most frequent outcome."""
    by = collections.defaultdict(collections.Counter)
    for half, cl, f, label, src in rows:
        by[(half, cl, tuple(f), src)][label] += 1
    return [(k[0], k[1], list(k[2]), c.most_common(1)[0][0], k[3]) for k, c in by.items()]


def fit(rows, leaves):
    X = np.array([r[2] for r in rows], dtype=float)
    y = np.array([f"{r[3][0]}/{r[3][1]}" for r in rows])
    tree = DecisionTreeClassifier(max_leaf_nodes=leaves, min_samples_leaf=2, random_state=0)
    cv = cross_val_score(tree, X, y, cv=KFold(5, shuffle=True, random_state=0)).mean()
    tree.fit(X, y)
    return tree, cv, collections.Counter(y).most_common(1)[0][1] / len(y)


def emit(name, tree):
    t = tree.tree_
    lines = [f"const ConvTreeNode kConvTree_{name}[] = {{"]
    for i in range(t.node_count):
        if t.children_left[i] == -1:
            k, m = (int(v) for v in tree.classes_[int(np.argmax(t.value[i][0]))].split("/"))
            lines.append(f"    {{-1, 0, 0, 0, {k}, {m}}},")
        else:
            thr = float(t.threshold[i])
            lines.append(f"    {{{t.feature[i]}, {thr!r}, {t.children_left[i]}, {t.children_right[i]}, 0, 0}},"
                         f"  // {FEATURES[t.feature[i]]}")
    lines.append("};")
    return lines


def predict(tree, f):
    k, m = tree.predict(np.array([f], dtype=float))[0].split("/")
    return int(k), int(m)


def kind(f):
    """The convolution kinds the leave-one-family-out figure is broken down by."""
    return "1-d" if f[4] == 1 else "2-d"


def lofo(rows, measured):
    """Each model family's convolution instances, predicted by trees fitted without it."""
    families = sorted({r[4] for r in measured})
    tally = collections.defaultdict(lambda: [0, 0])
    worst = []
    for fam in families:
        train = [r for r in rows if r[4] != fam]
        trees = {}
        for name, half, cl, leaves in TREES:
            part = [r for r in train if r[0] == half and r[1] == cl]
            trees[(half, cl)] = fit_only(part, leaves)
        mine = [r for r in measured if r[4] == fam]
        ok = 0
        for r in mine:
            hit = predict(trees[(r[0], r[1])], r[2]) == r[3]
            ok += hit
            for k in ("all", kind(r[2])):
                tally[k][0] += hit
                tally[k][1] += 1
        worst.append((ok / len(mine), fam, ok, len(mine)))
    exact, total = tally["all"]
    print(f"leave-one-family-out: {exact}/{total} ungrouped convolution instances exact ({100 * exact / total:.1f}%) "
          f"over {len(families)} families; " + ", ".join(
              f"{k} {tally[k][0]}/{tally[k][1]} ({100 * tally[k][0] / tally[k][1]:.1f}%)"
              for k in ("2-d", "1-d") if tally[k][1]))
    print("families predicted worst:", ", ".join(f"{fam} {ok}/{n}" for _, fam, ok, n in sorted(worst)[:8]))


def fit_only(rows, leaves):
    X = np.array([r[2] for r in rows], dtype=float)
    y = np.array([f"{r[3][0]}/{r[3][1]}" for r in rows])
    return DecisionTreeClassifier(max_leaf_nodes=leaves, min_samples_leaf=2, random_state=0).fit(X, y)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sweeps", default=SWEEPS)
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", action="store_true", help="fail when --out differs from a fresh fit")
    ap.add_argument("--lofo", action="store_true", help="also the leave-one-family-out accuracy on the corpora")
    a = ap.parse_args()
    measured = model_samples()
    rows = samples(a.sweeps) + distinct(measured)
    print(f"fit_conv: {sum(r[4] == 'sweep' for r in rows)} sweep shapes, "
          f"{sum(r[4] != 'sweep' for r in rows)} distinct model shapes ({len(measured)} instances)")
    text = ["// Generated by validate/sweeps/fit_conv.py from validate/sweeps/results/sweep.jsonl.gz; do not edit.",
            "// cuDNN's engine choice for ungrouped convolutions as decision trees over the shape: each leaf",
            "// holds what the convolution itself launches (kernels, memsets), bias and layout copies excluded.",
            "// Nodes: {feature, threshold (go left when feature <= threshold), left, right, kernels, memset};",
            f"// features: {', '.join(FEATURES)}."]
    for name, half, cl, leaves in TREES:
        part = [r for r in rows if r[0] == half and r[1] == cl]
        tree, cv, majority = fit(part, leaves)
        summary = (f"{name}: {len(part)} shapes, {tree.get_n_leaves()} leaves, 5-fold cross-validated "
                   f"accuracy {100 * cv:.1f}% (most frequent outcome alone {100 * majority:.1f}%)")
        print(summary)
        text += ["", f"// {summary}"] + emit(name, tree)
    body = "\n".join(text) + "\n"
    if a.lofo:
        lofo(rows, measured)
    if a.check:
        if not os.path.exists(a.out) or open(a.out).read() != body:
            sys.exit(f"fit_conv: {a.out} is not what the sweeps give; rerun validate/sweeps/fit_conv.py")
        return
    with open(a.out, "w") as f:
        f.write(body)
    print(f"fit_conv: wrote {os.path.relpath(a.out, ROOT)}")


if __name__ == "__main__":
    main()
