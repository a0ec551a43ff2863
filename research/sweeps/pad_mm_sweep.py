"""What Inductor's pad_mm pass decides on this GPU, over random GEMM shapes.

torch.compile (default mode) pads an mm, addmm or bmm whose M, K or N is not a multiple of the
dtype's alignment (8 elements for 16-bit types, 4 for float32) when pad_mm's check finds it
compute bound and its benchmark finds the padded GEMM (the pads, the aligned GEMM) faster than
the original by more than 10% (torch/_inductor/fx_passes/pad_mm.py, `_should_pad`). Each padded
input then costs a constant_pad_nd kernel in the compiled program, so the decision changes the
kernel count; it is taken by timing, and this sweep measures it as Inductor takes it: the same
helpers (pad_mat1, pad_mat2, pad_mm, pad_addmm, pad_bmm), the same benchmarker and multiplier,
on random inputs of each shape, alone on the GPU.

One JSON line per shape: op, dtype, m, k, n, batch, whether each input's pad is left out of the
timing (`mat1_pre_padded`, `mat2_pre_padded`: Inductor leaves it out for a contiguous input that
is no graph input, as its pad can be planned away), the padded lengths, the compute-bound check,
the two times (ms) and the decision; a share of shapes is benchmarked again (`repeats`: the
later answers).

    python3 research/sweeps/pad_mm_sweep.py OUT.jsonl [--n 3000] [--deadline-s 240] [--seed 0]

Given shapes instead (`--shapes FILE`, one JSON object a line with the keys of ANCHORS below),
each is decided `--repeat` times, under the conditions asked for: `--idle-s S` leaves the GPU
idle S seconds before each benchmark, as a compile does while its CPU work runs between them;
`--cpu-load K` keeps K other processes spinning on the CPU meanwhile, as parallel compiles do.
Each row records the conditions it was taken under.
"""
import argparse
import json
import math
import multiprocessing
import random
import sys
import time

import torch
from torch._inductor import utils as inductor_utils
from torch._inductor.fx_passes import pad_mm as P

# Sizes that architectures use and that are not multiples of 8: class counts, token counts with
# a class token, patch grids, vocabularies, odd head sizes. Drawn from in a share of the samples,
# beside log-uniform sizes, so that both kinds are covered.
COMMON_ODD = [2, 3, 5, 6, 7, 10, 12, 14, 17, 20, 21, 49, 50, 65, 96 + 1, 100, 145, 196, 197, 257,
              577, 785, 1000, 1001, 3136 + 1, 21843, 30522, 32001, 50257, 51865]


ANCHORS = [
    {"op": "addmm", "dtype": "bfloat16", "m": 2, "k": 256, "n": 256, "batch": 1,
     "mat1_pre_padded": True, "mat2_pre_padded": False, "mat2_transposed": True},
    {"op": "addmm", "dtype": "float32", "m": 2, "k": 256, "n": 256, "batch": 1,
     "mat1_pre_padded": True, "mat2_pre_padded": False, "mat2_transposed": True},
    {"op": "mm", "dtype": "bfloat16", "m": 1024, "k": 768, "n": 50257, "batch": 1,
     "mat1_pre_padded": True, "mat2_pre_padded": False, "mat2_transposed": True},
    {"op": "bmm", "dtype": "bfloat16", "m": 197, "k": 64, "n": 197, "batch": 96,
     "mat1_pre_padded": True, "mat2_pre_padded": False, "mat2_transposed": True},
    {"op": "bmm", "dtype": "float32", "m": 197, "k": 197, "n": 64, "batch": 96,
     "mat1_pre_padded": True, "mat2_pre_padded": False, "mat2_transposed": False},
]


def probe():
    """What the compute-bound check rests on here: the datasheet or Triton's estimates."""
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__}
    for name, fn in (("tflops_bf16", lambda: inductor_utils.get_device_tflops(torch.bfloat16)),
                     ("tflops_fp32", lambda: inductor_utils.get_device_tflops(torch.float32)),
                     ("dram_gbps", inductor_utils.get_gpu_dram_gbps)):
        try:
            out[name] = fn()
        except Exception as e:  # the check itself treats an exception as compute bound
            out[name] = f"error: {type(e).__name__}: {e}"[:300]
    out["shape_padding"] = torch._inductor.config.shape_padding
    out["force_shape_pad"] = torch._inductor.config.force_shape_pad
    out["autoheuristic_pad_mm"] = torch._inductor.config.run_autoheuristic("pad_mm")
    out["post_grad_fusion_options"] = str(torch._inductor.config.post_grad_fusion_options)
    return out


def draw_dim(rng, align, lo, hi):
    r = rng.random()
    if r < 0.25:
        return rng.choice([d for d in COMMON_ODD if lo <= d <= hi] or [lo])
    d = int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))
    if r < 0.55:  # aligned
        d = max(align, (d // align) * align)
    return max(lo, min(hi, d))


def draw(rng):
    op = rng.choices(["mm", "addmm", "bmm"], [0.35, 0.35, 0.3])[0]
    dtype = rng.choice(["bfloat16", "float32"])
    align = 8 if dtype == "bfloat16" else 4
    batch = 1
    if op == "bmm":
        batch = int(round(math.exp(rng.uniform(0, math.log(1024)))))
        m, k, n = (draw_dim(rng, align, 2, 4096) for _ in range(3))
    else:
        m = draw_dim(rng, align, 2, 65536)
        k, n = draw_dim(rng, align, 2, 16384), draw_dim(rng, align, 2, 65536)
    # mat1 is usually an activation (its pad planned away when it is contiguous); mat2 usually a
    # weight, a graph input seen through a transpose (its pad timed).
    return {"op": op, "dtype": dtype, "m": m, "k": k, "n": n, "batch": batch,
            "mat1_pre_padded": rng.random() < 0.7, "mat2_pre_padded": rng.random() < 0.3,
            "mat2_transposed": rng.random() < 0.7}


def fits(c):
    elem = 2 if c["dtype"] == "bfloat16" else 4
    b = c["batch"]
    total = b * (c["m"] * c["k"] + c["k"] * c["n"] + c["m"] * c["n"]) * elem
    flops = 2 * b * c["m"] * c["k"] * c["n"]
    return total < 3 << 30 and flops < 2e13


def decide(c, do_bench, repeat):
    dtype = getattr(torch, c["dtype"])
    m, k, n, b = c["m"], c["k"], c["n"], c["batch"]
    is_bmm = c["op"] == "bmm"
    lead = (b,) if is_bmm else ()
    mat1 = torch.randn(*lead, m, k, device="cuda", dtype=dtype)
    if c["mat2_transposed"]:
        mat2 = torch.randn(*lead, n, k, device="cuda", dtype=dtype).transpose(-1, -2)
    else:
        mat2 = torch.randn(*lead, k, n, device="cuda", dtype=dtype)
    bias = torch.randn(n, device="cuda", dtype=dtype) if c["op"] == "addmm" else None
    kp = P.get_padded_length(k, P.get_alignment_size(mat1))
    np_ = P.get_padded_length(n, P.get_alignment_size(mat2))
    mp = P.get_padded_length(m, P.get_alignment_size(mat1))
    row = dict(c, m_pad=mp, k_pad=kp, n_pad=np_)
    if mp == kp == np_ == 0:
        row["decision"] = "aligned"
        return row
    row["compute_bound"] = P.is_mm_compute_bound(m, k, n, dtype)
    if not row["compute_bound"]:
        row["decision"] = "not compute bound"
        return row
    # As _should_pad: an input whose pad is left out of the timing is padded beforehand, and only
    # the write of its zero border is timed, with the slices Inductor uses. Inductor leaves a pad out only for a contiguous input (a weight seen through a transpose
    # never).
    pre1 = bool(c["mat1_pre_padded"] and (mp or kp))
    pre2 = bool(c["mat2_pre_padded"] and not c["mat2_transposed"] and (kp or np_))
    row["mat1_pre_padded"], row["mat2_pre_padded"] = pre1, pre2
    mat1_pad, mat2_pad, fns = mat1, mat2, []
    if pre1:
        mat1_pad = P.pad_mat1(mat1, m_padded_length=mp, k_padded_length=kp, is_bmm=is_bmm)
        fns.append(lambda: (mat1_pad[:, -mp:, -kp:] if is_bmm else mat1_pad[-mp:, -kp:]).fill_(0))
    if pre2:
        mat2_pad = P.pad_mat2(mat2, k_padded_length=kp, n_padded_length=np_, is_bmm=is_bmm)
        fns.append(lambda: (mat2_pad[:, -kp:, -np_:] if is_bmm else mat2_pad[-kp:, -np_:]).fill_(0))
    if c["op"] == "addmm":
        bias_pad = torch.randn_like(bias)
        fns.append(lambda: P.pad_addmm(bias_pad, mat1_pad, mat2_pad, mp, kp, np_,
                                       mat1_pre_padded=pre1, mat2_pre_padded=pre2))
        orig = lambda: torch.ops.aten.addmm(bias, mat1, mat2)  # noqa: E731
    elif c["op"] == "mm":
        fns.append(lambda: P.pad_mm(mat1_pad, mat2_pad, mp, kp, np_, mat1_pre_padded=pre1,
                                    mat2_pre_padded=pre2))
        orig = lambda: torch.ops.aten.mm(mat1, mat2)  # noqa: E731
    else:
        fns.append(lambda: P.pad_bmm(mat1_pad, mat2_pad, mp, kp, np_, mat1_pre_padded=pre1,
                                     mat2_pre_padded=pre2))
        orig = lambda: torch.ops.aten.bmm(mat1, mat2)  # noqa: E731

    def padded():
        for fn in fns:
            fn()

    times = []
    for _ in range(repeat):
        ori, pad = do_bench(orig), do_bench(padded)
        times.append((round(ori, 5), round(pad, 5), ori > pad * 1.1))
    row["ori_ms"], row["pad_ms"], pad_it = times[0]
    row["decision"] = "pad" if pad_it else "keep"
    if repeat > 1:
        row["repeats"] = ["pad" if t[2] else "keep" for t in times[1:]]
    return row


def spin():
    while True:
        pass


def decide_given(shapes_path, repeat, idle_s, do_bench, f):
    """Each given shape decided `repeat` times, the GPU left idle `idle_s` before each."""
    for line in open(shapes_path):
        if not line.strip():
            continue
        c = json.loads(line)
        answers = []
        for _ in range(repeat):
            torch.cuda.synchronize()
            time.sleep(idle_s)
            row = decide(c, do_bench, 1)
            answers.append((row.get("ori_ms"), row.get("pad_ms"), row["decision"]))
        row["repeats"] = [a[2] for a in answers]
        row["times_ms"] = [[a[0], a[1]] for a in answers]
        f.write(json.dumps(row) + "\n")
        f.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--deadline-s", type=float, default=240)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat-share", type=float, default=0.15)
    ap.add_argument("--shapes", help="JSON lines of shapes to decide instead of random ones")
    ap.add_argument("--repeat", type=int, default=5, help="decisions per given shape")
    ap.add_argument("--idle-s", type=float, default=0.0, help="GPU idle before each given shape's decision")
    ap.add_argument("--cpu-load", type=int, default=0, help="processes spinning on the CPU meanwhile")
    args = ap.parse_args()
    t0 = time.time()
    rng = random.Random(args.seed)
    do_bench = P.get_do_bench()
    done = 0
    load = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.cpu_load)]
    for proc in load:
        proc.start()
    with open(args.out, "w") as f:
        f.write(json.dumps({"probe": dict(probe(), idle_s=args.idle_s, cpu_load=args.cpu_load)}) + "\n")
        if args.shapes:
            decide_given(args.shapes, args.repeat, args.idle_s, do_bench, f)
            for proc in load:
                proc.terminate()
            print(f"pad_mm_sweep: given shapes in {time.time() - t0:.0f} s", file=sys.stderr)
            return
        # A few shapes first, each benchmarked five times: how stable one decision is.
        for c in ANCHORS:
            f.write(json.dumps(dict(decide(c, do_bench, 5), anchor=True)) + "\n")
        while done < args.n and time.time() - t0 < args.deadline_s:
            c = draw(rng)
            if not fits(c):
                continue
            repeat = 2 if rng.random() < args.repeat_share else 1
            try:
                row = decide(c, do_bench, repeat)
            except Exception as e:  # an out-of-memory shape, say: recorded, not fatal
                row = dict(c, error=f"{type(e).__name__}: {e}"[:200])
            torch.cuda.empty_cache()
            f.write(json.dumps(row) + "\n")
            f.flush()
            done += 1
    for proc in load:
        proc.terminate()
    print(f"pad_mm_sweep: {done} shapes in {time.time() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
