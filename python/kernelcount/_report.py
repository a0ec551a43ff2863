"""The report object: the CLI's JSON report, read back, with its views and the CLI's renderers.

Every number comes from the C++ core (kernelcount._core.run, the CLI's report run); nothing
here computes a count. The JSON schema is docs/json.md.
"""

import json
import os
import tempfile

from . import _core

Error = _core.Error
Error.__doc__ = "Bad input or usage: the one-line message the CLI prints after 'kernelcount: error: '."

# How a report's graph was made, as Report.how names it.
HOW = {
    "archive": "a model archive read from disk",
    "export": "torch.export in this process",
    "dispatch": "ATen ops recorded in dispatch mode by kernelcount.count()",
}

# Budget keywords and the CLI options they are (docs/usage.md, Review and budgets).
BUDGETS = {
    "max_kernels": "--max-kernels",
    "max_fused_kernels": "--max-fused-kernels",
    "max_bytes": "--max-bytes",
    "max_unknown": "--max-unknown",
    "max_host_syncs": "--max-host-syncs",
    "max_kernel_increase": "--max-kernel-increase",
    "max_bytes_increase": "--max-bytes-increase",
}


def _targets():
    return list(_core.targets())


# The plans a report's fused columns can hold (the CLI's --fusion).
FUSION = ("pointwise", "inductor")


def _load_args(target, dims, inputs=None, fusion=None):
    args = []
    if target:
        args += ["--target", target]
    if fusion is not None:
        if fusion not in FUSION:
            raise Error(f"fusion={fusion!r}: must be one of {', '.join(FUSION)}")
        args += ["--fusion", fusion]
    for name, value in (dims or {}).items():
        args += ["--dim", f"{name}={int(value)}"]
    if isinstance(inputs, str):
        inputs = [inputs]
    elif isinstance(inputs, dict):
        inputs = [f"{name}={spec}" for name, spec in inputs.items()]
    for spec in inputs or ():
        args += ["--input", spec]
    return args


def _budget_args(budgets):
    args = []
    for key, value in budgets.items():
        if key not in BUDGETS:
            raise TypeError(f"unknown budget {key!r} (known: {', '.join(BUDGETS)})")
        if value is not None:
            args += [BUDGETS[key], str(value)]
    return args


def load(path, *, target=None, dims=None, inputs=None, fusion=None):
    """Reads a model file and analyzes it, as `kernelcount PATH`: see kernelcount.load."""
    return Report(os.fspath(path), how="archive", args=_load_args(target, dims, inputs, fusion))


class Report:
    """A model's report: totals as attributes (r.ops, r.eager_kernels, r.eager_hbm_bytes, ...),
    tables as DataFrames (r.by_op, by_line, by_module, module_tree, by_op_type, by_kernel, fusion;
    pandas is needed for these alone, records() gives the rows without it), the CLI's text
    (table()), its JSON (to_json()), review against another report (diff, check).
    With fusion="inductor" the fused columns are the model of what torch.compile launches and
    the greedy plan's stand beside them (r.pointwise_fused_kernels, r.more_than_eager).
    """

    def __init__(self, path, *, how, display="", args=(), keep=None):
        self.path = path  # the file the core read
        self.how = how  # "archive", "export" or "dispatch" (HOW)
        self._display = display
        self._args = list(args)
        self._keep = keep  # a temporary folder holding path, removed with the report
        _, self._json, _ = _core.run([path, "--format", "json", *self._args], display)
        self.data = json.loads(self._json)
        self.totals = dict(self.data["totals"])

    def __getattr__(self, name):
        totals = self.__dict__.get("totals")
        if totals is not None and name in totals:
            return totals[name]
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.totals))

    @property
    def model(self):
        """The model as the report names it (the path, or what was exported in-process)."""
        return self.data["model"]["path"]

    @property
    def target(self):
        return self.data["target"]["name"]

    @property
    def fusion_model(self):
        """Whose plan the fused columns are: "pointwise" (greedy chains) or "inductor"."""
        return "inductor" if self.compiled else "pointwise"

    @property
    def compiled(self):
        """Whether the fused columns are Inductor's (fusion="inductor"): the compiled view."""
        return self.data["fusion"][0]["variant"] == "inductor"

    def _run(self, fmt, extra=(), display=None):
        status, text, notes = _core.run([self.path, "--format", fmt, *self._args, *extra],
                                        self._display if display is None else display)
        return status, text, notes

    def table(self, by="summary", *, top=None, sort=None, depth=None, legend=False):
        """The CLI's text report: `by` is summary, op, line, module or op-type."""
        extra = ["--by", by]
        if top is not None:
            extra += ["--top", str(top)]
        if sort:
            extra += ["--sort", sort]
        if depth is not None:
            extra += ["--depth", str(depth)]
        if legend:
            extra += ["--legend"]
        return self._run("text", extra)[1]

    def to_json(self):
        """The CLI's JSON report (`--format json`), as text."""
        return self._json

    def markdown(self):
        """The CLI's markdown report (`--format markdown`)."""
        return self._run("markdown")[1]

    def __str__(self):
        return self.table()

    def __repr__(self):
        t = self.totals
        fused = (f"{t['pointwise_fused_kernels']} fused, {t['fused_kernels']} inductor" if self.compiled
                 else f"{t['fused_kernels']} fused")
        return (f"<kernelcount.Report {self.model}: {t['ops']} ops, {t['eager_kernels']} kernels "
                f"({fused}), {t['eager_hbm_bytes']} HBM bytes, "
                f"{t['unknown_ops']} unknown; via {HOW[self.how]}>")

    def _repr_html_(self):
        from ._html import report_html

        return report_html(self)

    # ---- tables

    def records(self, view):
        """Rows of a view as dicts: ops, lines, modules, module_tree, op_types, kernels, fusion,
        and with fusion="inductor" more_than_eager (the compiled groups launching more than eager)."""
        if view == "more_than_eager":
            return [dict(r) for r in self.data.get("more_than_eager", [])]
        if view == "ops":
            return [_op_row(op) for op in self.data["ops"]]
        if view == "lines":
            return [dict(r) for r in self.data["by_line"]]
        if view == "modules":
            return [dict(r) for r in self.data["by_module"]]
        if view == "module_tree":
            return [dict(r) for r in self.data["module_tree"]]
        if view == "op_types":
            return [dict(r) for r in self.data["by_op_type"]]
        if view == "kernels":
            return _kernel_rows(self.data["ops"])
        if view == "fusion":
            return [_fusion_row(plan["variant"], g) for plan in self.data["fusion"] for g in plan["groups"]]
        raise ValueError(f"unknown view {view!r} (ops, lines, modules, module_tree, op_types, kernels, fusion, "
                         "more_than_eager)")

    def frame(self, view):
        """A view as a pandas DataFrame (pandas is imported only here)."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError(f"pandas is needed for DataFrames; report.records({view!r}) gives the rows") from e
        return pandas.DataFrame.from_records(self.records(view))

    # Named as the CLI's --by views and the JSON's by_* keys; the totals keep the plain names.
    by_op = property(lambda self: self.frame("ops"), doc="One row per op, in execution order.")
    by_line = property(lambda self: self.frame("lines"), doc="One row per source line.")
    by_module = property(lambda self: self.frame("modules"), doc="One row per module (its own ops).")
    module_tree = property(lambda self: self.frame("module_tree"), doc="Modules, inclusive totals.")
    by_op_type = property(lambda self: self.frame("op_types"), doc="One row per op type.")
    by_kernel = property(lambda self: self.frame("kernels"), doc="One row per kernel name family.")
    fusion = property(lambda self: self.frame("fusion"), doc="Fusion groups of every plan.")
    more_than_eager = property(lambda self: self.frame("more_than_eager"),
                               doc="fusion='inductor': the compiled groups that launch more than eager.")

    # ---- review

    def check(self, **budgets):
        """Budgets alone (max_kernels=400, max_bytes="2G", ...): a Review with the verdict."""
        return Review(self, None, _budget_args(budgets))

    def diff(self, other, **budgets):
        """This report against `other` (the baseline: a Report, or a path to a model or JSON
        report), with budgets (max_kernel_increase=0, ...): the CLI's --baseline review."""
        return Review(self, other, _budget_args(budgets))


class Review:
    """A review as the CLI makes it with --baseline and budgets: verdict, budget checks,
    changed totals and rows (JSON `budgets`, `baseline`), the text and markdown reports."""

    def __init__(self, report, baseline, budget_args):
        self.report = report
        extra = list(budget_args)
        tmp = None
        shown = None
        if isinstance(baseline, Report):
            tmp = tempfile.TemporaryDirectory(prefix="kernelcount-")
            path = os.path.join(tmp.name, "baseline.json")
            with open(path, "w") as f:
                f.write(baseline.to_json())
            extra += ["--baseline", path]
            shown = (path, baseline.model)
        elif baseline is not None:
            extra += ["--baseline", os.fspath(baseline)]
        try:
            self.status, text, self.notes = report._run("json", extra)
            self._text = report._run("text", extra)[1]
            self._markdown = report._run("markdown", extra)[1]
        finally:
            if tmp:
                tmp.cleanup()
        if shown:
            # The temporary file's name means nothing to the reader: the baseline's model does.
            text = text.replace(json.dumps(shown[0]), json.dumps(shown[1]))
            self._text = self._text.replace(shown[0], shown[1])
            self._markdown = self._markdown.replace(shown[0], shown[1])
        self.data = json.loads(text)
        self.verdict = self.data["budgets"]["verdict"]  # "none", "pass" or "fail"
        self.checks = self.data["budgets"]["checks"]
        self.baseline = self.data.get("baseline")

    @property
    def passed(self):
        return self.status == 0

    def totals(self):
        """{total: (before, after)} for every total (with a baseline)."""
        return {k: (v["before"], v["after"]) for k, v in (self.baseline or {}).get("totals", {}).items()}

    def table(self):
        return self._text

    def markdown(self):
        return self._markdown

    def __str__(self):
        return self._text

    def __repr__(self):
        return f"<kernelcount.Review verdict={self.verdict} status={self.status}>"

    def _repr_html_(self):
        from ._html import review_html

        return review_html(self)


def _op_row(op):
    launches, hbm, src = op["launches"], op["hbm"], op["source"]
    return {
        "index": op["index"], "op": op["op"], "class": op["class"],
        "file": src.get("file", ""), "line": src.get("line", 0), "code": src.get("code", ""),
        "module": op.get("module", ""), "module_class": op.get("module_class", ""),
        "kernels": launches["kernels"], "memcpy": launches["memcpy"], "memset": launches["memset"],
        "host_syncs": launches["host_syncs"], "known": launches["known"], "rule": launches["rule"],
        "hbm_reads": hbm["reads"], "hbm_writes": hbm["writes"],
        "hbm_read_bytes": hbm["read_bytes"], "hbm_write_bytes": hbm["write_bytes"],
        "flops": op["flops"], "time_floor_s": op["time_floor_s"], "bound": op["bound"],
        "fusion_group": op["fusion_group"], "fusion_group_reduction": op["fusion_group_reduction"],
        # fusion="inductor": fusion_group is the op's compiled kernel; its greedy group and how
        # Inductor lowers it stand beside.
        **({"pointwise_fusion_group": op["pointwise_fusion_group"], "inductor": op["inductor"]}
           if "inductor" in op else {}),
    }


def _kernel_rows(ops):
    """Kernel name families (measured on the H200 for ops of the same rule), with the ops that
    launch them; kernels of rules nothing measured are grouped under their rule."""
    rows = {}
    for op in ops:
        launches = op["launches"]
        names = launches.get("kernel_names") or []
        launched = (launches["kernels"] or 0) + (launches["memcpy"] or 0) + (launches["memset"] or 0)
        if not names and launched:
            names = [f"(not measured: rule {launches['rule']})"] * launched
        for name in names:
            row = rows.setdefault(name, {"kernel": name, "launches": 0, "ops": set()})
            row["launches"] += 1
            row["ops"].add(op["index"])
    out = [{"kernel": r["kernel"], "launches": r["launches"], "ops": len(r["ops"])} for r in rows.values()]
    return sorted(out, key=lambda r: (-r["launches"], r["kernel"]))


def _fusion_row(variant, g):
    return {
        "variant": variant, "id": g["id"], "kind": g["kind"], "ops": len(g["ops"]),
        "eager_kernels": g["eager_kernels"], "fused_kernels": g["fused_kernels"],
        "saved_kernels": g["saved_kernels"], "saved_bytes": g["saved_bytes"],
        **({"root_op": g["root_op"]} if "root_op" in g else {}),
    }
