"""Compares kernelcount's predictions with the measured reference cases.

For every case in ops_torch211_h200.json that has an exported archive in data/truth/cases/, runs
`kernelcount --format json` and compares the whole case's predicted kernels, memcpy and memset
with the measured ones. Prints one row per case and the match rate; --markdown prints the
table for the README. Cases measured under torch.compile are not eager predictions and are
listed apart. Standard library only. Run from the repository root:
  python3 research/truth/truth_accuracy.py [--kernelcount build/kernelcount] [--markdown]
"""
import argparse
import json
import os
import subprocess
import sys

TRUTH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "truth")


def predict(kernelcount, path):
    out = subprocess.run([kernelcount, path, "--format", "json"], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()
    t = json.loads(out.stdout)["totals"]
    if t["unknown_ops"]:
        return None, f"{t['unknown_ops']} unknown op(s)"
    return (t["eager_kernels"], t["memcpy"], t["memset"]), ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernelcount", default="build/kernelcount")
    ap.add_argument("--truth", default=os.path.join(TRUTH, "ops_torch211_h200.json"))
    ap.add_argument("--cases", default=os.path.join(TRUTH, "cases"))
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    truth = json.load(open(args.truth))
    rows, matched, total, compiled, missing = [], 0, 0, [], []
    for name, m in truth.items():
        if name.startswith("compiled_"):
            compiled.append(name)
            continue
        path = os.path.join(args.cases, name + ".pt2")
        measured = (m["kernels"], m["memcpy"], m["memset"])
        total += 1
        if not os.path.exists(path):
            missing.append(name)
            rows.append((name, measured, None, "no archive"))
            continue
        pred, why = predict(args.kernelcount, path)
        ok = pred == measured
        matched += ok
        rows.append((name, measured, pred, why))
    fmt = lambda c: "?" if c is None else f"{c[0]}/{c[1]}/{c[2]}"
    if args.markdown:
        print("| case | measured k/cpy/set | predicted | |\n| --- | ---: | ---: | --- |")
        for name, meas, pred, why in rows:
            print(f"| {name} | {fmt(meas)} | {fmt(pred)} | {'ok' if pred == meas else why or 'MISMATCH'} |")
    else:
        for name, meas, pred, why in rows:
            print(f"{name:32s} measured {fmt(meas):8s} predicted {fmt(pred):8s} {'ok' if pred == meas else why or 'MISMATCH'}")
    print(f"\n{matched}/{total} eager cases match ({100.0 * matched / max(total, 1):.1f}%): kernels, memcpy and memset all equal")
    if compiled:
        print(f"not eager predictions (torch.compile measurements): {', '.join(compiled)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
