"""Measures every .pt2 of a folder with kernelcount-validate (random weights), several
processes at once (one CUPTI subscriber each), a timeout per model. It can follow a folder
that exporters are still filling (--follow: until DONE_MARKER exists there), and stops
starting new runs at --deadline-s. Writes OUT/<name>.json (validate's --format json) and
OUT/<name>.err, and OUT/status.jsonl (name, exit code, seconds).

    python3 research/corpus/measure_broad.py BIN MODELS_DIR OUT_DIR [--jobs 6] [--timeout 150]
        [--follow DONE_MARKER] [--deadline-s 500] [--grace-s 20] [--manifest TORCHSCRIPT_MANIFEST]
"""
import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait


def run_one(binary, model, out_dir, timeout, hard_end, inputs=()):
    name = os.path.splitext(os.path.basename(model))[0]
    t0 = time.time()
    timeout = max(5, min(timeout, hard_end - t0))
    try:
        with open(os.path.join(out_dir, name + ".err"), "w") as err:
            rc = subprocess.run([binary, model, "--format", "json", "--out", os.path.join(out_dir, name + ".json"),
                                 *[a for spec in inputs for a in ("--input", spec)]],
                                stdout=subprocess.DEVNULL, stderr=err, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        rc = 124
    return {"name": name, "rc": rc, "seconds": round(time.time() - t0, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("models")
    ap.add_argument("out")
    ap.add_argument("--jobs", type=int, default=6)
    ap.add_argument("--timeout", type=int, default=150)
    ap.add_argument("--follow", help="keep polling MODELS until this file exists")
    ap.add_argument("--deadline-s", type=float, default=1e9)
    ap.add_argument("--grace-s", type=float, default=20, help="in-flight runs are killed this long after the deadline")
    ap.add_argument("--skip-done", action="store_true", help="skip models with a JSON in OUT already")
    ap.add_argument("--manifest", help="TorchScript models (.pt): a JSONL of {file, inputs} giving their --input specs")
    a = ap.parse_args()
    t0 = time.time()
    specs = {}
    if a.manifest:
        for line in open(a.manifest):
            r = json.loads(line)
            if "inputs" in r and "file" in r:
                specs[r["file"]] = r["inputs"]
    # runs still going this long after the deadline are killed
    hard_end = t0 + a.deadline_s + a.grace_s
    os.makedirs(a.out, exist_ok=True)
    started = set()
    if a.skip_done:
        started |= {f[:-5] + ".pt2" for f in os.listdir(a.out) if f.endswith(".json")}
    status = open(os.path.join(a.out, "status.jsonl"), "a")
    futs = set()
    ok = fail = 0
    with ThreadPoolExecutor(a.jobs) as pool:
        while True:
            finished = a.follow is None or os.path.exists(a.follow)
            fresh = sorted(f for f in os.listdir(a.models) if f.endswith(".pt2" if not specs else ".pt")
                           and f not in started)
            # every family before the variants of any: round-robin over <family>__ prefixes
            rank, seen = {}, {}
            for f in sorted(fresh):
                fam = f.split("__")[0]
                rank[f] = seen.get(fam, 0)
                seen[fam] = rank[f] + 1
            fresh.sort(key=lambda f: (rank[f], f))
            for f in fresh:
                if time.time() - t0 > a.deadline_s or len(futs) >= a.jobs * 2:
                    break
                started.add(f)
                futs.add(pool.submit(run_one, a.binary, os.path.join(a.models, f), a.out, a.timeout, hard_end,
                                     specs.get(f, ())))
            if futs:
                done, futs = wait(futs, timeout=2, return_when=FIRST_COMPLETED)
                for d in done:
                    r = d.result()
                    ok += r["rc"] in (0, 1)
                    fail += r["rc"] not in (0, 1)
                    status.write(json.dumps(r) + "\n")
                    status.flush()
                continue
            if time.time() - t0 > a.deadline_s or (finished and not fresh):
                break
            time.sleep(2)
    print(f"measure_broad: {ok} measured, {fail} failed, {len(started)} started in {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
