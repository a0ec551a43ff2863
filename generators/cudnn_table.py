#!/usr/bin/env python3
"""Writes the cuDNN answers built into kernelcount for a target (its folder's
cudnn_answers.txt, passes/targets/<folder>/, read by passes/torch2_11/cudnn_table.cc): cuDNN's
heuristic choice for every convolution of the committed models, asked with the target's device
properties (its device.json). Runs kernelcount on every model of
data/corpus/*/ (folders and .tar.xz bundles, TorchScript with their manifests' --input specs),
tests/models/*.pt2 and every golden case that names a convolution, with the table off and the
disk cache in a fresh folder, then writes that cache's lines sorted, one per query. Needs cuDNN
9.19 (the one the target runs) where kernelcount can load it; about 20 minutes on two cores.

  generators/cudnn_table.py [--target FOLDER] [--kernelcount build/kernelcount] [--jobs N]   rewrite the table
  generators/cudnn_table.py [--target FOLDER] --check          exit 1 if it is not current
(--target: default the registry's first, h200.)
"""
import argparse
import concurrent.futures
import glob
import json
import os
import shlex
import subprocess
import sys
import tarfile
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import targets  # noqa: E402


def manifest_inputs(folder):
    """--input specs of TorchScript models by file name, from a manifest.jsonl in or beside folder."""
    inputs = {}
    for manifest in (os.path.join(folder, "manifest.jsonl"), os.path.join(os.path.dirname(folder), "manifest.jsonl")):
        if os.path.exists(manifest):
            for line in open(manifest):
                if line.strip():
                    r = json.loads(line)
                    if isinstance(r.get("inputs"), list) and "file" in r:
                        inputs[r["file"]] = r["inputs"]
    return inputs


def folder_runs(folder):
    """kernelcount's arguments for each model of a folder."""
    inputs = manifest_inputs(folder)
    runs = []
    for m in sorted(glob.glob(os.path.join(folder, "*.pt2")) + glob.glob(os.path.join(folder, "*.pt"))):
        extra = [a for spec in inputs.get(os.path.basename(m), []) for a in ("--input", spec)]
        runs.append([m, *extra])
    return runs


def all_runs(tmp):
    runs = []
    for folder in sorted(glob.glob(os.path.join(ROOT, "data/corpus/*/"))):
        folder = folder.rstrip("/")
        runs += folder_runs(folder)
        for bundle in sorted(glob.glob(os.path.join(folder, "*.tar.xz"))):
            out = tempfile.mkdtemp(dir=tmp)
            with tarfile.open(bundle) as tar:
                tar.extractall(out, filter="data")
            subs = [os.path.join(out, d) for d in os.listdir(out) if os.path.isdir(os.path.join(out, d))]
            inner = subs[0] if len(subs) == 1 else out
            inputs = manifest_inputs(inner) or manifest_inputs(folder)
            for m in sorted(glob.glob(os.path.join(inner, "*.pt2")) + glob.glob(os.path.join(inner, "*.pt"))):
                runs.append([m, *[a for spec in inputs.get(os.path.basename(m), []) for a in ("--input", spec)]])
    runs += [[m] for m in sorted(glob.glob(os.path.join(ROOT, "tests/models/*.pt2")))]
    for cases in sorted(glob.glob(os.path.join(ROOT, "tests/golden/cases*.txt"))):
        for line in open(cases):
            parts = line.split(None, 2)
            if len(parts) == 3 and not parts[0].startswith("#"):
                runs.append(shlex.split(parts[2]))
    return runs


def names_convolution(model):
    """Whether a model archive's program (.pt2's JSON, TorchScript's code) mentions a convolution:
    only those ask cuDNN, and reading the archive is a hundred times quicker than a run."""
    try:
        with zipfile.ZipFile(model) as z:
            return any(b"conv" in z.read(i).lower() for i in z.infolist()
                       if i.filename.endswith((".json", ".py", ".pkl")) or "/code/" in i.filename)
    except (OSError, zipfile.BadZipFile):
        return True  # let kernelcount say what it is


def table_text(kc, jobs, cache=None, target_args=()):
    """The table's text, from kernelcount's disk cache after every run (in `cache`, else a fresh
    folder)."""
    with tempfile.TemporaryDirectory(prefix="kc-cudnn-table-") as tmp:
        cache = cache or os.path.join(tmp, "cache")
        env = dict(os.environ, KERNELCOUNT_CACHE=cache, KERNELCOUNT_CUDNN_TABLE="off")
        env.pop("KERNELCOUNT_CUDNN_GPU", None)
        env.pop("KERNELCOUNT_CUDNN", None)
        runs = [r for r in all_runs(tmp) if names_convolution(os.path.join(ROOT, r[0]))]

        def run(args):
            return subprocess.run([kc, *args, *target_args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL).returncode

        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            failed = sum(rc > 1 for rc in pool.map(run, runs))
        print(f"cudnn_table: {len(runs)} runs, {failed} failed", file=sys.stderr)
        files = glob.glob(os.path.join(cache, "cudnn-*.answers"))
        if len(files) != 1:
            sys.exit(f"cudnn_table: expected one cache file, found {files or 'none'} (is cuDNN 9.19 loadable?)")
        _, version, props = os.path.basename(files[0])[: -len(".answers")].split("-")
        answers = {}
        for line in open(files[0]):
            fields = line.split()
            if line.endswith("\n") and len(fields) in (8, 11):
                answers[" ".join(fields[:7])] = line
        return f"# cuDNN {version} properties {props}\n" + "".join(answers[k] for k in sorted(answers))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernelcount", default=os.path.join(ROOT, "build/kernelcount"))
    targets.add_argument(ap)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--check", action="store_true", help="say whether the committed table is current; write nothing")
    ap.add_argument("--cache", help="keep kernelcount's disk cache in this folder, to resume an interrupted run "
                    "(it must hold nothing but that run's answers); default: a fresh temporary folder")
    args = ap.parse_args()
    table = os.path.join(ROOT, targets.path(args.target, "cudnn_answers.txt"))
    # The default target is kernelcount's own: its runs (golden cases with subcommands among them)
    # take no --target.
    target_args = [] if args.target == targets.folders()[0] else ["--target", targets.name(args.target)]
    text = table_text(os.path.abspath(args.kernelcount), args.jobs, None if args.check else args.cache, target_args)
    lines = text.count("\n") - 1
    if args.check:
        committed = open(table).read() if os.path.exists(table) else ""
        if committed == text:
            print(f"cudnn_table: {os.path.relpath(table, ROOT)} is current ({lines} answers)")
            return 0
        old, new = set(committed.splitlines()), set(text.splitlines())
        print(f"cudnn_table: {os.path.relpath(table, ROOT)} is stale: {len(new - old)} lines to add, "
              f"{len(old - new)} to remove; run generators/cudnn_table.py")
        return 1
    with open(table, "w") as f:
        f.write(text)
    print(f"cudnn_table: wrote {os.path.relpath(table, ROOT)}: {lines} answers, {os.path.getsize(table)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
