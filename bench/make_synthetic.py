#!/usr/bin/env python3
"""Writes big synthetic .pt2 archives directly as JSON + zip, without PyTorch, for the scale
benchmark: a chain of N pointwise ops (add with a second input, then relu, alternating) on a
[256, 1024] float32 tensor, every node with a short stack trace and module stack; optionally one
node carrying a stack trace of the given size.

Usage: make_synthetic.py OUT.pt2 --ops N [--stack-trace-bytes B]
The archive has the layout torch.export writes (models/model.json, archive_format, .data/version,
byteorder); no weights.
"""
import argparse
import json
import os
import zipfile

SHAPE = [256, 1024]


def tensor_meta():
    return {"dtype": 7, "sizes": [{"as_int": s} for s in SHAPE], "requires_grad": False,
            "device": {"type": "cpu", "index": None}, "strides": [{"as_int": SHAPE[1]}, {"as_int": 1}],
            "storage_offset": {"as_int": 0}, "layout": 7}


def node(i, target, inputs, out, trace):
    return {"target": target,
            "inputs": [{"name": n, "arg": {"as_tensor": {"name": v}}, "kind": 1} for n, v in inputs],
            "outputs": [{"as_tensor": {"name": out}}],
            "metadata": {"stack_trace": trace, "nn_module_stack": "L__self__,,synthetic.Chain",
                         "torch_fn": f"op_{i};method_descriptor"},
            "is_hop_single_tensor_return": None, "name": out}


def write(path, ops, trace_bytes):
    nodes, values = [], {"x": tensor_meta(), "y": tensor_meta()}
    prev = "x"
    for i in range(ops):
        out = f"v{i}"
        line = 10 + i % 1000
        trace = f'File "bench/synthetic.py", line {line}, in forward\n    x = step(x)'
        if trace_bytes and i == ops // 2:
            frame = 'File "site-packages/torch/nn/modules/module.py", line 1775, in _call_impl\n    return forward_call(*args)\n'
            trace = frame * (trace_bytes // len(frame)) + trace
        if i % 2 == 0:
            nodes.append(node(i, "torch.ops.aten.add.Tensor", [("self", prev), ("other", "y")], out, trace))
        else:
            nodes.append(node(i, "torch.ops.aten.relu.default", [("self", prev)], out, trace))
        values[out] = tensor_meta()
        prev = out
    model = {
        "graph_module": {
            "graph": {"inputs": [{"as_tensor": {"name": "x"}}, {"as_tensor": {"name": "y"}}],
                      "outputs": [{"as_tensor": {"name": prev}}], "nodes": nodes, "tensor_values": values,
                      "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": False,
                      "custom_obj_values": {}, "sym_float_values": {}},
            "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}},
                                          {"user_input": {"arg": {"as_tensor": {"name": "y"}}}}],
                          "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": prev}}}}]},
            "module_call_graph": []},
        "opset_version": {"aten": 10}, "range_constraints": {}, "schema_version": {"major": 8, "minor": 17},
        "verifiers": ["TRAINING"], "torch_version": "2.11.0+cu130", "guards_code": []}
    name = os.path.splitext(os.path.basename(path))[0]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"{name}/models/model.json", json.dumps(model))
        z.writestr(f"{name}/data/weights/model_weights_config.json", '{"config": {}}')
        z.writestr(f"{name}/data/constants/model_constants_config.json", '{"config": {}}')
        z.writestr(f"{name}/archive_format", "pt2")
        z.writestr(f"{name}/archive_version", "0")
        z.writestr(f"{name}/.data/version", "3\n")
        z.writestr(f"{name}/byteorder", "little")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--ops", type=int, required=True)
    ap.add_argument("--stack-trace-bytes", type=int, default=0)
    a = ap.parse_args()
    write(a.out, a.ops, a.stack_trace_bytes)


if __name__ == "__main__":
    main()
