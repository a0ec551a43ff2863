"""Regenerates the "count the kernels" exercises (exercises/NN-slug.json) from their specs below.

Every exercise is a model that kernelcount-validate measured on the H200: a test model
(data/results/models/NAME.json) or a reference case (data/results/truth_cases.json).
The answer's kernels, memcpys and memsets are copied per op from that measurement; its
transfers (array-sized HBM reads + writes, which no profiler counts) and host syncs are
kernelcount's predictions for the same archive. tests/exercises/check_exercises.py checks every
file against its measurement again. Run from the repository root after building:
  python3 exercises/make_exercises.py
"""
import ast
import json
import os
import subprocess
import sys

KC = "build/kernelcount"
HERE = os.path.dirname(os.path.abspath(__file__))
MODELS_PY = "tests/models/models.py"


def model_class(name, inputs):
    """The class's source from tests/models/models.py and the inputs make_models.py gave it."""
    src = open(MODELS_PY).read()
    for node in ast.parse(src).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return ast.get_source_segment(src, node) + "\n\n" + inputs
    sys.exit(f"no class {name} in {MODELS_PY}")


def case(body, inputs):
    """A reference case of research/truth/truth_cases.py, written out as a function."""
    return body + "\n\n" + inputs


N = "a, b = torch.randn(1_000_000, device='cuda'), torch.randn(1_000_000, device='cuda')"
X = "x = torch.randn(64, 512, 768, device='cuda')"
IMG = "img = torch.randn(32, 64, 56, 56, device='cuda')"

# slug, title, measured model (test:NAME or truth:CASE), Python source, question, hint, lesson
SPECS = [
    ("add", "a + b", "test:add",
     model_class("Add", "a, b = torch.randn(256, 1024), torch.randn(256, 1024)  # on the GPU"),
     "How many kernels does forward(a, b) launch, and how many array-sized HBM transfers (reads + writes) do they make?",
     "One pointwise op. Count the arrays it must read and the one it writes.",
     "One eager op, one kernel: it reads a and b from HBM and writes the sum back: 3 transfers."),
    ("add_relu", "(a + b).relu()", "test:add_relu",
     model_class("AddRelu", "a, b = torch.randn(256, 1024), torch.randn(256, 1024)  # on the GPU"),
     "How many kernels, and how many array-sized HBM transfers?",
     "Two ops. The sum is written to HBM by the first kernel and read back by the second.",
     "2 kernels, 5 transfers. Fused (torch.compile) it is 1 kernel and 3 transfers again: the sum never leaves the chip."),
    ("mul_add_gelu", "gelu(a * b + 1)", "test:mul_add_gelu",
     model_class("MulAddGelu", "a, b = torch.randn(256, 1024), torch.randn(256, 1024)  # on the GPU"),
     "How many kernels, and how many array-sized HBM transfers?",
     "Three pointwise ops. A Python number (1.0) is passed to the kernel, not read from HBM.",
     "3 kernels and 7 transfers; fused, one kernel reads a and b and writes the result: 3."),
    ("add_scalar", "a + 1", "truth:add_scalar",
     case("def forward(a):\n    return a + 1", N),
     "How many kernels, and how many array-sized HBM transfers?",
     "Is the 1 an array in HBM?",
     "A scalar travels with the launch as an argument: 1 kernel, 2 transfers (read a, write the result)."),
    ("expand_add", "broadcast add of a bias", "truth:expand_add",
     case("def forward(p, q):\n    return p + q   # q broadcasts over p's leading dims",
          "p = torch.randn(64, 512, 768, device='cuda')\nq = torch.randn(768, device='cuda')"),
     "How many kernels, and how many array-sized HBM transfers?",
     "Broadcasting does not copy q first; the kernel reads it in place.",
     "1 kernel, 3 transfers, though q is a small array: broadcasting is done by the kernel's indexing."),
    ("view_permute", "view and permute", "truth:view_reshape_float32",
     case("def forward(t):\n    return t.view(64, 512, 12, 64).permute(0, 2, 1, 3)", X.replace("x =", "t =")),
     "How many kernels, and how many array-sized HBM transfers?",
     "What changes when a tensor is viewed: the data, or only its shape and strides?",
     "Views change only the metadata the host keeps: 0 kernels, 0 transfers."),
    ("contiguous", "transpose(...).contiguous()", "truth:contiguous_T_float32",
     case("def forward(t):\n    return t.transpose(1, 2).contiguous()", X.replace("x =", "t =")),
     "How many kernels, and how many array-sized HBM transfers?",
     "The transpose is a view. What must contiguous() do with a transposed tensor?",
     "The transpose is free; contiguous() copies the strided data into a new row-major array: 1 kernel, 2 transfers."),
    ("clone_relu_", "a.clone().relu_()", "truth:relu_inplace",
     case("def forward(a):\n    return a.clone().relu_()", N),
     "How many kernels and memcpys, and how many array-sized HBM transfers?",
     "A clone of a contiguous tensor need not be a kernel. An in-place op reads and writes the same array.",
     "clone is a device-to-device memcpy (0 kernels), relu_ is 1 kernel: 2 + 2 transfers."),
    ("sum_last", "t.sum(-1)", "truth:sum_last_float32",
     case("def forward(t):\n    return t.sum(-1)", X.replace("x =", "t =")),
     "How many kernels, and how many array-sized HBM transfers?",
     "A reduction reads a big array and writes a small one.",
     "1 reduce kernel, 2 transfers: the output is 768 times smaller than the input."),
    ("softmax", "t.softmax(-1)", "truth:softmax_float32",
     case("def forward(t):\n    return t.softmax(-1)", X.replace("x =", "t =")),
     "How many kernels, and how many array-sized HBM transfers?",
     "Max, exponent, sum and divide: does eager PyTorch launch one kernel for each?",
     "PyTorch's softmax is one fused kernel per row: 1 kernel, 2 transfers."),
    ("layer_norm", "F.layer_norm", "truth:layer_norm_float32",
     case("def forward(t):\n    return F.layer_norm(t, (768,))", X.replace("x =", "t =")),
     "How many kernels, and how many array-sized HBM transfers?",
     "Like softmax, layer norm is a row-wise reduction and a pointwise step.",
     "1 fused kernel; without weight and bias it reads t and writes the result: 2 transfers."),
    ("mlp", "a small MLP with a residual", "test:mlp",
     model_class("MLP", "x = torch.randn(32, 64)  # on the GPU"),
     "How many kernels and memsets, and how many array-sized HBM transfers?",
     "GELU and the add are pointwise. A small fp32 Linear is not always one GEMM kernel: cuBLAS may split the sum over the inner dimension.",
     "Each small fp32 Linear here runs cuBLAS's split-K path (measured): scal_kernel scales the output (beta), sgemm_largek computes partial products over slices of K, an epilogue kernel adds them and the bias, and the partial sums need a zeroed workspace (the memset): 3 kernels + 1 memset. GELU and the add are one kernel each."),
    ("item", "t.sum().item(): a host sync", "truth:item",
     case("def forward(t):\n    return t.sum().item()", "t = torch.randn(1_000_000, device='cuda')"),
     "How many kernels, memcpys, memsets and host syncs?",
     "sum() of a big tensor into one value zeroes a small buffer first. item() brings the value to the CPU.",
     "sum: 1 kernel + 1 memset; item: a device-to-host memcpy, and the CPU waits for the GPU: 1 host sync."),
    ("bf16_linear", "a bf16 Linear (GEMM)", "truth:linear_bias_3d_bfloat16",
     case("lin = nn.Linear(768, 3072, device='cuda', dtype=torch.bfloat16)\n\ndef forward(x):\n    return lin(x)",
          "x = torch.randn(64, 512, 768, device='cuda', dtype=torch.bfloat16)"),
     "How many kernels and memsets, and how many array-sized HBM transfers?",
     "cuBLASLt's nvjet GEMM for bf16 zeroes a workspace before it runs.",
     "1 nvjet kernel + 1 memset; it reads x, the weight and the bias and writes the output: 4 transfers."),
    ("conv3x3", "a 3x3 convolution (cuDNN)", "truth:conv3x3_nobias_float32",
     case("conv = nn.Conv2d(64, 64, 3, padding=1, bias=False, device='cuda')\n\ndef forward(img):\n    return conv(img)", IMG),
     "How many kernels, and how many array-sized HBM transfers?",
     "cuDNN's implicit GEMM wants channels-last (NHWC) data; this tensor is NCHW.",
     "cuDNN transforms input and weight to NHWC (2 nchwToNhwcKernel), then runs the implicit GEMM, which writes NCHW directly: 3 kernels, measured. The transfers count the op's own arrays (input, weight, output), not the transforms' scratch copies."),
    ("conv_bn_relu", "a conv-bn-relu block", "test:conv_bn_relu",
     model_class("ConvBnRelu", "x = torch.randn(2, 16, 32, 32)  # on the GPU"),
     "How many kernels, and how many array-sized HBM transfers?",
     "A conv with a bias adds the bias in its own kernel. Inference batch norm in fp32 is one cuDNN kernel and reads four small per-channel arrays.",
     "conv 2 + batch norm 1 + relu 1 = 4 kernels; fused, batch norm and relu become one kernel."),
    ("batchnorm_bf16", "inference batch norm in bf16", "truth:batchnorm_eval_bfloat16",
     case("bn = nn.BatchNorm2d(64, device='cuda', dtype=torch.bfloat16).eval()\n\ndef forward(img):\n    return bn(img)",
          IMG.replace("device='cuda')", "device='cuda', dtype=torch.bfloat16)")),
     "How many kernels, and how many array-sized HBM transfers?",
     "In fp32 cuDNN does it in one kernel. In bf16 PyTorch's native path first prepares the scale and shift.",
     "3 kernels in bf16 (two small ones prepare the per-channel scale and shift), against 1 in fp32."),
    ("masked_fill", "t.masked_fill(m, 0.0)", "truth:masked_fill",
     case("def forward(t, m):\n    return t.masked_fill(m, 0.0)", "t = torch.randn(1_000_000, device='cuda')\nm = t > 0"),
     "How many kernels and memcpys, and how many array-sized HBM transfers?",
     "Out-of-place masked_fill is a copy followed by the in-place fill.",
     "A device-to-device memcpy of t, then 1 fill kernel; the op reads t and m and writes the result: 3 transfers."),
    ("sdpa_bf16", "attention in bf16", "truth:sdpa_bfloat16",
     case("def forward(q):\n    return F.scaled_dot_product_attention(q, q, q)",
          "q = torch.randn(8, 12, 512, 64, device='cuda', dtype=torch.bfloat16)"),
     "How many kernels and memsets, and how many array-sized HBM transfers?",
     "Fused (flash) attention never writes the 512x512 score matrix to HBM.",
     "1 cuDNN flash-attention kernel + 1 memset; q is read once (the same array three times) and the output written: 2 transfers."),
    ("transformer_block", "a transformer block", "test:transformer_block",
     model_class("TransformerBlock", "x = torch.randn(2, 16, 64)  # on the GPU; d=64, heads=4, mlp_ratio=2"),
     "How many kernels and memsets, and how many array-sized HBM transfers?",
     "Go line by line: layer norms, Linears (small fp32 Linears: see exercise 12), reshapes, permutes and selects (views?), attention, GELU, adds.",
     "Norms, attention, GELU and the adds are one kernel each; each small fp32 Linear is 3 kernels + 1 memset; every reshape, permute, select and transpose here is a view: 18 kernels, 4 memsets."),
]


def measurement(spec):
    kind, name = spec.split(":")
    if kind == "test":
        path = f"data/results/models/{name}.json"
        return path, json.load(open(path))
    path = "data/results/truth_cases.json"
    return f"{path}#{name}", json.load(open(path))[name]


def main():
    for old in os.listdir(HERE):
        if old.endswith(".json"):
            os.remove(os.path.join(HERE, old))
    for number, (slug, title, spec, python, question, hint, lesson) in enumerate(SPECS, 1):
        where, meas = measurement(spec)
        model = meas["model"]["path"]
        out = subprocess.run([KC, model, "--format", "json"], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"kernelcount failed on {model}: {out.stderr.strip()}")
        pred = json.loads(out.stdout)
        assert len(pred["ops"]) == len(meas["ops"]), f"{slug}: {len(pred['ops'])} ops predicted, {len(meas['ops'])} measured"
        ops = []
        for p, m in zip(pred["ops"], meas["ops"]):
            assert p["op"] == m["op"], (slug, p["op"], m["op"])
            ops.append({"index": m["index"], "op": m["op"], "source": m.get("source", ""),
                        "rule": p["launches"]["fitting_rule"], "measured_shape": p["launches"]["rule"] == "measured", "kernels": m["measured"]["kernels"],
                        "memcpy": m["measured"]["memcpy"], "memset": m["measured"]["memset"],
                        "transfers": p["hbm"]["reads"] + p["hbm"]["writes"],
                        "kernel_names": m["measured"]["kernel_names"]})
        answer = {"kernels": sum(o["kernels"] for o in ops), "memcpy": sum(o["memcpy"] for o in ops),
                  "memset": sum(o["memset"] for o in ops), "host_syncs": pred["totals"]["host_syncs"],
                  "transfers": pred["totals"]["eager_hbm_transfers"], "ops": ops}
        doc = {"number": number, "slug": slug, "title": title, "python": python, "question": question,
               "hint": hint, "lesson": lesson, "model": model, "measurement": where,
               "answer_source": "kernels, memcpy and memset: measured on an NVIDIA H200 by kernelcount-validate "
                                "(the file in `measurement`); transfers and host_syncs: kernelcount's prediction",
               "answer": answer}
        with open(os.path.join(HERE, f"{number:02d}-{slug}.json"), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    print(f"{len(SPECS)} exercises in {HERE}")


if __name__ == "__main__":
    main()
