"""Every convolution a compiled program called, beside what kernelcount's Inductor plan predicts for it.

Inductor calls a convolution as one extern kernel (aten.convolution, cuDNN underneath) on the
layout its layout optimization picks, so the compiled runs (data/results/compiled/*.tar.xz) are
measurements of cuDNN's launches for channels-last convolutions that the eager corpora hardly
hold. For each run of library calls in a compiled program that is one convolution alone (between
two Triton kernels), this prints its dtype, layout as Inductor handed it to cuDNN, shapes, the
kernels predicted (the operand copies Inductor adds, which run as Triton loops, left out) and the
kernels the GPU ran; then a summary by dtype, layout and kernel size.

With --write, the ungrouped ones go to a file generators/fit_conv.py learns from: per convolution
the program, dtype, sizes, the strides cuDNN was handed (dense channels last where Inductor's layout
optimization ran it so, dense NCHW otherwise: ATen copies an operand that is not into the layout
cudnn_conv_suggest_memory_format picks), stride, padding, dilation, and what ran: cuDNN's kernels
(ATen's elementwise layout copies left out: the layout pass decides those, not cuDNN), the memsets
and the kernel names. Inductor peels the bias off into a Triton loop, so none carries one.

Standard library only. Run from the repository root after building:
  python3 research/accuracy/compiled_convs.py [--results TARBALL...] [--misses] [--kernelcount PATH]
      [--write data/results/compiled/convolutions.jsonl.gz]
"""
import argparse
import collections
import gzip
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compile_accuracy  # noqa: E402
import compile_diff  # noqa: E402


def convolutions(kc, model, run):
    """(op, layout, predicted kernels, measured kernel names, memsets) of each convolution called alone, and how
    many convolutions were called beside other library calls (whose kernels cannot be told apart)."""
    out = subprocess.run([kc, model, "--fusion", "inductor", "--format", "json"], capture_output=True, text=True)
    if out.returncode != 0:
        return [], 0
    report = json.loads(out.stdout)
    ops = report["ops"]
    plan = next(p for p in report["fusion"] if p["variant"] == "inductor")
    by_name = {}
    for grp in plan["groups"]:
        if grp["kind"] != "extern":
            continue
        op = ops[grp["ops"][-1]]
        if op.get("class") != "conv" or not op.get("outputs"):
            continue
        # The layout and the operand copies Inductor adds are read from the plan's note on the op
        # (inductor_externs.cc's words), which the JSON carries as text only.
        note = op.get("inductor", "")
        copies = note.count(" copied to channels last")
        layout = "cl" if "channels-last tensors" in note else "nchw"
        by_name[op["outputs"][0]["name"]] = (op, layout, grp["fused_kernels"] - copies)
    found, shared = [], 0
    for calls, kernels, memsets in compile_diff.measured_runs(run)[1]:
        if len(calls) != 1:
            shared += sum(1 for c in calls if any(n in by_name for n in c))
            continue
        hits = [n for n in calls[0] if n in by_name]
        if hits:
            op, layout, k = by_name[hits[-1]]
            found.append((op, layout, k, kernels, memsets))
    return found, shared


def aten_copy(name):
    """ATen's own elementwise kernels (the layout copies of an operand), never cuDNN's."""
    return name.startswith("void at::native::") and "elementwise_kernel" in name


def dense(sizes, order):
    """Strides dense in the given order of dimensions, fastest first."""
    strides, acc = [0] * len(sizes), 1
    for d in order:
        strides[d], acc = acc, acc * sizes[d]
    return strides


def record(name, op, layout, kernels, memsets):
    """The line generators/fit_conv.py reads, or None for a grouped or transposed convolution."""
    x, w = op["inputs"][0], op["inputs"][1]
    args = {a["name"]: a.get("value") for a in op.get("args", [])}
    if (args.get("groups") or 1) != 1 or "transpose" in op["op"] or args.get("transposed"):
        return None
    rank = len(x["shape"])
    order = [1] + list(range(rank - 1, 1, -1)) + [0] if layout == "cl" else list(range(rank - 1, -1, -1))
    core = [k for k in kernels if not aten_copy(k)]
    return {"program": name, "op": op["op"], "dtype": x["dtype"], "layout": layout,
            "x": [x["shape"], dense(x["shape"], order)], "w": [w["shape"], dense(w["shape"], order)],
            "stride": args.get("stride"), "padding": args.get("padding"), "dilation": args.get("dilation"),
            "kernels": len(core), "memset": memsets, "aten_copies": len(kernels) - len(core), "kernel_names": core}


def describe(op):
    x, w = op["inputs"][0], op["inputs"][1]
    args = {a["name"]: a.get("value") for a in op.get("args", [])}
    return (x["dtype"], "x".join(str(v) for v in w["shape"][2:]), x["shape"], w["shape"], args.get("stride"),
            args.get("padding"), args.get("groups"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", nargs="*", default=compile_accuracy.DEFAULT_RESULTS)
    ap.add_argument("--kernelcount", default="build/kernelcount")
    ap.add_argument("--misses", action="store_true", help="print every convolution predicted wrong")
    ap.add_argument("--write", metavar="JSONL.GZ", help="the ungrouped convolutions, for generators/fit_conv.py")
    a = ap.parse_args()
    seen, rows, lines, beside = set(), [], [], 0
    for path in a.results:
        for name, corpus, run in sorted(compile_accuracy.compiled_runs(path), key=lambda r: r[0]):
            model = compile_accuracy.archive(corpus)
            if name in seen or not os.path.exists(model):
                continue
            seen.add(name)
            found, shared = convolutions(a.kernelcount, model, run)
            beside += shared
            for op, layout, k, kernels, memsets in found:
                rows.append((name, layout, describe(op), k, kernels))
                line = record(name, op, layout, kernels, memsets)
                if line:
                    lines.append(json.dumps(line, sort_keys=True, separators=(",", ":")))
    if a.write:
        # mtime 0: the same runs give the same bytes
        with gzip.GzipFile(a.write, "wb", mtime=0) as f:
            f.write(("\n".join(lines) + "\n").encode())
    summary = collections.defaultdict(lambda: [0, 0])
    for name, layout, (dtype, ksize, xs, ws, stride, pad, groups), k, kernels in rows:
        kind = (dtype, layout, "grouped" if groups and groups > 1 else ksize if ksize in ("1x1", "3x3") else "other")
        summary[kind][0] += 1
        summary[kind][1] += k == len(kernels)
        if a.misses and k != len(kernels):
            print(f"{name:50s} {dtype:8s} {layout:4s} x={xs} w={ws} s={stride} p={pad} g={groups}: "
                  f"predicted {k}, ran {len(kernels)}: " + " | ".join(n[:60] for n in kernels))
    print(f"{len(rows)} convolutions called alone in {len(seen)} compiled programs ({beside} more called beside other "
          "library calls, not compared)")
    print(f"{'dtype':10s} {'layout':6s} {'kernel':8s} {'exact':>12s}")
    for kind, (n, hits) in sorted(summary.items()):
        print(f"{kind[0]:10s} {kind[1]:6s} {kind[2]:8s} {hits:6d}/{n:<6d} {100 * hits / n:5.1f}%")


if __name__ == "__main__":
    main()
