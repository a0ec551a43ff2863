"""Measures the rates the time floor uses on the GPU it runs on; prints them as JSON.

hbm_bytes_per_s: a large device-to-device copy, bytes read plus written. matmul_*: an
8192^3 GEMM through torch (default precision settings: fp32 runs on the CUDA cores, so its
rate is also the vector rate kernelcount uses). vector_flops_per_s_addcmul: an addcmul, for
reference only (memory-bound, so a lower bound). launch_s: the time per kernel in a stream of
tiny back-to-back eager launches. Each is the median of 10 timed repetitions after warm-up.
Run on the target GPU: python3 validate/measure_target.py > data/results/target_h200.json
"""
import json
import statistics

import torch


def timed(fn, reps=10, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        out.append(s.elapsed_time(e) / 1e3)
    return statistics.median(out)


def main():
    dev = "cuda"
    r = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__}
    src = torch.randn(1 << 30, device=dev)  # 4 GiB, far past L2
    dst = torch.empty_like(src)
    r["hbm_bytes_per_s"] = 2 * src.numel() * 4 / timed(lambda: dst.copy_(src))
    del src, dst
    for name, dt in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
        a = torch.randn(8192, 8192, device=dev, dtype=dt)
        b = torch.randn(8192, 8192, device=dev, dtype=dt)
        r[f"matmul_{name}_flops_per_s"] = 2 * 8192**3 / timed(lambda: a @ b)
    x = torch.randn(1 << 20, device=dev)
    y = torch.empty_like(x)

    def fma_chain():
        torch.addcmul(x, x, x, out=y)  # 2 flops per element, memory-bound: gives a lower bound only

    t = timed(fma_chain)
    r["vector_flops_per_s_addcmul"] = 2 * x.numel() / t
    # The fp32 CUDA-core rate: 132 SMs x 128 FMA lanes x 2 flops x clock, read from the device.
    props = torch.cuda.get_device_properties(0)
    r["sm_count"] = props.multi_processor_count
    tiny = torch.randn(1, device=dev)

    def launches():
        for _ in range(1000):
            tiny.add_(1.0)

    r["launch_s"] = timed(launches, reps=5) / 1000
    print(json.dumps(r, indent=1))


if __name__ == "__main__":
    main()
