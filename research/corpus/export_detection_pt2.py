#!/usr/bin/env python3
"""Exports torchvision's detection models to .pt2 as a user would in PyTorch 2.11, every score
threshold at 0 (as export_detection.py --all-scores), on the GPU where there is one.

Their post-processing sizes hang on the data (nonzero, nms), and some branches read them
(batched_nms picks its per-class loop past 20,000 box coordinates on the GPU, 4,000 on the host):
torch.export.export(strict=False) refuses such a guard. torch.export.draft_export traces with the
real tensors beside the fake ones, so a guard on a data-dependent size is decided by the example's
value (and checked again at run time), and the program is exported as the example runs it. Each
model is tried with export first, then draft_export; the manifest says which one worked and, for
draft_export, what its report found. Three faults of the released packages stand in the way and
are mended in the exporting process (draft_export_fixes, nms_keeps_from_zero): parameters'
real tensors are uninitialized memory, prims.signbit's meta has the wrong dtype, and
torchvision's nms declares that it keeps at least 2 boxes.

Weights are random (seed 0), so the boxes nms keeps are those of a model; the archive keeps them
(the real run reads them, with the sample inputs) and OUT/stripped/<name>.pt2 is the copy without
weights that the repository keeps. Each model exports in its own process, several at once.

Names are `detection-<model>-all_scores[_bN]_fp32.pt2`; OUT/manifest.jsonl holds one record per
model ({file, method, seconds, ...} or {file, error}).
  python3 research/corpus/export_detection_pt2.py OUT [--only NAMES] [--set main|heldout|all]
      [--batch 1] [--jobs 8] [--timeout 150] [--methods export,draft]
"""
import argparse
import json
import logging
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "validate"))
sys.path.insert(0, HERE)


def stem_of(name, batch):
    return "detection-%s-all_scores%s_fp32" % (name, "" if batch == 1 else "_b%d" % batch)


def draft_export_fixes():
    """Two faults of PyTorch 2.11's real-tensor tracing, which draft_export rests on, mended here
    for this process; neither changes the graph a sound trace records.
    - The meta converter copies a tensor's data into its fake copy only when its type is exactly
      torch.Tensor (meta_utils._safe_copy / _safe_clone), so every nn.Parameter's real tensor is
      uninitialized memory and guards are decided on garbage (NaN scores keep no box, and the
      program then fails its own runtime asserts): a parameter's data is copied as a plain tensor.
    - prims.signbit's meta keeps an integer input's dtype where the real op returns bool (the
      refs wrapper converts it afterwards, so plain tracing never notices); integer floor
      division (RetinaNet's and FCOS's anchor index, `torch.div(..., rounding_mode="floor")`) then
      mismatches its real tensor, and draft_export's fallback fails with
      PendingUnbackedSymbolNotFound: the meta says bool."""
    import torch
    import torch._subclasses.meta_utils as mu
    copy, clone = mu._safe_copy, mu._safe_clone

    def plain(t):
        return t.detach() if isinstance(t, torch.nn.Parameter) else t

    mu._safe_copy = lambda dst, src: copy(dst, plain(src))
    mu._safe_clone = lambda src: clone(plain(src))
    torch.ops.prims.signbit.default.prim_meta_impl = lambda a: torch.empty_like(a, dtype=torch.bool)


# torchvision 0.26's fake kernel of nms asks for its kept count with the deprecated
# create_unbacked_symint(), whose lower bound is 2: the exported program then asserts that every
# nms keeps at least 2 boxes, and a class with one box fails the run (draft_export runs those
# asserts on the real tensors, so it fails the export). The same kernel with new_dynamic_size(),
# bound 0. Registered under torchvision's module name, which the op's registration requires.
NMS_FAKE = """
import torch
def meta_nms(dets, scores, iou_threshold):
    torch._check(dets.dim() == 2, lambda: f"boxes should be a 2d tensor, got {dets.dim()}D")
    torch._check(dets.size(1) == 4, lambda: f"boxes should have 4 elements in dimension 1, got {dets.size(1)}")
    torch._check(scores.dim() == 1, lambda: f"scores should be a 1d tensor, got {scores.dim()}")
    torch._check(dets.size(0) == scores.size(0), lambda: "boxes and scores should have the same number of elements")
    return dets.new_empty(torch.library.get_ctx().new_dynamic_size(), dtype=torch.long)
torch.library.register_fake("torchvision::nms", meta_nms, allow_override=True)
"""


def nms_keeps_from_zero():
    import torchvision  # noqa: F401 - registers the op first
    exec(compile(NMS_FAKE, "torchvision/_meta_registrations.py", "exec"), {"__name__": "torchvision._meta_registrations"})


def export_one(out, name, size, batch, methods):
    """Exports one model; returns its manifest record."""
    import torch
    import torchvision
    from export_detection import Flat
    from strip_weights import relative_in_place, strip_weights

    device = "cuda" if torch.cuda.is_available() else "cpu"
    # draft_export warns of every data-dependent expression it decides, each a sum of up to 90
    # terms: printing them costs as much as the trace. Its report is kept apart and stays whole.
    logging.getLogger("torch.fx.experimental.symbolic_shapes").setLevel(logging.ERROR)
    torch.set_num_threads(2)  # several exports share the machine's cores
    torch.manual_seed(0)
    model = torchvision.models.get_model(name, weights=None, weights_backbone=None).eval().to(device)
    for owner in (model, getattr(model, "roi_heads", None)):
        if owner is not None and hasattr(owner, "score_thresh"):
            owner.score_thresh = 0.0
    images = torch.rand(batch, 3, size, size, device=device)
    nms_keeps_from_zero()
    stem = stem_of(name, batch)
    rec = {"file": stem + ".pt2", "model": name, "device": device, "images": [batch, 3, size, size], "tried": []}
    ep = None
    for method in methods:
        t0 = time.time()
        try:
            if method == "export":
                ep = torch.export.export(Flat(model), (images,), strict=False)
            else:
                draft_export_fixes()
                ep = torch.export.draft_export(Flat(model), (images,), strict=False)
            rec["method"] = method
            rec["seconds"] = round(time.time() - t0, 1)
            report = getattr(ep, "_report", None)
            if report is not None:
                failures = getattr(report, "failures", [])
                rec["draft_report"] = {"failures": len(failures),
                                       "kinds": sorted({str(getattr(f, "failure_type", "?")) for f in failures})}
            break
        except Exception as e:  # noqa: BLE001 - each method's failure is recorded, the next one tried
            rec["tried"].append({"method": method, "seconds": round(time.time() - t0, 1),
                                 "error": "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0][:300])})
    if ep is None:
        rec["error"] = "no method exported it"
        return rec
    path = os.path.join(out, stem + ".pt2")
    torch.export.save(ep, path)
    relative_in_place(path)
    strip_weights(path, os.path.join(out, "stripped", stem + ".pt2"))
    nodes = [n for n in ep.graph.nodes if n.op == "call_function"]
    rec["nodes"] = len(nodes)
    rec["torchvision_ops"] = sorted({str(n.target) for n in nodes if str(n.target).startswith("torchvision")})
    # The export's own outputs against the model's on the same images: the same boxes kept.
    try:
        with torch.no_grad():
            want = Flat(model)(images)
            got = ep.module()(images)
        rec["outputs_match"] = len(want) == len(got) and all(
            a.shape == b.shape and bool(torch.allclose(a.float(), b.float(), atol=1e-3, rtol=1e-3))
            for a, b in zip(want, got))
        rec["output_sizes"] = [list(t.shape) for t in got]
    except Exception as e:  # noqa: BLE001 - the archive stays; the real run will say more
        rec["run_error"] = "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0][:300])
    return rec


def main():
    from export_detection import HELDOUT, MODELS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--only", help="comma-separated model names")
    ap.add_argument("--set", default="all", choices=("main", "heldout", "all"))
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--timeout", type=int, default=150, help="seconds per model")
    ap.add_argument("--methods", default="export,draft", help="tried in order: export, draft")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    a = ap.parse_args()
    sizes = {**(MODELS if a.set != "heldout" else {}), **(HELDOUT if a.set != "main" else {})}
    if a.only:
        sizes = {**MODELS, **HELDOUT}
        sizes = {n: sizes[n] for n in a.only.split(",")}
    methods = a.methods.split(",")
    os.makedirs(os.path.join(a.out, "stripped"), exist_ok=True)
    if a.one:
        rec = export_one(a.out, a.one, sizes[a.one], a.batch, methods)
        with open(os.path.join(a.out, stem_of(a.one, a.batch) + ".json"), "w") as f:
            json.dump(rec, f)
        return
    # One process per model, a.jobs at once; a model past its timeout is killed and recorded.
    todo, running, t0 = list(sizes), {}, time.time()
    logs = os.path.join(a.out, "logs")
    os.makedirs(logs, exist_ok=True)
    while todo or running:
        while todo and len(running) < a.jobs:
            name = todo.pop(0)
            cmd = [sys.executable, os.path.abspath(__file__), a.out, "--one", name, "--batch", str(a.batch),
                   "--methods", a.methods, "--set", "all"]
            running[name] = (subprocess.Popen(cmd, stdout=open(os.path.join(logs, name + ".log"), "w"),
                                              stderr=subprocess.STDOUT), time.time())
        time.sleep(0.5)
        for name, (proc, started) in list(running.items()):
            if proc.poll() is None and time.time() - started > a.timeout:
                proc.kill()
                proc.wait()
                with open(os.path.join(a.out, stem_of(name, a.batch) + ".json"), "w") as f:
                    json.dump({"file": stem_of(name, a.batch) + ".pt2", "model": name,
                               "error": "timeout after %d s" % a.timeout}, f)
            if proc.poll() is not None:
                del running[name]
                rec_path = os.path.join(a.out, stem_of(name, a.batch) + ".json")
                if not os.path.exists(rec_path):
                    tail = open(os.path.join(logs, name + ".log")).read().strip().splitlines()[-1:] or [""]
                    with open(rec_path, "w") as f:
                        json.dump({"file": stem_of(name, a.batch) + ".pt2", "model": name,
                                   "error": "exited %d: %s" % (proc.returncode, tail[0][:300])}, f)
                print(open(rec_path).read()[:400], flush=True)
    with open(os.path.join(a.out, "manifest.jsonl"), "w") as man:
        for name in sizes:
            man.write(open(os.path.join(a.out, stem_of(name, a.batch) + ".json")).read() + "\n")
    print("export_detection_pt2: %d of %d exported in %.0f s" % (
        sum(os.path.exists(os.path.join(a.out, stem_of(n, a.batch) + ".pt2")) for n in sizes), len(sizes),
        time.time() - t0))


if __name__ == "__main__":
    main()
