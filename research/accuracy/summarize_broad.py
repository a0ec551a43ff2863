"""Summaries of the broad corpus's measurements (data/results/broad/measured.tar.xz).

    python3 research/accuracy/summarize_broad.py   # writes data/results/broad/summary.json and op_counts.json

summary.json: per model: family, dtype, ops, exact-match rate, predicted and measured totals.
op_counts.json: per aten op over all models: instances, models, how often the prediction was
exact / unknown, and the distribution of measured (kernels, memcpy, memset) per instance,
with an example of each count and what was predicted for it.
"""
import collections
import json
import os
import tarfile

BROAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "results", "broad")


def load():
    with tarfile.open(os.path.join(BROAD, "measured.tar.xz")) as t:
        for m in t.getmembers():
            if m.name.endswith(".json"):
                name = os.path.basename(m.name)[:-5]
                yield name, json.load(t.extractfile(m))


def main():
    summary, ops = {}, collections.defaultdict(lambda: {"instances": 0, "models": set(), "exact": 0, "unknown": 0,
                                                         "measured": collections.Counter(), "examples": {}})
    for name, d in load():
        fam, rest = name.split("__", 1)
        model, dtype = rest.rsplit("_", 1)
        s = d["summary"]
        summary[name] = {"family": fam, "model": model, "dtype": dtype, "ops": s["ops"],
                         "match_rate": round(s["match_rate"], 4), "unknown": s["unknown_predictions"],
                         "predicted": s["predicted"], "measured": s["measured"],
                         "kernel_error": round(s["relative_error"]["kernels"], 4)}
        for o in d["ops"]:
            a = ops[o["op"]]
            m, p = o["measured"], o["predicted"]
            key = f'{m["kernels"]}/{m["memcpy"]}/{m["memset"]}'
            a["instances"] += 1
            a["models"].add(name)
            a["exact"] += bool(o["match"])
            a["unknown"] += not p.get("known", True)
            a["measured"][key] += 1
            ex = a["examples"].setdefault(key, [])
            if len(ex) < 3:
                ex.append({"model": name, "args": o.get("args"), "outputs": o.get("outputs"),
                           "predicted": f'{p.get("kernels")}/{p.get("memcpy")}/{p.get("memset")}' if p.get("known", True) else "?",
                           "rule": p.get("rule"), "kernels": [k[:90] for k in m["kernel_names"][:6]]})
    out = {}
    for op, a in sorted(ops.items(), key=lambda kv: -kv[1]["instances"]):
        out[op] = {"instances": a["instances"], "models": len(a["models"]), "exact": a["exact"], "unknown": a["unknown"],
                   "measured_kernels_memcpy_memset": dict(a["measured"].most_common()), "examples": a["examples"]}
    with open(os.path.join(BROAD, "summary.json"), "w") as f:
        json.dump(dict(sorted(summary.items())), f, indent=0)
    with open(os.path.join(BROAD, "op_counts.json"), "w") as f:
        json.dump(out, f, indent=1)
    n = len(summary)
    within2 = sum(1 for v in summary.values() if abs(v["kernel_error"]) <= 0.02)
    exact = sum(v["match_rate"] * v["ops"] for v in summary.values())
    total = sum(v["ops"] for v in summary.values())
    print(f"{n} models; {within2} within 2% of measured kernels; op instances exact {exact / total:.1%} of {total}; "
          f"{len(out)} distinct aten ops")


if __name__ == "__main__":
    main()
