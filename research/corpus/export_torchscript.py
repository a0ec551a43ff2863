"""A TorchScript corpus: the broad corpus's architectures traced with torch.jit.trace.

Each model is built as research/corpus/export_broad.py builds it (no downloads, random
configs), moved to the device, its parameters and buffers zeroed (counts never depend on the
values, and zeros deflate to almost nothing), traced with torch.jit.trace(..., strict=False)
and saved as <out>/<family>__<model>_<dtype>.pt, recompressed with deflate. One JSON line per
entry goes to <out>/manifest-<shard>.jsonl with the --input specs kernelcount and
kernelcount-validate take (by forward() argument name), or the error.

    python3 research/corpus/export_torchscript.py --out /tmp/ts --only resnet18,bert_mask --shard 0/4
"""
import argparse
import json
import os
import signal
import sys
import time
import zipfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from export_broad import DTYPES, all_entries, guarded  # noqa: E402

# Architectures traced by default: one or two per family of the broad corpus, CNNs, vision
# transformers and text models, with and without attention masks.
DEFAULT = ("resnet18,resnet50,mobilenet_v2,mobilenet_v3_large,efficientnet_b0,densenet121,convnext_tiny,"
           "regnet_y_400mf,squeezenet1_1,shufflenet_v2_x1_0,mnasnet1_0,vgg11_bn,alexnet,googlenet,"
           "vit_b_16,swin_t,deit_tiny_patch16_224,mixer_s16_224,efficientnet_v2_s,resnext50_32x4d,"
           "bert_mask,bert_nomask,distilbert_mask,roberta_mask,gpt2,gpt_neo,llama,mistral,opt,albert_mask")

DTYPE_NAMES = {torch.float32: "float32", torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32",
               torch.bool: "bool", torch.float16: "float16"}


def spec(name, t):
    return f"{name}={'x'.join(str(s) for s in t.shape)}:{DTYPE_NAMES[t.dtype]}"


def deflate(src, dst):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            zout.writestr(item, zin.read(item.filename), compress_type=zipfile.ZIP_DEFLATED)


def trace_one(e, dtype_name, device, out_dir, tmp_dir, timeout):
    name = f"{e.family}__{e.model}_{dtype_name}"
    rec = {"name": name, "file": name + ".pt", "family": e.family, "model": e.model, "dtype": dtype_name}
    with guarded(rec, device, timeout):
        torch.manual_seed(0)
        with torch.device(device):
            model = e.build()
        model = model.to(device=device, dtype=DTYPES[dtype_name]).eval()
        with torch.no_grad():
            for t in list(model.parameters()) + list(model.buffers()):
                t.zero_()
        args, kwargs = e.inputs(device, DTYPES[dtype_name])
        params = list(__import__("inspect").signature(model.forward).parameters)
        if kwargs:
            rec["inputs"] = [spec(k, v) for k, v in kwargs.items() if isinstance(v, torch.Tensor)]
            with torch.no_grad():
                traced = torch.jit.trace(model, example_kwarg_inputs=kwargs, strict=False, check_trace=False)
        else:
            rec["inputs"] = [spec(params[i] if i < len(params) else f"arg{i}", a) for i, a in enumerate(args)]
            with torch.no_grad():
                traced = torch.jit.trace(model, args, strict=False, check_trace=False)
        full = os.path.join(tmp_dir, rec["file"])
        torch.jit.save(traced, full)
        deflate(full, os.path.join(out_dir, rec["file"]))
        os.remove(full)
        rec["bytes"] = os.path.getsize(os.path.join(out_dir, rec["file"]))
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/ts")
    ap.add_argument("--tmp", default="/dev/shm" if os.path.isdir("/dev/shm") else "/tmp")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--dtypes", default="fp32,bf16")
    ap.add_argument("--only", default=DEFAULT, help="comma-separated model names")
    ap.add_argument("--shard", default="0/1")
    ap.add_argument("--timeout", type=int, default=120)
    a = ap.parse_args()
    want = set(a.only.split(","))
    entries = [e for e in all_entries() if e.model in want]
    todo = [(e, d) for e in entries for d in a.dtypes.split(",")]
    i, n = (int(x) for x in a.shard.split("/"))
    os.makedirs(a.out, exist_ok=True)

    def alarm(signum, frame):
        raise TimeoutError("per-model timeout")

    signal.signal(signal.SIGALRM, alarm)
    with open(os.path.join(a.out, f"manifest-{i}.jsonl"), "a") as f:
        for e, d in todo[i::n]:
            rec = trace_one(e, d, a.device, a.out, a.tmp, a.timeout)
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(f"[{i}] {rec['name']}: {rec['error'].splitlines()[0][:150] if 'error' in rec else 'ok'} "
                  f"({rec['seconds']} s)", flush=True)


if __name__ == "__main__":
    main()
