"""The report object: tables that add up to the totals, review as the CLI's --baseline and
budgets, the rich view, and an import that loads neither torch nor the core until used."""

import json
import os
import subprocess
import sys

import kernelcount
from conftest import MODELS, cli

BLOCK = os.path.join(MODELS, "transformer_block.pt2")
MLP = os.path.join(MODELS, "mlp.pt2")


def test_tables_add_up_to_the_totals():
    r = kernelcount.load(BLOCK)
    ops = r.by_op
    assert len(ops) == r.ops
    assert ops["kernels"].sum() == r.eager_kernels
    assert (ops["hbm_read_bytes"] + ops["hbm_write_bytes"]).sum() == r.eager_hbm_bytes
    assert r.by_line["eager_kernels"].sum() == r.eager_kernels
    assert r.by_op_type["ops"].sum() == r.ops
    assert r.by_module["hbm_bytes"].sum() == r.eager_hbm_bytes
    assert r.by_kernel["launches"].sum() == r.eager_kernels + r.memcpy + r.memset
    assert set(r.fusion["variant"]) == {"pointwise", "pointwise+reduction"}
    assert r.records("lines") == r.data["by_line"]


def test_diff_and_budgets_are_the_cli_review(tmp_path):
    base = kernelcount.load(MLP)
    r = kernelcount.load(BLOCK)
    review = r.diff(base, max_kernel_increase=0, max_kernels=100)
    status, out, err = cli(BLOCK, "--baseline", MLP, "--max-kernel-increase", "0", "--max-kernels", "100",
                           "--format", "json")
    assert review.status == status == 1
    assert review.verdict == "fail"
    expected = json.loads(out)
    assert review.data["budgets"] == expected["budgets"]
    assert review.baseline["totals"] == expected["baseline"]["totals"]
    assert review.baseline["op_types"] == expected["baseline"]["op_types"]
    assert review.notes == err.splitlines()
    assert review.totals()["eager_kernels"] == (base.eager_kernels, r.eager_kernels)
    # Against a report file the CLI wrote: the same review, baseline named as given.
    report = tmp_path / "base.json"
    report.write_text(cli(MLP, "--format", "json")[1])
    by_file = r.diff(str(report), max_kernel_increase=0, max_kernels=100)
    assert by_file.table() == cli(BLOCK, "--baseline", str(report), "--max-kernel-increase", "0",
                                  "--max-kernels", "100")[1]
    assert r.check(max_kernels=r.eager_kernels).verdict == "pass"
    assert r.check(max_kernels=r.eager_kernels - 1).verdict == "fail"
    assert r.check().verdict == "none"


def test_html_holds_the_summary_top_lines_and_fusion_groups():
    r = kernelcount.load(os.path.join(MODELS, "mul_add_gelu.pt2"))
    html = r._repr_html_()
    assert "Summary" in html and "Source lines" in html and "Fusion groups" in html
    assert f"<td class=''>{r.eager_kernels}</td><td class=''>{r.fused_kernels}</td>" in html
    top = max(r.data["by_line"], key=lambda l: l["eager_kernels"])
    assert top["line"] in html
    saving = [g for p in r.data["fusion"] for g in p["groups"] if p["variant"] == "pointwise" and g["saved_kernels"]]
    assert saving and f"<td class=''>{saving[0]['eager_kernels']}</td><td class=''>{saving[0]['fused_kernels']}</td>" in html


def test_import_loads_nothing_until_first_use():
    # What keeps the import cheap (its time is measured by python/bench_import.py, not here):
    # neither torch, pandas nor the core is imported until a report needs one.
    code = ("import sys, kernelcount; heavy = ('torch', 'pandas', 'kernelcount._core'); "
            "print(*[m in sys.modules for m in heavy]); kernelcount.Error; "
            "print(*[m in sys.modules for m in heavy])")
    before, after = subprocess.check_output([sys.executable, "-c", code], text=True).splitlines()
    assert before.split() == ["False", "False", "False"]
    assert after.split() == ["False", "False", "True"]
