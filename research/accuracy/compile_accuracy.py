"""Predicted torch.compile kernel totals (`kernelcount --fusion inductor`) against measured ones.

The truth is the compiled program's real run on the H200 (torch.compile of the exported
program's module, Inductor default mode, PyTorch 2.11, after warm-up, under torch.profiler):
its kernels, memsets excluded, as validate/compile_run.py recorded them
(data/results/compiled/quiet.tar.xz first: programs compiled one at a time, as a user compiles a
model, where twelve compiles at once had moved pad_mm's timed answers (run on an H100, sm_90 as
the H200); then alone.tar.xz, the same for programs first compiled since; then locked.tar.xz: programs measured again with the GPU's timings
one process at a time, which supersede their earlier runs, taken while other compiles shared the
GPU and so changed Inductor's timed choices, pad_mm's above all; then measured.tar.xz, then transformers.tar.xz, the transformers programs
whose runs failed in the first, then fresh.tar.xz, the programs of data/corpus/fresh:
compiled/<name>.compiled.json, `totals.kernels`, the archive it ran in `model`; broad2.tar.xz,
broad3.tar.xz and broad4.tar.xz hold more of the broad corpus, measured with the GPU's timings one process at a time). Each model is
predicted from its archive under data/corpus/<set>/; figures are given per set (models,
heldout, fresh3, fresh, fresh2, fresh5, fresh6, fresh4, broad). Models no tarball holds are taken from the earlier
compiled runs of the corpus (data/results/corpus_compile.json.gz, `compiled.kernels`, the same
measurement), set "models".

The Inductor model's rules and thresholds are Inductor's own (torch/_inductor/config.py,
scheduler.py, lowering.py, graph.py), and whether pad_mm pads a GEMM, an answer only the GPU gives,
comes from a tree fitted on random GEMMs (generators/fit_pad_mm.py), no model's. What it does fit to
these runs: cuDNN's launches for a convolution, shared with the eager rules, whose trees
(generators/fit_conv.py) learn from the convolutions these programs called alone between two Triton
loops (research/accuracy/compiled_convs.py). The leave-one-family-out figure therefore moves each
such convolution's kernels by what the trees fitted without its family predict differently
(--conv-lofo, fit_conv.py's --lofo-out, under "compiled"); a convolution called beside other library
calls is not learned from itself but keeps the prediction of the trees fitted on all, which may have
learned its shape from another call of its family. The greedy pointwise plan's figure is printed beside it.

Standard library only. Run from the repository root:
  python3 research/accuracy/compile_accuracy.py [--results TARBALL ...] [--sets SET ...] [--markdown] [--conv-lofo PATH]
"""
import argparse
import atexit
import collections
import gzip
import json
import os
import shutil
import subprocess
import tarfile
import tempfile


# The tarballs of compiled runs, in the order a model's run is taken from (the first that holds it).
DEFAULT_RESULTS = ["data/results/compiled/" + s + ".tar.xz" for s in (
    "quiet", "alone", "locked", "measured", "transformers", "fresh", "fresh2", "fresh5", "fresh6", "fresh4", "broad", "broad2",
    "broad3", "broad4")]


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def predict(kc, model, fusion):
    out = subprocess.run([kc, model, "--format", "json", "--fusion", fusion], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1:] or ["failed"]
    return json.loads(out.stdout)["totals"], None


ALONE = set()  # names of the runs whose Inductor benchmarks had the GPU alone (compile_run.py's lock)
GPU = {}  # name -> the GPU of the run taken (the first tarball's that holds it)
FAILED = {}  # name -> why its compile or run failed, where no tarball holds a run of it


def failures(path):
    """name -> error of every run the tarball's real_status.jsonl records as failed."""
    with tarfile.open(path) as tar:
        try:
            f = tar.extractfile("compiled/real_status.jsonl")
        except KeyError:
            return {}
        return {r["name"]: r.get("error", "failed") for r in map(json.loads, f) if not r.get("ok")}


def corpus_programs(set_name):
    """The names of the programs of data/corpus/SET (its .pt2 files, or its models.tar.xz's)."""
    d = os.path.join("data/corpus", set_name)
    packed = os.path.join(d, "models.tar.xz")
    if os.path.exists(packed):
        with tarfile.open(packed) as tar:
            names = [m.name for m in tar.getmembers()]
    else:
        names = os.listdir(d) if os.path.isdir(d) else []
    return {os.path.basename(n)[: -len(".pt2")] for n in names if n.endswith(".pt2")}


def compiled_runs(path):
    """(name, archive path under data/corpus, run) of every compiled run in the tarball."""
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if not m.name.endswith(".compiled.json"):
                continue
            d = json.load(tar.extractfile(m))
            # The run names the archive as it lay on the GPU machine: data/corpus/SET/NAME.pt2 in a
            # checkout, or SET/NAME.pt2 unpacked from data/corpus/SET/models.tar.xz elsewhere.
            if "/data/corpus/" in d["model"]:
                corpus = d["model"].split("/data/corpus/", 1)[1]
            else:
                corpus = "/".join(d["model"].split("/")[-2:])
            yield os.path.basename(m.name)[: -len(".compiled.json")], corpus, d


def measured(path):
    """(set, name, archive, measured kernels) of every compiled run in the tarball."""
    out = []
    for name, corpus, d in compiled_runs(path):
        if d.get("gpu_timing", "").startswith("alone"):
            ALONE.add(name)
        GPU.setdefault(name, d.get("device", "not recorded"))
        out.append((corpus.split("/")[0], name, archive(corpus), d["totals"]["kernels"]))
    return out


_unpacked = {}


def archive(corpus):
    """The path of data/corpus/SET/NAME.pt2, unpacking SET's models.tar.xz once where the set is
    kept packed."""
    path = os.path.join("data/corpus", corpus)
    set_name = corpus.split("/")[0]
    packed = os.path.join("data/corpus", set_name, "models.tar.xz")
    if os.path.exists(path) or not os.path.exists(packed):
        return path
    if set_name not in _unpacked:
        _unpacked[set_name] = tempfile.mkdtemp(prefix="kc-compile-")
        atexit.register(shutil.rmtree, _unpacked[set_name], True)
        with tarfile.open(packed) as tar:
            tar.extractall(_unpacked[set_name], filter="data")
    return os.path.join(_unpacked[set_name], corpus)


def earlier(path, have):
    """The earlier compiled runs of data/corpus/models the tarball does not hold."""
    out = []
    for name, d in load(path).items():
        k = (d.get("compiled") or {}).get("kernels")
        if name not in have and isinstance(k, int):
            out.append(("models", name, os.path.join("data/corpus/models", name + ".pt2"), k))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernelcount", default="build/kernelcount")
    ap.add_argument("--results", nargs="+", default=DEFAULT_RESULTS,
                    help="tarballs of compiled runs; a model's run is taken from the first that holds it")
    ap.add_argument("--earlier", default="data/results/corpus_compile.json.gz")
    ap.add_argument("--sets", nargs="+", default=["models", "fresh3", "heldout", "fresh", "fresh2", "fresh5", "fresh6", "fresh4", "broad"])
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--conv-lofo", default="generators/conv_lofo.json.gz",
                    help="fit_conv.py's --lofo-out: the convolutions' kernels with their family left out")
    args = ap.parse_args()
    rows, missing = [], []
    runs = []
    for path in args.results:
        have = {r[1] for r in runs}
        runs += [r for r in measured(path) if r[1] not in have]
        FAILED.update(failures(path))
    if args.earlier and os.path.exists(args.earlier):
        runs += earlier(args.earlier, {r[1] for r in runs})
    for corpus, name, model, kernels in sorted(runs):
        if corpus not in args.sets:
            continue
        if not os.path.exists(model):
            missing.append((name, "no archive " + model))
            continue
        ind, err = predict(args.kernelcount, model, "inductor")
        if err:
            missing.append((name, err[0]))
            continue
        greedy, _ = predict(args.kernelcount, model, "pointwise")
        rows.append((name, corpus, ind["eager_kernels"], greedy["fused_kernels"] if greedy else None,
                     ind["fused_kernels"], kernels, ind.get("fused_kernels_low", ind["fused_kernels"]),
                     ind.get("fused_kernels_high", ind["fused_kernels"])))
    if not rows:
        raise SystemExit("no model could be compared")

    def err(p, m):
        return abs(p - m) / m if m else (0.0 if p == m else float("inf"))

    if args.markdown:
        print("| model | set | eager (predicted) | greedy fused | inductor (predicted) | torch.compile (measured) | error |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
        for r in rows:
            print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} | {100 * (r[4] - r[5]) / r[5]:+.1f}% |")
        print()
    else:
        print(f"{'model':34s} {'set':8s} {'eager':>6s} {'greedy':>7s} {'inductor':>9s} {'compiled':>9s} {'error':>7s}")
        for r in rows:
            print(f"{r[0]:34s} {r[1]:8s} {r[2]:6d} {str(r[3]):>7s} {r[4]:9d} {r[5]:9d} "
                  f"{100 * (r[4] - r[5]) / r[5]:+6.1f}%")
    for corpus in args.sets + ["all"]:
        part = [r for r in rows if r[1] == corpus or corpus == "all"]
        if not part:
            continue
        n = len(part)
        w10 = sum(err(r[4], r[5]) <= 0.10 for r in part)
        w25 = sum(err(r[4], r[5]) <= 0.25 for r in part)
        g10 = sum(r[3] is not None and err(r[3], r[5]) <= 0.10 for r in part)
        g25 = sum(r[3] is not None and err(r[3], r[5]) <= 0.25 for r in part)
        worst = max(err(r[4], r[5]) for r in part)
        print(f"{corpus}: {n} models; --fusion inductor within 10%: {w10}/{n}, within 25%: {w25}/{n}, "
              f"largest error {100 * worst:.1f}%; greedy pointwise plan within 10%: {g10}/{n}, within 25%: {g25}/{n}")
    # pad_mm's answers are timings, which compiles of one program give differently: the span the
    # prediction gives for them (fused_kernels_low to fused_kernels_high) beside the measured count.
    def span_err(r):  # how far the measured count lies outside the span, relative to it
        return 0.0 if r[6] <= r[5] <= r[7] else min(err(r[6], r[5]), err(r[7], r[5]))

    spanned = sum(r[6] != r[7] for r in rows)
    far = [r for r in rows if err(r[4], r[5]) > 0.25]
    print(f"pad_mm's span (fused_kernels_low to fused_kernels_high): {spanned}/{len(rows)} programs have GEMMs "
          f"pad_mm decides by timing; measured inside the span: {sum(span_err(r) == 0 for r in rows)}/{len(rows)}, "
          f"within 10% of it: {sum(span_err(r) <= 0.10 for r in rows)}, within 25%: "
          f"{sum(span_err(r) <= 0.25 for r in rows)}" +
          (f"; the {len(far)} past 25% of the point prediction lie within "
           f"{100 * max(span_err(r) for r in far):.1f}% of the span" if far else "; none past 25% of the point prediction"))
    gpus = collections.Counter(GPU.get(r[0], "not recorded (data/results/corpus_compile.json.gz)") for r in rows)
    print("runs by GPU: " + ", ".join(f"{g}: {k}" for g, k in gpus.most_common()))
    # Which way the misses lean, by how the run was timed: pad_mm's choices are the GPU's timings.
    for alone, words in ((True, "Inductor's benchmarks alone on the GPU"), (False, "the GPU shared with other compiles")):
        part = sorted(100 * (r[4] - r[5]) / r[5] for r in rows if (r[0] in ALONE) == alone)
        if part:
            low, high = sum(e < -5 for e in part), sum(e > 5 for e in part)
            print(f"runs with {words}: {len(part)}; predicted more than 5% low: {low}, more than 5% high: "
                  f"{high}; median error {part[len(part) // 2]:+.1f}%")
    if os.path.exists(args.conv_lofo):
        # Per program, the kernels its convolutions lose or gain when their family is left out of the trees.
        shift = {name: sum(left[0] - every[0] for left, every in convs.values() if left)
                 for name, convs in load(args.conv_lofo).get("compiled", {}).items()}
        moved = sum(1 for r in rows if shift.get(r[0]))
        print(f"leave one family out (convolution trees fitted without the program's family; {moved} programs move):")
        for corpus in args.sets + ["all"]:
            part = [(r[4] + shift.get(r[0], 0), r[5]) for r in rows if r[1] == corpus or corpus == "all"]
            if part:
                n = len(part)
                print(f"{corpus}: {n} models; --fusion inductor within 10%: {sum(err(p, m) <= 0.10 for p, m in part)}/{n}, "
                      f"within 25%: {sum(err(p, m) <= 0.25 for p, m in part)}/{n}, "
                      f"largest error {100 * max(err(p, m) for p, m in part):.1f}%")
    for name, why in missing:
        print(f"not compared: {name}: {why}")
    # The corpus programs no tarball holds a compiled run of: the coverage the figures above have.
    have = {r[1] for r in runs}
    absent = sorted((s, n) for s in args.sets for n in corpus_programs(s) if n not in have)
    print(f"corpus programs with no compiled run: {len(absent)}")
    for s, n in absent:
        print(f"  {s}/{n}: " + ("compile failed: " + FAILED[n][:160] if n in FAILED else "not measured"))


if __name__ == "__main__":
    main()
