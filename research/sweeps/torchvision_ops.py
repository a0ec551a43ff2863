"""What torchvision's ops launch on the GPU, swept over their sizes, dtypes and layouts.

Each configuration calls one op (torch.ops.torchvision.*) on random valid inputs, eagerly under
torch.no_grad(), after two warm-up calls, and counts with torch.profiler what the op itself
launched (validate/crosscheck_profiler.py's attribution: the outermost dispatcher op), with the
kernel names. One JSON line per configuration.

    python3 research/sweeps/torchvision_ops.py OUT.jsonl [--quick]
"""
import argparse
import json
import os
import sys
import time

import torch
import torchvision  # noqa: F401  registers torch.ops.torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
from crosscheck_profiler import measure  # noqa: E402

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def boxes(n, dtype, seed=0, contiguous=True):
    g = torch.Generator(device="cuda").manual_seed(seed)
    xy = torch.rand(n, 2, device="cuda", generator=g) * 200
    wh = torch.rand(n, 2, device="cuda", generator=g) * 50 + 1
    b = torch.cat([xy, xy + wh], 1).to(dtype)
    if not contiguous:  # a column slice of a wider tensor, as a detector's outputs often are
        b = torch.cat([b, torch.zeros(n, 1, device="cuda", dtype=dtype)], 1)[:, :4]
    return b


def rois(k, batch, dtype, seed=1, contiguous=True):
    g = torch.Generator(device="cuda").manual_seed(seed)
    idx = torch.randint(0, batch, (k, 1), device="cuda", generator=g).to(dtype)
    r = torch.cat([idx, boxes(k, dtype, seed) / 4], 1)
    if not contiguous:
        r = torch.cat([r, torch.zeros(k, 1, device="cuda", dtype=dtype)], 1)[:, :5]
    return r


def configs(quick):
    ns = [0, 1, 7, 100, 1000, 4096, 4097, 20000] if quick else \
        [0, 1, 2, 7, 64, 100, 500, 1000, 2000, 4096, 4097, 5000, 10000, 20000, 50000, 100000]
    for dt in DTYPES:
        for n in ns:
            for contiguous in (True, False):
                yield {"op": "nms", "n": n, "dtype": dt, "contiguous": contiguous, "iou": 0.5}
    for dt in DTYPES:
        for k in ([0, 1, 64, 1000] if quick else [0, 1, 16, 64, 512, 1000, 5000]):
            for c, hw in ((8, 32), (256, 50)):
                for layout in ("contiguous", "channels_last"):
                    for pooled in (7, 14):
                        for op in ("roi_align", "roi_pool", "ps_roi_align", "ps_roi_pool"):
                            cc = c * pooled * pooled if op.startswith("ps_") else c
                            if op.startswith("ps_") and cc > 2048:
                                continue
                            yield {"op": op, "k": k, "c": cc, "hw": hw, "batch": 2, "dtype": dt, "layout": layout,
                                   "pooled": pooled, "rois_contiguous": k % 2 == 0}
    yield {"op": "_cuda_version"}
    for dt in ("float32", "float16"):
        for n, c, hw, kh in ((2, 16, 32, 3), (4, 64, 56, 3), (1, 32, 20, 1)):
            yield {"op": "deform_conv2d", "n": n, "c": c, "hw": hw, "kernel": kh, "dtype": dt, "mask": True}
            yield {"op": "deform_conv2d", "n": n, "c": c, "hw": hw, "kernel": kh, "dtype": dt, "mask": False}


def call(cfg):
    """(function, args) for one configuration."""
    tv = torch.ops.torchvision
    if cfg["op"] == "nms":
        dt = DTYPES[cfg["dtype"]]
        b = boxes(cfg["n"], dt, contiguous=cfg["contiguous"])
        s = torch.rand(cfg["n"], device="cuda").to(dt)
        return tv.nms, (b, s, cfg["iou"])
    if cfg["op"] == "_cuda_version":
        return tv._cuda_version, ()
    if cfg["op"] == "deform_conv2d":
        dt = DTYPES[cfg["dtype"]]
        n, c, hw, k = cfg["n"], cfg["c"], cfg["hw"], cfg["kernel"]
        x = torch.randn(n, c, hw, hw, device="cuda", dtype=dt)
        w = torch.randn(c, c, k, k, device="cuda", dtype=dt)
        off = torch.randn(n, 2 * k * k, hw - k + 1, hw - k + 1, device="cuda", dtype=dt)
        mask = torch.rand(n, k * k, hw - k + 1, hw - k + 1, device="cuda", dtype=dt) if cfg["mask"] else \
            torch.zeros(0, device="cuda", dtype=dt)
        bias = torch.zeros(c, device="cuda", dtype=dt)
        return tv.deform_conv2d, (x, w, off, mask, bias, 1, 1, 0, 0, 1, 1, 1, 1, cfg["mask"])
    dt = DTYPES[cfg["dtype"]]
    x = torch.randn(cfg["batch"], cfg["c"], cfg["hw"], cfg["hw"], device="cuda", dtype=dt)
    if cfg["layout"] == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    r = rois(cfg["k"], cfg["batch"], dt, contiguous=cfg["rois_contiguous"])
    p = cfg["pooled"]
    if cfg["op"] == "roi_align":
        return tv.roi_align, (x, r, 0.25, p, p, 2, False)
    if cfg["op"] == "roi_pool":
        return tv.roi_pool, (x, r, 0.25, p, p)
    if cfg["op"] == "ps_roi_align":
        return tv.ps_roi_align, (x, r, 0.25, p, p, 2)
    return tv.ps_roi_pool, (x, r, 0.25, p, p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    t0 = time.time()
    n = errors = 0
    with open(a.out, "w") as f:
        for cfg in configs(a.quick):
            rec = dict(cfg)
            try:
                fn, args = call(cfg)
                total, ops, unattributed = measure(fn, args)
                mine = [o for o in ops if o["op"].startswith("torchvision::")]
                rec.update(totals=total, unattributed=unattributed,
                           launched={k: sum(o[k] for o in mine) for k in ("kernels", "memcpy", "memset")},
                           kernel_names=[k for o in mine for k in o["kernel_names"]],
                           memcpy_kinds=[k for o in mine for k in o.get("memcpy_kinds", [])])
            except Exception as e:  # noqa: BLE001 - an op that refuses a configuration is a result too
                rec["error"] = (type(e).__name__ + ": " + str(e)).splitlines()[0][:300]
                errors += 1
            f.write(json.dumps(rec) + "\n")
            n += 1
    print(f"torchvision_ops: {n} configurations, {errors} refused, {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
