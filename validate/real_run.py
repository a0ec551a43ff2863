"""The truth of record: what running an exported program launches, op by op.

Runs each `.pt2` as a user does, `ep.module()(*inputs)` in eager mode under `torch.no_grad()`,
after warm-up, under torch.profiler, and attributes every kernel, memcpy and memset to the
outermost dispatcher op that issued it (validate/crosscheck_profiler.py's attribution: the
profiler's own link from each GPU record to the CPU op that launched it). Nothing wraps the
graph's nodes, so the run launches what the user's run launches; the totals count every GPU
record of the profiled call, attributed or not.

Archives without weights (the corpora keep stripped copies) get random ones built from the
archive's own tensor metadata, as torch.export.load builds real ones: parameters as
nn.Parameters with the recorded requires_grad, buffers and constants as plain tensors.
Inputs come from the archive's sample inputs where it keeps them, else random with the recorded
shapes; inputs that must be valid (a bag's offsets, a box list's batch index) are made valid.

A TorchScript file runs as torch.jit.load leaves it (every tensor where it was saved), with
graph optimizations off and inputs on the GPU as its manifest line's `--input` specs say.

    python3 validate/real_run.py OUT_DIR MODEL.pt2 [MODEL.pt2 ...] [--jobs 8] [--timeout 120]
    python3 validate/real_run.py OUT_DIR MODEL.pt [...] --manifest data/corpus/torchscript/manifest.jsonl

Writes OUT_DIR/<name>.real.json per model (totals, unattributed work, the outermost ops in
order with their counts and kernel names) and OUT_DIR/real_status.jsonl. Several worker
processes run at once (one CUPTI subscriber each); a model that breaks the CUDA context only
costs its own worker, which is restarted on the models after it.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _model_json(path):
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        mj = [n for n in names if n.endswith("models/model.json")]
        if not mj:
            raise ValueError("no models/model.json: not a torch.export archive")
        has_weights = any("/data/weights/model_weights_config.json" in n for n in names)
        return z.read(mj[0]), has_weights


def _random_fill(t, positive):
    import torch
    if t.dtype.is_floating_point or t.dtype.is_complex:
        if t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz):
            return (torch.rand(t.shape) + 0.5 if positive else torch.randn(t.shape)).to(t.dtype)
        return torch.rand(t.shape, dtype=t.dtype) + 0.5 if positive else torch.randn(t.shape, dtype=t.dtype)
    if t.dtype == torch.bool:
        return torch.randint(0, 2, t.shape).bool()
    return torch.randint(0, 2, t.shape).to(t.dtype)


def _tensor_of(meta, positive=False):
    """A random tensor with the sizes, strides, dtype and storage offset a TensorMeta records."""
    import torch
    from torch._export.serde.serialize import (deserialize_device, deserialize_scalar_type, deserialize_size,
                                               deserialize_storage_offset, deserialize_stride)
    sizes = deserialize_size(meta.sizes)
    strides = deserialize_stride(meta.strides)
    offset = deserialize_storage_offset(meta.storage_offset)
    dtype = deserialize_scalar_type(meta.dtype)
    n = offset + 1 + sum((s - 1) * st for s, st in zip(sizes, strides)) if all(s > 0 for s in sizes) else 0
    flat = _random_fill(torch.empty(n, dtype=dtype), positive)
    # Where the archive saved it: a GPU export's weights on the GPU, its host constants on the host.
    device = deserialize_device(meta.device) if meta.device is not None else torch.device("cpu")
    return torch.as_strided(flat, sizes, strides, offset).to(device)


def _positive_inputs(serialized):
    """Graph inputs read as a variance (batch norm's running_var): random ones must be positive."""
    names = set()
    for node in serialized.graph_module.graph.nodes:
        for inp in node.inputs:
            if inp.name in ("running_var", "var") and inp.arg.type == "as_tensor":
                names.add(inp.arg.as_tensor.name)
    return names


def _deserialize(build):
    """Runs build(), importing the module of any output class the archive's pytree specs name
    (transformers' ModelOutput classes register themselves with pytree when imported)."""
    import importlib
    import re
    tried = set()
    while True:
        try:
            return build()
        except NotImplementedError as e:
            m = re.search(r"Deserializing ([\w.]+) in pytree is not registered", str(e))
            module = m.group(1).rsplit(".", 1)[0] if m else None
            if not module or module in tried:
                raise
            tried.add(module)
            importlib.import_module(module)


def load(path):
    """Returns (the ExportedProgram ready to run on the GPU, how its weights were made: "stored" or
    "random", where it runs: "as saved" or "moved to the GPU")."""
    import torch
    import torch.export.passes
    raw, has_weights = _model_json(path)
    if has_weights:
        ep = _deserialize(lambda: torch.export.load(path))
        made = "stored"
    else:
        from torch._export.serde import schema
        from torch._export.serde.serialize import ExportedProgramDeserializer, _bytes_to_dataclass
        ser = _bytes_to_dataclass(schema.ExportedProgram, raw)
        metas = ser.graph_module.graph.tensor_values
        positive = _positive_inputs(ser)
        state_dict, constants = {}, {}
        for spec in ser.graph_module.signature.input_specs:
            kind = spec.type
            body = getattr(spec, kind)
            name = getattr(body.arg, "name", None) if kind in ("parameter", "buffer", "tensor_constant") else None
            if kind == "parameter":
                t = _tensor_of(metas[name], name in positive)
                state_dict[body.parameter_name] = torch.nn.Parameter(t, requires_grad=bool(metas[name].requires_grad))
            elif kind == "buffer":
                t = _tensor_of(metas[name], name in positive)
                (state_dict if body.persistent else constants)[body.buffer_name] = t
            elif kind == "tensor_constant":
                constants[body.tensor_constant_name] = _tensor_of(metas[name], name in positive)
            elif kind not in ("user_input", "token", "constant_input"):
                raise ValueError(f"input of kind {kind} cannot be made without the archive's data")
        ep = _deserialize(lambda: ExportedProgramDeserializer(None).deserialize(ser, state_dict, constants, None))
        made = "random"
    # A GPU export runs where it was saved: its host tensors (a constant made by torch.tensor(),
    # a factory with device="cpu") stay on the host, as in the user's run. A CPU export has no
    # GPU to keep: it runs moved there whole, every "cpu" standing for the GPU, as kernelcount reads it.
    on_gpu = any(isinstance(v, torch.Tensor) and v.device.type == "cuda"
                 for v in list(ep.state_dict.values()) + list(ep.constants.values()) +
                 [n.meta.get("val") for n in ep.graph.nodes if n.op == "placeholder"])
    if not on_gpu:
        ep = torch.export.passes.move_to_device_pass(ep, "cuda")
    return ep, made, "as saved" if on_gpu else "moved to the GPU"


def _valid_inputs(ep, args):
    """Makes the random inputs that must be valid ones valid, as a user's would be: a bag's offsets
    sorted within its indices; a box list's corners ordered and its batch index within the batch;
    binary_cross_entropy's probabilities and targets within [0, 1] (its CUDA kernel asserts it)."""
    import torch
    from torch.export.graph_signature import InputKind
    user = [s.arg for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    index = {a.name: i for i, a in enumerate(user) if hasattr(a, "name")}
    for node in ep.graph.nodes:
        if node.op != "call_function" or not hasattr(node.target, "_schema"):
            continue
        named = dict(zip((a.name for a in node.target._schema.arguments), node.args))
        named.update(node.kwargs)
        op = node.target._schema.name
        if "embedding_bag" in op and "offsets" in named and "indices" in named:
            off, ind = named["offsets"], named["indices"]
            if getattr(off, "name", None) in index and args[index[off.name]].dim() == 1:
                i = index[off.name]
                bags = args[i].numel()
                total = ind.meta["val"].numel() if hasattr(ind, "meta") and "val" in ind.meta else bags
                args[i] = (torch.arange(bags, device=args[i].device) * total // max(bags, 1)).to(args[i].dtype)
        if op == "aten::binary_cross_entropy":
            for a in (named.get("self"), named.get("target")):
                if getattr(a, "name", None) in index and args[index[a.name]].is_floating_point():
                    args[index[a.name]] = torch.rand_like(args[index[a.name]])
        if op.startswith("torchvision::") and ("rois" in named or "boxes" in named):
            rois = named.get("rois", named.get("boxes"))
            inp = named.get("input")
            if getattr(rois, "name", None) in index and inp is not None and "val" in inp.meta:
                i = index[rois.name]
                r = args[i].abs() * 8
                if r.dim() == 2 and r.shape[1] == 5:
                    r[:, 0] = torch.randint(0, int(inp.meta["val"].shape[0]), (r.shape[0],), device=r.device)
                    r[:, 3:5] = r[:, 1:3] + r[:, 3:5]
                elif r.dim() == 2 and r.shape[1] == 4:
                    r[:, 2:4] = r[:, 0:2] + r[:, 2:4]
                args[i] = r
    return args


def inputs_for(ep, moved):
    import torch
    sys.path.insert(0, HERE)
    from crosscheck_profiler import random_tensor
    if ep.example_inputs is not None:
        args, kwargs = ep.example_inputs
        return [a.cuda() if moved and isinstance(a, torch.Tensor) else a for a in args], dict(kwargs), "stored"
    import torch.utils._pytree as pytree
    from torch.export.graph_signature import ConstantArgument, InputKind
    placeholders = {n.name: n.meta.get("val") for n in ep.graph.nodes if n.op == "placeholder"}
    # The user's inputs in call order; constant ones (use_cache=False, an int) are no graph
    # placeholder and keep the value they were exported with.
    vals = [s.arg.value if isinstance(s.arg, ConstantArgument) else placeholders[s.arg.name]
            for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    flat = [random_tensor([int(s) for s in v.shape], v.dtype, "cuda" if moved else v.device)
            if isinstance(v, torch.Tensor) else v for v in vals]
    flat = _valid_inputs(ep, flat)
    # The user's call: positional and keyword arguments as the export's input spec lays them out.
    args, kwargs = pytree.tree_unflatten(flat, ep.call_spec.in_spec)
    return list(args), dict(kwargs), "random"


def measure_torchscript(path, warmup, specs):
    """A traced or scripted module as torch.jit.load leaves it: every tensor where it was saved
    (a GPU machine's .pt holds host constants too), inputs on the GPU, graph optimizations off."""
    import torch
    sys.path.insert(0, HERE)
    from crosscheck_profiler import load_torchscript, measure, parse_input
    module = load_torchscript(path)
    params = list(module.parameters())
    args = [parse_input(s) for s in specs]
    total, ops, unattributed = measure(module, args, warmup)
    return {"model": path, "torch": torch.__version__, "device": torch.cuda.get_device_name(),
            "run": "torch.jit.load(path) under torch.no_grad() and optimized_execution(False), after %d "
                   "warm-up calls" % warmup, "weights": "stored", "inputs": "random", "placement": "as saved",
            "parameters": len(params), "parameters_requiring_grad": sum(p.requires_grad for p in params),
            "totals": total, "unattributed": unattributed, "ops": ops}


def measure_one(path, warmup, specs=None):
    import torch
    sys.path.insert(0, HERE)
    from crosscheck_profiler import measure
    if not zipfile.is_zipfile(path) or not any(n.endswith("models/model.json") for n in zipfile.ZipFile(path).namelist()):
        if specs is None:
            raise ValueError("a TorchScript file needs its input specs (--manifest)")
        return measure_torchscript(path, warmup, specs)
    ep, weights, placement = load(path)
    module = ep.module()
    params = list(module.parameters())
    args, kwargs, inputs = inputs_for(ep, placement != "as saved")
    fn = (lambda *a: module(*a, **kwargs)) if kwargs else module
    total, ops, unattributed = measure(fn, args, warmup)
    return {"model": path, "torch": torch.__version__, "device": torch.cuda.get_device_name(),
            "run": "ep.module() under torch.no_grad(), eager, after %d warm-up calls" % warmup,
            "weights": weights, "inputs": inputs, "placement": placement,
            "parameters": len(params), "parameters_requiring_grad": sum(p.requires_grad for p in params),
            "totals": total, "unattributed": unattributed, "ops": ops}


class _Timeout(Exception):
    pass


def worker(out_dir, models, timeout, measure, suffix=".real.json", record=None, on_error=None):
    """Measures models in order in this process, `measure(path)` giving each one's result, written
    as `<name><suffix>`; records which one it is on, so that a driver can skip it when the process
    dies. `record(result)` adds to a model's status line; `on_error(name)` runs inside the handler
    of a model's failure (to print its traceback, say)."""
    def on_alarm(signum, frame):
        raise _Timeout()
    signal.signal(signal.SIGALRM, on_alarm)
    status = open(os.path.join(out_dir, "real_status.jsonl"), "a")
    for path in models:
        name = os.path.splitext(os.path.basename(path))[0]
        with open(os.path.join(out_dir, ".current"), "w") as f:
            f.write(path)
        t0 = time.time()
        signal.alarm(timeout)
        try:
            result = measure(path)
            with open(os.path.join(out_dir, name + suffix), "w") as f:
                json.dump(result, f, separators=(",", ":"))
            rec = {"name": name, "ok": True, **(record(result) if record else {})}
        except _Timeout:
            rec = {"name": name, "ok": False, "error": f"timeout after {timeout} s"}
        except Exception as e:  # noqa: BLE001 - any failure is this model's, recorded and skipped
            rec = {"name": name, "ok": False, "error": (type(e).__name__ + ": " + str(e)).splitlines()[0][:300]}
            if on_error:
                on_error(name)
        finally:
            signal.alarm(0)
        rec["seconds"] = round(time.time() - t0, 1)
        status.write(json.dumps(rec) + "\n")
        status.flush()
        if not rec["ok"] and "CUDA" in rec.get("error", ""):
            sys.exit(3)  # the context may be broken: let the driver start a fresh process


def import_all(modules, who):
    """Imports the modules a worker was given (custom ops the archives call); a model that needs
    one that fails to import fails itself and says so."""
    import importlib
    for m in modules:
        try:
            importlib.import_module(m)
        except ImportError as e:
            print(f"{who}: cannot import {m}: {e}", file=sys.stderr)


def input_specs(manifest):
    """TorchScript input specs by file name, from a JSONL manifest (none without one)."""
    specs = {}
    for line in open(manifest) if manifest else ():
        r = json.loads(line)
        if "inputs" in r and "file" in r:
            specs[r["file"]] = r["inputs"]
    return specs


def drive(out_dir, models, jobs, warmup, timeout, deadline, manifest, imports=(), script=__file__,
          suffix=".real.json", worker_env=None):
    """Splits models over `jobs` worker processes; restarts a worker that died after the model
    it was on. `script` is the measuring script whose `--worker` mode each process runs (this one,
    or validate/compile_run.py), writing one `<name><suffix>` per model; `worker_env(k)` gives a
    worker's extra environment."""
    os.makedirs(out_dir, exist_ok=True)
    shards = [models[i::jobs] for i in range(jobs)]
    t0 = time.time()
    running = {}

    def start(k, todo):
        wd = os.path.join(out_dir, f".w{k}")
        os.makedirs(wd, exist_ok=True)
        cmd = [sys.executable, os.path.abspath(script), "--worker", wd, "--warmup", str(warmup),
               "--timeout", str(timeout), *(["--manifest", manifest] if manifest else []),
               *[f"--import={m}" for m in imports], *todo]
        env = dict(os.environ, **(worker_env(k) if worker_env else {}))
        running[k] = (subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(os.path.join(wd, "log"), "a"),
                                       env=env), todo)

    for k, todo in enumerate(shards):
        if todo:
            start(k, todo)
    while running:
        time.sleep(1)
        for k, (proc, todo) in list(running.items()):
            if time.time() - t0 > deadline:
                proc.kill()
            rc = proc.poll()
            if rc is None:
                continue
            del running[k]
            wd = os.path.join(out_dir, f".w{k}")
            cur = open(os.path.join(wd, ".current")).read() if os.path.exists(os.path.join(wd, ".current")) else None
            if rc != 0 and cur in todo and time.time() - t0 < deadline:
                done = {json.loads(l)["name"] for l in open(os.path.join(wd, "real_status.jsonl"))} \
                    if os.path.exists(os.path.join(wd, "real_status.jsonl")) else set()
                if os.path.splitext(os.path.basename(cur))[0] not in done:
                    with open(os.path.join(wd, "real_status.jsonl"), "a") as f:
                        f.write(json.dumps({"name": os.path.splitext(os.path.basename(cur))[0], "ok": False,
                                            "error": f"worker exited {rc}"}) + "\n")
                rest = todo[todo.index(cur) + 1:]
                if rest:
                    start(k, rest)
    # gather
    with open(os.path.join(out_dir, "real_status.jsonl"), "w") as status:
        for k in range(jobs):
            wd = os.path.join(out_dir, f".w{k}")
            p = os.path.join(wd, "real_status.jsonl")
            if os.path.exists(p):
                status.write(open(p).read())
            for f in os.listdir(wd) if os.path.isdir(wd) else []:
                if f.endswith(suffix):
                    os.replace(os.path.join(wd, f), os.path.join(out_dir, f))
    lines = [json.loads(l) for l in open(os.path.join(out_dir, "real_status.jsonl"))]
    print(f"real_run: {sum(r['ok'] for r in lines)} measured, {sum(not r['ok'] for r in lines)} failed, "
          f"{len(models) - len({r['name'] for r in lines})} not reached, {time.time() - t0:.0f} s")


def arguments(description, jobs, timeout, timeout_help, manifest_help=argparse.SUPPRESS):
    """The arguments of a measuring script that drive() runs: the driver's, and the hidden
    --worker mode each of its processes runs in."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("out_dir")
    p.add_argument("models", nargs="+")
    p.add_argument("--jobs", type=int, default=jobs)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--timeout", type=int, default=timeout, help=timeout_help)
    p.add_argument("--deadline-s", type=float, default=1e9, help="stop all workers after this long")
    p.add_argument("--manifest", help=manifest_help)
    p.add_argument("--import", dest="imports", action="append", default=[],
                   help="a module that registers custom ops the archives call (transformers.integrations.moe)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    return p


def main():
    p = arguments(__doc__.split("\n\n")[0], 8, 120, "seconds per model",
                  "TorchScript input specs: a JSONL of {file, inputs: [\"x=2x3x224x224:float32\"]}")
    a = p.parse_args()
    if a.worker:
        import_all(a.imports, "real_run")
        specs = input_specs(a.manifest)
        worker(a.out_dir, a.models, a.timeout,
               lambda path: measure_one(path, a.warmup, specs.get(os.path.basename(path))))
    else:
        drive(a.out_dir, a.models, a.jobs, a.warmup, a.timeout, a.deadline_s, a.manifest and os.path.abspath(a.manifest),
              a.imports)


if __name__ == "__main__":
    main()
