#!/usr/bin/env python3
"""Fits what a transposed convolution launches on the H200 (cuDNN's data-gradient engines) from
the convt_decoder sweep: a small decision tree (CART, Gini, standard library only) over the
problem's shape, predicting the launch pattern without the bias add (which ATen adds as one
elementwise kernel whenever there is a bias). Patterns: cuDNN's NHWC implicit GEMM (input and
weight transformed to NHWC, the dgrad kernel, the output transformed back: 4 kernels, with 0-2
zeroed workspaces), its NCHW-native kernels (1-2), or one GEMM for a 1x1 stride-1 problem.

Prints the held-out accuracy (every fifth configuration left out of the fit), then the tree
fitted on all configurations as C++ for passes/torch2_11/conv.cc (--cpp).
  python3 generators/fit_convt.py SWEEP.jsonl.gz [--depth 6] [--cpp]
"""
import argparse
import collections
import gzip
import json
import math

FEATURES = ("half", "dims", "k", "stride", "cin", "cout", "aligned8", "log2_in_px", "log2_out_px", "batch")


def features(p):
    out_px = p["batch"] * (p["hw"] * p["stride"]) ** p["dims"]
    in_px = p["batch"] * p["hw"] ** p["dims"]
    return {"half": int(p["dtype"] != "f32"), "dims": p["dims"], "k": p["k"], "stride": p["stride"],
            "cin": p["cin"], "cout": p["cout"], "aligned8": int(p["cin"] % 8 == 0 and p["cout"] % 8 == 0),
            "log2_in_px": round(math.log2(in_px), 3), "log2_out_px": round(math.log2(out_px), 3),
            "batch": p["batch"]}


def label(r):
    """(kernels without the bias add, memsets)."""
    names = [n for n, c in r["kernel_names"] for _ in range(c)]
    bias = sum(1 for n in names if "elementwise_kernel" in n)
    return (r["kernels"] - bias, r["memset"])


def load(path):
    rows = []
    with gzip.open(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r.get("family") != "convt_decoder" or "error" in r or "kernels" not in r:
                continue
            rows.append((features(r["params"]), label(r)))
    return rows


def gini(labels):
    n = len(labels)
    return 1.0 - sum((c / n) ** 2 for c in collections.Counter(labels).values()) if n else 0.0


def fit(rows, depth, min_leaf=8):
    labels = [y for _, y in rows]
    majority = collections.Counter(labels).most_common(1)[0][0]
    if depth == 0 or len(set(labels)) == 1 or len(rows) < 2 * min_leaf:
        return {"leaf": majority, "n": len(rows)}
    best = None
    base = gini(labels)
    for f in FEATURES:
        values = sorted({x[f] for x, _ in rows})
        for a, b in zip(values, values[1:]):
            t = (a + b) / 2
            left = [y for x, y in rows if x[f] <= t]
            right = [y for x, y in rows if x[f] > t]
            if len(left) < min_leaf or len(right) < min_leaf:
                continue
            gain = base - (len(left) * gini(left) + len(right) * gini(right)) / len(rows)
            if best is None or gain > best[0] + 1e-12:
                best = (gain, f, t)
    if best is None or best[0] <= 1e-9:
        return {"leaf": majority, "n": len(rows)}
    _, f, t = best
    return {"f": f, "t": t, "le": fit([r for r in rows if r[0][f] <= t], depth - 1, min_leaf),
            "gt": fit([r for r in rows if r[0][f] > t], depth - 1, min_leaf)}


def collapse(node):
    """The same tree with every split whose two sides answer alike replaced by that answer."""
    if "leaf" in node:
        return node
    le, gt = collapse(node["le"]), collapse(node["gt"])
    if "leaf" in le and "leaf" in gt and le["leaf"] == gt["leaf"]:
        return {"leaf": le["leaf"], "n": le["n"] + gt["n"]}
    return dict(node, le=le, gt=gt)


def predict(node, x):
    while "leaf" not in node:
        node = node["le"] if x[node["f"]] <= node["t"] else node["gt"]
    return node["leaf"]


def cpp(node, indent="  "):
    if "leaf" in node:
        k, m = node["leaf"]
        return f"{indent}return {{{k}, 0, {m}, 0}};  // {node['n']} configurations\n"
    return (f"{indent}if (x.{node['f']} <= {node['t']:g}) {{\n" + cpp(node["le"], indent + "  ") +
            f"{indent}}}\n" + cpp(node["gt"], indent))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep")
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--cpp", action="store_true")
    a = ap.parse_args()
    rows = load(a.sweep)
    train = [r for i, r in enumerate(rows) if i % 5]
    test = [r for i, r in enumerate(rows) if not i % 5]
    tree = fit(train, a.depth)
    ok = sum(predict(tree, x) == y for x, y in test)
    print(f"fit_convt: {len(rows)} configurations; fitted on {len(train)}, "
          f"held-out fifth exact {ok}/{len(test)} ({100.0 * ok / len(test):.1f}%)")
    tree = collapse(fit(rows, a.depth))
    ok = sum(predict(tree, x) == y for x, y in rows)
    print(f"fit_convt: fitted on all: {ok}/{len(rows)} ({100.0 * ok / len(rows):.1f}%) of the configurations it saw")
    if a.cpp:
        print(cpp(tree))


if __name__ == "__main__":
    main()
