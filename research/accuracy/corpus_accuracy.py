"""Accuracy of kernelcount's predictions on the real-model corpus, from measurements on the GPU.

Reads the per-op measurements kernelcount-validate wrote on the H200 (data/results/corpus/,
made by validate/device_corpus.sh), predicts the same archives with the current build of
kernelcount, and compares op by op: an op instance matches when kernels, memcpy and memset
all equal (an unknown prediction never matches). Prints per model the exact-match rate and
the whole-model kernel count error, the rate per launch rule, and the fused kernel count
against what torch.compile launched (data/results/corpus_compile.json.gz).

The measured table (passes/targets/h200/measured.inc) was made from these same measurements, so the
default figures are in-sample. --holdout predicts each model with the table's entries from its
own architecture left out (`--exclude-measured ARCH`): the figure for models never measured.
--rules-only predicts from the launch rules alone (`--no-measured`).
Standard library only. Run from the repository root:
  python3 research/accuracy/corpus_accuracy.py [--markdown] [--mismatches]
"""
import argparse
import collections
import gzip
import json
import os
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
import measured_io  # noqa: E402


def predict(kc, model, extra):
    out = subprocess.run([kc, model, "--format", "json", *extra], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"kernelcount failed on {model}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def counts(d):
    return (d["kernels"], d["memcpy"], d["memset"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernelcount", default="build/kernelcount")
    ap.add_argument("--measured", default="data/results/corpus")
    ap.add_argument("--compile", default="data/results/corpus_compile.json.gz")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--mismatches", action="store_true", help="list mismatching op kinds, most frequent first")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--holdout", action="store_true", help="leave each architecture's own measurements out")
    mode.add_argument("--rules-only", action="store_true", help="launch rules alone, no measured table")
    args = ap.parse_args()
    compiled = {}
    if os.path.exists(args.compile):
        with (gzip.open(args.compile, "rt") if args.compile.endswith(".gz") else open(args.compile)) as f:
            compiled = json.load(f)
    rows, by_rule, mism = [], collections.defaultdict(lambda: [0, 0]), collections.Counter()
    failed = []
    all_ops = all_match = 0
    for name, meas in measured_io.measured(args.measured):
        model = meas["model"] if isinstance(meas["model"], str) else meas["model"]["path"]
        arch = name.rsplit("_", 1)[0]
        extra = ["--exclude-measured", arch] if args.holdout else ["--no-measured"] if args.rules_only else []
        pred = predict(args.kernelcount, model, extra)
        ops = pred["ops"]
        matched = 0
        mk = pk = 0
        for m in meas["ops"]:
            p = ops[m["index"]]
            pl = p["launches"]
            mc = counts(m["measured"])
            ok = pl["known"] and counts(pl) == mc
            matched += ok
            mk += mc[0]
            pk += pl["kernels"] or 0
            rule = pl["rule"] if pl["known"] else "(unknown)"
            by_rule[rule][0] += ok
            by_rule[rule][1] += 1
            if not ok:
                dt = p["inputs"][0]["dtype"] if p["inputs"] else "-"
                shapes = " ".join("x".join(map(str, i["shape"])) for i in p["inputs"][:2])
                pc = counts(pl) if pl["known"] else "?"
                mism[(p["op"], rule, dt, str(pc), str(mc), shapes if args.mismatches else "")] += 1
        n = len(meas["ops"])
        all_ops += n
        all_match += matched
        t = pred["totals"]
        ratio = ""
        if name in compiled and compiled[name].get("compiled"):
            ratio = f"{t['fused_kernels'] / compiled[name]['compiled']['kernels']:.2f}"
        rows.append((name, n, matched, mk, pk, t["fused_kernels"],
                     compiled.get(name, {}).get("compiled", {}).get("kernels", ""), ratio))
    for name, text in measured_io.errors(args.measured):
        failed.append((name, text.strip().splitlines()[-1][:160]))

    err = lambda r: (r[4] - r[3]) / r[3] * 100 if r[3] else 0.0
    if args.markdown:
        print("| model | ops | exact | measured kernels | predicted | error | fused | torch.compile | fused / compile |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in rows:
            print(f"| {r[0]} | {r[1]} | {100 * r[2] / r[1]:.1f}% | {r[3]} | {r[4]} | {err(r):+.1f}% | {r[5]} | {r[6]} | {r[7]} |")
    else:
        print(f"{'model':26s} {'ops':>5s} {'exact':>7s} {'meas k':>7s} {'pred k':>7s} {'error':>7s} {'fused':>6s} {'compile':>8s} {'ratio':>6s}")
        for r in rows:
            print(f"{r[0]:26s} {r[1]:5d} {100 * r[2] / r[1]:6.1f}% {r[3]:7d} {r[4]:7d} {err(r):+6.1f}% {r[5]:6d} {str(r[6]):>8s} {r[7]:>6s}")
    worst = max((abs(err(r)) for r in rows), default=0)
    table_source = os.path.normpath(args.measured) == os.path.normpath("data/results/corpus")
    how = ("held out per architecture" if args.holdout else "launch rules only" if args.rules_only
           else "in-sample" if table_source else "architectures never measured for the table")
    print(f"\n[{how}] {all_match}/{all_ops} op instances exact ({100 * all_match / max(all_ops, 1):.1f}%) over {len(rows)} models; "
          f"largest whole-model kernel error {worst:.1f}%")
    hard = [(k, v) for k, v in by_rule.items() if v[0] < v[1]]
    if hard:
        print("rules below 100%: " + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(hard, key=lambda kv: kv[1][0] / kv[1][1])))
    for name, why in failed:
        print(f"not measured: {name}: {why}")
    if args.mismatches:
        print("\ncount  op / rule / dtype / predicted / measured / shapes")
        for k, c in mism.most_common(60):
            print(f"{c:5d}  {' | '.join(k)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
