"""Export a corpus of real model architectures (random weights) as .pt2 files.

Every model is built from its architecture/config only: nothing is downloaded and no
pretrained weights are used. Each model is exported in float32 and bfloat16 with
torch.export.export(..., strict=False) on the chosen device and saved with
torch.export.save. A manifest.json in the output folder describes every file.

    python research/corpus/export_corpus.py --out corpus --device cuda
    python research/corpus/export_corpus.py --quick --device cpu --only resnet50,gpt2

The model builders here are shared with profile_counts.py.
"""
import argparse
import gc
import io
import json
import os
import sys
import tarfile
import time
import traceback
import zipfile
from dataclasses import dataclass
from typing import Callable

import torch

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}

# Realistic inference sizes, and tiny ones for --quick (CPU dry runs).
IMAGE_BATCH, IMAGE_SIZE = 32, 224
TEXT_BATCH, TEXT_SEQ = 8, 512
QUICK_IMAGE_BATCH = 2
QUICK_TEXT_BATCH, QUICK_TEXT_SEQ = 2, 32


@dataclass
class Spec:
    name: str
    family: str  # cnn, vit or transformer
    build: Callable[[], torch.nn.Module]  # fp32 module with random weights
    inputs: Callable[[bool, torch.device, torch.dtype], tuple]  # -> (args, kwargs)


def _image_inputs(quick, device, dtype):
    n = QUICK_IMAGE_BATCH if quick else IMAGE_BATCH
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 3, IMAGE_SIZE, IMAGE_SIZE, generator=g)
    return (x.to(device=device, dtype=dtype),), {}


def _torchvision(arch):
    def build():
        import torchvision

        return torchvision.models.get_model(arch, weights=None)

    return build


def _text_inputs(vocab, with_mask):
    def inputs(quick, device, dtype):
        b, s = (QUICK_TEXT_BATCH, QUICK_TEXT_SEQ) if quick else (TEXT_BATCH, TEXT_SEQ)
        g = torch.Generator().manual_seed(0)
        kwargs = {"input_ids": torch.randint(0, vocab, (b, s), generator=g).to(device)}
        if with_mask:
            kwargs["attention_mask"] = torch.ones(b, s, dtype=torch.int64, device=device)
        kwargs["use_cache"] = False
        return (), kwargs

    return inputs


def _gpt2():
    from transformers import AutoModelForCausalLM, GPT2Config

    cfg = GPT2Config(n_layer=4, n_embd=768, n_head=12, use_cache=False)
    return AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa")


def _bert():
    from transformers import AutoModel, BertConfig

    cfg = BertConfig(num_hidden_layers=4, hidden_size=768, num_attention_heads=12,
                     intermediate_size=3072, use_cache=False)
    return AutoModel.from_config(cfg, attn_implementation="sdpa")


def _llama():
    from transformers import AutoModelForCausalLM, LlamaConfig

    cfg = LlamaConfig(hidden_size=1024, num_hidden_layers=4, num_attention_heads=16,
                      num_key_value_heads=4, intermediate_size=2816, vocab_size=32000,
                      max_position_embeddings=2048, use_cache=False)
    return AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa")


def _vision(arch, family="cnn"):
    return Spec(arch, family, _torchvision(arch), _image_inputs)


SPECS = [
    _vision("resnet50"),
    _vision("mobilenet_v3_large"),
    _vision("efficientnet_b0"),
    _vision("convnext_tiny"),
    _vision("vit_b_16", "vit"),
    _vision("swin_t", "vit"),
    _vision("densenet121"),
    _vision("regnet_y_400mf"),
    _vision("resnet18"),
    _vision("mobilenet_v2"),
    _vision("shufflenet_v2_x1_0"),
    _vision("squeezenet1_1"),
    Spec("gpt2", "transformer", _gpt2, _text_inputs(50257, with_mask=False)),
    Spec("bert", "transformer", _bert, _text_inputs(30522, with_mask=True)),
    Spec("llama", "transformer", _llama, _text_inputs(32000, with_mask=False)),
]


def _gpt2_wide():
    from transformers import AutoModelForCausalLM, GPT2Config

    cfg = GPT2Config(n_layer=2, n_embd=1024, n_head=16, use_cache=False)
    return AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa")


# Architectures kept out of the measured table (generators/make_measured_table.py reads only
# data/results/corpus/): their measurements show how the rules do on models never seen.
HELDOUT = [
    _vision("resnet101"),
    _vision("wide_resnet50_2"),
    _vision("resnext50_32x4d"),
    _vision("vgg11_bn"),
    _vision("mnasnet1_0"),
    _vision("mobilenet_v3_small"),
    _vision("efficientnet_b1"),
    _vision("regnet_x_800mf"),
    _vision("convnext_small"),
    _vision("vit_b_32", "vit"),
    Spec("gpt2_wide", "transformer", _gpt2_wide, _text_inputs(50257, with_mask=False)),
]


def entries(only=None, dtypes=("fp32", "bf16"), specs=None):
    """(entry name, spec, dtype name) for the selected corpus; entry names are <model>_<dtype>.

    only: comma-separated model names or entry names (e.g. "resnet50,gpt2_bf16")."""
    SPECS_ = SPECS if specs is None else specs
    wanted = {w.strip() for w in only.split(",") if w.strip()} if only else None
    out = []
    for spec in SPECS_:
        for dt in dtypes:
            name = f"{spec.name}_{dt}"
            if wanted is None or spec.name in wanted or name in wanted:
                out.append((name, spec, dt))
    if wanted is not None:
        known = {s.name for s in SPECS_} | {f"{s.name}_{d}" for s in SPECS_ for d in DTYPES}
        unknown = wanted - known
        if unknown:
            raise SystemExit(f"unknown model(s): {', '.join(sorted(unknown))}")
    return out


def instantiate(spec, dtype_name, device, quick, seed=0):
    """Build spec's model (eval, on device, in dtype) and its inputs: (model, args, kwargs)."""
    torch.manual_seed(seed)
    device = torch.device(device)
    dtype = DTYPES[dtype_name]
    with torch.device(device):
        model = spec.build()
    model = model.to(device=device, dtype=dtype).eval()
    args, kwargs = spec.inputs(quick, device, dtype)
    return model, args, kwargs


def describe(args, kwargs):
    def one(t):
        if isinstance(t, torch.Tensor):
            return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}
        return repr(t)

    d = {f"arg{i}": one(a) for i, a in enumerate(args)}
    d.update({k: one(v) for k, v in kwargs.items()})
    return d


def release(device):
    gc.collect()
    if torch.device(device).type == "cuda":
        torch.cuda.empty_cache()


def export_one(name, spec, dtype_name, device, quick, out_dir):
    rec = {"name": name, "file": f"{name}.pt2", "family": spec.family, "dtype": dtype_name,
           "model": spec.name, "device": str(device)}
    model = ep = None
    try:
        model, args, kwargs = instantiate(spec, dtype_name, device, quick)
        rec["inputs"] = describe(args, kwargs)
        rec["parameters"] = sum(p.numel() for p in model.parameters())
        t0 = time.perf_counter()
        with torch.no_grad():
            ep = torch.export.export(model, args, kwargs, strict=False)
        rec["export_seconds"] = round(time.perf_counter() - t0, 3)
        path = os.path.join(out_dir, rec["file"])
        torch.export.save(ep, path)
        rec["nodes"] = sum(1 for n in ep.graph.nodes if n.op == "call_function")
        rec["bytes"] = os.path.getsize(path)
    except Exception as ex:  # one model failing must not stop the others
        rec["error"] = f"{type(ex).__name__}: {ex}"[:2000]
        rec["traceback"] = traceback.format_exc()[-4000:]
    finally:
        del model, ep
        release(device)
    return rec


def load_manifest(path):
    try:
        with open(path) as f:
            return {r["name"]: r for r in json.load(f)["files"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


_BLOB_DIRS = ("data/weights/", "data/constants/", "data/sample_inputs/")


def slim_copy(src):
    """src's archive with every weight, constant and sample-input blob emptied (all record
    names, their order and the JSON configs kept). Small enough to carry around for static
    analysis; torch.export.load cannot load it."""
    out = io.BytesIO()
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            rel = info.filename.split("/", 1)[-1]
            blob = rel.startswith(_BLOB_DIRS) and not rel.endswith(".json")
            zi = zipfile.ZipInfo(info.filename, date_time=(1980, 0, 0, 0, 0, 0))
            zout.writestr(zi, b"" if blob else zin.read(info))
    return out.getvalue()


def write_bundle(path, out_dir, manifest_path):
    """A .tar.gz with manifest.json and a slim copy of every exported file."""
    def add(tar, name, data):
        ti = tarfile.TarInfo(name)
        ti.size, ti.mtime, ti.mode = len(data), 0, 0o644
        tar.addfile(ti, io.BytesIO(data))

    with open(manifest_path, "rb") as f:
        manifest = f.read()
    with tarfile.open(path, "w:gz") as tar:
        add(tar, "corpus/manifest.json", manifest)
        for rec in json.loads(manifest)["files"]:
            src = os.path.join(out_dir, rec["file"])
            if "error" not in rec and os.path.exists(src):
                add(tar, f"corpus/{rec['file']}", slim_copy(src))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="corpus", help="output folder (default: ./corpus)")
    ap.add_argument("--device", default="cuda", help="device to export on (default: cuda)")
    ap.add_argument("--dtypes", default="fp32,bf16", help="comma-separated: fp32,bf16")
    ap.add_argument("--quick", action="store_true", help="tiny batch/sequence for CPU testing")
    ap.add_argument("--only", help="comma-separated model or entry names, e.g. resnet50,gpt2_bf16")
    ap.add_argument("--list", action="store_true", help="list the corpus entries and exit")
    ap.add_argument("--heldout", action="store_true",
                    help="the held-out architectures instead of the corpus (never used for the measured table)")
    ap.add_argument("--slim-bundle", metavar="TAR_GZ",
                    help="also write a .tar.gz of manifest.json and slim copies of the files "
                         "(weights and sample inputs emptied; for static analysis only)")
    a = ap.parse_args(argv)

    dtypes = [d.strip() for d in a.dtypes.split(",") if d.strip()]
    bad = [d for d in dtypes if d not in DTYPES]
    if bad:
        ap.error(f"unknown dtype(s) {bad}; choose from {sorted(DTYPES)}")
    todo = entries(a.only, dtypes, HELDOUT if a.heldout else None)
    if a.list:
        for name, spec, _ in todo:
            print(f"{name:32s} {spec.family}")
        return 0

    os.makedirs(a.out, exist_ok=True)
    manifest_path = os.path.join(a.out, "manifest.json")
    records = load_manifest(manifest_path)  # earlier runs (e.g. other --only subsets) are kept
    failed = 0
    for name, spec, dt in todo:
        rec = export_one(name, spec, dt, a.device, a.quick, a.out)
        records[name] = rec
        failed += "error" in rec
        status = rec.get("error", f"{rec['export_seconds']:.1f}s {rec['nodes']} nodes "
                                  f"{rec['bytes'] / 1e6:.1f} MB")
        print(f"{name:32s} {status}", flush=True)
        manifest = {
            "torch": torch.__version__,
            "quick": a.quick,
            "files": sorted(records.values(), key=lambda r: r["name"]),
        }
        with open(manifest_path, "w") as f:
            json.dump(manifest, f, indent=1)
    print(f"{len(todo) - failed} exported, {failed} failed; manifest: {manifest_path}")
    if a.slim_bundle:
        write_bundle(a.slim_bundle, a.out, manifest_path)
        print(f"slim bundle: {a.slim_bundle} ({os.path.getsize(a.slim_bundle) / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
