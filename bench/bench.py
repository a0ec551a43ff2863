"""Speed and memory of kernelcount, measured as whole processes.

1. ResNet-50 .pt2: wall time of `kernelcount resnet50.pt2 --format json`, median of --runs runs.
2. Scaling: synthetic .pt2 graphs of 1,248 to 10,000 ops (a chain of Linear/GELU/add/LayerNorm
   blocks); median time per size and time per op, to show growth is linear.
3. Memory: peak RSS analyzing the same graphs with and without weights stored in the archive
   (ResNet-50, and an MLP carrying 1 GB of weights), to show weights are never loaded.
4. Scale: synthetic chains of 10,000 to 300,000 pointwise ops and a node with a 1 MB stack
   trace, written by bench/make_synthetic.py as JSON + zip without PyTorch.
5. A Llama-3-70B-shaped model (80 layers, 70.6 B parameters) exported from the meta device, so
   that its archive holds no weight bytes: peak RSS of a real large export.
Needs Python with torch (and torchvision for ResNet-50, transformers for 5) to export the models
of 1-3 and 5; they are cached in --work. Run from the repository root:
python bench/bench.py [--kernelcount build/kernelcount]
Without PyTorch, `--synthetic-only` measures 4 alone and merges it into --json; `--scale`
measures 4 and 5 and merges them.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validate"))
from strip_weights import strip_weights  # noqa: E402


def run(cmd):
    """Wall seconds, peak RSS (MiB) and CPU seconds (user + system) of one process."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr.read().decode()}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def measure(kc, model, runs, cpu=False):
    """Median wall seconds and the largest peak RSS; with cpu, the median CPU seconds too (on a
    machine shared with other work, wall time measures the load rather than kernelcount)."""
    results = [run([kc, model, "--format", "json"]) for _ in range(runs)]
    out = statistics.median(r[0] for r in results), max(r[1] for r in results)
    return out + (statistics.median(r[2] for r in results),) if cpu else out


def export_chain(path, blocks, width=256):
    import torch
    import torch.nn as nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(width, width)
            self.ln = nn.LayerNorm(width)

        def forward(self, x):
            return self.ln(torch.nn.functional.gelu(self.fc(x)) + x)

    model = nn.Sequential(*[Block() for _ in range(blocks)]).eval()
    ep = torch.export.export(model, (torch.randn(8, width),), strict=False)
    torch.export.save(ep, path)


def export_big_mlp(path, width=8192, layers=4):
    import torch
    import torch.nn as nn

    model = nn.Sequential(*[nn.Linear(width, width, bias=False) for _ in range(layers)]).eval()
    ep = torch.export.export(model, (torch.randn(4, width),), strict=False)
    torch.export.save(ep, path)


def export_resnet50(path):
    import torch
    import torchvision

    model = torchvision.models.resnet50(weights=None).eval()
    ep = torch.export.export(model, (torch.randn(32, 3, 224, 224),), strict=False)
    torch.export.save(ep, path)


def export_llama70b(path, seq=128):
    """Llama 3 70B's shapes (hidden 8192, 64 query and 8 key/value heads, MLP 28672, vocabulary
    128256, 80 layers) in bfloat16, built on the meta device: no weight is ever allocated, and the
    archive records every parameter with no bytes (the weights blanked)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(hidden_size=8192, intermediate_size=28672, num_hidden_layers=80, num_attention_heads=64,
                      num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192)
    with torch.device("meta"):
        model = LlamaForCausalLM(cfg).to(torch.bfloat16).eval()
    ids = torch.zeros(1, seq, dtype=torch.long, device="meta")
    ep = torch.export.export(model, (ids,), kwargs={"use_cache": False}, strict=False)
    torch.export.save(ep, path)


EXPORTS = {"chain": export_chain, "big_mlp": export_big_mlp, "resnet50": export_resnet50, "llama70b": export_llama70b}


def cached(path, kind, *extra):
    """Exports in a child process: a parent that imported torch would pass its own peak RSS on
    to every later child through fork, and the memory figures would be the parent's."""
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.abspath(__file__), "--export", kind, path, *map(str, extra)], check=True)
    return path


def stripped(path):
    out = path.replace(".pt2", ".stripped.pt2")
    if not os.path.exists(out):
        strip_weights(path, out)
    return out


def synthetic(kc, work, runs):
    """Time and peak RSS of the synthetic archives (bench/make_synthetic.py)."""
    make = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make_synthetic.py")
    rows = []
    print("\nsynthetic                       ops   model.json MB   median s   CPU s   peak RSS MiB")
    for ops, trace in ((10, 0), (10000, 0), (100000, 0), (300000, 0), (10, 1 << 20)):
        name = f"synthetic_chain{ops}" + (f"_trace{trace}" if trace else "") + ".pt2"
        path = os.path.join(work, name)
        if not os.path.exists(path):
            subprocess.run([sys.executable, make, path, "--ops", str(ops), "--stack-trace-bytes", str(trace)], check=True)
        t, rss, cpu = measure(kc, path, runs, cpu=True)
        mb = os.path.getsize(path) / 1e6
        what = f"chain of {ops} pointwise ops" if not trace else f"{ops} ops, one {trace >> 20} MB stack trace"
        rows.append({"what": what, "ops": ops, "stack_trace_bytes": trace, "file_mb": mb, "median_s": t,
                     "cpu_s": cpu, "peak_rss_mib": rss})
        print(f"{what:30s} {ops:6d}   {mb:13.1f}   {t:8.3f}   {cpu:5.2f}   {rss:8.0f}")
    return rows


def llama(kc, work, runs):
    """Time and peak RSS of the Llama-3-70B-shaped export."""
    path = cached(os.path.join(work, "llama70b_meta.pt2"), "llama70b")
    report = json.loads(subprocess.run([kc, path, "--format", "json"], capture_output=True, text=True, check=True).stdout)
    import zipfile
    with zipfile.ZipFile(path) as z:
        model_json = sum(i.file_size for i in z.infolist() if i.filename.endswith("models/model.json"))
    t, rss, cpu = measure(kc, path, runs, cpu=True)
    row = {"what": "Llama-3-70B shapes, 80 layers, weights blanked", "ops": report["totals"]["ops"],
           "file_mb": os.path.getsize(path) / 1e6, "model_json_mb": model_json / 1e6, "median_s": t, "cpu_s": cpu,
           "peak_rss_mib": rss}
    print(f"\n{row['what']}: {row['ops']} ops, model.json {row['model_json_mb']:.1f} MB: median {t:.3f} s, "
          f"CPU {cpu:.2f} s, peak RSS {rss:.0f} MiB")
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernelcount", default="build/kernelcount")
    ap.add_argument("--work", default=os.path.expanduser("~/.cache/kernelcount/bench"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json", help="also write the numbers here")
    ap.add_argument("--synthetic-only", action="store_true", help="only the synthetic scale runs (no PyTorch needed)")
    ap.add_argument("--scale", action="store_true", help="only the scale runs: synthetic and the Llama-70B export")
    ap.add_argument("--export", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.export:
        kind, path, *extra = args.export
        return EXPORTS[kind](path, *map(int, extra))
    os.makedirs(args.work, exist_ok=True)
    kc = args.kernelcount
    if args.synthetic_only or args.scale:
        out = {}
        if args.json and os.path.exists(args.json):
            with open(args.json) as f:
                out = json.load(f)
        out["synthetic"] = synthetic(kc, args.work, args.runs)
        out["synthetic_machine"] = f"{os.cpu_count()} cores"
        out["synthetic_runs"] = args.runs
        if args.scale:
            out["llama70b"] = llama(kc, args.work, args.runs)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=1)
        return
    out = {"machine": f"{os.cpu_count()} cores", "runs": args.runs}

    resnet = cached(os.path.join(args.work, "resnet50.pt2"), "resnet50")
    resnet_stripped = stripped(resnet)
    t, rss = measure(kc, resnet, args.runs)
    t_s, rss_s = measure(kc, resnet_stripped, args.runs)
    ops = json.loads(subprocess.run([kc, resnet, "--format", "json"], capture_output=True, text=True).stdout)["totals"]["ops"]
    out["resnet50"] = {"ops": ops, "file_mb": os.path.getsize(resnet) / 1e6, "median_s": t, "peak_rss_mib": rss,
                       "stripped_median_s": t_s, "stripped_peak_rss_mib": rss_s}
    print(f"ResNet-50 ({ops} ops, {os.path.getsize(resnet) / 1e6:.0f} MB with weights): median {t:.3f} s, "
          f"peak RSS {rss:.0f} MiB; weights stripped: {t_s:.3f} s, {rss_s:.0f} MiB")

    out["scaling"] = []
    print("\nops      median s   us/op   peak RSS MiB")
    for blocks in (312, 625, 1250, 2500):
        path = cached(os.path.join(args.work, f"chain{blocks}.pt2"), "chain", blocks)
        n = json.loads(subprocess.run([kc, path, "--format", "json"], capture_output=True, text=True).stdout)["totals"]["ops"]
        t, rss = measure(kc, path, args.runs)
        out["scaling"].append({"ops": n, "median_s": t, "us_per_op": t / n * 1e6, "peak_rss_mib": rss})
        print(f"{n:6d}   {t:8.3f}   {t / n * 1e6:5.0f}   {rss:8.0f}")

    big = cached(os.path.join(args.work, "mlp_1gb.pt2"), "big_mlp")
    big_stripped = stripped(big)
    t, rss = measure(kc, big, args.runs)
    t_s, rss_s = measure(kc, big_stripped, args.runs)
    out["weights"] = {"file_mb": os.path.getsize(big) / 1e6, "peak_rss_mib": rss, "stripped_peak_rss_mib": rss_s,
                      "median_s": t, "stripped_median_s": t_s}
    print(f"\nMLP with {os.path.getsize(big) / 1e9:.2f} GB of weights: peak RSS {rss:.0f} MiB, {t:.3f} s; "
          f"weights stripped: {rss_s:.0f} MiB, {t_s:.3f} s")
    out["synthetic"] = synthetic(kc, args.work, args.runs)
    out["synthetic_machine"] = f"{os.cpu_count()} cores"
    out["synthetic_runs"] = args.runs
    out["llama70b"] = llama(kc, args.work, args.runs)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
