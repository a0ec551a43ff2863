"""Fits cuDNN's engine choice for ungrouped convolutions from the shape sweeps and writes it as
decision trees for the launch rules (passes/targets/h200/conv_engine_trees.inc).

Which engine cuDNN's heuristics pick for an ungrouped convolution (and so whether ATen's call
adds layout transforms, an output transform, a split-K reduction or a zeroed workspace) is
decided inside cuDNN by a learned heuristic, from the problem's shape. The sweeps measured it
over thousands of shapes; a decision tree over the same shape features per (dtype class,
layout) reproduces it for shapes between the measured ones. The label is what cuDNN launches
for the convolution itself (bias add and ATen's layout copies removed: the rules add those by
mechanism); the features are the ones the engine sees: kernel, stride, dilation, batch, input
height and width, channels in and out, output pixels, the implicit GEMM's M and K.

Trained on the sweep configurations (families conv_dense, conv: conv2d and conv1d with groups
= 1) and on the ungrouped convolutions measured in the model corpora (validate/results/: broad,
fresh, fresh2, fresh3, corpus), one sample per distinct shape and family, where real models
put their shapes densely and the random sweep only sparsely. validate/results/fresh4 is never
read: it is the hold-out. Prints each tree's 5-fold cross-validated accuracy and, with --lofo,
the leave-one-family-out accuracy over the corpora's convolution instances: each family
predicted by trees fitted without it. Needs scikit-learn.

    python3 validate/sweeps/fit_conv.py [--out passes/targets/h200/conv_engine_trees.inc] [--check] [--lofo]
"""
import argparse
import collections
import gzip
import json
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
CORPORA = ["broad", "fresh", "fresh2", "fresh3", "corpus"]
# Feature order; passes/targets/h200/conv_engine.cc fills the same array.
FEATURES = ["kernel", "stride", "dilation", "batch", "height", "width", "c_in", "c_out", "out_pixels", "gemm_m",
            "gemm_k"]
# (name, is_half, channels_last) -> most leaves: chosen by cross-validation (more leaves stop
# paying off beyond these).
TREES = [("f32_nchw", False, False, 96), ("f32_nhwc", False, True, 32), ("half_nchw", True, False, 64),
         ("half_nhwc", True, True, 32)]


def channels_last(sizes, strides):
    """c10's is_channels_last_strides_2d for the 4-d case the sweeps record."""
    if len(sizes) != 4:
        return False
    order, mn = [1, 3, 2, 0], 0
    for d in order:
        if sizes[d] == 0 or strides[d] < mn:
            return False
        if d == 0 and mn == strides[1]:
            return False
        mn = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


def out_size(n, k, stride, pad, dil):
    return (n + 2 * pad - dil * (k - 1) - 1) // stride + 1


def features(x, w, stride, pad, dil):
    oh = out_size(x[2], w[2], stride, pad if w[2] > 1 else 0, dil)
    ow = out_size(x[3], w[3], stride, pad, dil)
    return [max(w[2], w[3]), stride, dil, x[0], x[2], x[3], x[1], w[0], oh * ow, x[0] * oh * ow, x[1] * w[2] * w[3]]


def samples(path):
    """(is_half, channels_last, features, (kernels, memset)) per usable sweep record."""
    out = []
    with gzip.open(path, "rt") as f:
        for line in f:
            if '"conv' not in line:
                continue
            d = json.loads(line)
            p = d.get("params", {})
            if d.get("family") not in ("conv_dense", "conv") or "error" in d or "kernels" not in d:
                continue
            if d["op"] not in ("conv2d", "conv1d") or p.get("g", 1) != 1:
                continue
            (xs, xst, dt), (ws, wst, _) = d["inputs"][0], d["inputs"][1]
            if d["op"] == "conv1d":  # ATen views a 1-d convolution as a 2-d one with H = 1
                xs, ws, xst, wst = [xs[0], xs[1], 1, xs[2]], [ws[0], ws[1], 1, ws[2]], None, None
            x_cl = xst is not None and channels_last(xs, xst)
            w_cl = wst is not None and channels_last(ws, wst)
            cl = x_cl or w_cl  # cudnn_conv_suggest_memory_format
            kernels = d["kernels"]
            kernels -= 1 if len(d["inputs"]) > 2 and isinstance(d["inputs"][2], list) else 0  # the bias add
            kernels -= 1 if cl and not w_cl else 0                    # ATen's weight copy to channels last
            kernels -= 1 if cl and not x_cl else 0                    # ATen's input copy to channels last
            if d["memcpy"] or kernels < 1:
                continue
            pad = p.get("pad", 0)
            out.append((dt != "float32", cl, features(xs, ws, p.get("stride", 1), pad, p.get("dil", 1)),
                        (kernels, d["memset"]), "sweep"))
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
    """Ungrouped 1-2 d convolutions measured in real models, one per instance, with the family."""
    out = []
    for corpus in CORPORA:
        for name, d in model_files(corpus):
            family = name.split("__")[0] if "__" in name else re.sub(r"_(fp32|bf16)$", "", name)
            for o in d.get("ops", []):
                if o.get("op") not in ("aten::conv2d", "aten::conv1d"):
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
                if "input" not in tensors or "weight" not in tensors or (ints.get("groups") or [1])[0] != 1:
                    continue
                dt, xs, xst = tensors["input"]
                _, ws, wst = tensors["weight"]
                one_d = len(xs) == 3
                if one_d:
                    if xst is not None:  # the 1-d input's contiguous() copy: not the engine's
                        continue
                    xs, ws, xst, wst = [xs[0], xs[1], 1, xs[2]], [ws[0], ws[1], 1, ws[2]], None, None
                if len(xs) != 4 or len(ws) != 4:
                    continue
                x_cl = xst is not None and channels_last(xs, xst)
                w_cl = wst is not None and channels_last(ws, wst)
                if (xst is not None and not x_cl) or (wst is not None and not w_cl):
                    continue  # sliced operands: ATen's copies first
                cl = x_cl or w_cl
                stride = (ints.get("stride") or [1])[-1]
                pad = (ints.get("padding") or [0])[-1]
                dil = (ints.get("dilation") or [1])[-1]
                meas = o["measured"]
                kernels = meas["kernels"] - (1 if "bias" in tensors else 0)
                kernels -= (1 if cl and not x_cl else 0) + (1 if cl and not w_cl else 0)
                if meas["memcpy"] or kernels < 1:
                    continue
                half = dt != "float32"
                pads = (ints.get("padding") or [0, 0])
                f = features(xs, ws, stride, pad, dil)
                if not one_d and len(pads) == 2:  # the output pixels with each dim's padding
                    f[8] = (out_size(xs[2], ws[2], stride, pads[0], dil) * out_size(xs[3], ws[3], stride, pads[1], dil))
                    f[9] = xs[0] * f[8]
                out.append((half, cl, f, (kernels, meas["memset"]), family))
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


def lofo(rows, measured):
    """Each model family's convolution instances, predicted by trees fitted without it."""
    families = sorted({r[4] for r in measured})
    exact = total = 0
    worst = []
    for fam in families:
        train = [r for r in rows if r[4] != fam]
        trees = {}
        for name, half, cl, leaves in TREES:
            part = [r for r in train if r[0] == half and r[1] == cl]
            trees[(half, cl)] = fit_only(part, leaves)
        mine = [r for r in measured if r[4] == fam]
        ok = sum(predict(trees[(r[0], r[1])], r[2]) == r[3] for r in mine)
        exact, total = exact + ok, total + len(mine)
        worst.append((ok / len(mine), fam, ok, len(mine)))
    print(f"leave-one-family-out: {exact}/{total} ungrouped convolution instances exact "
          f"({100 * exact / total:.1f}%) over {len(families)} families")
    for rate, fam, ok, n in sorted(worst)[:10]:
        print(f"  {fam}: {ok}/{n}")


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
    print(f"fit_conv: wrote {a.out}")


if __name__ == "__main__":
    main()
