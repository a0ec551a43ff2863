"""One model's `--fusion inductor` prediction beside its compiled run, library call by library call.

The compiled run (validate/compile_run.py's <name>.compiled.json, in data/results/compiled/*.tar.xz)
lists the GPU kernels in launch order and the launches of Inductor's `call` (Triton kernels,
extern kernels, fallbacks). Each run of consecutive library calls is matched with the kernels the
GPU ran between two Triton kernels, and with the predicted extern and fallback groups of the ops
those calls come from (the FX node names the graph's values carry). Printed: the Triton and
library kernel totals of both, then every run of calls whose kernels differ (all with -v), with
the kernels the GPU ran (-k). Predicted library groups count the operand copies Inductor adds
(channels-last weights, dense GEMM operands), which the compiled run lists as Triton kernels.

Standard library only. Run from the repository root after building:
  python3 research/accuracy/compile_diff.py RUN.compiled.json MODEL.pt2 [-v] [-k] [--kernelcount PATH]
"""
import argparse
import json
import subprocess


def predicted(kc, model):
    """(Triton kernels, {FX node name of a library op: (op, its group's kernels)}) of the Inductor plan."""
    out = subprocess.run([kc, model, "--fusion", "inductor", "--format", "json"], capture_output=True, text=True,
                         check=True)
    report = json.loads(out.stdout)
    ops = report["ops"]
    plan = next(p for p in report["fusion"] if p["variant"] == "inductor")
    name = {o["index"]: (o["outputs"][0]["name"] if o.get("outputs") else str(o["index"])) for o in ops}
    triton, library = 0, {}
    for grp in plan["groups"]:
        if grp["kind"] in ("pointwise", "reduction", "concat"):
            triton += grp["fused_kernels"]
        elif grp["kind"] in ("extern", "fallback"):
            # The library op is the group's last (inlined loops join their reader's group).
            library[name[grp["ops"][-1]]] = (ops[grp["ops"][-1]], grp["fused_kernels"])
    return triton, library


def measured_runs(run):
    """(Triton kernels, [(source nodes of each library call, [kernel names], memsets)]) of a compiled
    run: the library calls and the GPU records between two Triton kernels, memsets counted apart."""
    kernels = run["kernels"]
    launches = [launch for g in run["graphs"] for launch in g["launches"]]
    runs, current, at, triton = [], None, 0, 0

    def window():
        nonlocal current
        if current is None:
            current = ([], [], [0])
            runs.append(current)
        return current

    def take(k):
        if k["kind"] == "memset":
            window()[2][0] += 1
        else:
            window()[1].append(k["name"])

    for launch in launches:
        if launch["kind"] == "triton":
            while at < len(kernels) and kernels[at]["name"] != launch["kernel"]:
                take(kernels[at])
                at += 1
            at += 1
            triton += 1
            current = None
        else:
            window()[0].append(launch.get("source_nodes") or [launch["kernel"]])
    for k in kernels[at:]:
        take(k)
    return triton, [(calls, names, m[0]) for calls, names, m in runs]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("model")
    ap.add_argument("--kernelcount", default="build/kernelcount")
    ap.add_argument("-v", action="store_true", help="every run of library calls, not only those that differ")
    ap.add_argument("-k", action="store_true", help="the kernels the GPU ran for each")
    a = ap.parse_args()
    with open(a.run) as f:
        run = json.load(f)
    p_triton, library = predicted(a.kernelcount, a.model)
    m_triton, runs = measured_runs(run)
    print(f"Triton kernels: measured {m_triton}, predicted {p_triton}")
    print(f"library kernels: measured {sum(len(r[1]) for r in runs)}, "
          f"predicted {sum(k for _, k in library.values())} (with the operand copies)")
    matched = set()
    for calls, kernels, _ in runs:
        total, words = 0, []
        for nodes in calls:
            hits = [n for n in nodes if n in library and n not in matched]
            node = hits[-1] if hits else nodes[-1]
            if node in library:
                matched.add(node)
                op, k = library[node]
                total += k
                shapes = [i["shape"] for i in op["inputs"][:2]]
                words.append(f"{node} ({op['op']} {shapes} {op['inputs'][0]['dtype']}) = {k}")
            else:
                words.append(f"{node} = ?")
        if total != len(kernels) or a.v:
            print(f"measured {len(kernels):3d} predicted {total:3d}  " + " + ".join(words))
            if a.k:
                for name in kernels:
                    print("      " + name[:120])
    for node, (op, k) in library.items():
        if node not in matched:
            print(f"predicted, not in the compiled program: {node} {op['op']} = {k}")


if __name__ == "__main__":
    main()
