#!/usr/bin/env bash
# --format dot renders with Graphviz, and --format trace follows the Trace Event Format with
# kernel events that add up to the report's totals, for every test model.
# Usage: tests/cli/pictures.sh KERNELCOUNT   (from the repository root)
set -u
kc="$1"
failed=0
fail() { echo "FAIL $*"; failed=1; }
command -v dot >/dev/null || { echo "FAIL graphviz's dot is not installed (scripts/setup.sh installs it)"; exit 1; }

models=(tests/models/*.pt2 data/truth/cases/item.pt2 data/truth/cases/relu_inplace.pt2)
for m in "${models[@]}"; do
  svg="$("$kc" "$m" --format dot | dot -Tsvg 2>&1)" || fail "$m: dot -Tsvg failed: ${svg:0:300}"
  [[ "$svg" == *"<svg"* ]] || fail "$m: no SVG from dot"
done
# A fusion group is a cluster holding its ops.
"$kc" tests/models/add_relu.pt2 --format dot | grep -q 'subgraph cluster_F0' || fail "add_relu: no fusion cluster"

for m in "${models[@]}" "tests/models/traced_mlp.pt --input 32x64:float32"; do
  # shellcheck disable=SC2086
  "$kc" $m --format trace | python3 -c '
import json, sys
doc = json.load(sys.stdin)
t = doc["otherData"]
events = doc["traceEvents"]
complete = [e for e in events if e["ph"] == "X"]
for e in complete:
    for key in ("name", "ph", "ts", "dur", "pid", "tid", "args"):
        assert key in e, (key, e)
    assert e["dur"] >= 0 and e["ts"] >= 0, e
    for key in ("op", "source", "floor_us") if e["tid"] == 1 else ("ops", "source", "floor_us"):
        assert key in e["args"] or e["args"].get("op"), (key, e)
for e in events:
    assert e["ph"] in ("X", "M"), e
def track(tid):
    return [e for e in complete if e["tid"] == tid]
def kernels(tid):
    return sum(1 for e in track(tid) if e["cat"] == "kernel")
assert kernels(1) == t["eager_kernels"], (kernels(1), t)
assert kernels(2) == t["fused_kernels"], (kernels(2), t)
assert sum(1 for e in track(1) if e["cat"] == "memcpy") == t["memcpy"], t
assert sum(1 for e in track(1) if e["cat"] == "memset") == t["memset"], t
for tid, total in ((1, t["eager_time_floor_us"]), (2, t["fused_time_floor_us"])):
    d = sum(e["dur"] for e in track(tid))
    assert abs(d - total) <= 1e-6 * max(1, total), (tid, d, total)
    ends = 0
    for e in track(tid):  # back to back, in order
        assert abs(e["ts"] - ends) <= 1e-6 * max(1, ends), e
        ends = e["ts"] + e["dur"]
# Times are whole picoseconds: no float noise such as 27.200000000000003.
def times(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k in ("ts", "dur") or k.endswith("_us"):
                yield v
            else:
                yield from times(v)
    elif isinstance(x, list):
        for v in x:
            yield from times(v)
for v in times(doc):
    assert round(v, 6) == v, ("float noise", v)
# An op that memsets (a GEMM zeroing its workspace) clears it before its kernels run.
for e in track(1):
    if e["cat"] == "memset":
        same = [f for f in track(1) if f["args"].get("op_index") == e["args"]["op_index"]]
        assert same[0]["cat"] == "memset", ("memset after its kernels", same)
' || fail "$m: trace"
  # The totals the trace carries are the report's.
  # shellcheck disable=SC2086
  [ "$("$kc" $m --format trace | python3 -c 'import json,sys; t=json.load(sys.stdin)["otherData"]; print(t["eager_kernels"], t["fused_kernels"])')" = \
    "$("$kc" $m --format json | python3 -c 'import json,sys; t=json.load(sys.stdin)["totals"]; print(t["eager_kernels"], t["fused_kernels"])')" ] ||
    fail "$m: trace totals differ from the report"
done
[ $failed -eq 0 ] && echo "pictures: dot renders and traces add up for ${#models[@]} models"
exit $failed
