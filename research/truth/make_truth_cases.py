"""Exports each case of ops_probe.py as a small .pt2 (weights stripped) into data/truth/cases/.

The cases are the probe's own ops, shapes and dtypes, so kernelcount's prediction for a case can
be compared with the probe's measurement (ops_torch211_h200.json) by truth_accuracy.py.
Run from the repository root: python research/truth/make_truth_cases.py [--device cuda]
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
from strip_weights import load_relative, strip_weights  # noqa: E402

# Compiled under its repository path, so that the archives record no machine paths.
cases = load_relative("research/truth/truth_cases.py", "truth_cases").cases


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "truth", "cases"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    failed = {}
    for name, module, inputs in cases(args.device):
        path = os.path.join(args.out, name + ".pt2")
        full = os.path.join(args.out, name + ".full.pt2")
        try:
            ep = torch.export.export(module.eval() if "train" not in name else module, inputs, strict=False)
            torch.export.save(ep, full)
            strip_weights(full, path)
        except Exception as e:  # one case failing must not stop the others
            failed[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        finally:
            if os.path.exists(full):
                os.remove(full)
    for name, why in failed.items():
        print(f"not exported: {name}: {why}")
    print(f"{len([f for f in os.listdir(args.out) if f.endswith('.pt2')])} cases in {args.out}")


if __name__ == "__main__":
    main()
