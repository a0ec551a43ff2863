"""Two studies behind FINDINGS.md's section on cuDNN's own heuristics (needs scikit-learn):

  engines  how far cuDNN's chosen engine (and its knobs) alone decides what a convolution
           launches: the share of measured convolutions whose outcome is the most frequent one
           of their (tree, engine) and (tree, engine, knobs) groups;
  curve    the shape-only trees' leave-one-family-out accuracy with a random share of the
           sweep shapes beside the models' (FRACTION ...), at the tree sizes fit_conv.py chose.

    python3 validate/sweeps/conv_studies.py engines
    python3 validate/sweeps/conv_studies.py curve 0.01 0.25 0.5 1
"""
import collections
import contextlib
import io
import random
import sys

import fit_conv as fc

SIZES = {"f32_nchw": 400, "f32_nhwc": 16, "half_nchw": 96, "half_nhwc": 8, "f32_ncdhw": 48, "f32_ndhwc": 8,
         "half_ncdhw": 48, "half_ndhwc": 16, "f32_grouped": 256, "half_grouped": 400}


def engines(rows):
    n = len(fc.FEATURES)
    for name, key in (("engine", lambda f: f[n]), ("engine and knobs", lambda f: tuple(f[n:n + 1 + len(fc.KNOBS)]))):
        groups = collections.defaultdict(collections.Counter)
        for tree, f, label, *_ in rows:
            groups[(tree, key(f))][label] += 1
        right = sum(c.most_common(1)[0][1] for c in groups.values())
        print(f"by (tree, {name}): {len(groups)} groups, the most frequent outcome is right for {right}/{len(rows)} "
              f"({100 * right / len(rows):.1f}%)")


def curve(sweep, measured, fractions):
    for frac in fractions:
        rng = random.Random(0)
        rows = [r for r in sweep if rng.random() < frac] + fc.distinct(measured)
        fitted = {n: fc.fit_only([r for r in rows if r[0] == n], n, SIZES[n], False)
                  for n, _ in fc.TREES if any(r[0] == n for r in rows)}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            fc.lofo(rows, measured, fitted, SIZES, False)
        print(f"sweep share {frac}: {out.getvalue().splitlines()[0]}")


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("engines", "curve"):
        sys.exit(__doc__)
    fc.load_engines()
    sweep, measured = fc.samples(fc.SWEEPS), fc.model_samples()
    if fc.PENDING:
        sys.exit("conv_studies: run fit_conv.py first (cuDNN's answers for every convolution)")
    if sys.argv[1] == "engines":
        engines(sweep + measured)
    else:
        curve(sweep, measured, [float(v) for v in sys.argv[2:]] or [0.01, 0.25, 0.5, 1])


if __name__ == "__main__":
    main()
