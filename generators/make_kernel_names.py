"""Regenerates a target's kernel_names.inc (passes/targets/<folder>/): for each launch rule, the kernel
name families the H200 really ran for the ops that rule covers, from the committed measurements.

Reads every kernelcount-validate output (data/results/corpus/, heldout/, models/ and the
reference cases in truth_cases.json), predicts the same archives with `kernelcount --no-measured`
(so an op the measured table decides is filed under the rule that would fit it), and reduces each
measured kernel name to its family (`vectorized_elementwise_kernel`, `nvjet`,
`xmma_fprop_implicit_gemm`, `nchwToNhwcKernel`, ...). Rows are keyed by rule, dtype of the op's
first tensor and the number of launches; each keeps its most frequent sequence of families in
launch order (kernels, then memcpys, then memsets: CUPTI records those without an order to the
kernels here) and how many op instances ran it.
Run from the repository root after building, then rebuild:
  python3 generators/make_kernel_names.py [--target FOLDER]   (default: the registry's first)
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validate"))  # measured_io
import measured_io  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import targets  # noqa: E402

KC = "build/kernelcount"
# cuDNN's RNN with random weights copies them first: an artefact of the measurement.
SKIP = {"lstm"}
TS_INPUTS = {  # as validate/device_check.sh ran the TorchScript test models
    "traced_mlp": "32x64:float32", "traced_shape_arith": "8x32:float32", "scripted_control_flow": "8x64:float32"}


def family(name):
    """The part of a kernel name a student finds in a profiler row, without tile sizes."""
    head = re.split(r"[<(]", name)[0].strip()
    inner = name[len(head) + 1:].split(">")[0] if "<" in name[len(head):len(head) + 1] else ""
    short = head.split("::")[-1]
    if short in ("Kernel2", "Kernel") and "cutlass" in inner:
        kind = "fprop" if "fprop" in inner else "gemm"
        return f"cutlass_tensorop_{kind} ({short})"
    for pattern, fam in [(r"^nvjet_", "nvjet"), (r"xmma_fprop_implicit_gemm", "xmma_fprop_implicit_gemm"),
                         (r"xmma_gemm", "xmma_gemm"), (r"native_sdpa.*flash_fprop", "cudnn_sdpa_flash_fprop"),
                         (r"^fmha_cutlassF", "fmha_cutlassF")]:
        if re.search(pattern, short):
            return fam
    return short


def measurements():
    for folder in ("corpus", "heldout"):
        for _, meas in measured_io.measured(f"data/results/{folder}"):
            yield meas, []
    for path in sorted(glob.glob("data/results/models/*.json")):
        name = path.split("/")[-1][:-5]
        if name.endswith((".profiler", "_weights")) or name.split("_")[0] in SKIP:
            continue
        extra = ["--input", TS_INPUTS[name]] if name in TS_INPUTS else []
        yield json.load(open(path)), extra
    for name, meas in json.load(open("data/results/truth_cases.json")).items():
        if name not in SKIP:
            yield meas, []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    targets.add_argument(ap)
    args = ap.parse_args()
    out_path = targets.path(args.target, "kernel_names.inc")
    seqs = collections.defaultdict(collections.Counter)
    ops = 0
    for meas, extra in measurements():
        model = meas["model"]["path"]
        out = subprocess.run([KC, model, "--format", "json", "--no-measured", *extra, "--target", targets.name(args.target)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"kernelcount failed on {model}: {out.stderr.strip()}")
        pred = json.loads(out.stdout)["ops"]
        for m in meas["ops"]:
            # An op the loader no longer gives at that index (the model's ops changed since it was
            # measured) is not filed.
            p = pred[m["index"]] if m["index"] < len(pred) else None
            if not p or p["op"] != m["op"] or not p["launches"]["known"]:
                continue
            got = m["measured"]
            fams = [family(n) for n in got["kernel_names"]]
            fams += ["Memcpy " + k for k in got["memcpy_kinds"]] + ["Memset"] * got["memset"]
            if not fams:
                continue
            dtype = p["inputs"][0]["dtype"] if p["inputs"] else (p["outputs"][0]["dtype"] if p["outputs"] else "")
            launches = got["kernels"] + got["memcpy"] + got["memset"]
            seqs[(p["launches"]["rule"], dtype, launches)][" | ".join(fams)] += 1
            ops += 1
    rows = []
    for (rule, dtype, launches), counter in sorted(seqs.items()):
        seq, seen = counter.most_common(1)[0]
        rows.append(f'{{"{rule}", "{dtype}", {launches}, "{seq}", {seen}, {sum(counter.values())}}},')
    with open(out_path, "w") as f:
        f.write("// Generated by generators/make_kernel_names.py from data/results; do not edit.\n")
        f.write("// {rule, dtype, launches, kernel name families in launch order, op instances that ran\n")
        f.write("//  exactly these, op instances of this rule, dtype and launch count}\n")
        f.write("\n".join(rows) + "\n")
    print(f"{out_path}: {len(rows)} rows from {ops} measured op instances")


if __name__ == "__main__":
    main()
