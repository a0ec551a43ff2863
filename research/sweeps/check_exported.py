"""The launch rules against any op sweep, through torch.export: each measured configuration of a
sweep (research/sweeps/sweep.py) is rebuilt on the CPU from the same family code, exported as a
one-call program (as research/corpus/export_opinfo.py exports OpInfo's samples; kernelcount reads a
program's tensors as the GPU's), and kernelcount's prediction from its rules alone
(`--no-measured`) is compared with the counts the GPU ran: kernels, memcpy and memset, summed over
the program. Exact-match rates per op, and the misses with their parameters and kernel names.

Needs Python with torch (CPU is enough). Exports are cached under --cache, keyed by the
configuration, so a second run only reruns kernelcount:
    python3 research/sweeps/check_exported.py data/sweeps/sweep_linalg_sizes_opinfo_edges.jsonl.xz
        [--kernelcount build/kernelcount] [--family linalg_sizes] [--op lu_factor,solve]
        [--limit N] [--misses 30] [--cache DIR]
"""
import argparse
import collections
import gzip
import hashlib
import json
import lzma
import os
import subprocess
import tempfile
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def records(path):
    opener = lzma.open if path.endswith(".xz") else gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if "op" in r:
                yield r


def key(family, op, params):
    return json.dumps([family, op, {k: v for k, v in params.items() if v is not None}], sort_keys=True, default=str)


def export_one(fn, args, path):
    """One call of fn on args as a .pt2; False when torch.export cannot take it."""
    import torch

    class Call(torch.nn.Module):
        def forward(self, *xs):
            out = fn(*xs)
            # torch.return_types (lu_factor, slogdet, ...) do not serialize; their fields do.
            return tuple(out) if isinstance(out, tuple) else out
    try:
        ep = torch.export.export(Call(), tuple(args), strict=False)
        torch.export.save(ep, path)
        return True
    except Exception as e:  # noqa: BLE001  an op torch.export refuses is reported, not fatal
        if os.path.exists(path):
            os.remove(path)  # a save that failed half-way
        with open(path + ".err", "w") as f:
            f.write(f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}\n")
        return False


def predict(kc, path):
    """(kernels, memcpy, memset, unknown rule names) over the program, from the rules alone."""
    p = subprocess.run([kc, path, "--format", "json", "--no-measured"], capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
    ops = json.loads(p.stdout)["ops"]
    k = c = s = 0
    unknown, rules = [], []
    for o in ops:
        lau = o["launches"]
        if not lau.get("known", True):
            unknown.append(o["op"])
            continue
        k, c, s = k + lau["kernels"], c + lau["memcpy"], s + lau["memset"]
        if lau["kernels"] or lau["memcpy"] or lau["memset"]:
            rules.append(lau.get("rule", "?"))
    return (k, c, s, unknown, rules), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep")
    ap.add_argument("--kernelcount", default=os.path.join(HERE, "..", "..", "build", "kernelcount"))
    ap.add_argument("--family", default="")
    ap.add_argument("--op", default="", help="comma-separated sweep op names")
    ap.add_argument("--limit", type=int, default=0, help="at most this many configurations per op")
    ap.add_argument("--misses", type=int, default=30)
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "kc-check-exported"))
    a = ap.parse_args()
    sys.path.insert(0, HERE)
    import sweep
    import torch
    sweep.DEV = "cpu"
    torch.manual_seed(0)
    ops = set(filter(None, a.op.split(",")))
    todo = [r for r in records(a.sweep) if "error" not in r and (not a.family or r["family"] == a.family)
            and (not ops or r["op"] in ops)]
    if a.limit:
        per = collections.defaultdict(list)
        for r in todo:
            per[r["op"]].append(r)
        todo = [r for rs in per.values() for r in rs[::max(1, len(rs) // a.limit)][:a.limit]]
    builders = {}
    S = sweep.Sweep()
    for fam in sorted({r["family"] for r in todo}):
        sweep.FAMILIES[fam](S, 1.0)
    for fam, op, params, build in S.cfgs:
        builders[key(fam, op, params)] = build
    os.makedirs(a.cache, exist_ok=True)
    stats = collections.defaultdict(lambda: [0, 0, 0])  # exact, compared, unknown
    misses, skipped = [], collections.Counter()
    for r in todo:
        k = key(r["family"], r["op"], r["params"])
        build = builders.get(k)
        if build is None:
            skipped["no such configuration in sweep.py now"] += 1
            continue
        path = os.path.join(a.cache, hashlib.sha1(k.encode()).hexdigest()[:16] + ".pt2")
        if not os.path.exists(path) and not os.path.exists(path + ".err"):
            try:
                fn, args = build()
            except Exception:  # noqa: BLE001
                skipped["rebuild failed on the CPU"] += 1
                continue
            export_one(fn, args, path)
        if not os.path.exists(path):
            skipped["torch.export refused it"] += 1
            continue
        pred, err = predict(a.kernelcount, path)
        st = stats[r["op"]]
        if pred is None:
            skipped["kernelcount refused it"] += 1
            misses.append((r, None, err))
            continue
        measured = (r["kernels"], r["memcpy"], r["memset"])
        st[1] += 1
        if pred[3]:
            st[2] += 1
            misses.append((r, pred, "unknown: " + ",".join(pred[3])))
        elif pred[:3] == measured:
            st[0] += 1
        else:
            misses.append((r, pred, None))
    total = [sum(s[i] for s in stats.values()) for i in range(3)]
    print(f"{total[0]}/{total[1]} configurations exact ({100 * total[0] / max(1, total[1]):.1f}%), "
          f"{total[2]} with an unknown op; skipped: {dict(skipped) or 'none'}")
    for op, (ex, n, unk) in sorted(stats.items(), key=lambda kv: kv[1][0] / max(1, kv[1][1])):
        print(f"  {op:28s} {ex:5d}/{n:<5d} {100 * ex / max(1, n):5.1f}%" + (f"  ({unk} unknown)" if unk else ""))
    for r, pred, note in misses[:a.misses]:
        names = " ".join(f"{n}x{c}" if c > 1 else n for n, c in r.get("kernel_names", []))[:300]
        got = "refused" if pred is None else f"predicted {pred[:3]} by {','.join(sorted(set(pred[4]))) or '-'}"
        print(f"- {r['op']} {json.dumps(r['params'])}: measured {(r['kernels'], r['memcpy'], r['memset'])}, {got}"
              + (f" [{note}]" if note else "") + f"\n    {names}")


if __name__ == "__main__":
    main()
