"""Predicted torch.compile kernel totals (`kernelcount --fusion inductor`) against measured ones.

The truth is the compiled program's real run on the H200 (torch.compile of the exported
program's module, Inductor default mode, PyTorch 2.11, after warm-up, under torch.profiler):
its kernels, memsets excluded, as validate's compile run recorded them in a JSON file keyed by
model name (`compiled.kernels`; `info.family` names the family). Each model is predicted from
its archive, found as <name>.pt2 in the --models folders.

Nothing in the Inductor model is fitted to measurements: its rules and thresholds are
Inductor's own (torch/_inductor/config.py, scheduler.py, lowering.py, graph.py). The
leave-one-family-out figure is therefore the same as the in-sample one; the script says so
rather than pretending to refit. The greedy pointwise plan's figure is printed beside it.

Standard library only. Run from the repository root:
  python3 research/accuracy/compile_accuracy.py [--results FILE] [--models DIR ...] [--markdown]
"""
import argparse
import gzip
import json
import os
import subprocess


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def predict(kc, model, fusion):
    out = subprocess.run([kc, model, "--format", "json", "--fusion", fusion], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1:] or ["failed"]
    return json.loads(out.stdout)["totals"], None


def find_model(name, folders):
    for d in folders:
        p = os.path.join(d, name + ".pt2")
        if os.path.exists(p):
            return p
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernelcount", default="build/kernelcount")
    ap.add_argument("--results", default="data/results/corpus_compile.json.gz",
                    help="compiled-run measurements keyed by model name")
    ap.add_argument("--models", nargs="+", default=["data/corpus/models"], help="folders holding <name>.pt2")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    results = load(args.results)
    rows, missing = [], []
    for name in sorted(results):
        meas = results[name].get("compiled") or {}
        if not isinstance(meas.get("kernels"), int):
            missing.append((name, "no compiled measurement"))
            continue
        model = find_model(name, args.models)
        if not model:
            missing.append((name, "no archive"))
            continue
        ind, err = predict(args.kernelcount, model, "inductor")
        if err:
            missing.append((name, err[0]))
            continue
        greedy, _ = predict(args.kernelcount, model, "pointwise")
        family = (results[name].get("info") or {}).get("family", "")
        rows.append((name, family, ind["eager_kernels"], greedy["fused_kernels"] if greedy else None,
                     ind["fused_kernels"], meas["kernels"]))
    if not rows:
        raise SystemExit("no model could be compared")

    def err(p, m):
        return abs(p - m) / m if m else (0.0 if p == m else float("inf"))

    within10 = sum(err(r[4], r[5]) <= 0.10 for r in rows)
    within25 = sum(err(r[4], r[5]) <= 0.25 for r in rows)
    g10 = sum(r[3] is not None and err(r[3], r[5]) <= 0.10 for r in rows)
    g25 = sum(r[3] is not None and err(r[3], r[5]) <= 0.25 for r in rows)
    n = len(rows)
    if args.markdown:
        print("| model | family | eager (predicted) | greedy fused | inductor (predicted) | torch.compile (measured) | error |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
        for r in rows:
            print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} | {100 * (r[4] - r[5]) / r[5]:+.1f}% |")
        print()
    else:
        print(f"{'model':34s} {'family':14s} {'eager':>6s} {'greedy':>7s} {'inductor':>9s} {'compiled':>9s} {'error':>7s}")
        for r in rows:
            print(f"{r[0]:34s} {r[1]:14s} {r[2]:6d} {str(r[3]):>7s} {r[4]:9d} {r[5]:9d} "
                  f"{100 * (r[4] - r[5]) / r[5]:+6.1f}%")
    print(f"models: {n}; --fusion inductor within 10%: {within10}/{n}, within 25%: {within25}/{n} "
          f"(leave one family out: the same, nothing is fitted)")
    print(f"greedy pointwise plan (the default --fusion) within 10%: {g10}/{n}, within 25%: {g25}/{n}")
    for name, why in missing:
        print(f"not compared: {name}: {why}")


if __name__ == "__main__":
    main()
