"""Regenerates every generated part of README.md and docs/ from real runs, so they never go stale.

Each section of README.md and docs/ (accuracy, usage, speed) between <!-- NAME:begin --> and <!-- NAME:end -->
is the output of the command written in the section's first line, or a table of saved figures. Run from the repository root after building:
  python3 generators/update_docs.py
"""
import json
import os
import re
import subprocess
import sys

KC = "build/kernelcount"


def sh(cmd):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True, check=True).stdout.rstrip()


def block(cmd, lang=""):
    return f"```{lang}\n$ {cmd}\n{sh(cmd)}\n```"


def bench_table():
    path = "bench/results.json"
    if not os.path.exists(path):
        return "(no bench/results.json yet: run `python bench/bench.py --json bench/results.json`)"
    b = json.load(open(path))
    r = b["resnet50"]
    lines = []
    if "startup" in b:
        lines += [f"Start-up (`python bench/bench.py --startup`, on a {b['startup_machine']} machine; each row the median "
                  "CPU time (user + system) and the largest peak RSS of rounds that run every row once, in turn):", "",
                  "| run | CPU time | wall time | peak RSS | CPU time / empty Python |", "| --- | ---: | ---: | ---: | ---: |"]
        for s in b["startup"]:
            lines.append(f"| {s['what']} | {s['cpu_s']:.3f} s | {s['median_s']:.3f} s | {s['peak_rss_mib']:.0f} MiB | "
                         f"{s['cpu_vs_python']:.2f} |")
        lines.append("")
    if "gpu_route" in b:
        g = b["gpu_route"]
        lines += [f"On the GPU machine (one H200; `python bench/bench.py --gpu`, whole processes, median wall time): "
                  f"`kernelcount resnet50.pt2` {g['kernelcount_s']:.2f} s and {g['kernelcount_rss_mib']:.0f} MiB; building "
                  f"ResNet-50 and counting its kernels under torch.profiler (`bench/profiler_route.py`) "
                  f"{g['profiler_route_s']:.1f} s and {g['profiler_route_rss_mib']:.0f} MiB: {g['speedup']:.0f} times as long.", ""]
    lines += [f"Measured by `python bench/bench.py --json bench/results.json` on a {b['machine']} machine, "
             f"median of {b['runs']} whole-process runs:", "",
             "| model | ops | median time | peak RSS |", "| --- | ---: | ---: | ---: |",
             f"| ResNet-50, batch 32, with its {r['file_mb']:.0f} MB of weights | {r['ops']} | {r['median_s']:.3f} s | {r['peak_rss_mib']:.0f} MiB |",
             f"| same archive, weights stripped | {r['ops']} | {r['stripped_median_s']:.3f} s | {r['stripped_peak_rss_mib']:.0f} MiB |"]
    for s in b["scaling"]:
        lines.append(f"| chain of Linear/GELU/add/LayerNorm blocks | {s['ops']} | {s['median_s']:.3f} s | {s['peak_rss_mib']:.0f} MiB |")
    w = b["weights"]
    lines.append(f"| MLP with {w['file_mb'] / 1000:.2f} GB of weights | 4 | {w['median_s']:.3f} s | {w['peak_rss_mib']:.0f} MiB |")
    lines.append(f"| same archive, weights stripped | 4 | {w['stripped_median_s']:.3f} s | {w['stripped_peak_rss_mib']:.0f} MiB |")
    ts = b.get("torchscript")
    if ts:
        worst = ts["worst"]
        rows = sorted(ts["models"], key=lambda r: -r["time_ratio"])
        lines += ["", f"TorchScript (`python bench/bench.py --torchscript-only`, on a {ts['machine']} machine, "
                      f"{ts['runs']} runs of each format, alternating; medians, and each ratio the median of the "
                      f"runs' ratios): each of the {len(ts['models'])} `.pt` of the TorchScript corpus (weights "
                      "zeroed and deflated) against the `.pt2` of the same model. Worst ratios: time "
                      f"{worst['time_ratio']['ratio']:.2f}x ({worst['time_ratio']['model']}), CPU time "
                      f"{worst['cpu_ratio']['ratio']:.2f}x ({worst['cpu_ratio']['model']}), peak RSS "
                      f"{worst['rss_ratio']['ratio']:.2f}x ({worst['rss_ratio']['model']}). The three slowest:", "",
                  "| model | `.pt` time | `.pt2` time | time ratio | CPU ratio | `.pt` RSS | `.pt2` RSS |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for r in rows[:3]:
            lines.append(f"| {r['model']} | {r['pt_s']:.3f} s | {r['pt2_s']:.3f} s | {r['time_ratio']:.2f} | "
                         f"{r['cpu_ratio']:.2f} | {r['pt_rss_mib']:.0f} MiB | {r['pt2_rss_mib']:.0f} MiB |")
        if ts.get("weights_earlier"):
            lines += ["", "The MLP rows come from an earlier run of the same command: the last one had no PyTorch "
                          "to export the MLP."]
        lines += ["", "| TorchScript MLP with 1.07 GB of weights | file | median time | peak RSS |",
                  "| --- | ---: | ---: | ---: |"]
        for w in ts["weights"]:
            lines.append(f"| records {w['records']} | {w['file_mb']:.0f} MB | {w['median_s']:.3f} s | "
                         f"{w['peak_rss_mib']:.0f} MiB |")
    syn = b.get("synthetic", [])
    if syn:
        runs = f", median of {b['synthetic_runs']} runs" if "synthetic_runs" in b else ""
        lines += ["", f"Scale, from archives written by `bench/make_synthetic.py` (`python bench/bench.py --synthetic-only`), "
                      f"on a {b.get('synthetic_machine', b['machine'])} machine shared with other work{runs}, so CPU time is "
                      "the figure that measures kernelcount; `--format json`, and the text summary (the default) in "
                      "the last two columns:", "",
                  "| synthetic model | ops | model.json | CPU time | wall time | peak RSS | text: CPU time | text: peak RSS |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for s in syn:
            text = (f" {s['text_cpu_s']:.2f} s | {s['text_peak_rss_mib']:.0f} MiB |" if "text_peak_rss_mib" in s
                    else " | |")
            lines.append(f"| {s['what']} | {s['ops']} | {s['file_mb']:.1f} MB | {s['cpu_s']:.2f} s | {s['median_s']:.2f} s | "
                         f"{s['peak_rss_mib']:.0f} MiB |{text}")
        if "llama70b" in b:
            s = b["llama70b"]
            earlier = " (an earlier run's: the last had no transformers that exports it)" if b.get("llama70b_earlier") else ""
            lines.append(f"| {s['what']} (`python bench/bench.py --scale`){earlier} | {s['ops']} | "
                         f"{s['model_json_mb']:.1f} MB | {s['cpu_s']:.2f} s | {s['median_s']:.2f} s | "
                         f"{s['peak_rss_mib']:.0f} MiB | | |")
    return "\n".join(lines)


def corpus():
    table = sh("python3 research/accuracy/corpus_accuracy.py --markdown")
    lines = [l for l in table.splitlines() if l.startswith("|")]
    out = ["```", "$ python3 research/accuracy/corpus_accuracy.py --markdown   # the table below, in-sample"]
    for args in ("", "--holdout", "--rules-only", "--measured data/results/heldout"):
        res = sh(f"python3 research/accuracy/corpus_accuracy.py {args}").splitlines()
        out.append(f"$ python3 research/accuracy/corpus_accuracy.py {args}".rstrip() + "   # summary")
        out += [l for l in res if l.startswith("[") or l.startswith("rules below") or l.startswith("not measured")]
    out.append("```")
    return "\n".join(out) + "\n\n" + "\n".join(lines)


def saved(path, cmd, lines=6):
    """A long accuracy run's saved output (the command regenerates the file)."""
    head = open(path).read().splitlines()[:lines]
    return "```\n$ " + cmd + "\n" + "\n".join(head) + "\n```"


def saved_file(path, lines):
    """A saved accuracy run whose file starts with its own note and command (a first look made by hand)."""
    return "```\n" + "\n".join(open(path).read().splitlines()[:lines]) + "\n```"


# The figures of research/accuracy/accuracy_all.sh: (label, what the set is, accuracy JSON).
ACCURACY_SETS = [
    ("broad, leave one family out", "569 exports, 133 families (torchvision, timm, transformers, RNNs)",
     "data/results/broad/accuracy_lofo.json"),
    ("broad, rules alone", "the same, no measured table", "data/results/broad/accuracy_rules.json"),
    ("fresh", "85 exports of 38 families no other set holds", "data/results/fresh/accuracy_rules.json"),
    ("fresh2", "134: one more model per timm family, batch 4", "data/results/fresh2/accuracy_rules.json"),
    ("fresh3", "36 CNNs at batch 8, 160 x 160", "data/results/fresh3/accuracy_rules.json"),
    ("fresh4", "76 timm models", "data/results/fresh4/accuracy_rules.json"),
    ("fresh5", "138 timm and transformers models", "data/results/fresh5/accuracy_rules.json"),
    ("fresh6", "130 models exported on the GPU", "data/results/fresh6/accuracy_rules.json"),
    ("opset", "794 one-op blocks, every op a family", "data/results/opset/accuracy_rules.json"),
    ("OpInfo", "3,345 samples of PyTorch's OpInfo database, every OpInfo a family",
     "data/results/opinfo/accuracy_rules.json"),
    ("OpInfo, held out", "1,694 further samples (the 4th and 5th) of the same OpInfos; out of sample at 6b55c42: "
     "94.1% of 2,779, now learned from", "data/results/opinfo_heldout/accuracy_rules.json"),
    ("OpInfo reference inputs", "3,000 of OpInfo's reference inputs, no sample input of their ops; out of sample at "
     "b0c4f83: 98.98% of 3,333, now learned from", "data/results/opinfo_reference/accuracy_rules.json"),
    ("OpInfo reference inputs, second draw", "the next 3,000 by name (2,879 export); out of sample at 336c3ae: "
     "99.91% of 3,221, now learned from", "data/results/opinfo_reference2/accuracy_rules.json"),
    ("control flow", "cond, map, scan and while_loop programs", "data/results/control/accuracy_rules.json"),
    ("TorchScript, leave one family out", "60 traces of 30 architectures",
     "data/results/torchscript/accuracy_lofo.json"),
    ("TorchScript, rules alone", "the same, no measured table", "data/results/torchscript/accuracy_rules.json"),
    ("TorchScript held out, leave one family out", "208 traces of 104 more architectures, one per family",
     "data/results/torchscript_heldout/accuracy_lofo.json"),
    ("TorchScript held out, rules alone", "the same, no measured table",
     "data/results/torchscript_heldout/accuracy_rules.json"),
    ("TorchScript the rest, leave one family out", "290 traces of the other 145 architectures that trace",
     "data/results/torchscript_rest/accuracy_lofo.json"),
    ("TorchScript the rest, rules alone", "the same, no measured table (first look: 281/290, 289/290)",
     "data/results/torchscript_rest/accuracy_rules.json"),
    ("detection, as exported", "6 torchvision detectors traced on the GPU; random weights keep no box",
     "data/results/detection/accuracy_rules.json"),
    ("detection, all scores", "the same with every score threshold at 0",
     "data/results/detection_all_scores/accuracy_rules.json"),
    ("detection, held out", "3 more detectors, all scores, measured after the rules",
     "data/results/detection_heldout/accuracy_rules.json"),
    ("detection, .pt2", "torchvision detectors exported with draft_export on the GPU, all scores",
     "data/results/detection_pt2/accuracy_rules.json"),
]


def accuracy_row(label, what, path):
    d = json.load(open(path))
    errs = [abs(m[3]) for m in d["models"]]
    n = len(errs)
    within = [sum(e <= t for e in errs) for t in (0.01, 0.02, 0.05)]
    exact, total = d["exact"]
    return (f"| {label} | {what} | {n} | {100.0 * exact / total:.1f}% of {total:,} | "
            + " | ".join(f"{w}/{n}" for w in within) + f" | {100.0 * max(errs):.1f}% |")


def speed_summary():
    """The README's few lines: the start-up rows and the GPU machine's comparison."""
    b = json.load(open("bench/results.json"))
    if "startup" not in b:
        return "(no start-up rows yet: run `python bench/bench.py --startup --json bench/results.json`)"
    lines = [f"CPU time and peak memory of whole processes (`python bench/bench.py --startup`, "
             f"{b['startup_machine']}; docs/speed.md has the rest):", "",
             "| run | CPU time | peak RSS |", "| --- | ---: | ---: |"]
    lines += [f"| {r['what']} | {r['cpu_s']:.3f} s | {r['peak_rss_mib']:.0f} MiB |" for r in b["startup"]]
    if "gpu_route" in b:
        g = b["gpu_route"]
        lines += ["", f"On an H200 machine, `kernelcount resnet50.pt2` takes {g['kernelcount_s']:.2f} s; building the "
                      f"model and counting its kernels under torch.profiler takes {g['profiler_route_s']:.1f} s "
                      f"({g['speedup']:.0f} times as long; `python bench/bench.py --gpu`)."]
    return "\n".join(lines)


def accuracy_table(rows=None):
    out = ["| set | what it is | models | op instances exact | kernels within 1% | 2% | 5% | largest error |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for label, what, path in ACCURACY_SETS:
        if rows is None or label in rows:
            out.append(accuracy_row(label, what, path))
    return "\n".join(out)


def truth_of_record():
    d = json.load(open("data/results/truth_of_record.json"))
    sets = d["sets"]
    n = sum(s["models"] for s in sets)
    totals = sum(s["totals_equal"] for s in sets)
    ops = sum(s["ops_equal"] for s in sets)
    only = [(s["set"], m, "real run only") for s in sets for m in s["only_real"]] + \
           [(s["set"], m, "replay only") for s in sets for m in s["only_replay"]]
    out = ["| set | models run both ways | totals equal | every op's counts equal |",
           "| --- | ---: | ---: | ---: |"]
    out += [f"| {s['set']} | {s['models']} | {s['totals_equal']} | {s['ops_equal']} |" for s in sets]
    out.append(f"| all | {n} | {totals} | {ops} |")
    text = ("From `data/results/truth_of_record.json` (`python3 validate/real_truth.py compare "
            "REPLAY_SET REAL_DIR` per set, on the outputs of `validate/device_truth.sh`):\n\n" + "\n".join(out))
    if only:
        text += "\n\nMeasured one way only: " + ", ".join(f"{m} ({s}, {w})" for s, m, w in only) + "."
    return text


SECTIONS = {
    "truth-of-record": truth_of_record,
    "accuracy-table": accuracy_table,
    "accuracy-summary": lambda: accuracy_table({"broad, leave one family out", "TorchScript, leave one family out",
                                                "TorchScript held out, leave one family out",
                                                "TorchScript the rest, leave one family out"}),
    "example": lambda: block(f"{KC} tests/models/transformer_block.pt2 --top 3"),
    "example-by-op": lambda: block(f"{KC} tests/models/add_relu.pt2 --by op"),
    "example-by-line": lambda: block(f"{KC} tests/models/transformer_block.pt2 --by line"),
    "example-explain": lambda: block(f"{KC} explain tests/models/add_relu.pt2 --op 1"),
    "truth": lambda: "```\n$ python3 research/truth/truth_accuracy.py | tail -2\n"
                     + sh("python3 research/truth/truth_accuracy.py | tail -2") + "\n```",
    "bench": bench_table,
    "speed-summary": speed_summary,
    "corpus": corpus,
    "broad": lambda: saved("data/results/broad/accuracy_rules.txt",
                           "python3 research/accuracy/broad_accuracy.py --mode rules --worst 15 --misses 40 "
                           "--json data/results/broad/accuracy_rules.json "
                           "> data/results/broad/accuracy_rules.txt   # about 10 minutes", 6),
    "fresh-first": lambda: saved("data/results/fresh/accuracy_first_look.txt",
                                 "git worktree add ../kc-f06302a f06302a && (cd ../kc-f06302a && ./scripts/setup.sh) && "
                                 "python3 research/accuracy/broad_accuracy.py --kernelcount ../kc-f06302a/build/kernelcount "
                                 "--mode rules --models data/corpus/fresh --measured data/results/fresh/measured.tar.xz "
                                 "--worst 25 --misses 40   # the rules before the fresh measurements", 6),
    "broad-lofo": lambda: saved("data/results/broad/accuracy_lofo.txt",
                                "python3 research/accuracy/broad_accuracy.py --mode lofo --conv-lofo generators/conv_lofo.json.gz "
                                "--worst 15 --misses 20 --json data/results/broad/accuracy_lofo.json "
                                "> data/results/broad/accuracy_lofo.txt", 3),
    "fresh2-first": lambda: saved("data/results/fresh2/accuracy_first_look.txt",
                                  "git worktree add ../kc-fd3e38b fd3e38b && (cd ../kc-fd3e38b && ./scripts/setup.sh) && "
                                  "python3 research/accuracy/broad_accuracy.py --kernelcount ../kc-fd3e38b/build/kernelcount "
                                  "--mode rules --models data/corpus/fresh2/models.tar.xz --measured "
                                  "data/results/fresh2/measured.tar.xz --worst 25 --misses 40", 6),
    "fresh2": lambda: saved("data/results/fresh2/accuracy_rules.txt",
                            "python3 research/accuracy/broad_accuracy.py --mode rules --models data/corpus/fresh2/models.tar.xz --measured "
                            "data/results/fresh2/measured.tar.xz --worst 15 --misses 40 --json "
                            "data/results/fresh2/accuracy_rules.json > data/results/fresh2/accuracy_rules.txt", 6),
    "fresh3-first": lambda: saved("data/results/fresh3/accuracy_first_look.txt",
                                  "python3 research/accuracy/broad_accuracy.py --mode rules --models data/corpus/fresh3 "
                                  "--measured data/results/fresh3/measured.tar.xz --worst 36 --misses 30   # at 7a9e51f",
                                  6),
    "conv-trees": lambda: saved("generators/fit_conv.txt",
                                "python3 generators/fit_conv.py --lofo --lofo-extra torchscript "
                                "--lofo-out generators/conv_lofo.json.gz > generators/fit_conv.txt"
                                "   # needs scikit-learn", 33),
    "fresh4-first": lambda: saved("data/results/fresh4/accuracy_first_look.txt",
                                  "git worktree add ../kc-7e5c6bb 7e5c6bb && (cd ../kc-7e5c6bb && ./scripts/setup.sh) && "
                                  "python3 research/accuracy/broad_accuracy.py --kernelcount ../kc-7e5c6bb/build/kernelcount "
                                  "--mode rules --models data/corpus/fresh4/models.tar.xz --measured "
                                  "data/results/fresh4/measured.tar.xz --worst 76 --misses 40", 6),
    "fresh5-first": lambda: saved("data/results/fresh5/accuracy_first_look.txt",
                                  "git worktree add ../kc-cb6a623 cb6a623 && (cd ../kc-cb6a623 && ./scripts/setup.sh) && "
                                  "python3 research/accuracy/broad_accuracy.py --kernelcount ../kc-cb6a623/build/kernelcount "
                                  "--mode rules --models data/corpus/fresh5/models.tar.xz --measured "
                                  "data/results/fresh5/measured.tar.xz --worst 25 --misses 40", 6),
    "fresh6-first": lambda: saved("data/results/fresh6/accuracy_first_look.txt",
                                  "git worktree add ../kc-588963e 588963e && (cd ../kc-588963e && ./scripts/setup.sh) && "
                                  "python3 research/accuracy/broad_accuracy.py --kernelcount ../kc-588963e/build/kernelcount "
                                  "--mode rules --models data/corpus/fresh6/models.tar.xz --measured "
                                  "data/results/fresh6/measured.tar.xz --worst 25 --misses 40", 6),
    "opinfo-first": lambda: saved("data/results/opinfo/accuracy_first_look.txt",
                                  "git worktree add ../kc-8b9e379 8b9e379 && (cd ../kc-8b9e379 && ./scripts/setup.sh) && "
                                  "python3 research/accuracy/broad_accuracy.py --kernelcount ../kc-8b9e379/build/kernelcount "
                                  "--models data/corpus/opinfo/models.tar.xz --measured "
                                  "data/results/opinfo/measured.tar.xz --worst 10 --misses 40", 5),
    "opinfo-rules": lambda: saved("data/results/opinfo/accuracy_rules.txt",
                                  "python3 research/accuracy/broad_accuracy.py --models data/corpus/opinfo/models.tar.xz "
                                  "--measured data/results/opinfo/measured.tar.xz --worst 10 --misses 40 --json "
                                  "data/results/opinfo/accuracy_rules.json > data/results/opinfo/accuracy_rules.txt", 11),
    "opinfo-heldout-first": lambda: saved_file("data/results/opinfo_heldout/accuracy_first_look.txt", 8),
    "opinfo-heldout-rules": lambda: saved("data/results/opinfo_heldout/accuracy_rules.txt",
                                          "python3 research/accuracy/broad_accuracy.py --models "
                                          "data/corpus/opinfo_heldout/models.tar.xz --measured "
                                          "data/results/opinfo_heldout/measured.tar.xz --worst 10 --misses 40 --json "
                                          "data/results/opinfo_heldout/accuracy_rules.json > "
                                          "data/results/opinfo_heldout/accuracy_rules.txt", 16),
    "detection-heldout": lambda: saved("data/results/detection_heldout/accuracy_first_look.txt",
                                       "git worktree add ../kc-c2fc540 c2fc540 && (cd ../kc-c2fc540 && "
                                       "./scripts/setup.sh) && python3 research/accuracy/broad_accuracy.py --kernelcount "
                                       "../kc-c2fc540/build/kernelcount --mode rules --models "
                                       "data/corpus/detection_heldout/models.tar.xz --measured "
                                       "data/results/detection_heldout/measured.tar.xz --worst 6 --misses 30", 9),
    "detection-pt2": lambda: saved("data/results/detection_pt2/accuracy_first_look.txt",
                                   "git worktree add ../kc-fff0d18 fff0d18 && (cd ../kc-fff0d18 && "
                                   "./scripts/setup.sh) && python3 research/accuracy/broad_accuracy.py --kernelcount "
                                   "../kc-fff0d18/build/kernelcount --mode rules --models "
                                   "data/corpus/detection_pt2/models.tar.xz --measured "
                                   "data/results/detection_pt2/measured.tar.xz --worst 15 --misses 30", 19),
    "fresh": lambda: saved("data/results/fresh/accuracy_rules.txt",
                           "python3 research/accuracy/broad_accuracy.py --mode rules --models data/corpus/fresh --measured "
                           "data/results/fresh/measured.tar.xz --worst 15 --misses 40 --json "
                           "data/results/fresh/accuracy_rules.json > data/results/fresh/accuracy_rules.txt", 6),
    "opset": lambda: saved("data/results/opset/accuracy_rules.txt",
                           "python3 research/accuracy/broad_accuracy.py --models data/corpus/opset/models.tar.xz --measured "
                           "data/results/opset/measured.tar.xz --worst 5 --misses 40 "
                           "--json data/results/opset/accuracy_rules.json > data/results/opset/accuracy_rules.txt", 6),
    "torchscript-heldout": lambda: saved("data/results/torchscript_heldout/accuracy_rules.txt",
                                         "python3 research/accuracy/broad_accuracy.py --mode rules --models "
                                         "data/corpus/torchscript_heldout/models.tar.xz --measured "
                                         "data/results/torchscript_heldout/measured.tar.xz --worst 15 --misses 30 "
                                         "--json data/results/torchscript_heldout/accuracy_rules.json "
                                         "> data/results/torchscript_heldout/accuracy_rules.txt", 6),
    "torchscript-rest": lambda: saved("data/results/torchscript_rest/accuracy_first_look.txt",
                                      "python3 research/accuracy/broad_accuracy.py --mode rules --models "
                                      "data/corpus/torchscript_rest/models.tar.xz --measured "
                                      "data/results/torchscript_rest/measured.tar.xz --worst 15 --misses 30 "
                                      "--json data/results/torchscript_rest/accuracy_rules.json "
                                      "> data/results/torchscript_rest/accuracy_rules.txt   # at cada26d", 6),
    "torchscript-heldout-lofo": lambda: saved("data/results/torchscript_heldout/accuracy_lofo.txt",
                                              "python3 research/accuracy/broad_accuracy.py --mode lofo --models "
                                              "data/corpus/torchscript_heldout/models.tar.xz --measured "
                                              "data/results/torchscript_heldout/measured.tar.xz --conv-lofo "
                                              "generators/conv_lofo.json.gz --conv-corpus torchscript_heldout "
                                              "--worst 15 --misses 30 --json data/results/torchscript_heldout/accuracy_lofo.json "
                                              "> data/results/torchscript_heldout/accuracy_lofo.txt", 6),
    "torchscript-rest-lofo": lambda: saved("data/results/torchscript_rest/accuracy_lofo.txt",
                                           "python3 research/accuracy/broad_accuracy.py --mode lofo --models "
                                           "data/corpus/torchscript_rest/models.tar.xz --measured "
                                           "data/results/torchscript_rest/measured.tar.xz --conv-lofo "
                                           "generators/conv_lofo.json.gz --conv-corpus torchscript_rest "
                                           "--worst 15 --misses 30 --json data/results/torchscript_rest/accuracy_lofo.json "
                                           "> data/results/torchscript_rest/accuracy_lofo.txt", 6),
    "torchscript-lofo": lambda: saved("data/results/torchscript/accuracy_lofo.txt",
                                      "python3 research/accuracy/broad_accuracy.py --mode lofo --models "
                                      "data/corpus/torchscript/models.tar.xz --measured data/results/torchscript/measured.tar.xz "
                                      "--conv-lofo generators/conv_lofo.json.gz --conv-corpus torchscript --worst 15 "
                                      "--misses 30 --json data/results/torchscript/accuracy_lofo.json "
                                      "> data/results/torchscript/accuracy_lofo.txt", 6),
    "torchscript": lambda: saved("data/results/torchscript/accuracy_rules.txt",
                                 "python3 research/accuracy/broad_accuracy.py --mode rules --models data/corpus/torchscript/models.tar.xz "
                                 "--measured data/results/torchscript/measured.tar.xz --worst 15 --misses 30 "
                                 "--json data/results/torchscript/accuracy_rules.json "
                                 "> data/results/torchscript/accuracy_rules.txt", 6),
}


FILES = ("README.md", "docs/accuracy.md", "docs/usage.md", "docs/speed.md")


def main():
    texts = {f: open(f).read() for f in FILES}
    for name, make in SECTIONS.items():
        pat = re.compile(rf"(<!-- {name}:begin -->\n)(?:.*?\n)?(<!-- {name}:end -->)", re.S)
        where = [f for f in FILES if pat.search(texts[f])]
        if not where:
            sys.exit(f"no file of {', '.join(FILES)} has a {name} section")
        for f in where:
            texts[f] = pat.sub(lambda m: m.group(1) + make() + "\n" + m.group(2), texts[f])
    for f, text in texts.items():
        open(f, "w").write(text)
    with open("docs/rules.md", "w") as f:
        f.write(sh(f"{KC} --list-rules --format markdown") + "\n")
    print(f"{', '.join(FILES)} and docs/rules.md regenerated")


if __name__ == "__main__":
    main()
