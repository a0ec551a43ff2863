"""Random convolution queries for kernelcount-cudnn-engines, to learn where cuDNN's choice on a
GPU differs from its choice asked without one (validate/device_cudnn.sh sweep).

On a GPU, cuDNN 9.19 offers one more engine for a 1x1, stride-1, unpadded, ungrouped
convolution (global index 58, a GEMM through cuBLASLt, which cannot rank itself without a
device): it picks it for about nine in ten such shapes. The queries here are such shapes,
drawn as models have them (log-uniform channels and sizes, small batches, both dtypes of the
corpus and float16, some channels-last and 3-d), so that the answers label many more shapes
than were ever measured; answers need no measurement, only the GPU's heuristics.
  cudnn_queries.py N SEED > queries.jsonl
"""
import json
import math
import random
import sys


def log_uniform(rng, lo, hi):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def channels(rng):
    """Model-like channel counts: mostly multiples of 8 (often 2^k or 1.5 * 2^k), some odd."""
    r = rng.random()
    if r < 0.35:
        return 2 ** rng.randint(2, 11)
    if r < 0.5:
        return 3 * 2 ** rng.randint(1, 10)
    if r < 0.85:
        return 8 * log_uniform(rng, 1, 320)
    return log_uniform(rng, 1, 2560)


def query(rng):
    three_d = rng.random() < 0.08
    n = rng.choice([1, 1, 2, 2, 2, 3, 4, 4, 5, 8, 8, 16, 32, 64])
    cin, cout = channels(rng), channels(rng)
    side = log_uniform(rng, 1, 256)
    hw = [side, side] if rng.random() < 0.8 else [log_uniform(rng, 1, 256), log_uniform(rng, 1, 1024)]
    if three_d:
        hw = [log_uniform(rng, 1, 32)] + [min(s, 112) for s in hw]
    nsp = len(hw)
    return {"dtype": rng.choice(["float32", "bfloat16", "bfloat16", "float16"]), "x": [n, cin, *hw],
            "w": [cout, cin] + [1] * nsp, "cl": rng.random() < 0.15, "pad": [0] * nsp,
            "stride": [1] * nsp, "dil": [1] * nsp}


def draw(count, seed):
    rng = random.Random(seed)
    return [query(rng) for _ in range(count)]


def main():
    for q in draw(int(sys.argv[1]), int(sys.argv[2])):
        print(json.dumps(q, separators=(",", ":")))


if __name__ == "__main__":
    main()
