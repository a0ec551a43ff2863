"""pad_mm's decisions in the compiled programs themselves, beside the target's pad_mm tree.

Inductor's pad_mm decides by benchmarking whether to pad a GEMM whose M, K or N is not a multiple
of the dtype's alignment (8 elements for 16-bit types, 4 for float32). The target's pad_mm tree
(generators/fit_pad_mm.py) was fitted on a sweep that benchmarks shapes the way pad_mm does, alone
on the GPU. This script reads the decisions the real compiles took: a GEMM padded by pad_mm leaves
its pads in the output code (`#   linear_2 => constant_pad_nd_default_7, view_7` in the comment
of the Triton kernel that writes the pad), so each GEMM op of the exported program whose FX node
name owns a constant_pad_nd was padded, and one with an unaligned size that owns none was not.
The prediction is `kernelcount --fusion inductor`'s (an op whose Inductor note says "pad_mm pads
it"). GEMMs inside a recurrent layer's decomposition have no op of their own and are left out.

Printed: every disagreeing GEMM (with -v every one), then the counts by dtype, op form and which
sizes are unaligned (GEMMs, padded in the compiled runs, padded by the prediction, agreeing), and
how many GEMM sizes padded in one compiled program were kept in another (the ten seen most often).

Standard library only. Run from the repository root after building:
  python3 research/accuracy/pad_mm_compiled.py [--results TARBALL ...] [-v] [--kernelcount PATH]
"""
import argparse
import collections
import json
import lzma
import os
import re
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compile_accuracy  # noqa: E402

OWNER = re.compile(r"^#\s+(\w+) => (.*)$", re.M)
GEMMS = {"aten::linear", "aten::matmul", "aten::mm", "aten::addmm", "aten::bmm"}


def padded_nodes(code):
    """FX node names that own a constant_pad_nd in the output code."""
    return {m.group(1) for m in OWNER.finditer(code) if "constant_pad_nd" in m.group(2)}


def gemm_shape(op):
    """(form, dtype, m, k, n, batch) as pad_mm sees the op, or None where it does not apply."""
    ins = op.get("inputs", [])
    if len(ins) < 2:
        return None
    a, w = ins[0]["shape"], ins[1]["shape"]
    dtype = ins[0]["dtype"]
    name = op["op"].split(".")[0]
    if name == "aten::addmm" and len(ins) >= 3:
        a, w = ins[1]["shape"], ins[2]["shape"]
        dtype = ins[1]["dtype"]
    if dtype not in ("float32", "bfloat16", "float16") or not a or not w:
        return None
    if name in ("aten::linear", "aten::matmul") and len(a) >= 2 and len(w) == 2:
        k = a[-1]
        m = 1
        for s in a[:-1]:
            m *= s
        n = w[0] if name == "aten::linear" else w[1]
        form = "addmm" if name == "aten::linear" and len(ins) >= 3 else "mm"
        return form, dtype, m, k, n, 1
    if name in ("aten::matmul", "aten::bmm") and len(a) >= 3 and len(a) == len(w):
        b = 1
        for x, y in zip(a[:-2], w[:-2]):
            b *= max(x, y)
        return "bmm", dtype, a[-2], a[-1], w[-1], b
    if name in ("aten::mm", "aten::addmm") and len(a) == 2 and len(w) == 2:
        return name.split("::")[1], dtype, a[0], a[1], w[1], 1
    return None


def unaligned(dtype, m, k, n):
    align = 4 if dtype == "float32" else 8
    return "".join(d for d, x in (("M", m), ("K", k), ("N", n)) if x % align and x != 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernelcount", default="build/kernelcount")
    ap.add_argument("--results", nargs="+", default=None,
                    help="tarballs of compiled runs (default: compile_accuracy.py's, in its order)")
    ap.add_argument("-v", action="store_true", help="print every GEMM, not only the disagreements")
    args = ap.parse_args()
    results = args.results or compile_accuracy.DEFAULT_RESULTS
    seen, rows, skipped = set(), [], []
    for path in results:
        with tarfile.open(path) as tar:
            codes = {os.path.basename(m.name)[: -len(".code.py.xz")]: m for m in tar.getmembers()
                     if m.name.endswith(".code.py.xz")}
            for corpus, name, model, _ in compile_accuracy.measured(path):
                if name in seen:
                    continue
                seen.add(name)
                if not os.path.exists(model) or name not in codes:
                    skipped.append(name)
                    continue
                code = lzma.decompress(tar.extractfile(codes[name]).read()).decode(errors="replace")
                padded = padded_nodes(code)
                out = subprocess.run([args.kernelcount, model, "--fusion", "inductor", "--format", "json"],
                                     capture_output=True, text=True)
                if out.returncode != 0:
                    skipped.append(name)
                    continue
                for op in json.loads(out.stdout)["ops"]:
                    if op["op"].split(".")[0] not in GEMMS or not op.get("outputs"):
                        continue
                    shape = gemm_shape(op)
                    if shape is None:
                        continue
                    form, dtype, m, k, n, b = shape
                    which = unaligned(dtype, m, k, n)
                    if not which:
                        continue
                    fx = op["outputs"][0]["name"]
                    real = fx in padded
                    pred = "pad_mm pads it" in op.get("inductor", "")
                    rows.append((corpus, name, fx, form, dtype, m, k, n, b, which, real, pred))
    # pad_mm's pattern pass visits a graph's GEMMs last first (PatternMatcherPass.apply sorts the
    # nodes in reverse), so the last unaligned GEMM's size is the first a compile benchmarks, after
    # the GPU sat idle through the compile's CPU work.
    first = {}
    for r in rows:
        first[r[1]] = (r[3], r[4]) + tuple(r[5:9])
    rows = [r + ((r[3], r[4]) + tuple(r[5:9]) == first[r[1]],) for r in rows]
    for r in rows:
        if args.v or r[10] != r[11]:
            print("%-8s %-44s %-18s %-5s %-8s m=%-6d k=%-6d n=%-6d b=%-4d %-3s compiled %-4s predicted %s" % (
                r[0], r[1][:44], r[2][:18], r[3], r[4], r[5], r[6], r[7], r[8], r[9],
                "pad" if r[10] else "keep", "pad" if r[11] else "keep"))
    groups = collections.defaultdict(lambda: [0, 0, 0, 0])
    for r in rows:
        g = groups[(r[4], r[3], r[9], "m<=16" if r[5] <= 16 else "m>16")]
        g[0] += 1
        g[1] += r[10]
        g[2] += r[11]
        g[3] += r[10] == r[11]
    print("\n%-9s %-5s %-4s %-6s %6s %8s %9s %6s" % ("dtype", "form", "pad", "M", "GEMMs", "compiled", "predicted",
                                                     "agree"))
    for key in sorted(groups):
        g = groups[key]
        print("%-9s %-5s %-4s %-6s %6d %8d %9d %6d" % (key + tuple(g)))
    for label, want in (("benchmarked first in its compile", True), ("benchmarked later", False)):
        sel = [r for r in rows if r[12] == want]
        print("%s: %d unaligned GEMMs in %d programs; padded in the compiled runs %d, by the prediction %d" %
              (label, len(sel), len({r[1] for r in sel}), sum(r[10] for r in sel), sum(r[11] for r in sel)))
    total = [sum(g[i] for g in groups.values()) for i in range(4)]
    print("all: %d unaligned GEMMs in %d compiled programs; padded in the compiled runs %d, by the prediction %d; "
          "agreeing %d" % (total[0], len({r[1] for r in rows}), total[1], total[2], total[3]))
    print("compiled runs left out (no archive, no output code, or kernelcount failed): %d" % len(skipped))
    # The same GEMM (form, dtype, sizes) in different programs: pad_mm's answer is a timing, so a
    # shape near its threshold can go either way from one compile to the next.
    # Sizes alone: pad_mm's key also holds whether each operand's pad is left out of the timing,
    # which can differ between two programs' GEMMs of the same sizes.
    for label, keep in (("all runs", lambda r: True),
                        ("runs with Inductor's benchmarks alone on the GPU", lambda r: r[1] in compile_accuracy.ALONE)):
        answers = collections.defaultdict(lambda: (set(), set()))
        for r in rows:
            if keep(r):
                answers[(r[3], r[4]) + tuple(r[5:9])][0 if r[10] else 1].add(r[1])
        padded = [a for a in answers.values() if a[0]]
        both = sorted(((k, a) for k, a in answers.items() if a[0] and a[1]),
                      key=lambda ka: -(len(ka[1][0]) + len(ka[1][1])))
        print("%s: GEMM sizes padded in some compiled program: %d; of those, kept unpadded in another: %d" %
              (label, len(padded), len(both)))
        for key, (pads, keeps) in both[:10]:
            print("  %-5s %-8s m=%-6d k=%-6d n=%-6d b=%-4d padded in %d programs, kept in %d" %
                  (key + (len(pads), len(keeps))))


if __name__ == "__main__":
    main()
