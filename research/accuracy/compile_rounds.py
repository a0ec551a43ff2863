"""The same programs compiled several times (validate/device_compile.sh with KC_COMPILE_ROUNDS),
each round in fresh processes with fresh Inductor caches: how often a compile's timed choices go
each way, beside what kernelcount predicts.

pad_mm decides whether to pad an unaligned GEMM by benchmarking it on the GPU; the compiled runs
show the same GEMM padded in one program and kept in another. Compiling one program again, alone
in its own cache, asks the question directly. Printed per program: each round's kernel total, and
each pad_mm answer it took (the GEMM's key shortened to its sizes and dtype, padded or kept, the
two benchmark times in microseconds and when in the compile it ran, or that a cache held it); then
kernelcount's point prediction and span (`fused_kernels_low` to `fused_kernels_high`). Last, every
benchmarked answer beside the fastest times any compile measured for its GEMM: a time more than
twice that fastest one was taken while something else held the GPU or the CPU (the other compiles
of the call), and the answers given with both times near their fastest are the GPU's own.

Standard library only. Run from the repository root after building:
  python3 research/accuracy/compile_rounds.py OUT/compiled.tar.xz [--kernelcount PATH]
"""
import argparse
import collections
import json
import os
import re
import subprocess
import tarfile

ROUND = re.compile(r"(?:^|/)round(\d+)/")
SIZES = re.compile(r"torch\.Size\(\[([0-9, ]*)\]\)")


def short(key):
    """pad_mm's key (operands' sizes, strides, dtype, ...) as its sizes and dtype."""
    sizes = ["x".join(s.replace(" ", "").split(",")) for s in SIZES.findall(key)]
    dtype = "bf16" if "bfloat16" in key else "f16" if "float16" in key else "f32" if "float32" in key else "?"
    return " ".join(sizes[:3]) + " " + dtype


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tarball")
    ap.add_argument("--kernelcount", default="build/kernelcount")
    args = ap.parse_args()
    runs = collections.defaultdict(dict)  # name -> round -> run
    with tarfile.open(args.tarball) as tar:
        for m in tar.getmembers():
            if not m.name.endswith(".compiled.json"):
                continue
            r = ROUND.search(m.name)
            name = os.path.basename(m.name)[: -len(".compiled.json")]
            runs[name][int(r.group(1)) if r else 1] = json.load(tar.extractfile(m))
    varied = 0
    timed = []  # (GEMM, pads, original ms, padded ms) of every benchmarked answer
    for name in sorted(runs):
        rounds = runs[name]
        totals = [rounds[k]["totals"]["kernels"] for k in sorted(rounds)]
        varied += len(set(totals)) > 1
        model = rounds[min(rounds)]["model"]
        local = os.path.join("data/corpus", *model.split("/data/corpus/")[-1:]) if "/data/corpus/" in model else model
        point = span = "?"
        out = subprocess.run([args.kernelcount, local, "--fusion", "inductor", "--format", "json"],
                             capture_output=True, text=True)
        if out.returncode == 0:
            t = json.loads(out.stdout)["totals"]
            point, span = t["fused_kernels"], f"{t.get('fused_kernels_low')} to {t.get('fused_kernels_high')}"
        print(f"{name}: kernels by round {totals}; predicted {point} (span {span})")
        for k in sorted(rounds):
            cached = collections.Counter()
            for d in rounds[k].get("pad_mm", []):
                answer = "pad " if d["pads"] else "keep"
                if d["from"] == "cache":
                    cached[answer.strip()] += 1
                else:
                    timed.append((short(d["key"]), d["pads"], d["ori_ms"], d["pad_ms"]))
                    print(f"  round {k}: {answer} {short(d['key'])} original {1000 * d['ori_ms']:.1f} us, "
                          f"padded {1000 * d['pad_ms']:.1f} us, at {d.get('t_s', '?')} s"
                          + (" (original's time from a cache)" if d.get("ori_from_cache") else ""))
            if cached:
                print(f"  round {k}: " + ", ".join(f"{n} {a}" for a, n in sorted(cached.items())) +
                      " answered again from the compile's cache")
    print(f"{len(runs)} programs; kernel totals differing between rounds: {varied}")
    fastest_ori, fastest_pad = {}, {}
    for gemm, _, ori, pad in timed:
        fastest_ori[gemm] = min(ori, fastest_ori.get(gemm, ori))
        fastest_pad[gemm] = min(pad, fastest_pad.get(gemm, pad))
    tally = collections.Counter()
    for gemm, pads, ori, pad in timed:
        slow = ("original slowed" if ori > 2 * fastest_ori[gemm] else "") + \
            (" padded slowed" if pad > 2 * fastest_pad[gemm] else "")
        tally[("pad" if pads else "keep", slow.strip() or "both near their fastest")] += 1
    print(f"benchmarked answers: {len(timed)}; by answer and by which time was more than twice the fastest "
          "any compile measured for that GEMM:")
    for (answer, slow), n in sorted(tally.items()):
        print(f"  {answer:4s} {slow}: {n}")


if __name__ == "__main__":
    main()
