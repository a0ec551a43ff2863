"""Out-of-sample accuracy of kernelcount on the broad corpus, from measurements on the GPU.

Each model of the broad corpus is `<family>__<model>_<dtype>.pt2` (data/corpus/broad/) with
the per-op counts kernelcount-validate measured on the H200 (data/results/broad/). Two
predictions are compared with them, op by op:

  rules      the launch rules alone (`--no-measured`): the rules are written from single-op
             sweeps and the ATen/cuDNN/cuBLAS code, never from these models;
  lofo       leave one family out: the measured signature table is used, except entries
             measured only in the model's own family (`--exclude-measured <family>__`).

An op instance is exact for a count when prediction and measurement agree; an unknown
prediction is never exact. A model's kernel error is (predicted - measured) / measured over the
whole model, work launched outside any op included. Prints a summary per mode, per op class,
per dtype and per family, and the ops no rule knows.
Standard library only. Run from the repository root after building:
  python3 research/accuracy/broad_accuracy.py [--mode rules|lofo] [--markdown] [--worst N]
"""
import argparse
import collections
import concurrent.futures
import glob
import gzip
import json
import os
import re
import subprocess
import tarfile
import tempfile

KINDS = ("kernels", "memcpy", "memset")


def family_of(name):
    return name.split("__", 1)[0] if "__" in name else name.rsplit("_", 1)[0]


def dtype_of(name):
    return name.rsplit("_", 1)[-1]


def predict(kc, model, mode, inputs=()):
    name = os.path.splitext(os.path.basename(model))[0]
    extra = ["--no-measured"] if mode == "rules" else ["--exclude-measured", family_of(name) + "__"]
    for spec in inputs:
        extra += ["--input", spec]
    out = subprocess.run([kc, model, "--format", "json", *extra], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        return name, None, out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"
    return name, json.loads(out.stdout), None


def conv_left_out(pred, held_out):
    """Replaces each convolution's tree prediction by the one from trees fitted without the model's
    family (generators/fit_conv.py --lofo-out): the op's other launches (bias add, layout
    copies) stay as the rules predict them."""
    for po in pred["ops"]:
        entry = held_out.get(str(po.get("index")))
        pl = po["launches"]
        if entry and entry[0] and pl.get("known"):
            (k_out, m_out), (k_all, m_all) = entry
            pl["kernels"] += k_out - k_all
            pl["memset"] += m_out - m_all


def compare(name, pred, meas, acc, op_filter=None):
    fam, dt = family_of(name), dtype_of(name)
    p_total = m_total = 0
    for po, mo in zip(pred["ops"], meas["ops"]):
        pl, ml = po["launches"], mo["measured"]
        cls = po.get("class", "other")
        known = pl["known"]
        if not known:
            acc["unknown"][po["op"]] += 1
        exact_all = known
        for k in KINDS:
            ok = known and pl[k] == ml[k]
            exact_all &= ok
            acc["kind"][k][0] += ok
            acc["kind"][k][1] += 1
        for key, table in ((cls, acc["class"]), (dt, acc["dtype"]), (fam, acc["family"])):
            table[key][0] += exact_all
            table[key][1] += 1
        acc["all"][0] += exact_all
        acc["all"][1] += 1
        if not exact_all and (not op_filter or re.search(op_filter, po["op"])):
            key = (po["op"], pl.get("rule", ""), tuple(pl[k] for k in KINDS) if known else None,
                   tuple(ml[k] for k in KINDS))
            acc["misses"][key] += 1
            acc["examples"][key].append((name, mo.get("args", [])))
        p_total += pl["kernels"] or 0
        m_total += ml["kernels"]
        acc["blame"][name][cls] += (pl["kernels"] or 0) - ml["kernels"]
    unattributed = meas.get("unattributed", {}).get("kernels", 0)
    m_total += unattributed
    if unattributed:
        acc["blame"][name]["unattributed"] -= unattributed
    err = (p_total - m_total) / m_total if m_total else 0.0
    acc["models"].append((name, m_total, p_total, err))


def load_measured(path):
    """validate JSONs by model name, from a folder or a tar archive (.tgz, .tar.xz)."""
    out = {}
    if path.endswith((".tgz", ".tar.xz")):
        with tarfile.open(path) as tar:
            for m in tar.getmembers():
                if m.isfile() and m.name.endswith(".json"):
                    out[os.path.basename(m.name)[:-5]] = json.load(tar.extractfile(m))
    else:
        for m in glob.glob(os.path.join(path, "*.json")):
            out[os.path.basename(m)[:-5]] = json.load(open(m))
    return out


def open_models(path):
    """The folder holding the models (a tar archive is unpacked to a temporary one), and the --input
    specs of TorchScript models by name, from the folder's manifest.jsonl."""
    if path.endswith((".tgz", ".tar.xz")):
        tmp = tempfile.mkdtemp(prefix="kc-models-")
        with tarfile.open(path) as tar:
            tar.extractall(tmp)
        sub = [os.path.join(tmp, d) for d in os.listdir(tmp) if os.path.isdir(os.path.join(tmp, d))]
        path = sub[0] if len(sub) == 1 else tmp
    inputs = {}
    for manifest in (os.path.join(path, "manifest.jsonl"), os.path.join(os.path.dirname(path), "manifest.jsonl")):
        if os.path.exists(manifest):
            for line in open(manifest):
                if line.strip():
                    r = json.loads(line)
                    if "inputs" in r and isinstance(r["inputs"], list):
                        name = r.get("name") or os.path.splitext(r["file"])[0]
                        inputs[name] = r["inputs"]
    return path, inputs


def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "n/a"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernelcount", default="build/kernelcount")
    ap.add_argument("--models", default="data/corpus/broad",
                    help="a folder of .pt2 (or TorchScript .pt with a manifest.jsonl of --input specs), or a tar archive of one (.tgz, .tar.xz)")
    ap.add_argument("--measured", default="data/results/broad/measured.tar.xz",
                    help="a folder of validate JSONs, or a tar archive of them (.tgz, .tar.xz)")
    ap.add_argument("--mode", choices=("rules", "lofo"), default="rules")
    ap.add_argument("--worst", type=int, default=0, help="list the N models with the largest kernel error")
    ap.add_argument("--misses", type=int, default=0, help="list the N most frequent mismatching op signatures")
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--only", help="models whose name matches this regular expression (for quick checks)")
    ap.add_argument("--op", help="count misses only for ops whose name matches this regular expression")
    ap.add_argument("--conv-lofo", help="in lofo mode, convolutions predicted by trees fitted without the "
                    "model's family: fit_conv.py --lofo-out's file (its corpus named by --conv-corpus)")
    ap.add_argument("--conv-corpus", default="broad", help="the corpus of --models in --conv-lofo")
    ap.add_argument("--examples", type=int, default=0,
                    help="under each of --misses, N instances: model and arguments (distinct argument lists first)")
    args = ap.parse_args()

    measured = load_measured(args.measured)
    held_out = {}
    if args.conv_lofo and args.mode == "lofo":
        with gzip.open(args.conv_lofo, "rt") as f:
            held_out = json.load(f).get(args.conv_corpus, {})
    models_dir, inputs = open_models(args.models)
    jobs = []
    for name in sorted(measured):
        if args.only and not re.search(args.only, name):
            continue
        for ext in (".pt2", ".pt"):
            model = os.path.join(models_dir, name + ext)
            if os.path.exists(model):
                jobs.append((name, model, name))
                break
    acc = {"kind": {k: [0, 0] for k in KINDS}, "class": collections.defaultdict(lambda: [0, 0]),
           "dtype": collections.defaultdict(lambda: [0, 0]), "family": collections.defaultdict(lambda: [0, 0]),
           "all": [0, 0], "unknown": collections.Counter(), "misses": collections.Counter(), "models": [],
           "examples": collections.defaultdict(list), "blame": collections.defaultdict(collections.Counter)}
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futures = {pool.submit(predict, args.kernelcount, model, args.mode, inputs.get(name, ())): (name, m)
                   for name, model, m in jobs}
        for f in concurrent.futures.as_completed(futures):
            name, meas_path = futures[f]
            _, pred, err = f.result()
            meas = measured[meas_path]
            if pred is None:
                failed.append((name, err))
                continue
            if len(pred["ops"]) != len(meas["ops"]):
                failed.append((name, f"{len(pred['ops'])} ops predicted, {len(meas['ops'])} measured"))
                continue
            if held_out:
                conv_left_out(pred, held_out.get(name, {}))
            compare(name, pred, meas, acc, args.op)

    models = sorted(acc["models"])
    n = len(models)
    within1 = sum(abs(e) <= 0.01 for *_, e in models)
    within2 = sum(abs(e) <= 0.02 for *_, e in models)
    within5 = sum(abs(e) <= 0.05 for *_, e in models)
    worst = max((abs(e) for *_, e in models), default=0.0)
    label = {"rules": "launch rules only", "lofo": "leave one family out"}[args.mode]
    print(f"[{label}] {acc['all'][0]}/{acc['all'][1]} op instances exact ({pct(*acc['all'])}) over {n} models, "
          f"{len({family_of(m[0]) for m in models})} families")
    print("exact per count: " + ", ".join(f"{k} {pct(*acc['kind'][k])}" for k in KINDS))
    print(f"whole-model kernels: within 1% {within1}/{n}, within 2% {within2}/{n}, within 5% {within5}/{n}; "
          f"largest error {100 * worst:.1f}%")
    print("per dtype: " + ", ".join(f"{d} {pct(*v)}" for d, v in sorted(acc["dtype"].items())))
    print("per op class: " + ", ".join(f"{c} {pct(*v)} of {v[1]}" for c, v in
                                       sorted(acc["class"].items(), key=lambda kv: (-kv[1][1], kv[0]))))
    if acc["unknown"]:
        print(f"ops no rule knows ({sum(acc['unknown'].values())} instances): " +
              ", ".join(f"{op} x{c}" for op, c in sorted(acc["unknown"].items(), key=lambda kv: (-kv[1], kv[0]))))
    else:
        print("ops no rule knows: none")
    if failed:
        print(f"not compared ({len(failed)}): " + "; ".join(f"{n}: {e}" for n, e in failed[:10]))
    if args.worst:
        for name, m, p, e in sorted(models, key=lambda r: -abs(r[3]))[:args.worst]:
            # Where the error comes from: kernels predicted minus measured, per op class.
            blame = ", ".join(f"{c} {d:+d}" for c, d in sorted(acc["blame"][name].items(), key=lambda kv: -abs(kv[1]))
                              if d)
            print(f"  {name}: measured {m}, predicted {p} ({100 * e:+.1f}%){': ' + blame if blame else ''}")
    if args.misses:
        # Ties in a fixed order (models are read in the order their workers finish).
        misses = sorted(acc["misses"].items(), key=lambda kv: (-kv[1], repr(kv[0])))[:args.misses]
        for (op, rule, p, m), c in misses:
            print(f"  x{c} {op} [{rule}] predicted {p} measured {m}")
            seen, shown = set(), 0
            for model, op_args in sorted(acc["examples"][(op, rule, p, m)]):
                if shown < args.examples and tuple(op_args) not in seen:
                    seen.add(tuple(op_args))
                    shown += 1
                    print(f"      {model}: {' '.join(op_args)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"mode": args.mode, "exact": acc["all"], "per_count": acc["kind"],
                       "per_class": acc["class"], "per_dtype": acc["dtype"], "per_family": acc["family"],
                       "models": models, "unknown": acc["unknown"], "failed": failed,
                       "error_by_class": {n: {c: d for c, d in b.items() if d} for n, b in sorted(acc["blame"].items())}},
                      f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
