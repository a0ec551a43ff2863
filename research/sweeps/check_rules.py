"""The launch rules against the op shape sweeps: for every sweep configuration kernelcount can
build as a one-op graph (convolutions, linear, addmm), the rules' counts (no measured table)
beside the measured ones, exact-match rates per family, op, dtype and any parameter.

    python3 research/sweeps/check_rules.py build/kernelcount-sweepcheck [--family conv_dense]
        [--by dtype,k] [--misses 20] [--split-seed S]

--split-seed S also reports the rates on a random half of the configurations (seed S), the
half a fit made on the other half never saw; the rules in the repository are fitted on whole
sweeps, so that figure is for checking a new fit, not a claim about the committed rules.
"""
import argparse
import collections
import gzip
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def rows(binary, path, families):
    with gzip.open(path, "rt") as f:
        recs = [line for line in f if any(f'"family": "{fam}"' in line for fam in families)]
    out = subprocess.run([binary], input="".join(recs), capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def key_of(r, by):
    p = dict(r["params"], op=r["op"], family=r["family"])
    return tuple(str(p.get(k)) for k in by)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument("--sweeps", default=os.path.join(HERE, "..", "..", "data", "sweeps", "sweep.jsonl.gz"))
    ap.add_argument("--family", default="conv,gconv,gconv_wide,conv_dense,gemm_f32,gemm_half,gemm_small,matmul_bcast,sdpa_layout")
    ap.add_argument("--by", default="family,op,dtype")
    ap.add_argument("--misses", type=int, default=0, help="print this many mispredicted configurations")
    ap.add_argument("--split-seed", type=int)
    a = ap.parse_args()
    rs = rows(a.binary, a.sweeps, a.family.split(","))
    if not rs:
        sys.exit("check_rules: no configuration of those families")
    by = a.by.split(",")
    tally = collections.defaultdict(lambda: [0, 0, 0])
    for r in rs:
        t = tally[key_of(r, by)]
        t[0] += 1
        t[1] += r["predicted"] == r["measured"]
        t[2] += r["predicted"] is not None and r["predicted"][0] == r["measured"][0]
    total = sum(t[0] for t in tally.values())
    exact = sum(t[1] for t in tally.values())
    print(f"{exact}/{total} configurations exact ({100 * exact / total:.1f}%): kernels, memcpy and memset all equal")
    print(f"{'/'.join(by):40s} {'configs':>8s} {'exact':>7s} {'kernels':>8s}")
    for k in sorted(tally):
        n, e, kk = tally[k]
        print(f"{'/'.join(k):40s} {n:8d} {100 * e / n:6.1f}% {100 * kk / n:7.1f}%")
    if a.split_seed is not None:
        r = random.Random(a.split_seed)
        half = [x for x in rs if r.random() < 0.5]
        e = sum(x["predicted"] == x["measured"] for x in half)
        print(f"held-out half (seed {a.split_seed}): {e}/{len(half)} exact ({100 * e / len(half):.1f}%)")
    shown = 0
    for r in rs:
        if shown >= a.misses:
            break
        if r["predicted"] != r["measured"]:
            print(f"miss {r['family']} {r['op']} {json.dumps(r['params'])} measured {r['measured']} "
                  f"predicted {r['predicted']} ({r['rule']})")
            shown += 1


if __name__ == "__main__":
    main()
