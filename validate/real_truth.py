"""Turns real-run measurements (validate/real_run.py) into the corpora's truth, and says where
kernelcount-validate's op-by-op replay launches something else.

The real run lists the outermost dispatcher ops it saw, in order, with what each launched. They
are aligned to kernelcount's op list for the same archive (a replay JSON's `ops`, which is that
list) by name, in order: both are the graph's calls in execution order, so each graph op finds
its event among the next ones of its name. Events no graph op claims (and work launched outside
any op) count as `unattributed`, so a model's total is always the real run's own.

    python3 validate/real_truth.py truth REPLAY_SET REAL_DIR OUT_SET
        REPLAY_SET: a folder or measured.tar.xz of replay JSONs (<name>.json), or of kernelcount's
        own reports (`kernelcount --format json`: its op list, for a set nobody replayed); REAL_DIR:
        the <name>.real.json files; writes OUT_SET/measured.tar.xz of JSONs in the replay's schema
        whose measured counts are the real run's (the predictions in them are the replay's, or the
        report's).
    python3 validate/real_truth.py compare REPLAY_SET REAL_DIR [--json OUT.json] [--list]
        per model: the replay's totals against the real run's, and per op where they differ.
Standard library only.
"""
import argparse
import collections
import io
import json
import os
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measured_io import measured  # noqa: E402

KINDS = ("kernels", "memcpy", "memset")
WINDOW = 64  # how far ahead an op's event may lie behind events no graph op claims


def base_name(op):
    """aten::add.Tensor -> aten::add: the profiler names ops without their overload."""
    ns, _, rest = op.partition("::")
    return ns + "::" + rest.split(".", 1)[0]


def short_kernel_name(name, max_len=200):
    """A profiler kernel name as kernelcount-validate writes a CUPTI one (validate/measurement.cc):
    no `void `, no parameter list, no ATen namespaces."""
    if name.startswith("void "):
        name = name[5:]
    if name.endswith(")"):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += name[i] == ")"
            if name[i] == "(":
                depth -= 1
                if depth == 0:
                    name = name[:i] if i > 0 else name
                    break
    for ns in ("(anonymous namespace)::", "at::native::", "at::cuda::", "at::", "c10::", "cutlass::"):
        name = name.replace(ns, "")
    return name[: max_len - 3] + "..." if len(name) > max_len > 3 else name


def memcpy_kind(name):
    """`Memcpy DtoD (Device -> Device)` -> `DtoD`, CUPTI's name for the kind."""
    parts = name.split()
    return parts[1] if len(parts) > 1 and parts[0] == "Memcpy" else name


def align(graph_ops, events):
    """Returns (event index or None per graph op, indices of events no op claimed)."""
    out, claimed, j = [], set(), 0
    for op in graph_ops:
        want = base_name(op)
        k = next((k for k in range(j, min(len(events), j + WINDOW)) if events[k]["op"] == want), None)
        out.append(k)
        if k is not None:
            claimed.add(k)
            j = k + 1
    return out, [k for k in range(len(events)) if k not in claimed]


def replay_ops(report):
    """The op list of a replay JSON, or of a kernelcount report (which names its schema): index,
    op and the prediction, as the replay writes them."""
    if "schema" not in report:
        return report["ops"]
    out = []
    for o in report["ops"]:
        la = o.get("launches", {})
        out.append({"index": o["index"], "op": o["op"],
                    "predicted": {"known": la.get("known", False), "rule": la.get("rule", ""),
                                  **{k: la.get(k, 0) for k in KINDS}}})
    return out


def truth(replay, real):
    """A replay JSON with its measured counts replaced by the real run's."""
    replay = dict(replay, ops=replay_ops(replay))
    events = real["ops"]
    at, loose = align([o["op"] for o in replay["ops"]], events)
    ops = []
    missed = 0
    for o, k in zip(replay["ops"], at):
        e = events[k] if k is not None else None
        missed += e is None
        m = {kind: (e[kind] if e else 0) for kind in KINDS}
        m["kernel_names"] = [short_kernel_name(n) for n in e.get("kernel_names", [])] if e else []
        m["memcpy_kinds"] = [memcpy_kind(n) for n in e.get("memcpy_kinds", [])] if e else []
        ops.append({**o, "measured": m, "match": None})
    un = {kind: real["unattributed"][kind] + sum(events[k][kind] for k in loose) for kind in KINDS}
    names = [short_kernel_name(n) for k in loose for n in events[k].get("kernel_names", [])]
    summary = dict(replay.get("summary", {}))
    summary["measured"] = dict(real["totals"])
    summary["ops_without_event"] = missed
    return {"model": replay.get("model"), "target": replay.get("target"),
            "run": real.get("run"), "truth": "real run", "weights": real.get("weights"),
            "inputs": real.get("inputs"), "parameters_requiring_grad": real.get("parameters_requiring_grad"),
            "ops": ops, "unattributed": {**un, "kernel_names": names[:20]}, "summary": summary}


def load_real(real_dir):
    out = {}
    for f in os.listdir(real_dir):
        if f.endswith(".real.json"):
            with open(os.path.join(real_dir, f)) as fh:
                out[f[: -len(".real.json")]] = json.load(fh)
    return out


def cmd_truth(a):
    replays = dict(measured(a.replay_set))
    real = load_real(a.real_dir)
    os.makedirs(a.out_set, exist_ok=True)
    path = os.path.join(a.out_set, "measured.tar.xz")
    n = 0
    with tarfile.open(path, "w:xz") as tar:
        for name in sorted(real):
            if name not in replays:
                continue
            data = json.dumps(truth(replays[name], real[name]), separators=(",", ":")).encode()
            info = tarfile.TarInfo(f"measured/{name}.json")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            n += 1
    print(f"{path}: {n} models whose truth is the real run ({len(real) - n} real runs without a replay JSON)")


def per_op(replay_ops, truth_ops):
    """Ops where the replay and the real run launched other counts."""
    diffs = []
    for r, t in zip(replay_ops, truth_ops):
        a = tuple(r["measured"][k] for k in KINDS)
        b = tuple(t["measured"][k] for k in KINDS)
        if a != b:
            diffs.append({"index": r.get("index"), "op": r["op"], "replay": a, "real": b,
                          "replay_kernels": r["measured"].get("kernel_names", [])[:4],
                          "real_kernels": t["measured"].get("kernel_names", [])[:4]})
    return diffs


def cmd_compare(a):
    replays = dict(measured(a.replay_set))
    real = load_real(a.real_dir)
    rows, equal, ops_equal = [], 0, 0
    for name in sorted(set(replays) & set(real)):
        r, t = replays[name], truth(replays[name], real[name])
        rm = {k: r["summary"]["measured"].get(k, 0) for k in KINDS}  # work outside any op included
        tm = t["summary"]["measured"]
        same = all(rm[k] == tm[k] for k in KINDS)
        diffs = per_op(r["ops"], t["ops"])
        equal += same
        ops_equal += not diffs
        row = {"name": name, "replay": [rm[k] for k in KINDS], "real": [tm[k] for k in KINDS], "equal": same}
        if diffs:
            row["ops"] = diffs
        rows.append(row)
    only_real = sorted(set(real) - set(replays))
    only_replay = sorted(set(replays) - set(real))
    label = f"{a.name}: " if a.name else ""
    print(f"{label}{len(rows)} models run both ways: totals equal for {equal}, differ for {len(rows) - equal}; "
          f"every op's counts equal for {ops_equal}; real run only {len(only_real)}"
          f"{' (' + ', '.join(only_real) + ')' if only_real else ''}, replay only {len(only_replay)}"
          f"{' (' + ', '.join(only_replay) + ')' if only_replay else ''}")
    if a.list:
        for row in rows:
            if not row["equal"] or row.get("ops"):
                print(f"  {row['name']}: replay {row['replay']} real {row['real']}")
                for d in row.get("ops", [])[:6]:
                    print(f"    op {d['index']} {d['op']}: replay {d['replay']} {d['replay_kernels']} "
                          f"real {d['real']} {d['real_kernels']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"set": a.name, "models": len(rows), "totals_equal": equal, "ops_equal": ops_equal,
                       "only_real": only_real, "only_replay": only_replay,
                       "differ": [r for r in rows if not r["equal"] or r.get("ops")]}, f, indent=1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("truth")
    t.add_argument("replay_set")
    t.add_argument("real_dir")
    t.add_argument("out_set")
    c = sub.add_parser("compare")
    c.add_argument("replay_set")
    c.add_argument("real_dir")
    c.add_argument("--json")
    c.add_argument("--list", action="store_true")
    c.add_argument("--name", help="the set's name, for the printed line")
    a = p.parse_args()
    {"truth": cmd_truth, "compare": cmd_compare}[a.cmd](a)


if __name__ == "__main__":
    main()
