"""kernelcount.count(): the ops a forward runs, recorded in dispatch mode, give the export's
counts on the test models that export, and count the ones that do not."""

import pytest
import torch

import kernelcount

# Where the two readings differ, the count reads the run and the export a graph without data
# (docs/python.md, "Where count() and the export differ"); each test below shows the difference
# is only that, by giving the export's reading the run's data:
#  control_flow.pt2: cond's branch and while_loop's trips are decided by the data; the export's
#    reading counts the larger branch and one trip;
#  detection_head.pt2: how many boxes nms keeps is decided by the data; the export's reading
#    takes its symbol's lower bound.
DIFFER = {"control_flow.pt2", "detection_head.pt2"}
SAME = ["add.pt2", "add_relu.pt2", "mul_add_gelu.pt2", "mlp.pt2", "conv_bn_relu.pt2", "transformer_block.pt2",
        "dynamic_batch.pt2", "bf16_linear.pt2", "autocast_off.pt2", "invoke_subgraph.pt2", "spectral.pt2"]
# The export names a nested_compile_region's ops by the region's call site and no module; the
# dispatch mode by the line inside the region and the module running it.
SOURCE_DIFFERS = {"invoke_subgraph.pt2"}
# Ops torch.export adds of its own (checks on tensors entering a region), which launch nothing.
EXPORT_ONLY = {"aten::_assert_tensor_metadata"}


def counted(model, args, **kw):
    with kernelcount.count(**kw) as kc:
        model(*args)
    return kc


@pytest.mark.parametrize("name", SAME)
def test_dispatch_count_equals_the_export(name, specs):
    model, args, _ = specs[name]
    exported = kernelcount.analyze(model, args)
    kc = counted(model, args)
    assert kc.how == "dispatch"
    assert kc.model == (f"{type(model).__name__} (ATen ops recorded in dispatch mode by kernelcount.count(); "
                        "cpu tensors counted as on the GPU)")
    extra = sum(op["op"] in EXPORT_ONLY for op in exported.data["ops"])
    expected = dict(exported.totals, ops=exported.totals["ops"] - extra)
    assert kc.totals == expected
    # The same ops on the same source lines and modules.
    kept = [op for op in exported.data["ops"] if op["op"] not in EXPORT_ONLY]
    assert [op["op"] for op in kc.data["ops"]] == [op["op"] for op in kept]
    if name in SOURCE_DIFFERS:
        return
    assert [(op["source"], op["module"], op["module_class"]) for op in kc.data["ops"]] == \
        [(op["source"], op["module"], op["module_class"]) for op in kept]


def export_totals(report):
    """The totals less the ops torch.export adds of its own, which launch nothing."""
    extra = sum(op["op"] in EXPORT_ONLY for op in report.data["ops"])
    return dict(report.totals, ops=report.totals["ops"] - extra)


def test_every_test_export_is_compared(specs):
    assert sorted(SAME + sorted(DIFFER)) == sorted(specs)


def test_control_flow_differs_by_the_trips_the_run_makes(specs):
    model, (x, xs, i), _ = specs["control_flow.pt2"]
    # The export's reading: cond's larger branch (the true one here), one while_loop trip.
    notes = kernelcount.analyze(model, (x, xs, i)).data["model"]["notes"]
    assert any("counted the true branch" in n for n in notes) and any("counted one trip" in n for n in notes)
    # Inputs for which the run takes that branch and makes one trip (i = 2 < 3): the same counts.
    one_trip = (x.abs() + 0.1, xs, torch.tensor(2))
    assert counted(model, one_trip).totals == export_totals(kernelcount.analyze(model, one_trip))
    # Three trips (i = 0): the run's two more trips each read the condition once more (a sync).
    three = (x.abs() + 0.1, xs, torch.tensor(0))
    kc, exported = counted(model, three), kernelcount.analyze(model, three)
    assert kc.host_syncs - exported.host_syncs == 2 and kc.eager_kernels > exported.eager_kernels
    # The false branch (the smaller) taken: fewer kernels than the export's reading.
    false_branch = (-x.abs() - 0.1, xs, torch.tensor(2))
    assert counted(model, false_branch).eager_kernels < kernelcount.analyze(model, false_branch).eager_kernels


def test_nms_differs_by_the_boxes_the_run_keeps(specs):
    model, args, _ = specs["detection_head.pt2"]
    kc = counted(model, args)
    exported = kernelcount.analyze(model, args)
    assert "symbol u0 = 100 (data-dependent: nms keeps every box it is given; set it with --dim u0=N)" in \
        exported.data["model"]["notes"]
    assert kc.totals != export_totals(exported)
    # The export read with the run's number of kept boxes: the same counts and bytes.
    kept = len(model(*args)[1])
    assert kept != 100
    assert kc.totals == export_totals(kernelcount.analyze(model, args, dims={"u0": kept}))


def test_fake_tensors_count_the_same(specs):
    model, args, _ = specs["transformer_block.pt2"]
    assert counted(model, args, fake=True).totals == counted(model, args).totals


def test_meta_tensors_count_the_same(specs):
    model, args, _ = specs["mlp.pt2"]
    meta = type(model)().to("meta").eval()
    kc = counted(meta, tuple(a.to("meta") for a in args))
    assert kc.totals == counted(model, args).totals
    assert kc.model.endswith("(ATen ops recorded in dispatch mode by kernelcount.count(); meta tensors counted as on the GPU)")


def test_a_model_that_does_not_export_is_counted():
    class DataDependent(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(16, 16)

        def forward(self, x):
            for _ in range(3):  # Python control flow on data: no export, three rounds here
                if x.sum() > 0:
                    x = self.fc(x).relu()
            return x

    x = torch.ones(4, 16)
    kc = counted(DataDependent(), (x,))
    per_round = counted(torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU()), (x,))
    assert kc.how == "dispatch"
    assert kc.unknown_ops == 0
    # Each round: the sum, the comparison and its host read, then linear and relu.
    assert kc.eager_kernels >= 3 * per_round.eager_kernels
    assert kc.host_syncs == 3
    assert {op["module"] for op in kc.data["ops"]} == {"", "fc"}


def test_an_exception_inside_leaves_no_recorder_behind():
    with pytest.raises(ValueError):
        with kernelcount.count():
            torch.ones(2) + 1
            raise ValueError("inside")
    kc = counted(lambda x: x + 1, (torch.ones(2),))
    assert len(kc.data["ops"]) == 1


def test_tensors_made_from_python_data_count_their_copy_as_the_export():
    class Offsets(torch.nn.Module):
        def forward(self, x):
            return x * torch.tensor([1.0, 2.0, 3.0, 4.0])

    model, x = Offsets(), torch.ones(8, 4)
    exported = kernelcount.analyze(model, (x,))
    kc = counted(model, (x,))
    assert kc.memcpy == exported.memcpy == 1
    assert kc.totals == exported.totals


def test_inference_fast_paths_are_counted_as_they_run():
    # Under no_grad, an eval-mode encoder layer takes the fused fast path that eager runs
    # and torch.export does not: the count follows the run.
    layer = torch.nn.TransformerEncoderLayer(32, 4, 64, batch_first=True).eval()
    x = torch.randn(2, 8, 32)
    with_grad = counted(layer, (x,))
    assert with_grad.totals == kernelcount.analyze(layer, (x,)).totals
    with torch.no_grad():
        fast = counted(layer, (x,))
    assert [op["op"] for op in fast.data["ops"]] == ["aten::_transformer_encoder_layer_fwd"]
    assert fast.ops < with_grad.ops


class Arguments(torch.nn.Module):
    """Every kind of argument the recorder writes: optional tensor lists (indexing with None),
    non-finite floats, dtypes, devices, layouts, int and bool lists, keyword-only arguments,
    tensor lists, in-place ops, buffers and several outputs."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.full((16,), 0.5))

    def forward(self, x, idx):
        mask = x > 0.5
        y = x.masked_fill(mask, float("-inf")).softmax(-1)
        z = torch.zeros(x.shape[0], 16, dtype=torch.bfloat16, device=x.device, layout=torch.strided)
        z = z + y.to(torch.bfloat16)
        w = x[idx][:, None].squeeze(1) * self.scale
        w.add_(1.0, alpha=2)
        s = torch.cat([w, y], dim=0).sum(dim=[0], keepdim=True)
        p = torch.nn.functional.pad(x, (1, 1), value=float("nan"))
        v, i = x.max(dim=1)
        return z.float() + s, p, torch.where(mask, x, 0.0), v, i


def test_every_kind_of_argument_counts_as_the_export():
    model = Arguments().eval()
    args = (torch.rand(8, 16), torch.tensor([0, 2, 4]))
    exported = kernelcount.analyze(model, args)
    kc = counted(model, args)
    assert kc.unknown_ops == exported.unknown_ops == 0
    assert kc.totals == dict(exported.totals, ops=exported.totals["ops"] - sum(
        op["op"] in EXPORT_ONLY for op in exported.data["ops"]))


def test_a_torchvision_resnet_counts_as_its_export():
    import torchvision

    torch.manual_seed(0)
    model, x = torchvision.models.resnet18().eval(), torch.randn(1, 3, 64, 64)
    exported = kernelcount.analyze(model, (x,))
    kc = counted(model, (x,))
    assert kc.totals == exported.totals
    assert kc.data["by_module"] == exported.data["by_module"]
    assert kc.data["module_tree"] == exported.data["module_tree"]


def test_nothing_recorded_is_an_error():
    with pytest.raises(kernelcount.Error, match="no ATen op ran"):
        with kernelcount.count():
            pass
