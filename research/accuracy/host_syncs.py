"""Host syncs and memcpys, predicted against the real run, model by model.

A host sync is a point where the host waits for the GPU (`.item()`, a nonzero's output size, a
copy to pageable host memory). The real runs (validate/real_run.py) count the CUDA runtime calls
that wait (crosscheck_profiler.HOST_SYNC_CALLS) inside the measured call; kernelcount predicts
them per op (`totals.host_syncs`). This prints, for every model of a set with a real run, both
figures and the memcpy count beside them, and lists the models where kernelcount predicts a sync
or a memcpy that the run did not make, and the reverse.

    python3 research/accuracy/host_syncs.py --kernelcount build/kernelcount --models data/corpus/SET[/models.tar.xz] \\
        --real data/results/SET/real.tar.xz [--json OUT.json]
    python3 research/accuracy/host_syncs.py ... --real data/results/host_syncs/real_syncs.json.gz --set SET

data/results/host_syncs/real_syncs.json.gz keeps the syncs and memcpys of every model's real
run of the sets broad, torchscript and detection* ({set: {model: {host_syncs, memcpy, ops}}}),
measured by `KC_NO_REPLAY=1 validate/device_truth.sh OUT 320 detection detection_heldout
detection_all_scores torchscript broad` at b526455 on the H200. Only those two counts are kept:
that run's kernel totals held one extra event (the mark bounding the measured call, fixed since).

Exits 1 when a real run has no sync count (measured before syncs were counted): measure again.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from broad_accuracy import open_models  # noqa: E402


def real_runs(path, set_name=None):
    """name -> the real run's totals, from a real.tar.xz, a folder of <name>.real.json, or the
    syncs file (real_syncs.json.gz) with the set's name."""
    if path.endswith(".json.gz"):
        with gzip.open(path, "rt") as f:
            return json.load(f)[set_name]
    if os.path.isfile(path):
        tmp = tempfile.mkdtemp(prefix="kc-real-")
        with tarfile.open(path) as tar:
            tar.extractall(tmp)
        path = tmp
    out = {}
    for folder, _, files in os.walk(path):
        for f in files:
            if f.endswith(".real.json"):
                with open(os.path.join(folder, f)) as h:
                    out[f[: -len(".real.json")]] = json.load(h)["totals"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernelcount", default="build/kernelcount")
    ap.add_argument("--models", required=True)
    ap.add_argument("--real", required=True)
    ap.add_argument("--set", help="the set's name in a real_syncs.json.gz given as --real")
    ap.add_argument("--json")
    a = ap.parse_args()
    folder, inputs = open_models(a.models)
    real = real_runs(a.real, a.set)
    rows, unmeasured = [], []
    for name in sorted(real):
        path = next((os.path.join(folder, name + ext) for ext in (".pt2", ".pt")
                     if os.path.exists(os.path.join(folder, name + ext))), None)
        if path is None:
            continue
        if "host_syncs" not in real[name]:
            unmeasured.append(name)
            continue
        cmd = [a.kernelcount, path, "--format", "json"] + [x for i in inputs.get(name, []) for x in ("--input", i)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            print(f"{name}: kernelcount failed: {p.stderr.strip()}", file=sys.stderr)
            continue
        t = json.loads(p.stdout)["totals"]
        rows.append({"model": name, "predicted": {"host_syncs": t["host_syncs"], "memcpy": t["memcpy"]},
                     "measured": {"host_syncs": real[name]["host_syncs"], "memcpy": real[name]["memcpy"]}})
    if unmeasured:
        print(f"{len(unmeasured)} real runs count no syncs (measured before syncs were counted): "
              f"{', '.join(unmeasured[:5])}", file=sys.stderr)
        return 1
    print(f"{len(rows)} models with a real run")
    for kind in ("host_syncs", "memcpy"):
        equal = sum(r["predicted"][kind] == r["measured"][kind] for r in rows)
        phantom = [r for r in rows if r["predicted"][kind] > 0 and r["measured"][kind] == 0]
        missed = [r for r in rows if r["predicted"][kind] == 0 and r["measured"][kind] > 0]
        print(f"{kind}: equal in {equal}/{len(rows)}; predicted where the run had none: {len(phantom)}; "
              f"none predicted where the run had some: {len(missed)}")
        for r in [r for r in rows if r["predicted"][kind] != r["measured"][kind]]:
            print(f"  {r['model']}: predicted {r['predicted'][kind]}, measured {r['measured'][kind]}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
