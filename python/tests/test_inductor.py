"""fusion="inductor": the CLI's --fusion inductor report, byte for byte, from load, analyze and
count; its views show Inductor's columns beside the greedy plan's as the CLI's JSON and text do."""

import glob
import json
import os

import pytest
import torch

import kernelcount
from conftest import MODELS, cli, cli_json

PT2 = sorted(glob.glob(os.path.join(MODELS, "*.pt2")))
BLOCK = os.path.join(MODELS, "transformer_block.pt2")
CONV = os.path.join(MODELS, "conv_bn_relu.pt2")
CHAIN = os.path.join(MODELS, "mul_add_gelu.pt2")


@pytest.mark.parametrize("path", PT2, ids=os.path.basename)
def test_json_and_text_equal_the_cli(path):
    r = kernelcount.load(path, fusion="inductor")
    assert r.to_json() == cli(path, "--fusion", "inductor", "--format", "json")[1]
    assert r.table(top=3) == cli(path, "--fusion", "inductor", "--top", "3")[1]
    assert r.table(by="op") == cli(path, "--fusion", "inductor", "--by", "op")[1]
    assert r.compiled and r.fusion_model == "inductor"


def test_every_view_is_the_clis():
    r = kernelcount.load(BLOCK, fusion="inductor")
    for by in ("line", "module", "op-type", "kernel"):
        assert r.table(by=by, legend=True) == cli(BLOCK, "--fusion", "inductor", "--by", by, "--legend")[1]
    assert r.markdown() == cli(BLOCK, "--fusion", "inductor", "--format", "markdown")[1]
    # Without fusion= (or with the default plan) the report is the greedy one, as the CLI's.
    plain = kernelcount.load(BLOCK)
    assert not plain.compiled and plain.fusion_model == "pointwise"
    assert kernelcount.load(BLOCK, fusion="pointwise").to_json() == plain.to_json()
    assert "pointwise_fused_kernels" not in plain.totals


def test_totals_are_inductors_beside_the_greedy_plans():
    r = kernelcount.load(CONV, fusion="inductor")
    plain = kernelcount.load(CONV)
    expected = cli_json(CONV, "--fusion", "inductor")["totals"]
    assert r.totals == expected
    assert r.fused_kernels == expected["fused_kernels"]  # Inductor's
    assert r.pointwise_fused_kernels == plain.fused_kernels  # the greedy plan's, as the default report has it
    assert r.eager_kernels == plain.eager_kernels
    assert f"{r.pointwise_fused_kernels} fused, {r.fused_kernels} inductor" in repr(r)


def test_rows_carry_both_plans():
    r = kernelcount.load(CHAIN, fusion="inductor")
    ops = r.records("ops")
    for row, op in zip(ops, r.data["ops"]):
        assert row["fusion_group"] == op["fusion_group"]
        assert row["pointwise_fusion_group"] == op["pointwise_fusion_group"]
        assert row["inductor"] == op["inductor"]
    assert "inductor" not in kernelcount.load(CHAIN).records("ops")[0]
    lines = r.by_line
    assert lines["fused_kernels"].sum() == r.fused_kernels
    assert lines["pointwise_fused_kernels"].sum() == r.pointwise_fused_kernels
    assert set(r.fusion["variant"]) == {"inductor", "pointwise+reduction", "pointwise"}
    # The groups of several ops, by plan, are the text report's P<n> and F<n> rows.
    text = r.table(by="op")
    for variant, letter in (("pointwise", "P"), ("inductor", "F")):
        for g in (g for plan in r.data["fusion"] if plan["variant"] == variant for g in plan["groups"]):
            if len(g["ops"]) > 1:
                assert f"\n{letter}{g['id']} " in text


def test_more_than_eager_is_the_jsons():
    r = kernelcount.load(CONV, fusion="inductor")
    assert r.records("more_than_eager") == r.data["more_than_eager"]
    assert len(r.more_than_eager) == len(r.data["more_than_eager"]) > 0
    assert r.records("more_than_eager")[0]["compiled_kernels"] > r.records("more_than_eager")[0]["eager_kernels"]
    assert kernelcount.load(CONV).records("more_than_eager") == []


def test_the_rich_view_shows_inductors_columns():
    r = kernelcount.load(CONV, fusion="inductor")
    html = r._repr_html_()
    t = r.totals
    assert "<th class=''>inductor</th>" in html
    assert f"<td class=''>{t['pointwise_fused_kernels']}</td><td class=''>{t['fused_kernels']}</td>" in html
    assert "Compiled groups that launch more kernels than eager" in html
    assert r.data["more_than_eager"][0]["why"] in html
    assert "<th class=''>inductor</th>" not in kernelcount.load(CONV)._repr_html_()


def test_a_review_keeps_the_plan(tmp_path):
    base = tmp_path / "base.json"
    base.write_text(cli(CHAIN, "--fusion", "inductor", "--format", "json")[1])
    review = kernelcount.load(BLOCK, fusion="inductor").diff(str(base), max_fused_kernels=100)
    assert review.table() == cli(BLOCK, "--fusion", "inductor", "--baseline", str(base), "--max-fused-kernels",
                                 "100")[1]


def test_a_bad_plan_is_an_error():
    with pytest.raises(kernelcount.Error, match="fusion='greedy'"):
        kernelcount.load(BLOCK, fusion="greedy")
    with pytest.raises(kernelcount.Error, match="fusion="):
        kernelcount.count(fusion="compile")


def test_analyze_and_count_take_the_plan(specs, tmp_path):
    model, args, dynamic_shapes = specs["mul_add_gelu.pt2"]
    r = kernelcount.analyze(model, args, dynamic_shapes=dynamic_shapes, fusion="inductor")
    path = str(tmp_path / "m.pt2")
    torch.export.save(torch.export.export(model, args, dynamic_shapes=dynamic_shapes, strict=False), path)
    got, want = json.loads(r.to_json()), cli_json(path, "--fusion", "inductor")
    got["model"].pop("path"), want["model"].pop("path")
    assert got == want
    with kernelcount.count(fusion="inductor") as kc:
        model(*args)
    assert kc.compiled
    assert kc.fused_kernels == r.fused_kernels
    assert kc.pointwise_fused_kernels == r.pointwise_fused_kernels
