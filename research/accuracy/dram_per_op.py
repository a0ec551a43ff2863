"""Per op, the expected DRAM bytes (kernelcount's "dram" pass) beside the measured ones
(validate/dram_run.py, caches as they are), for one model: where the model's figure goes wrong.

    python3 research/accuracy/dram_per_op.py BIN MODEL [--measured data/results/dram/measured.tar.xz] [--ops]

MODEL: a corpus model's name (`resnet18_bf16`). Ops that launch kernels are paired with the
measured ones in order (by name, as `diff` pairs lines). Prints per op type the measured and
expected reads and writes and the array-sized bytes; --ops adds one row per op with the kernels
the GPU ran. Standard library only.
"""
import argparse
import difflib
import json
import os
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dram_accuracy import FITTED, archive, measured  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bin")
    p.add_argument("model")
    p.add_argument("--measured", default=FITTED)
    p.add_argument("--ops", action="store_true")
    a = p.parse_args()
    found = [m for m in measured(a.measured) if m["model"] == a.model]
    if not found:
        sys.exit(f"dram_per_op: {a.model} is not in {a.measured}")
    m = found[0]
    rep = json.loads(subprocess.run([a.bin, archive(a.model), "--format", "json"], capture_output=True, text=True,
                                    check=True).stdout)
    pred = [o for o in rep["ops"] if (o["launches"].get("kernels") or 0) > 0]
    pairs = difflib.SequenceMatcher(None, [o["op"].split(".")[0] for o in pred], [o["op"] for o in m["ops"]],
                                    autojunk=False).get_matching_blocks()
    rows = [(pred[i + k], m["ops"][j + k]) for i, j, n in pairs for k in range(n)]
    mb = 1e6
    print(f"{a.model}: {len(rows)} ops paired of {len(pred)} predicted and {len(m['ops'])} measured")
    by_type = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    for p_op, m_op in rows:
        t = by_type[p_op["op"]]
        t[0] += 1
        t[1] += sum(m_op["as_is"]["read"])
        t[2] += sum(m_op["as_is"]["write"])
        t[3] += p_op["dram"]["read_bytes"]
        t[4] += p_op["dram"]["write_bytes"]
        t[5] += p_op["hbm"]["read_bytes"] + p_op["hbm"]["write_bytes"]
    print(f"{'op':34s} {'ops':>4s} {'meas. R':>8s} {'meas. W':>8s} {'exp. R':>8s} {'exp. W':>8s} {'array':>8s}  (MB)")
    for op, t in sorted(by_type.items(), key=lambda kv: -(kv[1][1] + kv[1][2])):
        print(f"{op[:34]:34s} {t[0]:4d} " + " ".join(f"{x / mb:8.1f}" for x in t[1:]))
    if a.ops:
        for p_op, m_op in rows:
            kernels = ", ".join(f"{n.split('<')[0].replace('void ', '')[:40]} {r / mb:.1f}/{w / mb:.1f}"
                                for n, r, w in zip(m_op["kernel_names"], m_op["as_is"]["read"], m_op["as_is"]["write"]))
            print(f"{p_op['index']:5d} {p_op['op'][:28]:28s} expected {p_op['dram']['read_bytes'] / mb:7.2f}/"
                  f"{p_op['dram']['write_bytes'] / mb:7.2f}  measured: {kernels}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
