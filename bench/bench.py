"""Speed and memory of kernelcount, measured as whole processes.

1. ResNet-50 .pt2: wall time of `kernelcount resnet50.pt2 --format json`, median of --runs runs.
2. Scaling: synthetic .pt2 graphs of 1,248 to 10,000 ops (a chain of Linear/GELU/add/LayerNorm
   blocks); median time per size and time per op, to show growth is linear.
3. Memory: peak RSS analyzing the same graphs with and without weights stored in the archive
   (ResNet-50, and an MLP carrying 1 GB of weights), to show weights are never loaded.
4. Scale: synthetic chains of 10,000 to 300,000 pointwise ops and a node with a 1 MB stack
   trace, written by bench/make_synthetic.py as JSON + zip without PyTorch; the JSON report and
   the text summary, each its CPU time and peak RSS.
5. TorchScript: every .pt of data/corpus/torchscript/models.tar.xz (weights zeroed and
   deflated) against the .pt2 of the same model in data/corpus/broad/, time and peak RSS
   and their ratio, the worst printed last; and the 1 GB-weight MLP of 3 traced and saved
   with torch.jit.save (stored records), and the same archive deflated.
6. A Llama-3-70B-shaped model (80 layers, 70.6 B parameters) exported from the meta device, so
   that its archive holds no weight bytes: peak RSS of a real large export.
7. Start-up: CPU time and peak RSS of an empty `python3 -I -S -c pass` beside kernelcount's
   --version, ResNet-50 with cuDNN's answers warm, cold and off, 100,000 ops and a TorchScript
   MLP, in one interleaved loop.
8. On a GPU machine (--gpu): kernelcount against building ResNet-50 and counting its kernels
   under torch.profiler (bench/profiler_route.py), whole processes.
Needs Python with torch (and torchvision for ResNet-50, transformers for 6) to export the models
of 1-3, 5's MLP and 6; they are cached in --work. Run from the repository root:
python bench/bench.py [--kernelcount build/kernelcount]
Without PyTorch, `--synthetic-only` measures 4 alone and merges it into --json; `--scale`
measures 4 and 6, `--torchscript-only` 5, each merging its rows into --json.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validate"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "research", "accuracy"))
from strip_weights import strip_weights  # noqa: E402
from broad_accuracy import open_models  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def run(cmd, env=None):
    """Wall seconds, peak RSS (MiB) and CPU seconds (user + system) of one process. The peak is
    GNU time's where it is installed: a child forked from this Python starts with the parent's
    pages, and the kernel's own figure for it never reads below them."""
    gnu_time = os.path.exists("/usr/bin/time")
    t0 = time.perf_counter()
    with tempfile.NamedTemporaryFile("r") as peak:
        wrapped = ["/usr/bin/time", "-f", "%M", "-o", peak.name, *cmd] if gnu_time else cmd
        p = subprocess.Popen(wrapped, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        if status != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr.read().decode()}")
        rss_kib = int(peak.read().split()[-1]) if gnu_time else usage.ru_maxrss
    return wall, rss_kib / 1024, usage.ru_utime + usage.ru_stime


def measure(kc, model, runs, cpu=False, args=(), fmt="json"):
    """Median wall seconds and the largest peak RSS of `--format fmt`; with cpu, the median CPU
    seconds too (on a machine shared with other work, wall time measures the load rather than
    kernelcount)."""
    results = [run([kc, model, "--format", fmt, *args]) for _ in range(runs)]
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


def export_big_mlp_torchscript(path, width=8192, layers=4):
    """The MLP of export_big_mlp, traced and saved by torch.jit.save (records stored)."""
    import torch
    import torch.nn as nn

    model = nn.Sequential(*[nn.Linear(width, width, bias=False) for _ in range(layers)]).eval()
    torch.jit.save(torch.jit.trace(model, (torch.randn(4, width),)), path)


def deflated(path):
    """A copy of the archive with every record deflated (zipfile's default level)."""
    out = path.replace(".pt", ".deflated.pt")
    if not os.path.exists(out):
        with zipfile.ZipFile(path) as zin, zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED) as zout:
            for info in zin.infolist():
                with zin.open(info) as src, zout.open(info.filename, "w", force_zip64=True) as dst:
                    shutil.copyfileobj(src, dst, 1 << 24)
        os.replace(out + ".tmp", out)
    return out


def torchscript(kc, work, runs):
    """Every corpus .pt against its .pt2 (time, CPU time, peak RSS and their ratios), then the
    1 GB-weight MLP as a TorchScript archive, stored and deflated."""
    folder, inputs = open_models(os.path.join(ROOT, "data", "corpus", "torchscript", "models.tar.xz"))
    rows = []
    print("\nTorchScript .pt against .pt2          .pt s / .pt2 s   CPU ratio   .pt MiB / .pt2 MiB   time ratio   RSS ratio")
    for name in sorted(inputs):
        pt, pt2 = os.path.join(folder, name + ".pt"), os.path.join(ROOT, "data", "corpus", "broad", name + ".pt2")
        if not (os.path.exists(pt) and os.path.exists(pt2)):
            continue
        # Deflated as the .pt2 beside it is (the corpus packs its archives' records stored).
        pt = deflated(pt)
        args = [a for spec in inputs[name] for a in ("--input", spec)]
        # The two alternate, run by run, and each ratio is the median of the runs' ratios: a
        # burst of load from other work then slows one pair, not every run of one format.
        pairs = []
        try:
            for _ in range(runs):
                pairs.append((run([kc, pt, "--format", "json", *args]), run([kc, pt2, "--format", "json"])))
        except SystemExit as e:  # a model kernelcount cannot analyze: reported, not measured
            print(f"{name:38s} not analyzed: {str(e).splitlines()[-1][:150]}")
            continue
        med = lambda f: statistics.median(f(a, b) for a, b in pairs)  # noqa: E731
        t, t2, cpu, cpu2 = med(lambda a, b: a[0]), med(lambda a, b: b[0]), med(lambda a, b: a[2]), med(lambda a, b: b[2])
        rss, rss2 = max(a[1] for a, _ in pairs), max(b[1] for _, b in pairs)
        r = {"model": name, "pt_s": t, "pt2_s": t2, "pt_cpu_s": cpu, "pt2_cpu_s": cpu2, "pt_rss_mib": rss,
             "pt2_rss_mib": rss2, "time_ratio": med(lambda a, b: a[0] / b[0]),
             "cpu_ratio": med(lambda a, b: a[2] / b[2]), "rss_ratio": rss / rss2}
        rows.append(r)
        print(f"{name:38s} {t:6.3f} / {t2:5.3f}   {r['cpu_ratio']:9.2f}   {rss:7.0f} / {rss2:6.0f}   "
              f"{r['time_ratio']:10.2f}   {r['rss_ratio']:9.2f}")
    unpacked = folder if os.path.basename(folder).startswith("kc-models-") else os.path.dirname(folder)
    shutil.rmtree(unpacked, ignore_errors=True)  # open_models' temporary copy of the archive
    worst = {k: max(rows, key=lambda r: r[k]) for k in ("time_ratio", "cpu_ratio", "rss_ratio")}
    for k, r in worst.items():
        print(f"worst {k.replace('_', ' ')}: {r[k]:.2f} ({r['model']})")
    weights = []
    try:
        big = cached(os.path.join(work, "mlp_1gb.pt"), "big_mlp_ts")
    except subprocess.CalledProcessError:  # no PyTorch here to export it: the caller keeps earlier rows
        print("MLP .pt with 1.07 GB of weights: not measured (exporting it needs PyTorch)")
        return {"models": rows, "worst": {k: {"model": r["model"], "ratio": r[k]} for k, r in worst.items()},
                "weights": None}
    for what, path in (("stored", big), ("deflated", deflated(big))):
        t, rss, cpu = measure(kc, path, runs, cpu=True, args=["--input", "4x8192:float32"])
        weights.append({"records": what, "file_mb": os.path.getsize(path) / 1e6, "median_s": t, "cpu_s": cpu,
                        "peak_rss_mib": rss})
        print(f"MLP .pt with 1.07 GB of weights, records {what} ({os.path.getsize(path) / 1e6:.0f} MB): "
              f"{t:.3f} s, peak RSS {rss:.0f} MiB")
    return {"models": rows, "worst": {k: {"model": r["model"], "ratio": r[k]} for k, r in worst.items()},
            "weights": weights}
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


EXPORTS = {"chain": export_chain, "big_mlp": export_big_mlp, "resnet50": export_resnet50,
           "big_mlp_ts": export_big_mlp_torchscript, "llama70b": export_llama70b}


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
    """Time and peak RSS of the synthetic archives (bench/make_synthetic.py), the JSON report's
    and the text summary's (each format renders its own rows: the peak is the larger's)."""
    make = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make_synthetic.py")
    rows = []
    print("\nsynthetic                       ops   model.json MB   median s   CPU s   peak RSS MiB   text: CPU s   peak RSS MiB")
    for ops, trace in ((10, 0), (10000, 0), (100000, 0), (300000, 0), (10, 1 << 20)):
        name = f"synthetic_chain{ops}" + (f"_trace{trace}" if trace else "") + ".pt2"
        path = os.path.join(work, name)
        if not os.path.exists(path):
            subprocess.run([sys.executable, make, path, "--ops", str(ops), "--stack-trace-bytes", str(trace)], check=True)
        t, rss, cpu = measure(kc, path, runs, cpu=True)
        _, text_rss, text_cpu = measure(kc, path, runs, cpu=True, fmt="text")
        mb = os.path.getsize(path) / 1e6
        what = f"chain of {ops} pointwise ops" if not trace else f"{ops} ops, one {trace >> 20} MB stack trace"
        rows.append({"what": what, "ops": ops, "stack_trace_bytes": trace, "file_mb": mb, "median_s": t,
                     "cpu_s": cpu, "peak_rss_mib": rss, "text_cpu_s": text_cpu, "text_peak_rss_mib": text_rss})
        print(f"{what:30s} {ops:6d}   {mb:13.1f}   {t:8.3f}   {cpu:5.2f}   {rss:8.0f}   {text_cpu:11.2f}   {text_rss:12.0f}")
    return rows


def startup(kc, work, runs):
    """What a run costs beside starting an empty Python, in one interleaved loop (so that a load
    on the machine weighs on every row alike): CPU seconds (user + system) and peak RSS, medians
    of `runs` rounds. ResNet-50 is timed with cuDNN's answers warm (the shipped table or the
    cache) and cold (a fresh, empty cache folder and no table: cuDNN loaded and asked), and with
    cuDNN switched off; a TorchScript MLP loads LibTorch through the TorchScript library."""
    resnet = cached(os.path.join(work, "resnet50.pt2"), "resnet50")
    chain = os.path.join(work, "synthetic_chain100000.pt2")
    if not os.path.exists(chain):
        make = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make_synthetic.py")
        subprocess.run([sys.executable, make, chain, "--ops", "100000"], check=True)
    traced = os.path.join(ROOT, "tests", "models", "traced_mlp.pt")
    cold = os.path.join(work, "cold-cache")
    rows = [
        ("python3 -I -S -c pass", ["python3", "-I", "-S", "-c", "pass"], {}),
        ("kernelcount --version", [kc, "--version"], {}),
        ("ResNet-50 .pt2, cuDNN answers warm", [kc, resnet, "--format", "json"], {}),
        ("ResNet-50 .pt2, cuDNN cold (no cache, no table)", [kc, resnet, "--format", "json"],
         {"KERNELCOUNT_CACHE": cold, "KERNELCOUNT_CUDNN_TABLE": "off"}),
        ("ResNet-50 .pt2, cuDNN off (trees alone)", [kc, resnet, "--format", "json"], {"KERNELCOUNT_CUDNN": "off"}),
        ("100,000 pointwise ops .pt2", [kc, chain, "--format", "json"], {}),
        ("TorchScript MLP .pt (loads LibTorch)", [kc, traced, "--input", "32x64", "--format", "json"], {}),
    ]
    subprocess.run(rows[2][1], stdout=subprocess.DEVNULL, check=True)  # the warm row's answers cached
    samples = {name: [] for name, _, _ in rows}
    for _ in range(runs):
        for name, cmd, env in rows:
            shutil.rmtree(cold, ignore_errors=True)
            samples[name].append(run(cmd, {**os.environ, **env}))
    out = []
    py_cpu = statistics.median(s[2] for s in samples[rows[0][0]])
    print("\nstart-up and small runs           CPU s   wall s   peak RSS MiB   CPU / empty Python")
    for name, _, _ in rows:
        r = samples[name]
        cpu, wall, rss = statistics.median(x[2] for x in r), statistics.median(x[0] for x in r), max(x[1] for x in r)
        out.append({"what": name, "cpu_s": cpu, "median_s": wall, "peak_rss_mib": rss, "cpu_vs_python": cpu / py_cpu})
        print(f"{name:48s} {cpu:6.3f}   {wall:6.3f}   {rss:8.0f}   {cpu / py_cpu:6.2f}")
    return out


def gpu_route(kc, work, runs):
    """On a GPU machine: `kernelcount resnet50.pt2` against the route without it (build the model,
    run it once under torch.profiler, count; bench/profiler_route.py), whole processes, wall time."""
    resnet = cached(os.path.join(work, "resnet50.pt2"), "resnet50")
    route = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "profiler_route.py"), "resnet50"]
    subprocess.run([kc, resnet], stdout=subprocess.DEVNULL, check=True)
    kc_runs, route_runs = [], []
    for _ in range(runs):
        kc_runs.append(run([kc, resnet, "--format", "json"]))
        route_runs.append(run(route))
    k, p = statistics.median(r[0] for r in kc_runs), statistics.median(r[0] for r in route_runs)
    row = {"kernelcount_s": k, "kernelcount_rss_mib": max(r[1] for r in kc_runs), "profiler_route_s": p,
           "profiler_route_rss_mib": max(r[1] for r in route_runs), "speedup": p / k}
    print(f"\nResNet-50 on the GPU machine: kernelcount {k:.3f} s, profiler route {p:.2f} s: {p / k:.0f}x")
    return row


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
    ap.add_argument("--torchscript-only", action="store_true", help="only the TorchScript runs (5)")
    ap.add_argument("--scale", action="store_true", help="only the scale runs: synthetic and the Llama-70B export")
    ap.add_argument("--startup", action="store_true", help="only the start-up rows (7), merged into --json")
    ap.add_argument("--gpu", action="store_true", help="only the GPU machine's comparison with the profiler route (8)")
    ap.add_argument("--export", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.export:
        kind, path, *extra = args.export
        return EXPORTS[kind](path, *map(int, extra))
    os.makedirs(args.work, exist_ok=True)
    kc = args.kernelcount
    if args.synthetic_only or args.scale or args.torchscript_only or args.startup or args.gpu:
        out = {}
        if args.json and os.path.exists(args.json):
            with open(args.json) as f:
                out = json.load(f)
        if args.synthetic_only or args.scale:
            out["synthetic"] = synthetic(kc, args.work, args.runs)
            out["synthetic_machine"] = f"{os.cpu_count()} cores"
            out["synthetic_runs"] = args.runs
        if args.scale:
            out["llama70b"] = llama(kc, args.work, args.runs)
        if args.startup:
            out["startup"] = startup(kc, args.work, args.runs)
            out["startup_machine"] = f"{os.cpu_count()} cores"
        if args.gpu:
            out["gpu_route"] = gpu_route(kc, args.work, args.runs)
        if args.torchscript_only:
            earlier = out.get("torchscript", {})
            out["torchscript"] = torchscript(kc, args.work, args.runs)
            if out["torchscript"]["weights"] is None:  # kept from the run that could export the MLP
                out["torchscript"]["weights"] = earlier.get("weights", [])
                out["torchscript"]["weights_earlier"] = True
            out["torchscript"]["machine"] = f"{os.cpu_count()} cores"
            out["torchscript"]["runs"] = args.runs
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
    try:
        out["llama70b"] = llama(kc, args.work, args.runs)
    except subprocess.CalledProcessError:  # the export needs a transformers that exports on meta
        earlier = json.load(open(args.json)) if args.json and os.path.exists(args.json) else {}
        if "llama70b" in earlier:
            out["llama70b"], out["llama70b_earlier"] = earlier["llama70b"], True
            print("Llama-3-70B: not exported here; its row is kept from an earlier run")
    out["torchscript"] = torchscript(kc, args.work, args.runs)
    out["startup"] = startup(kc, args.work, args.runs)
    out["startup_machine"] = out["machine"]
    out["torchscript"]["machine"] = out["machine"]
    out["torchscript"]["runs"] = args.runs
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
