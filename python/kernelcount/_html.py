"""Jupyter's rich view of a report: the summary (totals, eager and fused; with fusion="inductor"
Inductor's beside the greedy plan's), the costliest source lines and the fusion groups that save
the most (Inductor's kernels of several ops, and those launching more than eager). Only what the
report's JSON holds."""

from html import escape

from ._report import HOW

_STYLE = ("<style>.kc table{border-collapse:collapse;margin:4px 0 10px}"
          ".kc td,.kc th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}"
          ".kc td.l,.kc th.l{text-align:left}.kc code{font-size:90%}</style>")


def _bytes(n):
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} B"


def _us(seconds):
    return f"{seconds * 1e6:.1f} us"


def _table(head, rows, left=()):
    out = ["<table><tr>"]
    out += [f"<th class='{'l' if i in left else ''}'>{escape(str(h))}</th>" for i, h in enumerate(head)]
    out.append("</tr>")
    for row in rows:
        out.append("<tr>" + "".join(
            f"<td class='{'l' if i in left else ''}'>{escape(str(v))}</td>" for i, v in enumerate(row)) + "</tr>")
    out.append("</table>")
    return "".join(out)


def report_html(report, top=10):
    d = report.data
    t = d["totals"]
    model, target = d["model"], d["target"]
    parts = [_STYLE, "<div class='kc'>",
             f"<p><b>kernelcount</b> {escape(model['path'])} &mdash; via {escape(HOW[report.how])}<br>"
             f"target {escape(target['name'])}: {escape(target['gpu'])} ({escape(target['arch'])})</p>"]
    # A program the GPU cannot run (a view the export recorded for the host's layout): said first.
    if d.get("gpu_failures"):
        f = d["gpu_failures"][0]
        more = len(d["gpu_failures"]) - 1
        parts.append(f"<p><b>Warning:</b> the program does not run on the GPU as exported: op {f['op']}, "
                     f"{escape(f['why'])}" + (f"; {more} more view(s) alike" if more else "") +
                     "; the counts are what it would launch if they ran</p>")
    parts.append("<h4>Summary</h4>")
    # The compiled view (fusion="inductor"): its fused totals are Inductor's, the greedy plan's
    # stand beside them, as in the CLI's totals.
    compiled = report.compiled
    if compiled:
        head = ["", "eager", "fused", "inductor", "fused+reductions"]
        totals = [
            ["kernels", t["eager_kernels"], t["pointwise_fused_kernels"], t["fused_kernels"],
             t["fused_kernels_reduction"]],
            ["HBM transfers", t["eager_hbm_transfers"], t["pointwise_fused_hbm_transfers"], t["fused_hbm_transfers"], ""],
            ["HBM bytes", _bytes(t["eager_hbm_bytes"]), _bytes(t["pointwise_fused_hbm_bytes"]),
             _bytes(t["fused_hbm_bytes"]), _bytes(t["fused_hbm_bytes_reduction"])],
            ["time floor", _us(t["eager_time_floor_s"]), _us(t["pointwise_fused_time_floor_s"]),
             _us(t["fused_time_floor_s"]), ""],
        ]
    else:
        head = ["", "eager", "fused", "fused+reductions"]
        totals = [
            ["kernels", t["eager_kernels"], t["fused_kernels"], t["fused_kernels_reduction"]],
            ["HBM transfers", t["eager_hbm_transfers"], t["fused_hbm_transfers"], ""],
            ["HBM bytes", _bytes(t["eager_hbm_bytes"]), _bytes(t["fused_hbm_bytes"]),
             _bytes(t["fused_hbm_bytes_reduction"])],
            ["time floor", _us(t["eager_time_floor_s"]), _us(t["fused_time_floor_s"]), ""],
        ]
    blank = [""] * (len(head) - 2)
    totals += [[name, t[key], *blank] for name, key in (("ops", "ops"), ("memcpy", "memcpy"), ("memset", "memset"),
                                                        ("host syncs", "host_syncs"), ("unknown ops", "unknown_ops"))]
    parts.append(_table(head, totals, left=(0,)))
    lines = sorted(d["by_line"], key=lambda r: (-r["eager_kernels"], -r["hbm_bytes"]))
    parts.append(f"<h4>Source lines, top {min(top, len(lines))} of {len(lines)} by kernels</h4>")
    if compiled:
        parts.append(_table(["source line", "ops", "kernels", "fused", "inductor", "memcpy", "memset", "sync", "bytes",
                             "inductor bytes", "code"], [
            [r["line"], r["ops"], r["eager_kernels"], r["pointwise_fused_kernels"], r["fused_kernels"], r["memcpy"],
             r["memset"], r["host_syncs"], _bytes(r["hbm_bytes"]), _bytes(r["fused_hbm_bytes"]), r["code"]]
            for r in lines[:top]], left=(0, 10)))
    else:
        parts.append(_table(["source line", "ops", "kernels", "memcpy", "memset", "sync", "bytes", "code"], [
            [r["line"], r["ops"], r["eager_kernels"], r["memcpy"], r["memset"], r["host_syncs"],
             _bytes(r["hbm_bytes"]), r["code"]] for r in lines[:top]], left=(0, 7)))
    # The fused columns' plan is the JSON's first: the greedy chains, or Inductor's kernels.
    plan = d["fusion"][0]
    groups = [g for g in plan["groups"]
              if (g["saved_kernels"] > 0 or g["saved_bytes"] > 0) and (not compiled or len(g["ops"]) > 1)]
    groups.sort(key=lambda g: (-g["saved_kernels"], -g["saved_bytes"]))
    title = "Compiled kernels of several ops (Inductor)" if compiled else "Fusion groups (pointwise)"
    parts.append(f"<h4>{title}, {len(groups)} that save kernels or bytes</h4>")
    ops = d["ops"]
    parts.append(_table(["group", "ops", "eager kernels", "fused kernels", "saved bytes", "first op"], [
        [("F" if compiled else "") + str(g["id"]), len(g["ops"]), g["eager_kernels"], g["fused_kernels"],
         _bytes(g["saved_bytes"]), _first_op(ops, g)] for g in groups[:top]], left=(5,)))
    if compiled and d.get("more_than_eager"):
        more = d["more_than_eager"]
        parts.append(f"<h4>Compiled groups that launch more kernels than eager, {len(more)}</h4>")
        parts.append(_table(["group", "op", "eager kernels", "inductor", "why"], [
            [f"F{k['group']}", _op_at(ops, k["op"]), k["eager_kernels"], k["compiled_kernels"], k["why"]]
            for k in more[:top]], left=(1, 4)))
    parts.append("</div>")
    return "".join(parts)


def _first_op(ops, group):
    return _op_at(ops, group["ops"][0]) if group["ops"] else ""


def _op_at(ops, index):
    op = ops[index]
    src = op["source"]
    where = f" at {src['file']}:{src['line']}" if src.get("file") else ""
    return f"{op['op']}{where}"


def review_html(review):
    d = review.data
    parts = [_STYLE, "<div class='kc'>",
             f"<p><b>kernelcount review</b>: verdict <b>{escape(review.verdict)}</b></p>"]
    if review.checks:
        parts.append(_table(["budget", "value", "limit", "exceeded"], [
            [c["option"], c["value"], c["limit"], "yes" if c["exceeded"] else "no"] for c in review.checks], left=(0,)))
    if review.baseline:
        parts.append(_table(["total", "before", "after"], [
            [k, v["before"], v["after"]] for k, v in review.baseline["totals"].items()], left=(0,)))
    parts.append("</div>")
    return "".join(parts)
