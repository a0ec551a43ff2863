"""Two mechanisms of the DRAM model measured apart from any model, with Nsight Compute.

1. Reuse distance: how much of an array read back after D bytes of other data is still in L2.
   An array A (4 MiB) is read, then D bytes of another buffer, then A again; the second read's
   DRAM bytes over A's size are the share lost at reuse distance D. The L2 is first filled with
   clean lines of a third buffer (3 times its size), so nothing dirty is in the way. The DRAM
   model's hashed sets (passes/dram_traffic.cc) expect the share a Poisson tail gives:
   P(at least W of the lines touched since land in A's line's set).
2. cuDNN's float32 grouped-convolution transforms: an NCHW float32 convolution of 16 or 24
   channels per group at slices from 0.1 to 6 MB, every kernel's DRAM bytes, to read the write
   amplification of genericTranspose and tensorTransformGeneric against the slice's size
   (kernel_steps.h: 32 times an array over 256 KiB).

    python3 validate/dram_probe.py drive OUT_DIR        ncu twice (caches as they are, flushed);
                                                         writes OUT_DIR/probe.json
    python3 validate/dram_probe.py measure              (run by ncu: the profiled calls)
    python3 validate/dram_probe.py report PROBE.json    the two tables, beside the model's curves
"""
import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dram_run import METRICS, kernels  # noqa: E402  (standard library only, like this script)

MARK = "kc_probe:"
REUSE = (0.1, 0.25, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0, 3.0)  # x the L2's size
REPEATS = 3
A_BYTES = 4 << 20
# (channels per group, groups, height = width, stride): slices of 2 x cpg x H x W x 4 bytes.
CONVS = [(cpg, g, h, s) for cpg in (16, 24) for g in (2, 4) for h in (28, 56, 80, 112, 160, 224) for s in (1, 2)]


def measure():
    import torch
    dev = "cuda"
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    floats = lambda b: max(1, int(b) // 4)  # noqa: E731
    flush = torch.ones(floats(3 * l2), device=dev)
    other = torch.ones(floats(3.2 * l2), device=dev)
    a = torch.ones(floats(A_BYTES), device=dev)
    out = torch.empty((), device=dev)
    convs = []
    for cpg, g, h, s in CONVS:
        x = torch.randn(2, cpg * g, h, h, device=dev)
        w = torch.randn(cpg * g, cpg, 3, 3, device=dev)
        convs.append((f"conv:{cpg}:{g}:{h}:{s}", x, w, s, g))
    torch.backends.cudnn.benchmark = False
    with torch.no_grad():
        for _, x, w, s, g in convs:  # warm-up: cuDNN's plans and the allocator's blocks
            torch.nn.functional.conv2d(x, w, stride=s, padding=1, groups=g)
        torch.sum(flush, 0, out=out)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        for frac in REUSE:
            n = floats(frac * l2)
            for rep in range(REPEATS):
                torch.sum(flush, 0, out=out)
                torch.sum(a, 0, out=out)
                torch.sum(other[:n], 0, out=out)
                torch.cuda.nvtx.range_push(f"{MARK}reuse:{frac}:{rep}")
                torch.sum(a, 0, out=out)
                torch.cuda.nvtx.range_pop()
        for label, x, w, s, g in convs:
            torch.sum(flush, 0, out=out)
            torch.cuda.nvtx.range_push(MARK + label)
            torch.nn.functional.conv2d(x, w, stride=s, padding=1, groups=g)
            torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
    print(json.dumps({"l2_bytes": l2, "a_bytes": a.numel() * 4}), flush=True)


def parse(report):
    """Per probe label, its kernels' names and DRAM bytes read and written, in launch order."""
    probes = {}
    for name, stack, rd, wr in kernels(report):
        labels = [r[len(MARK):] for r in stack if r.startswith(MARK)]
        if labels:
            probes.setdefault(labels[-1], []).append([name, rd, wr])
    return probes


def drive(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    result = {}
    for mode, key in (("none", "as_is"), ("all", "flushed")):
        report = os.path.join(out_dir, f"probe_{mode}.ncu-rep")
        cmd = ["ncu", "--profile-from-start", "off", "--nvtx", "--metrics", ",".join(METRICS), "--cache-control", mode,
               "--clock-control", "none", "--replay-mode", "kernel", "-f", "-o", report, sys.executable,
               os.path.abspath(__file__), "measure"]
        with open(os.path.join(out_dir, "ncu.log"), "a") as log:
            done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=log, text=True)
        if done.returncode != 0:
            print(f"dram_probe: ncu ({mode}) exit {done.returncode}", file=sys.stderr)
            continue
        lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
        if lines:
            result.update(json.loads(lines[-1]))
        result[key] = parse(report)
    with open(os.path.join(out_dir, "probe.json"), "w") as f:
        json.dump(result, f)
    print(f"dram_probe: {sum(len(v) for k, v in result.items() if isinstance(v, dict))} probes in {out_dir}/probe.json")


def lost(ways, depth, capacity):
    """The hashed sets' share lost at reuse distance `depth` (dram_traffic.cc's survival)."""
    mean = ways * depth / capacity
    term = sum_ = math.exp(-mean)
    for k in range(1, ways):
        term *= mean / k
        sum_ += term
    return 1 - min(1.0, sum_)


def report(path):
    p = json.load(open(path))
    if "l2_bytes" not in p or "as_is" not in p:
        raise SystemExit(f"dram_probe: {path} holds no measurement (see ncu.log beside it)")
    l2, a_bytes = p["l2_bytes"], p["a_bytes"]
    cols = [(w, share) for w in (8, 16, 32) for share in (0.625, 1.0)]
    print("reuse distance (x L2), share of A read back from DRAM, caches as they are; the model's "
          "for W ways at a usable share")
    print(f"{'D/L2':>6s} {'measured':>9s} " + " ".join(f"{f'{w}w@{s}':>9s}" for w, s in cols))
    for frac in REUSE:
        runs = [p["as_is"].get(f"reuse:{frac}:{r}") for r in range(REPEATS)]
        got = [k[0][1] / a_bytes for k in runs if k]
        if not got:
            continue
        depth = frac * l2  # the other buffer's bytes touched since A
        print(f"{frac:6.2f} {sorted(got)[len(got) // 2]:9.3f} " +
              " ".join(f"{lost(w, depth, share * l2):9.3f}" for w, share in cols))
    print()
    print("grouped float32 convolutions: per transform kernel, DRAM bytes written over the slice it "
          "copies (input slice for the first of a group, output slice for the last)")
    print(f"{'cpg':>4s} {'g':>3s} {'H':>4s} {'s':>2s} {'in MB':>7s} {'out MB':>7s}  kernels: name as-is/flushed (x slice)")
    for cpg, g, h, s in CONVS:
        label = f"conv:{cpg}:{g}:{h}:{s}"
        ks, fl = p["as_is"].get(label, []), p.get("flushed", {}).get(label, [])
        if not ks:
            continue
        ho = (h + 2 - 3) // s + 1
        xin, xout = 2 * cpg * h * h * 4, 2 * cpg * ho * ho * 4
        cells = []
        for k, kern in enumerate(ks):
            name = kern[0].split("(")[0].split("<")[0].replace("void ", "")
            if "ranspose" not in name and "Transform" not in name:
                continue
            first = k + 1 < len(ks) and "gemm" in ks[k + 1][0]
            size = xin if first else xout
            f = fl[k][2] / size if k < len(fl) else float("nan")
            cells.append(f"{name[:20]} {kern[2] / size:.1f}/{f:.1f}")
        print(f"{cpg:4d} {g:3d} {h:4d} {s:2d} {xin / 1e6:7.2f} {xout / 1e6:7.2f}  " + ", ".join(cells[:6]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("measure")
    d = sub.add_parser("drive")
    d.add_argument("out_dir")
    r = sub.add_parser("report")
    r.add_argument("probe_json")
    a = ap.parse_args()
    if a.cmd == "measure":
        measure()
    elif a.cmd == "drive":
        drive(a.out_dir)
    else:
        report(a.probe_json)


if __name__ == "__main__":
    main()
