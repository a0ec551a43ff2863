"""Fits cuDNN's engine choice for convolutions from the shape sweeps and the measured corpora and
writes it as decision trees for the launch rules (the target's conv_engine_trees.inc, in
passes/targets/<folder>/).

Which engine cuDNN's heuristics pick for a convolution (and so whether ATen's call adds layout
transforms, an output transform, a split-K reduction or a zeroed workspace, and whether cuDNN
loops over the groups of a grouped one) is decided inside cuDNN by a learned heuristic, from the
problem's shape. The sweeps measured it over thousands of shapes; a decision tree over the same
shape features per problem kind reproduces it for shapes between the measured ones. The label is
what cuDNN launches for the convolution itself (bias add and ATen's layout copies removed: the
rules add those by mechanism); for a grouped convolution it is either one call (kernels,
memsets) or a loop over the groups (kernels and memsets a group). The features are the ones the
engine sees: kernel, stride, dilation, batch, input height and width, channels in and out (per
group), output pixels, the implicit GEMM's M and K, channel alignment, groups, and for 3-d
convolutions depth, temporal kernel and stride. Trees per kind: ungrouped 1-2 d and 3-d, each by
dtype class and layout; grouped NCHW 1-2 d by dtype class (grouped channels-last and depthwise
convolutions keep the rules' buckets; grouped 3-d ones, which no sweep or corpus holds, are left
out here and get the grouped trees' answer in the rules).

Trained on the sweep configurations (conv, conv_dense, conv_align, conv3d_dense, gconv,
gconv_wide, gconv_model, gconv_dense; gconv_dense2 and conv3d_dense2 are second draws held out of
the fit, on which check_rules.py measures the trees) and on the convolutions measured in the model corpora (data/results/:
broad, fresh, fresh2-6, corpus), one sample per distinct shape and family, where real models put
their shapes densely and the random sweeps only sparsely, and on the convolutions the compiled
programs of data/results/compiled called (research/accuracy/compiled_convs.py: Inductor runs most
of them channels last, which eager models rarely do; --no-compiled leaves them out). A model's convolution is taken with the
strides it read on the GPU, which differ from its recorded ones where a cuDNN output ran channels
last (data/sweeps/conv_runtime_strides.json.gz, from kernelcount's layout pass by runtime_strides.py). A hold-out measured later must not be
added here before its first look. Each tree's size is chosen by 5-fold cross-validation over
model families (LEAF_CHOICES); the leave-one-family-out figure below reuses those sizes, so one
size per tree was chosen with every family in view. Prints each tree's 5-fold cross-validated
accuracy over shapes and, with
--lofo, the leave-one-family-out accuracy over the corpora's convolution instances: each family
predicted by trees fitted without it. Needs scikit-learn (the committed trees and conv_lofo.json.gz
were last made with scikit-learn 1.9.1, NumPy 2.4.6, SciPy 1.17.1 on Python 3.11; another version
may split ties differently, which --check shows).

--lofo-extra names corpora whose convolutions are predicted, family by family, by trees fitted
without that family (its .pt2 convolutions in the other corpora left out too: a family is the
name before "__"), and never learned from: the TorchScript sets (torchscript, torchscript_heldout,
torchscript_rest), whose architectures are the broad corpus's. The truth of torchscript_heldout and
torchscript_rest (their real runs aligned to kernelcount's own ops, data/truth_from_reports.sh)
holds no arguments, so their convolutions' arguments are read from kernelcount's report of each
trace (--kernelcount; the traces, data/corpus/<set>/models.tar.xz, are kept out of the
repository: their READMEs say how to make them again).

The committed trees learned from the corpora's truth as of commit 2f63c3d (TREES_TRUTH: the
replay's counts, before each set's measured.tar.xz became the real run), and the fit reads each
corpus's measured.tar.xz from that commit where it has one (--truth-at, its default; `git show`,
so a clone needs that history); --truth-at none fits on the working tree's truth, which changes
the trees.

Every tree is fitted twice: on the shape features alone (kConvTree_*, what the rules use where
cuDNN cannot be loaded), and on those and the engine configuration cuDNN 9.19's own heuristics
choose for the H200 (kConvTreeCudnn_*; ENGINE_FEATURES below), with whether cuDNN on the GPU
itself would run the convolution as a cuBLASLt GEMM instead (gpu_gemm: an engine cuDNN cannot
offer without a GPU, decided by a classifier fitted on the GPU's own answers). cuDNN's answers for every
convolution are kept in data/sweeps/cudnn_engines.jsonl.gz; shapes not in it are put to
build/validate/kernelcount-cudnn-engines first, which needs a loadable cuDNN 9.19.

    python3 generators/fit_conv.py [--target FOLDER] [--sweeps JSONL.GZ] [--check] [--no-compiled] [--lofo [--lofo-extra CORPUS...]
        [--lofo-out generators/conv_lofo.json.gz] [--kernelcount build/kernelcount]]

as the repository's figures are made (add torchscript_heldout torchscript_rest to --lofo-extra where
their traces are: data/corpus/<set>/README.md):

    python3 generators/fit_conv.py --lofo --lofo-extra torchscript --lofo-out generators/conv_lofo.json.gz \
        > generators/fit_conv.txt
"""
import argparse
import collections
import gzip
import lzma
import json
import math
import os
import re
import sys
import tempfile

import numpy as np
from sklearn.model_selection import KFold, cross_val_score
from sklearn.tree import DecisionTreeClassifier

from corpus_ops import CORPORA, ROOT, TRUTH_AT, model_files, parse_args, report_args

sys.path.insert(0, os.path.join(ROOT, "scripts"))
import targets  # noqa: E402

SWEEPS = os.path.join(ROOT, "data", "sweeps", "sweep.jsonl.gz")
# Feature order; passes/torch2_11/conv_engine.cc fills the same array. For a grouped
# convolution c_in, c_out and gemm_k are one group's. c_in_align and c_out_align: the largest of
# 1, 2, 4, 8 dividing the channel count (tensor-core kernels want multiples of 8; cuDNN pads
# others: sweep conv_align). depth, kernel_t and stride_t are 1 for a 1-2 d convolution.
FEATURES = ["kernel", "stride", "dilation", "batch", "height", "width", "c_in", "c_out", "out_pixels", "gemm_m",
            "gemm_k", "c_in_align", "c_out_align", "groups", "depth", "kernel_t", "stride_t", "one_d"]
# The ungrouped 1-2 d trees read the first 13 features only (fitted before the others existed;
# the added ones are constant for them).
UNGROUPED_2D_FEATURES = 13
# What cuDNN 9.19's own heuristics choose for the convolution on an H200, asked without a GPU
# (kernelcount-cudnn-engines, passes/torch2_11/cudnn_heuristics.h): the engine, its knobs
# (cudnnBackendKnobType_t values; -9 where the engine has none), the plan's workspace and the
# next engine in the ranking; -1 throughout where no configuration builds. A second set of trees
# reads them after the shape features; the rules use it where cuDNN can be loaded.
KNOBS = (2, 3, 5, 6, 13, 14, 18, 22, 23, 25, 27, 28)
# gpu_gemm: whether cuDNN on the GPU itself would take engine 58 (a GEMM through cuBLASLt) for a
# 1x1 convolution at stride 1 without padding. Asked without a GPU, cuDNN never offers that engine
# (cuBLASLt cannot rank it without a device), though on the H200 it wins for about nine in ten
# such shapes (validate/device_cudnn.sh check; the GPU's engine is each ENGINES line's "gpu"). A
# classifier tree decides it (kGpuGemmEngineTree), fitted on the GPU's answers for GPU_SWEEP's
# random 1x1 convolutions (device_cudnn.sh sweep), none of them a measured model's. Its features:
# the shape's but one_d, half precision, channels last, then cuDNN's answer without a GPU (the
# best other engine, which engine 58 has to beat).
ENGINE_FEATURES = ["engine"] + [f"knob{k}" for k in KNOBS] + ["log2_workspace", "next_engine", "gpu_gemm"]
GPU_SWEEP = os.path.join(ROOT, "data", "sweeps", "cudnn_gpu_pointwise.csv.gz")
GPU_GEMM_ENGINE = 58
GPU_GEMM_FEATURES = 17
GPU_GEMM_LEAVES = 1000
ENGINES = os.path.join(ROOT, "data", "sweeps", "cudnn_engines.jsonl.gz")
# The run-time strides of the corpora's convolutions where they differ from the recorded ones
# (runtime_strides.py: a convolution fed from a channels-last cuDNN output).
RUNTIME_STRIDES = os.path.join(ROOT, "data", "sweeps", "conv_runtime_strides.json.gz")
ENGINE_TOOL = os.path.join(ROOT, "build", "validate", "kernelcount-cudnn-engines")
# Engine answers by query (a JSON text), from ENGINES; queries not in it are collected in
# PENDING and answered by ENGINE_TOOL before the fit.
engine_cache, PENDING = {}, set()
# The engine cuDNN took for the query on the H200 itself, where validate/device_cudnn.sh check asked.
gpu_engine = {}


def engine_query(dt, xs, ws, cl, stride, pad, dil):
    """The convolution as ATen hands it to cuDNN (both tensors dense in the suggested layout)."""
    return json.dumps({"dtype": dt, "x": xs, "w": ws, "cl": bool(cl), "pad": pad, "stride": stride, "dil": dil},
                      separators=(",", ":"))


def answer_features(e):
    """cuDNN's answer without a GPU as features: engine, knobs, log2 workspace, next engine."""
    if "error" in e:
        return [-1] * (len(ENGINE_FEATURES) - 1)
    return [e["engine"]] + e["knobs"] + [math.log2(e["workspace"] + 1), e["next_engine"]]


def engine_features(query, shape):
    e = engine_cache.get(query)
    if e is None:
        PENDING.add(query)
        return [-2] * len(ENGINE_FEATURES)
    if "error" in e:
        return [-1] * len(ENGINE_FEATURES)
    answer = answer_features(e)
    return answer + [gpu_gemm(query, shape, answer)]


def gemm_shaped(q):
    """A convolution cuDNN can run as one GEMM on a GPU: 1x1, stride 1, no padding, ungrouped."""
    return (all(k == 1 for k in q["w"][2:]) and all(v == 1 for v in q["stride"]) and not any(q["pad"])
            and q["w"][1] == q["x"][1])


def gpu_gemm_features(q, shape, answer):
    return shape[:GPU_GEMM_FEATURES] + [int(q["dtype"] != "float32"), int(q["cl"])] + answer


gpu_gemm_tree = []  # the fitted classifier, once
gpu_gemm_answers = {}  # its answer by query: the corpora repeat shapes many times


def gpu_gemm(query, shape, answer):
    """1 where cuDNN on the H200 would run the convolution as a cuBLASLt GEMM (engine 58)."""
    if query in gpu_gemm_answers:
        return gpu_gemm_answers[query]
    q = json.loads(query)
    picks = 0
    if gemm_shaped(q):
        if not gpu_gemm_tree:
            gpu_gemm_tree.append(fit_gpu_gemm())
        picks = int(walk(gpu_gemm_tree[0], gpu_gemm_features(q, shape, answer)))
    gpu_gemm_answers[query] = picks
    return picks


def walk(model, x):
    """model.predict for one row without its per-call overhead: the same float32 comparisons."""
    t = model.tree_
    i = 0
    while t.children_left[i] != -1:
        i = t.children_left[i] if float(np.float32(x[t.feature[i]])) <= t.threshold[i] else t.children_right[i]
    return model.classes_[int(np.argmax(t.value[i][0]))]


def query_shape(q):
    """The shape features of a cuDNN query (an ungrouped 1x1 one; a 1-d convolution is already 2-d)."""
    return shape_features(q["x"], q["w"], q["x"][1], q["w"][0], 1, q["stride"], q["pad"], q["dil"], False)


def shape_features(xs, ws, cpg, opg, groups, stride, pad, dil, one_d):
    """FEATURES of a convolution as cuDNN sees it (4-d or 5-d sizes; cpg, opg: channels a group)."""
    sp = len(xs) - 2
    outs = [out_size(xs[2 + d], ws[2 + d], stride[d], pad[d], dil[d]) for d in range(sp)]
    return [max(ws[-2], ws[-1]), max(stride[-2:]), max(dil), xs[0], xs[-2], xs[-1], cpg, opg, math.prod(outs),
            xs[0] * math.prod(outs), cpg * math.prod(ws[2:]), math.gcd(cpg, 8), math.gcd(opg, 8), groups,
            xs[2] if sp == 3 else 1, ws[2] if sp == 3 else 1, stride[0] if sp == 3 else 1, int(one_d)]


def gpu_sweep():
    """GPU_SWEEP's rows as (query, the GPU's engine, cuDNN's answer without a GPU). The file holds
    the answers alone, one CSV row each; its first line names the cudnn_queries.py call that draws
    the same queries again."""
    import cudnn_queries
    with gzip.open(GPU_SWEEP, "rt") as f:
        count, seed = (int(v) for v in f.readline().split()[2:4])
        rows = [[int(v) for v in line.split(",")] for line in f if not line.startswith("#")]
    queries = cudnn_queries.draw(count, seed)
    assert len(rows) == len(queries), f"{GPU_SWEEP}: {len(rows)} answers for {len(queries)} queries"
    out = []
    for q, r in zip(queries, rows):
        local = {"error": True} if r[1] < 0 else {"engine": r[1], "knobs": r[2:14], "workspace": r[14],
                                                  "next_engine": r[15]}
        out.append((q, r[0], local))
    return out


def fit_gpu_gemm():
    """The engine-58 classifier, fitted on GPU_SWEEP; prints how often it agrees with the GPU's own
    answers on the measured convolutions (gpu_engine), which it never saw."""
    X, y = [], []
    for q, gpu, local in gpu_sweep():
        if gpu >= 0 and gemm_shaped(q):
            X.append(gpu_gemm_features(q, query_shape(q), answer_features(local)))
            y.append(int(gpu == GPU_GEMM_ENGINE))
    model = DecisionTreeClassifier(max_leaf_nodes=GPU_GEMM_LEAVES, min_samples_leaf=5, random_state=0)
    model.fit(np.array(X, dtype=float), np.array(y))
    measured_x, measured_y = [], []
    for query, gpu in gpu_engine.items():
        q = json.loads(query)
        if gpu >= 0 and gemm_shaped(q):
            measured_x.append(gpu_gemm_features(q, query_shape(q), answer_features(engine_cache[query])))
            measured_y.append(int(gpu == GPU_GEMM_ENGINE))
    hits = int((model.predict(np.array(measured_x, dtype=float)) == np.array(measured_y)).sum())
    n = len(measured_y)
    print(f"gpu_gemm: {len(y)} GPU answers for random 1x1 convolutions ({100 * sum(y) / len(y):.1f}% engine "
          f"{GPU_GEMM_ENGINE}), {model.get_n_leaves()} leaves; agrees with the GPU on {hits}/{n} measured "
          f"1x1 shapes ({100 * hits / n:.1f}%)")
    return model


def load_engines():
    if os.path.exists(ENGINES):
        with gzip.open(ENGINES, "rt") as f:
            for line in f:
                d = json.loads(line)
                engine_cache[d["q"]] = d["e"]
                if "gpu" in d:
                    gpu_engine[d["q"]] = d["gpu"]


def answer_pending(tool):
    """Asks cuDNN for every collected query and rewrites ENGINES (sorted, so reruns give the same
    bytes)."""
    import subprocess
    queries = sorted(PENDING)
    if not os.path.exists(tool):
        sys.exit(f"fit_conv: {len(queries)} convolutions have no cuDNN engine in {os.path.relpath(ENGINES, ROOT)}; "
                 f"build {os.path.relpath(tool, ROOT)} (a cuDNN 9.19 must be loadable) or pass --engine-tool")
    out = subprocess.run([tool], input="\n".join(queries) + "\n", capture_output=True, text=True, check=True).stdout
    answers = out.splitlines()
    assert len(answers) == len(queries), "kernelcount-cudnn-engines answered a different number of lines"
    for q, a in zip(queries, answers):
        engine_cache[q] = json.loads(a)
    PENDING.clear()
    with gzip.GzipFile(ENGINES, "wb", mtime=0) as f:
        for q in sorted(engine_cache):
            line = {"q": q, "e": engine_cache[q]} | ({"gpu": gpu_engine[q]} if q in gpu_engine else {})
            f.write((json.dumps(line, separators=(",", ":")) + "\n").encode())
# (name, most leaves where too few families measured the kind to choose). Names: <dtype
# class>_<kind>: nchw/nhwc ungrouped 1-2 d, ncdhw/ndhwc ungrouped 3-d, grouped grouped NCHW 1-2 d.
TREES = [("f32_nchw", 96), ("f32_nhwc", 32), ("half_nchw", 64), ("half_nhwc", 32),
         ("f32_ncdhw", 64), ("f32_ndhwc", 8), ("half_ncdhw", 48), ("half_ndhwc", 16),
         ("f32_grouped", 192), ("half_grouped", 128)]
# A tree's size is chosen among these by cross-validation over model families (FAMILY_FOLDS
# folds of whole families, each predicted by trees fitted without it): what the trees are for is
# shapes of models nobody measured, and random folds of shapes reward memorising a family's
# neighbouring shapes instead.
LEAF_CHOICES = (8, 16, 32, 48, 64, 96, 128, 192, 256, 400)
FAMILY_FOLDS = 5


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


def channels_last_order(sizes):
    """Dimensions from the fastest-varying, channels last: C, then W, H, (D), N."""
    return [1] + list(range(len(sizes) - 1, 1, -1)) + [0]


def dense_in(sizes, strides, order):
    """Whether strides (None: row-major dense) are dense in the given order, size-1 dimensions
    ignored: c10's is_contiguous for that memory format (launch_rules.cc's row_major_dense and
    channels_last_dense)."""
    if strides is None:
        strides = dense_strides(sizes)
    expected = 1
    for d in order:
        if sizes[d] != 1 and strides[d] != expected:
            return False
        expected *= sizes[d]
    return True


def out_size(n, k, stride, pad, dil):
    return (n + 2 * pad - dil * (k - 1) - 1) // stride + 1


def per_dim(v, dims, fallback):
    if v is None:
        return [fallback] * dims
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return v * dims if len(v) == 1 else v


def label_of(kernels, memset, groups, names):
    """A grouped convolution's launches as one call ("k/m") or a loop over its groups ("gk/m": k
    kernels and m memsets a group): a loop repeats its launches once a group, so its counts are
    multiples of the groups (a single launch a group shows as one kernel name repeated)."""
    if groups >= 2 and memset % groups == 0:
        if kernels >= 2 * groups and kernels % groups == 0:
            return f"g{kernels // groups}/{memset // groups}"
        core = collections.Counter(n for n in names if "elementwise_kernel" not in n and not n.startswith("Memset"))
        if groups >= 3 and kernels == groups and core and core.most_common(1)[0][1] == groups:
            return f"g1/{memset // groups}"
    return f"{kernels}/{memset}"


def conv_sample(dt, xs, xst, ws, wst, groups, stride, pad, dil, counts, bias, names, source):
    """One convolution as (tree name, features, label, source), the label what cuDNN's call alone
    launches; None for what the rules decide without a tree."""
    kernels, memcpy, memset = counts
    rank = len(xs)
    if rank not in (3, 4, 5) or len(ws) != rank or memcpy or groups < 1 or xs[1] % groups:
        return None
    dims = rank - 2
    stride, pad, dil = per_dim(stride, dims, 1), per_dim(pad, dims, 0), per_dim(dil, dims, 1)
    if len(stride) != dims or len(pad) != dims or len(dil) != dims:
        return None
    kernels -= 1 if bias else 0
    one_d = rank == 3
    if one_d:  # ATen views a 1-d convolution as a 2-d one with H = 1, after input.contiguous()
        kernels -= 0 if dense_in(xs, xst, range(len(xs) - 1, -1, -1)) else 1
        xs, ws, xst, wst = [xs[0], xs[1], 1, xs[2]], [ws[0], ws[1], 1, ws[2]], None, None
        stride, pad, dil = [1] + stride, [0] + pad, [1] + dil
    cl = channels_last(xs, xst) or channels_last(ws, wst)  # cudnn_conv_suggest_memory_format
    cin, cout = xs[1], ws[0]
    depthwise = groups > 1 and groups == cin and cout % cin == 0
    if groups > 1 and (cl or depthwise or rank == 5):
        return None  # the buckets (grouped channels last, ATen's depthwise kernel); grouped 3-d: none measured
    # ATen's .contiguous(format) of input and weight copies what is not dense in that format (a
    # 1x1 weight is dense in both), as the rules count it (conv.cc).
    if cl:
        kernels -= (0 if dense_in(xs, xst, channels_last_order(xs)) else 1) + \
            (0 if dense_in(ws, wst, channels_last_order(ws)) else 1)
    elif not dense_in(xs, xst, range(len(xs) - 1, -1, -1)):
        kernels -= 1
    if kernels < 1:
        return None
    sp = rank - 2 if rank == 5 else 2  # spatial dims as cuDNN sees them
    f = shape_features(xs, ws, cin // groups, cout // groups, groups, stride, pad, dil, one_d)
    f += engine_features(engine_query(dt, xs, ws, cl, stride, pad, dil), f)
    half = "half" if dt != "float32" else "f32"
    if groups > 1:
        return (f"{half}_grouped", f, label_of(kernels, memset, groups, names), source)
    layout = ("ndhwc" if cl else "ncdhw") if sp == 3 else ("nhwc" if cl else "nchw")
    return (f"{half}_{layout}", f, f"{kernels}/{memset}", source)


SWEEP_FAMILIES = ("conv_dense", "conv", "conv_align", "conv3d_dense", "gconv", "gconv_wide", "gconv_model", "gconv_dense",
                  "conv1x1_random")
# Random 1x1 convolutions (sweep.py conv1x1_random: 120,000 measured, counts only). With
# --conv1x1 every CONV1X1_EVERY-th joins the fit (whose time grows with the shapes); the trees in
# the repository are fitted without them (FINDINGS.md says what they change).
CONV1X1_SWEEP = os.path.join(ROOT, "data", "sweeps", "conv1x1_random.jsonl.xz")
CONV1X1_EVERY = 6


def samples(path, every=1):
    """Every usable convolution of a sweep file (.gz or .xz); with every=N, every Nth line."""
    out = []
    opener = lzma.open if path.endswith(".xz") else gzip.open
    with opener(path, "rt") as f:
        for i, line in enumerate(f):
            if '"conv' not in line or i % every:
                continue
            d = json.loads(line)
            p = d.get("params", {})
            if d.get("family") not in SWEEP_FAMILIES or "error" in d or "kernels" not in d:
                continue
            if d["op"] not in ("conv1d", "conv2d", "conv3d"):
                continue
            (xs, xst, dt), (ws, wst, _) = d["inputs"][0], d["inputs"][1]
            groups = p.get("g", p.get("groups", 1))
            k = ws[2:]
            pad = p.get("pad", [(v - 1) // 2 for v in k])
            bias = len(d["inputs"]) > 2 and isinstance(d["inputs"][2], list)
            names = [n for n, c in d.get("kernel_names", []) for _ in range(c)]
            s = conv_sample(dt, xs, xst, ws, wst, groups, p.get("stride", 1), pad, p.get("dil", 1),
                            (d["kernels"], d["memcpy"], d["memset"]), bias, names, "sweep")
            if s:
                out.append(s)
    return out


def dense_strides(sizes):
    st, acc = [0] * len(sizes), 1
    for i in range(len(sizes) - 1, -1, -1):
        st[i], acc = acc, acc * sizes[i]
    return st


# A TorchScript model's convolutions are aten::_convolution, with the same arguments and a flag
# for transposed ones (which the trees do not cover).
CONV_OPS = ("aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::_convolution")


# The commit whose corpora truth the committed trees learned from: the replay's counts
# (kernelcount-validate), before e2110dd made each set's measured.tar.xz the real run. Fitted on
# today's truth (the real run: 212 more convolution instances, some labels changed) the trees
# differ, so the fit (--check included) and the left-out figures read each corpus's truth as of
# this commit where it has one (--truth-at; the TorchScript sets measured later, from the working tree).
TREES_TRUTH = "2f63c3d"
# Where a corpus's truth holds no arguments (a set measured as its real run alone and aligned to
# kernelcount's own ops: data/truth_from_reports.sh), they are read from kernelcount's report of
# each model (corpus_ops.report_args): this binary's.
KERNELCOUNT = [os.path.join(ROOT, "build", "kernelcount")]
report_cache = {}


def op_args(corpus, name, o, reports):
    """An op's recorded argument texts, from the truth or else from kernelcount's report."""
    if "args" in o:
        return o["args"]
    if corpus not in reports:
        if corpus not in report_cache:
            with tempfile.TemporaryDirectory() as tmp:
                report_cache[corpus] = report_args(corpus, KERNELCOUNT[0], tmp, CONV_OPS)
        reports[corpus] = report_cache[corpus]
    op, args, _ = reports[corpus][name].get(o["index"], (None, [], None))
    assert op == o["op"], f"{corpus}/{name} op {o['index']}: the report's {op}, the truth's {o['op']}"
    return args


def model_samples(corpora=CORPORA):
    """Convolutions measured in real models, one per instance, with the model's family; each
    sample's fifth element says where it was measured: (corpus, model, op index). Each is taken
    with the strides it read on the GPU (RUNTIME_STRIDES), not the recorded ones where those differ."""
    with gzip.open(RUNTIME_STRIDES, "rt") as f:
        runtime = json.load(f)
    out, reports = [], {}
    for corpus in corpora:
        for name, d in model_files(corpus):
            differ = runtime.get(corpus, {}).get(name, {})
            family = name.split("__")[0] if "__" in name else re.sub(r"_(fp32|bf16)$", "", name)
            for o in d.get("ops", []):
                if o.get("op") not in CONV_OPS:
                    continue
                args = op_args(corpus, name, o, reports)
                if "transposed=True" in args:
                    continue
                tensors, ints = parse_args(args)
                if "input" not in tensors or "weight" not in tensors:
                    continue
                dt, xs, xst = tensors["input"]
                _, ws, wst = tensors["weight"]
                x_rt, w_rt = differ.get(str(o["index"]), (None, None))
                xst, wst = x_rt or xst, w_rt or wst
                meas = o["measured"]
                s = conv_sample(dt, xs, xst, ws, wst, (ints.get("groups") or [1])[0], ints.get("stride"),
                                ints.get("padding"), ints.get("dilation"),
                                (meas["kernels"], meas["memcpy"], meas["memset"]), "bias" in tensors,
                                meas.get("kernel_names", []), family)
                if s:
                    out.append(s + ((corpus, name, o["index"]),))
    return out


def distinct(rows):
    """One sample per distinct (tree, shape, source), with that shape's most frequent outcome."""
    by = collections.defaultdict(collections.Counter)
    for tree, f, label, src, *_ in rows:
        by[(tree, tuple(f), src)][label] += 1
    return [(k[0], list(k[1]), c.most_common(1)[0][0], k[2]) for k, c in by.items()]


def columns(tree, engine):
    """The feature indices a tree reads: the shape's, then with engine=True cuDNN's choice."""
    width = UNGROUPED_2D_FEATURES if tree.endswith(("_nchw", "_nhwc")) else len(FEATURES)
    extra = list(range(len(FEATURES), len(FEATURES) + len(ENGINE_FEATURES))) if engine else []
    return list(range(width)) + extra


def matrix(rows, tree, engine):
    cols = columns(tree, engine)
    return np.array([[r[1][c] for c in cols] for r in rows], dtype=float), np.array([r[2] for r in rows])


def fit_only(rows, tree, leaves, engine):
    X, y = matrix(rows, tree, engine)
    model = DecisionTreeClassifier(max_leaf_nodes=leaves, min_samples_leaf=2, random_state=0).fit(X, y)
    model.kc_engine = engine
    return model


def fit(rows, tree, leaves, engine):
    X, y = matrix(rows, tree, engine)
    model = DecisionTreeClassifier(max_leaf_nodes=leaves, min_samples_leaf=2, random_state=0)
    cv = cross_val_score(model, X, y, cv=KFold(5, shuffle=True, random_state=0)).mean()
    model.fit(X, y)
    model.kc_engine = engine
    return model, cv, collections.Counter(y).most_common(1)[0][1] / len(y)


def choose_leaves(part, measured, default, engine):
    """The leaf count of LEAF_CHOICES whose trees predict held-out families' instances best, with
    the instances so predicted and their count; the default where fewer than FAMILY_FOLDS families
    measured the kind."""
    families = sorted({r[3] for r in measured})
    if len(families) < FAMILY_FOLDS:
        return default, None, 0
    fold_of = {fam: i % FAMILY_FOLDS for i, fam in enumerate(families)}
    best = None
    for leaves in LEAF_CHOICES:
        hits = 0
        for fold in range(FAMILY_FOLDS):
            train = [r for r in part if fold_of.get(r[3]) != fold]
            test = [r for r in measured if fold_of[r[3]] == fold]
            if not test:
                continue
            model = fit_only(train, test[0][0], leaves, engine)
            hits += sum(predict(model, r[0], r[1]) == total(r[2], r[1]) for r in test)
        if best is None or hits > best[1]:  # ties keep the smaller tree
            best = (leaves, hits)
    return best[0], best[1], len(measured)


def parse_label(label):
    """(kernels, memset, per_group) of a leaf's label."""
    per_group = label.startswith("g")
    k, m = (int(v) for v in label.lstrip("g").split("/"))
    return k, m, per_group


def emit(name, tree):
    t = tree.tree_
    cols = columns(name, tree.kc_engine)
    names = FEATURES + ENGINE_FEATURES
    lines = [f"const ConvTreeNode {'kConvTreeCudnn_' if tree.kc_engine else 'kConvTree_'}{name}[] = {{"]
    for i in range(t.node_count):
        if t.children_left[i] == -1:
            k, m, g = parse_label(tree.classes_[int(np.argmax(t.value[i][0]))])
            lines.append(f"    {{-1, 0, 0, 0, {k}, {m}, {int(g)}}},")
        else:
            thr = float(t.threshold[i])
            c = cols[t.feature[i]]
            lines.append(f"    {{{c}, {thr!r}, {t.children_left[i]}, {t.children_right[i]}, 0, 0, 0}},"
                         f"  // {names[c]}")
    lines.append("};")
    return lines


def emit_gpu_gemm(model):
    t = model.tree_
    names = FEATURES[:GPU_GEMM_FEATURES] + ["half", "channels_last"] + ENGINE_FEATURES[:-1]
    lines = ["const GpuGemmNode kGpuGemmEngineTree[] = {"]
    for i in range(t.node_count):
        if t.children_left[i] == -1:
            lines.append(f"    {{-1, 0, 0, 0, {int(model.classes_[int(np.argmax(t.value[i][0]))])}}},")
        else:
            lines.append(f"    {{{t.feature[i]}, {float(t.threshold[i])!r}, {t.children_left[i]}, {t.children_right[i]}, 0}},"
                         f"  // {names[t.feature[i]]}")
    lines.append("};")
    return lines


def predict(model, tree, f):
    """Total (kernels, memset) of cuDNN's call: a loop's counts times the groups."""
    x = [f[c] for c in columns(tree, model.kc_engine)]
    k, m, per_group = parse_label(model.predict(np.array([x], dtype=float))[0])
    g = f[FEATURES.index("groups")] if per_group else 1
    return k * g, m * g


def total(label, f):
    k, m, per_group = parse_label(label)
    g = f[FEATURES.index("groups")] if per_group else 1
    return k * g, m * g


def kind(tree, f):
    """The convolution kinds the leave-one-family-out figure is broken down by."""
    if tree.endswith("grouped"):
        return "grouped"
    if tree.endswith(("ncdhw", "ndhwc")):
        return "3-d"
    return "1-d" if f[FEATURES.index("one_d")] else "2-d"


def lofo(rows, measured, everything, sizes, engine, extra=()):
    """Each model family's convolution instances, predicted by trees fitted without it (everything:
    the trees fitted on all, by name); extra: instances of corpora the trees never learn from (the
    TorchScript corpus, whose architectures are the broad corpus's), predicted the same way by
    family. Returns
    {corpus: {model: {op index: [kernels, memset] left out, [kernels, memset] fitted on all]}}."""
    families = sorted({r[3] for r in measured} | {r[3] for r in extra})
    out = collections.defaultdict(lambda: collections.defaultdict(dict))
    tally = collections.defaultdict(lambda: [0, 0])
    worst = []
    for fam in families:
        train = [r for r in rows if r[3] != fam]
        mine = [r for r in measured if r[3] == fam]
        theirs = [r for r in extra if r[3] == fam]
        models = {}
        for name, _ in TREES:
            part = [r for r in train if r[0] == name]
            if any(r[0] == name for r in mine + theirs) and part:
                models[name] = fit_only(part, name, sizes[name], engine)
        ok = 0
        for r, learned in [(r, True) for r in mine] + [(r, False) for r in theirs]:
            left_out = predict(models[r[0]], r[0], r[1]) if r[0] in models else None
            corpus, model, index = r[4]
            out[corpus][model][index] = [left_out, predict(everything[r[0]], r[0], r[1])]
            hit = left_out == total(r[2], r[1])
            for k in ("all", kind(r[0], r[1]), "from " + corpus) if learned else (corpus,):
                tally[k][0] += hit
                tally[k][1] += 1
            ok += hit and learned
        if mine:
            worst.append((ok / len(mine), fam, ok, len(mine)))
    exact, n = tally["all"]
    print(("with cuDNN's engine choice" if engine else "shape alone") + ", ", end="")
    print(f"leave-one-family-out: {exact}/{n} convolution instances exact ({100 * exact / n:.1f}%) "
          f"over {len(families)} families; " + ", ".join(
              f"{k} {tally[k][0]}/{tally[k][1]} ({100 * tally[k][0] / tally[k][1]:.1f}%)"
              for k in ("2-d", "1-d", "3-d", "grouped") if tally[k][1]))
    if tally["from compiled"][1]:
        print("of which " + ", ".join(f"{k[5:]} {tally[k][0]}/{tally[k][1]} ({100 * tally[k][0] / tally[k][1]:.1f}%)"
                                      for k in sorted(tally) if k.startswith("from ")))
    print("families predicted worst:", ", ".join(f"{fam} {ok}/{n}" for _, fam, ok, n in sorted(worst)[:8]))
    for corpus in sorted({r[4][0] for r in extra}):
        exact, n = tally[corpus]
        print(f"leave-one-family-out, corpus {corpus} (never learned from): {exact}/{n} convolution instances "
              f"exact ({100 * exact / n:.1f}%)")
    return out


def extra_sweep(a):
    return samples(CONV1X1_SWEEP, CONV1X1_EVERY) if a.conv1x1 else []


# The convolutions compiled programs called, one extern call between two Triton loops
# (research/accuracy/compiled_convs.py --write): under Inductor's layout optimization most run
# channels last, which the eager corpora rarely do, and cuDNN's launches for a shape and layout do
# not depend on who calls it. Each is taken with the strides cuDNN was handed and its own kernels
# (ATen's layout copies already off), as corpus "compiled" of its program's family.
COMPILED = os.path.join(ROOT, "data", "results", "compiled", "convolutions.jsonl.gz")


def extra_corpora(a):
    """The --lofo-extra corpora's convolutions; "compiled" names COMPILED's."""
    if not a.lofo or not a.lofo_extra:
        return []
    out = model_samples([c for c in a.lofo_extra if c != "compiled"])
    return out + (compiled_samples() if "compiled" in a.lofo_extra and not a.compiled else [])


def compiled_samples(path=COMPILED):
    out = []
    with gzip.open(path, "rt") as f:
        for i, line in enumerate(f):
            d = json.loads(line)
            (xs, xst), (ws, wst) = d["x"], d["w"]
            name = d["program"]
            family = name.split("__")[0] if "__" in name else re.sub(r"_(fp32|bf16)$", "", name)
            s = conv_sample(d["dtype"], xs, xst, ws, wst, 1, d["stride"], d["padding"], d["dilation"],
                            (d["kernels"], 0, d["memset"]), False, d["kernel_names"], family)
            if s:
                out.append(s + (("compiled", d["program"], i),))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sweeps", default=SWEEPS)
    targets.add_argument(ap)
    ap.add_argument("--out", help="default: the target folder's conv_engine_trees.inc")
    ap.add_argument("--check", action="store_true", help="fail when --out differs from a fresh fit")
    ap.add_argument("--lofo", action="store_true", help="also the leave-one-family-out accuracy on the corpora")
    ap.add_argument("--lofo-extra", nargs="*", default=[], help="with --lofo: corpora whose convolutions are "
                    "predicted family by family but never learned from (torchscript torchscript_heldout torchscript_rest; compiled: the compiled programs' convolutions, with --no-compiled)")
    ap.add_argument("--lofo-out", help="with --lofo: write each measured convolution's prediction with its family "
                    "left out and fitted on all (JSON, gzip), by the trees with cuDNN's engine choice, for "
                    "research/accuracy/broad_accuracy.py --conv-lofo (the compiled programs' under \"compiled\", by "
                    "line of their file, for research/accuracy/compile_accuracy.py --conv-lofo)")
    ap.add_argument("--kernelcount", default=KERNELCOUNT[0], help="for a --lofo-extra corpus whose truth holds no "
                    "arguments (torchscript_heldout, torchscript_rest): their convolutions' arguments from its reports")
    ap.add_argument("--truth-at", metavar="COMMIT", default=TREES_TRUTH, help="read each corpus's measured.tar.xz as "
                    "of this commit where it has one (git show; default: the truth the committed trees were fitted on, "
                    f"{TREES_TRUTH}); 'none': the working tree's")
    ap.add_argument("--conv1x1", action="store_true", help="also learn from the random 1x1 convolutions of "
                    f"{os.path.relpath(CONV1X1_SWEEP, ROOT)} (every {CONV1X1_EVERY}th)")
    ap.add_argument("--no-compiled", dest="compiled", action="store_false", help="leave out the convolutions compiled "
                    f"programs called ({os.path.relpath(COMPILED, ROOT)}), as the trees before them were fitted")
    ap.add_argument("--engine-tool", default=ENGINE_TOOL, help="kernelcount-cudnn-engines, for convolutions not yet "
                    f"in {os.path.relpath(ENGINES, ROOT)}")
    a = ap.parse_args()
    a.out = a.out or os.path.join(ROOT, targets.path(a.target, "conv_engine_trees.inc"))
    KERNELCOUNT[0] = a.kernelcount
    TRUTH_AT[0] = None if a.truth_at == "none" else a.truth_at
    load_engines()
    measured = model_samples() + (compiled_samples() if a.compiled else [])
    rows = samples(a.sweeps) + extra_sweep(a) + distinct(measured)
    extra = extra_corpora(a)
    if PENDING:
        answer_pending(a.engine_tool)
        measured = model_samples() + (compiled_samples() if a.compiled else [])
        rows = samples(a.sweeps) + extra_sweep(a) + distinct(measured)
        extra = extra_corpora(a)
    print(f"fit_conv: {sum(r[3] == 'sweep' for r in rows)} sweep shapes, "
          f"{sum(r[3] != 'sweep' for r in rows)} distinct model shapes ({len(measured)} instances)")
    text = ["// Generated by generators/fit_conv.py from data/sweeps/sweep.jsonl.gz and",
            "// cudnn_engines.jsonl.gz; do not edit.",
            "// cuDNN's engine choice for convolutions as decision trees over the shape: each leaf holds what",
            "// the convolution itself launches (kernels, memsets), bias and layout copies excluded, once or",
            "// once a group (per_group: cuDNN loops over the groups). kConvTree_*: the shape alone;",
            "// kConvTreeCudnn_*: the shape and cuDNN's own heuristic choice (cudnn_heuristics.h).",
            "// Nodes: {feature, threshold (go left when feature <= threshold), left, right, kernels, memset, per_group};",
            f"// features: {', '.join(FEATURES + ENGINE_FEATURES)}."]
    if not gpu_gemm_tree:
        gpu_gemm_tree.append(fit_gpu_gemm())
    text += ["", f"// gpu_gemm: 1 where cuDNN on the GPU runs a 1x1 convolution as a cuBLASLt GEMM (engine "
                 f"{GPU_GEMM_ENGINE}); features: {', '.join(FEATURES[:GPU_GEMM_FEATURES])}, half, channels_last, "
                 f"{', '.join(ENGINE_FEATURES[:-1])}."]
    text += emit_gpu_gemm(gpu_gemm_tree[0])
    held_out = None
    for engine in (False, True):
        fitted, sizes = {}, {}
        for name, default in TREES:
            part = [r for r in rows if r[0] == name]
            leaves, hits, n = choose_leaves(part, [r for r in measured if r[0] == name], default, engine)
            sizes[name] = leaves
            tree, cv, majority = fit(part, name, leaves, engine)
            fitted[name] = tree
            chosen = (f"at most {leaves}, chosen by {FAMILY_FOLDS}-fold cross-validation over families: "
                      f"{100 * hits / n:.1f}% of {n} instances" if hits is not None else f"at most {leaves}, few families")
            summary = (f"{name}{' + cuDNN' if engine else ''}: {len(part)} shapes, {tree.get_n_leaves()} leaves "
                       f"({chosen}); 5-fold cross-validated accuracy over shapes {100 * cv:.1f}% "
                       f"(most frequent outcome alone {100 * majority:.1f}%)")
            print(summary)
            text += ["", f"// {summary}"] + emit(name, tree)
        if a.lofo:
            held_out = lofo(rows, measured, fitted, sizes, engine, extra)
    body = "\n".join(text) + "\n"
    if a.lofo and a.lofo_out:
        # mtime 0: the same predictions give the same bytes
        with gzip.GzipFile(a.lofo_out, "wb", mtime=0) as f:
            f.write(json.dumps(held_out, sort_keys=True, separators=(",", ":")).encode())
    if a.check:
        if not os.path.exists(a.out) or open(a.out).read() != body:
            sys.exit(f"fit_conv: {a.out} is not what the sweeps give; rerun generators/fit_conv.py")
        return
    with open(a.out, "w") as f:
        f.write(body)
    print(f"fit_conv: wrote {os.path.relpath(a.out, ROOT)}")


if __name__ == "__main__":
    main()
