"""Leave-one-family-out check of the DRAM model's fitted parameters: the share of the L2 it may
fill (Target::l2_usable_fraction) and the ways of its hashed sets (Target::l2_ways).

    python3 research/accuracy/dram_lofo.py FRACTION=BIN [FRACTION=BIN ...] [--measured PATH [PATH ...]]
    python3 research/accuracy/dram_lofo.py --grid BIN SHARES WAYS [--measured PATH [PATH ...]]

--grid runs one build at every pair of SHARES and WAYS (comma-separated lists) through
KERNELCOUNT_L2_MODEL (passes/dram_traffic.cc), ways 0 being the hard cut-off.

Each BIN is a kernelcount build whose target sets that fraction (passes/targets/); builds that
differ in more than one parameter name them all, comma-separated (`0.625,16=BIN`), and the
pair is chosen together. For every
family (the architecture: the letters that begin a model's name or its broad-set family), the
fraction is chosen on the other families' models (most within 25% of those measuring over
10 MB, ties to the smaller median error) and the family's own models are predicted with it.
--measured takes one or more sets (dram_accuracy.py's MEASURED; default the fitted set), whose
models are pooled. Prints the fraction each family got and the out-of-sample figures. Standard
library only.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def family(model):
    return re.match(r"[a-z]+", model.split("__")[0]).group(0)


def within25(r):
    return abs(r["expected"] - r["measured"]) <= 0.25 * r["measured"]


def score(rows):
    big = [r for r in rows if r["measured"] > 10e6]
    errs = sorted(abs(math.log(max(r["expected"], 1) / r["measured"])) for r in big)
    return (sum(within25(r) for r in big), -errs[len(errs) // 2] if errs else 0)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("builds", nargs="*", help="FRACTION=BIN")
    p.add_argument("--grid", nargs=3, metavar=("BIN", "SHARES", "WAYS"))
    p.add_argument("--measured", nargs="+", default=[os.path.join(ROOT, "data", "results", "dram", "measured.tar.xz")])
    a = p.parse_args()
    runs = [(spec.partition("=")[0], spec.partition("=")[2], None) for spec in a.builds]
    if a.grid:
        binary, shares, ways = a.grid
        runs += [(f"{s},{w}", binary, f"{s},{w}") for s in shares.split(",") for w in ways.split(",")]
    if not runs:
        p.error("give FRACTION=BIN builds or --grid")
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for values, binary, setting in runs:
            env = dict(os.environ, KERNELCOUNT_L2_MODEL=setting) if setting else None
            key = tuple(float(v) for v in values.split(","))
            key = key if len(key) > 1 else key[0]
            res[key] = {}
            for k, measured in enumerate(a.measured):
                out = os.path.join(tmp, f"{values}.{k}.json")
                subprocess.run([sys.executable, os.path.join(HERE, "dram_accuracy.py"), binary, measured, "--json", out],
                               check=True, capture_output=True, env=env)
                res[key].update({r["model"]: r for r in json.load(open(out))["models"]})
    fracs = sorted(res)
    models = sorted(res[fracs[0]])
    chosen, rows = {}, []
    for fam in sorted({family(m) for m in models}):
        rest = [m for m in models if family(m) != fam]
        best = max(fracs, key=lambda f: score([res[f][m] for m in rest]))
        chosen[fam] = best
        rows += [res[best][m] for m in models if family(m) == fam]
    big = [r for r in rows if r["measured"] > 10e6]
    within2 = [r for r in rows if (r["measured"] < 1e6 and r["expected"] < 1e6) or
               (r["measured"] > 0 and 0.5 <= r["expected"] / r["measured"] <= 2)]
    print("fraction chosen per held-out family:", ", ".join(f"{k} {v}" for k, v in chosen.items()))
    print("in sample, all families:", {f: score([res[f][m] for m in models])[0] for f in fracs}, "within 25% of", len(big))
    print(f"left out by family: {len(rows)} models; measured over 10 MB: {len(big)}, expected within 25%: "
          f"{sum(within25(r) for r in big)}; within 2x (or both under 1 MB): {len(within2)} of {len(rows)}")
    ok2 = {r["model"] for r in within2}
    misses = [r for r in rows if r["model"] not in ok2 or (r["measured"] > 10e6 and not within25(r))]
    print("misses, left out:", ", ".join(f"{r['model']} {r['expected'] / 1e6:.1f} MB expected for {r['measured'] / 1e6:.1f}"
                                         for r in sorted(misses, key=lambda r: r["model"])))


if __name__ == "__main__":
    main()
