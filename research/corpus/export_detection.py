#!/usr/bin/env python3
"""Exports torchvision's detection models (random weights, eval mode) as a user would ship them:
torch.export (.pt2, strict=False) and torch.jit.trace (.pt), each through a wrapper that takes a
batch of images as one tensor and returns every image's boxes, scores and labels as a flat tuple.
Their heads call torchvision's nms and roi_align, whose output sizes hang on the data, so a
model that torch.export cannot export is listed with the reason, not dropped silently (in
PyTorch 2.11 torch.export.export exports none of them: their heads branch on data-dependent
sizes; export_detection_pt2.py exports them with draft_export).

Traced on the GPU where there is one (a trace on the host records host devices for the anchors).
Each .pt is written twice: as traced, for the real run (random weights, so that scores and the
boxes nms keeps are those of a model, not of zeros), and as OUT/zeroed/<name>.pt with every
parameter and buffer zeroed, which compresses to almost nothing and is what the repository keeps:
kernelcount reads shapes, never values.

--all-scores sets every score threshold the model has to 0 and traces only (`detection-<model>-all_scores_fp32.pt`):
random weights score every box below the default thresholds, so the post-processing of the
plain traces runs on empty tensors; with no threshold it runs on every candidate box, as it
does on a trained model's detections.

Names are `detection-<model>_fp32.pt2` / `.pt`; OUT/manifest.jsonl holds one record per model
and format ({file, inputs: ["images=1x3x320x320:float32"]} for the traced ones, as the
TorchScript corpus's manifest).
  python3 research/corpus/export_detection.py OUT [--only fasterrcnn_mobilenet_v3_large_320_fpn] [--all-scores] [--heldout]
"""
import argparse
import json
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
from strip_weights import relative_in_place  # noqa: E402

# model name -> image size: the sizes their transforms resize to anyway, so the input is not
# scaled twice.
MODELS = {
    "fasterrcnn_mobilenet_v3_large_320_fpn": 320,
    "fasterrcnn_resnet50_fpn": 512,
    "retinanet_resnet50_fpn": 512,
    "fcos_resnet50_fpn": 512,
    "ssdlite320_mobilenet_v3_large": 320,
    "ssd300_vgg16": 300,
    "maskrcnn_resnet50_fpn": 512,
}
# Detectors no rule was written from (--heldout): the second versions of the R-CNN and RetinaNet
# heads, the full-size MobileNet Faster R-CNN, Keypoint R-CNN.
HELDOUT = {
    "fasterrcnn_resnet50_fpn_v2": 512,
    "fasterrcnn_mobilenet_v3_large_fpn": 512,
    "retinanet_resnet50_fpn_v2": 512,
    "keypointrcnn_resnet50_fpn": 512,
    "maskrcnn_resnet50_fpn_v2": 512,
}


class Flat(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, images):
        out = []
        for d in self.model(list(images.unbind(0))):
            out.extend(d[k] for k in sorted(d))
        return tuple(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--only")
    ap.add_argument("--all-scores", action="store_true", help="score thresholds at 0; trace only")
    ap.add_argument("--heldout", action="store_true", help="the held-out detectors (HELDOUT) instead")
    a = ap.parse_args()
    os.makedirs(os.path.join(a.out, "zeroed"), exist_ok=True)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    sizes = HELDOUT if a.heldout else MODELS
    names = a.only.split(",") if a.only else list(sizes)
    with open(os.path.join(a.out, "manifest.jsonl"), "w") as man:
        for name in names:
            torch.manual_seed(0)
            size = sizes[name]
            model = torchvision.models.get_model(name, weights=None, weights_backbone=None).eval().to(device)
            if a.all_scores:
                for owner in (model, getattr(model, "roi_heads", None)):
                    if owner is not None and hasattr(owner, "score_thresh"):
                        owner.score_thresh = 0.0
            images = torch.rand(1, 3, size, size, device=device)
            wrapped = Flat(model)
            stem = "detection-%s%s_fp32" % (name, "-all_scores" if a.all_scores else "")
            rec = {"file": stem + ".pt", "inputs": ["images=1x3x%dx%d:float32" % (size, size)]}
            try:
                with torch.no_grad():
                    ts = torch.jit.trace(wrapped, (images,), check_trace=False, strict=False)
                ts.save(os.path.join(a.out, stem + ".pt"))
                with torch.no_grad():
                    for t in list(ts.parameters()) + list(ts.buffers()):
                        t.zero_()
                ts.save(os.path.join(a.out, "zeroed", stem + ".pt"))
            except Exception as e:
                rec["error"] = "trace: %s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0][:200])
            man.write(json.dumps(rec) + "\n")
            if a.all_scores:
                print(json.dumps(rec))
                continue
            rec = {"file": stem + ".pt2"}
            wrapped = Flat(torchvision.models.get_model(name, weights=None, weights_backbone=None).eval())
            try:
                ep = torch.export.export(wrapped, (images.cpu(),), strict=False)
                torch.export.save(ep, os.path.join(a.out, stem + ".pt2"))
                relative_in_place(os.path.join(a.out, stem + ".pt2"))
            except Exception as e:
                rec["error"] = "export: %s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0][:200])
            man.write(json.dumps(rec) + "\n")
            man.flush()
            print(json.dumps(rec))


if __name__ == "__main__":
    main()
