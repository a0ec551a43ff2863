"""Expected DRAM bytes (kernelcount's "dram" pass) against the measured ones
(validate/dram_run.py: Nsight Compute's dram__bytes_read/write.sum per kernel of the real run,
caches as they are), per model.

    python3 research/accuracy/dram_accuracy.py BIN [MEASURED] [--json OUT] [--set NAME [--in-sample]]

MEASURED: a validate/device_dram.sh archive (dram.tar.xz) or a folder of <name>.dram.json;
default data/results/dram/measured.tar.xz, the set the L2's usable share was fitted on (its
out-of-sample figures: dram_lofo.py). A set measured after the model was fixed, compared here
before anything is fitted to it, is out of sample as it stands: --set names it in the output,
and models that are also in the fitted set are marked `*` and left out of its figures; with
--in-sample the set is said to be in sample (looked at, or fitted on, before the model was fixed).
Prints one row per model and the share of models within 25% (those measuring over 10 MB) and
within 2x. Memcpy and memset are not kernels: neither side counts them. Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SETS = ("models", "broad")  # corpus folders the sample is drawn from


FITTED = os.path.join(ROOT, "data", "results", "dram", "measured.tar.xz")


def measured(path):
    if os.path.isdir(path):
        for name in sorted(os.listdir(path)):
            if name.endswith(".dram.json"):
                with open(os.path.join(path, name)) as f:
                    yield json.load(f)
        return
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if m.name.endswith(".dram.json"):
                yield json.load(tar.extractfile(m))


def archive(name):
    for s in SETS:
        p = os.path.join(ROOT, "data", "corpus", s, name + ".pt2")
        if os.path.exists(p):
            return p
    raise FileNotFoundError(name)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bin")
    p.add_argument("measured", nargs="?", default=FITTED)
    p.add_argument("--json")
    p.add_argument("--set", help="name of a set measured apart from the fitted one (out of sample)")
    p.add_argument("--in-sample", action="store_true",
                   help="the --set was looked at, or fitted on, before the model was fixed: say so")
    a = p.parse_args()
    fitted = set() if os.path.abspath(a.measured) == FITTED else {m["model"] for m in measured(FITTED)}
    rows, seen = [], []
    for m in sorted(measured(a.measured), key=lambda m: m["model"]):
        if m["model"] in fitted:
            seen.append(m["model"])
            continue
        rep = json.loads(subprocess.run([a.bin, archive(m["model"]), "--format", "json"], capture_output=True,
                                        text=True, check=True).stdout)["totals"]
        asis, flushed = m["totals"]["as_is"], m["totals"].get("flushed", {})
        rows.append({"model": m["model"], "kernels": asis["kernels"], "array_sized": rep["eager_hbm_bytes"],
                     "measured": asis["dram_read"] + asis["dram_write"],
                     "measured_read": asis["dram_read"], "measured_write": asis["dram_write"],
                     "flushed": flushed.get("dram_read", 0) + flushed.get("dram_write", 0),
                     "expected": rep["eager_dram_read_bytes"] + rep["eager_dram_write_bytes"],
                     "expected_read": rep["eager_dram_read_bytes"], "expected_write": rep["eager_dram_write_bytes"]})
    mb = 1e6
    if a.set:
        seen_how = ("looked at before the model was fixed (in sample)" if a.in_sample
                    else "compared as first seen (out of sample)")
        print(f"set {a.set}: {len(rows)} models measured apart from the fitted set, {seen_how}")
    if seen:
        print("left out, in the fitted set too: " + ", ".join("*" + s for s in seen))
    print(f"{'model':40s} {'array-sized':>11s} {'flushed':>9s} {'measured':>9s} {'expected':>9s} {'ratio':>6s}  (MB)")
    for r in rows:
        ratio = r["expected"] / r["measured"] if r["measured"] > 0 else float("nan")
        print(f"{r['model']:40s} {r['array_sized'] / mb:11.1f} {r['flushed'] / mb:9.1f} {r['measured'] / mb:9.1f} "
              f"{r['expected'] / mb:9.1f} {ratio:6.2f}")
    big = [r for r in rows if r["measured"] > 10 * mb]
    within25 = [r for r in big if abs(r["expected"] - r["measured"]) <= 0.25 * r["measured"]]
    # Within 2x both ways; a model measuring under 1 MB counts as within when expected is too.
    within2 = [r for r in rows if (r["measured"] < mb and r["expected"] < mb) or
               (r["measured"] > 0 and 0.5 <= r["expected"] / r["measured"] <= 2)]
    print(f"{len(rows)} models; measured over 10 MB: {len(big)}, expected within 25%: {len(within25)}; "
          f"within 2x (or both under 1 MB): {len(within2)} of {len(rows)}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"models": rows, "over_10MB": len(big), "within_25pct": len(within25),
                       "within_2x": len(within2)}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
