"""DRAM bytes per op of a model's real run, measured with Nsight Compute.

Runs each `.pt2` as validate/real_run.py does (`ep.module()(*inputs)` in eager mode under
`torch.no_grad()`, random weights and inputs where the archive keeps none), after two warm-up
calls, once more between cudaProfilerStart/Stop under `torch.autograd.profiler.emit_nvtx()`,
which pushes an NVTX range per dispatcher op (its name and a unique `op_id`). `ncu --nvtx
--profile-from-start off` records `dram__bytes_read.sum` and `dram__bytes_write.sum` for every
kernel of that call, with the NVTX stack at its launch; each kernel belongs to the outermost op
range around it (real_run.py's attribution). Memcpy and memset are not kernels: ncu does not
count them.

Two settings of ncu's cache control: `none` (caches as the previous kernel left them: the run
as it is) and `all` (L2 flushed before each kernel). A single pass per kernel is needed for the
two metrics, so no replay restores memory between them.

    python3 validate/dram_run.py drive OUT_DIR MODEL.pt2 [...] [--budget-s 400] [--batch 6]
        both cache settings, a batch of models per ncu process, until the budget would be passed;
        writes OUT_DIR/<name>.dram.json per model and OUT_DIR/dram_status.jsonl
    python3 validate/dram_run.py measure MODEL.pt2 [...]      (run by ncu: the profiled calls)
    python3 validate/dram_run.py parse REPORT.ncu-rep         (prints one JSON line per model)
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_MARK = "kc_model:"
METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
CACHE_MODES = {"none": "as_is", "all": "flushed"}


def measure(paths, warmup=2):
    """The profiled calls: each model's one call between cudaProfilerStart and Stop, inside an
    NVTX range naming the model. A model that fails is reported on stderr and skipped."""
    import importlib
    import torch
    sys.path.insert(0, HERE)
    from real_run import inputs_for, load
    for extra in ("torchvision", "transformers.integrations.moe"):  # ops and classes archives name
        try:
            importlib.import_module(extra)
        except ImportError:
            pass
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        try:
            ep, _, placement = load(path)
            module = ep.module()
            args, kwargs, _ = inputs_for(ep, placement != "as saved")
            with torch.no_grad():
                for _ in range(warmup):
                    module(*args, **kwargs)
                torch.cuda.synchronize()
                torch.cuda.nvtx.range_push(MODEL_MARK + name)
                with torch.autograd.profiler.emit_nvtx():
                    torch.cuda.cudart().cudaProfilerStart()
                    module(*args, **kwargs)
                    torch.cuda.synchronize()
                    torch.cuda.cudart().cudaProfilerStop()
                torch.cuda.nvtx.range_pop()
            print(f"dram_run: measured {name}", file=sys.stderr, flush=True)
        except Exception as e:  # noqa: BLE001 - this model's failure, recorded and skipped
            print(f"dram_run: failed {name}: {(type(e).__name__ + ': ' + str(e)).splitlines()[0][:300]}",
                  file=sys.stderr, flush=True)
        finally:
            ep = module = args = kwargs = None
            torch.cuda.empty_cache()


def _ncu_report_module():
    """Nsight Compute's Python report interface, from the ncu on the PATH."""
    ncu = os.path.realpath(subprocess.run(["which", "ncu"], capture_output=True, text=True).stdout.strip())
    roots = [os.path.dirname(ncu), os.path.dirname(os.path.dirname(ncu))]
    for pattern in ["/opt/nvidia/nsight-compute/*/extras/python", "/usr/local/cuda*/nsight-compute*/extras/python"]:
        roots += glob.glob(pattern)
    for r in roots:
        for cand in [r, os.path.join(r, "extras", "python")]:
            if os.path.exists(os.path.join(cand, "ncu_report.py")):
                sys.path.insert(0, cand)
                import ncu_report
                return ncu_report
    raise RuntimeError("ncu_report.py not found beside ncu")


_OP_ID = re.compile(r"op_id = (\d+)")


def kernels(report):
    """Every kernel of an Nsight Compute report in launch order: its name, the NVTX push/pop
    ranges around it (outermost first, over all domains) and its DRAM bytes read and written."""
    ncu_report = _ncu_report_module()
    ctx = ncu_report.load_report(report)
    for i in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(i)
        for j in range(rng.num_actions()):
            a = rng.action_by_idx(j)
            st = a.nvtx_state()
            stack = [r for did in st.domains() for r in st.domain_by_id(did).push_pop_ranges()]
            rd, wr = (int(a.metric_by_name(m).as_uint64()) for m in METRICS)
            yield a.name(), stack, rd, wr


def parse(report):
    """Per model in the report: its ops in launch order, each the outermost op range around a run
    of kernels (one op call: one op_id), with every kernel's name and DRAM bytes."""
    models = {}
    for name, stack, rd, wr in kernels(report):
        marks = [k for k, s in enumerate(stack) if s.startswith(MODEL_MARK)]
        model = stack[marks[-1]][len(MODEL_MARK):] if marks else "?"
        inner = stack[marks[-1] + 1:] if marks else stack
        ops = [s for s in inner if "::" in s.split(",")[0]]
        op, op_id = (ops[0].split(",")[0], int(_OP_ID.search(ops[0]).group(1)) if _OP_ID.search(ops[0]) else -1) \
            if ops else (None, None)
        m = models.setdefault(model, {"model": model, "ops": [], "unattributed": []})
        kernel = [name, rd, wr]
        if op is None:
            m["unattributed"].append(kernel)
        elif m["ops"] and m["ops"][-1]["op_id"] == op_id and m["ops"][-1]["op"] == op:
            m["ops"][-1]["kernels"].append(kernel)
        else:
            m["ops"].append({"op": op, "op_id": op_id, "kernels": [kernel]})
    for m in models.values():
        every = [k for o in m["ops"] for k in o["kernels"]] + m["unattributed"]
        m["totals"] = {"kernels": len(every), "dram_read": sum(k[1] for k in every),
                       "dram_write": sum(k[2] for k in every)}
    return list(models.values())


def merge(runs):
    """One model's two runs (cache setting -> parsed model) as one record: per op, the kernels'
    names and their DRAM bytes read and written under each setting (lists in kernel order)."""
    base = runs.get("none") or runs.get("all")
    out = {"model": base["model"], "ops": [], "totals": {}, "unattributed": {}}
    for mode, key in CACHE_MODES.items():
        if mode in runs:
            out["totals"][key] = runs[mode]["totals"]
            out["unattributed"][key] = runs[mode]["unattributed"]
    # Both runs launch the same kernels in the same order; ops are paired by position and
    # checked by name and kernel count.
    other = runs.get("all") if base is runs.get("none") else None
    same = other is not None and [(o["op"], len(o["kernels"])) for o in base["ops"]] == \
        [(o["op"], len(o["kernels"])) for o in other["ops"]]
    out["paired"] = bool(same)
    for k, o in enumerate(base["ops"]):
        rec = {"op": o["op"], "kernel_names": [x[0] for x in o["kernels"]]}
        rec[CACHE_MODES["none" if base is runs.get("none") else "all"]] = \
            {"read": [x[1] for x in o["kernels"]], "write": [x[2] for x in o["kernels"]]}
        if same:
            rec["flushed"] = {"read": [x[1] for x in other["ops"][k]["kernels"]],
                              "write": [x[2] for x in other["ops"][k]["kernels"]]}
        out["ops"].append(rec)
    if other is not None and not same:
        out["ops_flushed"] = other["ops"]
    return out


def drive(out_dir, models, budget_s, batch):
    """Both cache settings over batches of models, one ncu process each, while the last batch's
    time says the next fits in the budget."""
    os.makedirs(out_dir, exist_ok=True)
    t0 = time.time()
    status = open(os.path.join(out_dir, "dram_status.jsonl"), "a")
    last = 0.0
    for b in range(0, len(models), batch):
        todo = models[b:b + batch]
        left = budget_s - (time.time() - t0)
        if left < 1.3 * last or left < 20:
            status.write(json.dumps({"stopped": "budget", "not_reached": [os.path.basename(m) for m in models[b:]]}) + "\n")
            break
        tb = time.time()
        runs = {}
        for mode in CACHE_MODES:
            report = os.path.join(out_dir, f".batch_{mode}")
            cmd = ["ncu", "--profile-from-start", "off", "--nvtx", "--metrics", ",".join(METRICS),
                   "--cache-control", mode, "--clock-control", "none", "--replay-mode", "kernel",
                   "-f", "-o", report, sys.executable, os.path.abspath(__file__), "measure", *todo]
            log = open(os.path.join(out_dir, "ncu.log"), "a")
            log.write(f"== batch {b // batch} cache {mode}: {' '.join(os.path.basename(m) for m in todo)}\n")
            log.flush()
            try:
                subprocess.run(cmd, stdout=log, stderr=log, timeout=max(10, budget_s - (time.time() - t0)))
                for m in parse(report + ".ncu-rep"):
                    runs.setdefault(m["model"], {})[mode] = m
            except Exception as e:  # noqa: BLE001 - the batch's failure, recorded
                status.write(json.dumps({"batch": [os.path.basename(m) for m in todo], "cache": mode,
                                         "error": (type(e).__name__ + ": " + str(e))[:300]}) + "\n")
                kept = os.path.join(out_dir, "unparsed.ncu-rep")
                if os.path.exists(report + ".ncu-rep") and not os.path.exists(kept):
                    os.replace(report + ".ncu-rep", kept)  # the first one, to see why
            if os.path.exists(report + ".ncu-rep"):
                os.remove(report + ".ncu-rep")
        for name, r in runs.items():
            with open(os.path.join(out_dir, name + ".dram.json"), "w") as f:
                json.dump(merge(r), f, separators=(",", ":"))
            status.write(json.dumps({"name": name, "modes": sorted(r), "kernels": r[next(iter(r))]["totals"]["kernels"]}) + "\n")
        last = time.time() - tb
        status.write(json.dumps({"batch": b // batch, "seconds": round(last, 1)}) + "\n")
        status.flush()
    print(f"dram_run: {len(glob.glob(os.path.join(out_dir, '*.dram.json')))} models, {time.time() - t0:.0f} s")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("drive")
    d.add_argument("out_dir")
    d.add_argument("models", nargs="+")
    d.add_argument("--budget-s", type=float, default=400)
    d.add_argument("--batch", type=int, default=6)
    m = sub.add_parser("measure")
    m.add_argument("models", nargs="+")
    r = sub.add_parser("parse")
    r.add_argument("report")
    a = p.parse_args()
    if a.cmd == "drive":
        drive(a.out_dir, a.models, a.budget_s, a.batch)
    elif a.cmd == "measure":
        measure(a.models)
    else:
        for m in parse(a.report):
            print(json.dumps(m, separators=(",", ":")))


if __name__ == "__main__":
    main()
