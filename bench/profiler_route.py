"""The route a user takes to count a model's kernels without kernelcount: build the model, run it
once on the GPU under torch.profiler, count the kernels. The benchmark times this whole process
against `kernelcount MODEL.pt2` on the same model (bench/bench.py --gpu).
    python bench/profiler_route.py resnet50 [--batch 32]
Prints the number of kernels, memcpy and memset the forward launched.
"""
import argparse

import torch
import torchvision
from torch.profiler import ProfilerActivity, profile


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="a torchvision model name, e.g. resnet50")
    ap.add_argument("--batch", type=int, default=32)
    args = ap.parse_args()
    model = getattr(torchvision.models, args.model)(weights=None).eval().cuda()
    x = torch.randn(args.batch, 3, 224, 224, device="cuda")
    with torch.no_grad(), profile(activities=[ProfilerActivity.CUDA]) as prof:
        model(x)
        torch.cuda.synchronize()
    counts = {"kernel": 0, "gpu_memcpy": 0, "gpu_memset": 0}
    for e in prof.events():
        name = e.name.lower()
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        if "memcpy" in name:
            counts["gpu_memcpy"] += 1
        elif "memset" in name:
            counts["gpu_memset"] += 1
        else:
            counts["kernel"] += 1
    print(f"{args.model} batch {args.batch}: {counts['kernel']} kernels, {counts['gpu_memcpy']} memcpy, "
          f"{counts['gpu_memset']} memset")


if __name__ == "__main__":
    main()
