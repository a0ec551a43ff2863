#!/usr/bin/env python3
"""Writes test models derived from the exported ones by editing models/model.json in the
archive; needs only the Python standard library (no torch). Run from the repository root:

    python3 tests/models/make_variants.py

- env_paths.pt2: transformer_block.pt2 as if exported from a torchvision-style package
  installed in an environment whose path contains "torch" (/opt/torch/.venv/...), called from
  the user's own wrapper module. Every frame's path then contains "/torch/"; only the frames
  under site-packages/torch/ are PyTorch's own. `--by line` must name the model's lines
  (.../torchvision/models/models.py:70...), not put every op on the wrapper's line.
- mlp_unruled_act.pt2: mlp.pt2 with its GELU replaced by aten::bernoulli.p (random 0/1 with
  probability 0.5, the input's values unused, so it runs on any input), an op no launch rule
  covers: a change that lowers the known kernel count while adding an unknown op, which a
  kernel-increase budget must not let through.
- transformer_block_edited.pt2: transformer_block.pt2 after a review-sized edit of models.py: a
  comment line inserted above line 73 (lines 73-75 move to 74-76, unchanged) and a `.clone()`
  added to the projection on the line that is now 75 (`x = x + self.proj(a).clone()`): one more
  kernel on one changed line, which review findings must point at, and at no moved line.
"""
import json
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = "/opt/torch/.venv/lib/python3.12/site-packages"
USER_FILE = "/opt/torch/project/train.py"


def rewrite(src, dst, edit):
    """Copies the archive entry by entry, in order and uncompressed, editing model.json."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json"):
                model = json.loads(data)
                edit(model)
                data = json.dumps(model, sort_keys=False).encode()
            entry = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            zout.writestr(entry, data)


def env_paths(model, wrapper=True):
    for node in model["graph_module"]["graph"]["nodes"]:
        meta = node.get("metadata", {})
        trace = meta.get("stack_trace")
        if not trace:
            continue
        trace = trace.replace('File "tests/models/models.py"', f'File "{ENV}/torchvision/models/models.py"')
        trace = trace.replace('File "torch/', f'File "{ENV}/torch/')
        # The user's wrapper calls the packaged model: the outermost frame.
        outer = f'File "{USER_FILE}", line 12, in forward\n    return self.model(x)\n  ' if wrapper else ""
        meta["stack_trace"] = outer + trace


def unruled_act(model):
    for node in model["graph_module"]["graph"]["nodes"]:
        if node["target"] == "torch.ops.aten.gelu.default":
            node["target"] = "torch.ops.aten.bernoulli.p"
            node["inputs"] = [i for i in node["inputs"] if i["name"] == "self" or i["name"] == "input"]
            for i in node["inputs"]:
                i["name"] = "self"
            node["inputs"].append({"name": "p", "arg": {"as_float": 0.5}, "kind": 1})


def edited_transformer(model):
    import re
    nodes = model["graph_module"]["graph"]["nodes"]
    values = model["graph_module"]["graph"]["tensor_values"]

    def shift(match):
        line = int(match.group(1))
        return f'File "tests/models/models.py", line {line + 1 if line >= 73 else line}'

    for node in nodes:
        meta = node.get("metadata", {})
        if meta.get("stack_trace"):
            trace = re.sub(r'File "tests/models/models\.py", line (\d+)', shift, meta["stack_trace"])
            meta["stack_trace"] = trace.replace("x = x + self.proj(a)", "x = x + self.proj(a).clone()")
    # The residual add reads the projection through a clone.
    at = next(i for i, n in enumerate(nodes) if n["name"] == "add")
    proj = nodes[at]["inputs"][1]["arg"]["as_tensor"]["name"]
    values["clone"] = json.loads(json.dumps(values[proj]))
    clone = {
        "target": "torch.ops.aten.clone.default",
        "inputs": [{"name": "self", "arg": {"as_tensor": {"name": proj}}, "kind": 1}],
        "outputs": [{"as_tensor": {"name": "clone"}}],
        "metadata": dict(nodes[at]["metadata"], torch_fn="clone;method_descriptor.clone"),
        "is_hop_single_tensor_return": None,
        "name": "clone",
    }
    nodes[at]["inputs"][1]["arg"]["as_tensor"]["name"] = "clone"
    nodes.insert(at, clone)


def main():
    if sys.argv[1:] == ["--expected-golden"]:
        # Writes env_paths.pt2 without the wrapper frame, whose outermost frame is then the
        # model's own: any classifier names the right lines. The golden for the real file is
        # the report of this one (tests/golden/check.sh ... --update on cases_env_paths.txt);
        # run the script again without the flag afterwards.
        rewrite(os.path.join(HERE, "transformer_block.pt2"), os.path.join(HERE, "env_paths.pt2"),
                lambda m: env_paths(m, wrapper=False))
        return 0
    rewrite(os.path.join(HERE, "transformer_block.pt2"), os.path.join(HERE, "env_paths.pt2"), env_paths)
    rewrite(os.path.join(HERE, "mlp.pt2"), os.path.join(HERE, "mlp_unruled_act.pt2"), unruled_act)
    rewrite(os.path.join(HERE, "transformer_block.pt2"), os.path.join(HERE, "transformer_block_edited.pt2"),
            edited_transformer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
