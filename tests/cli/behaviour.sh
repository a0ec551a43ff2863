#!/usr/bin/env bash
# The CLI's contract beyond the golden reports: help, version, budgets and the JSON keys
# CI users rely on. Usage: tests/cli/behaviour.sh KERNELCOUNT   (from the repository root)
set -u
kc="$1"
failed=0
fail() { echo "FAIL $*"; failed=1; }

"$kc" --help | grep -q "Examples:" || fail "--help has no examples"
"$kc" --version | grep -Eq '^kernelcount [0-9.]+ \(LibTorch 2\.11\.[0-9]+\)$' || fail "--version: $("$kc" --version)"

# Budgets: within budget exits 0, over budget exits 1 with a line per broken budget.
"$kc" tests/models/add_relu.pt2 --max-kernels 2 --max-bytes 6MB >/dev/null || fail "within budget did not exit 0"
err="$("$kc" tests/models/add_relu.pt2 --max-kernels 1 --max-fused-kernels 0 2>&1 >/dev/null)"
status=$?
[ $status -eq 1 ] || fail "over budget exited $status, expected 1"
[ "$(printf '%s\n' "$err" | grep -c 'over budget')" -eq 2 ] || fail "expected two over-budget lines, got: $err"
# Byte budgets take binary units (KiB = 1024 bytes) too; a bad one names its flag.
"$kc" tests/models/add_relu.pt2 --max-bytes 5MiB >/dev/null || fail "--max-bytes 5MiB (5,242,880 B) did not pass"
"$kc" tests/models/add_relu.pt2 --max-bytes 5000KiB >/dev/null 2>&1 && fail "--max-bytes 5000KiB (5,120,000 B) passed"
err="$("$kc" tests/models/add_relu.pt2 --max-bytes 3Qi 2>&1)"
[ $? -eq 2 ] && [[ "$err" == *"--max-bytes '3Qi': unknown unit"* ]] || fail "a bad unit: $err"
for b in 300KiB 300KB 1MiB 1MB 1GiB 1GB 300kB; do
  "$kc" tests/models/transformer_block.pt2 --max-bytes "$b" >/dev/null 2>&1; [ $? -le 1 ] || fail "--max-bytes $b refused"
done
err="$("$kc" tests/models/add_relu.pt2 --baseline tests/models/add.pt2 --max-bytes-increase 2Xi 2>&1)"
[ $? -eq 2 ] && [[ "$err" == *"--max-bytes-increase '2Xi': unknown unit"* ]] || fail "a bad unit of --max-bytes-increase: $err"

# An option the format does not read is an error naming it, never silently dropped.
err="$("$kc" tests/models/add_relu.pt2 --legend --format json 2>&1)"
[ $? -eq 2 ] && [[ "$err" == *"--legend explains the columns of --format text"* ]] || fail "--legend --format json: $err"
err="$("$kc" tests/models/add_relu.pt2 --by line --format sarif 2>&1)"
[ $? -eq 2 ] && [[ "$err" == *"--by chooses tables of the text and markdown formats; --format sarif has none"* ]] ||
  fail "--by --format sarif: $err"
err="$("$kc" tests/models/add_relu.pt2 --findings all 2>&1)"
[ $? -eq 2 ] && [[ "$err" == *"--findings chooses the lines"* ]] || fail "--findings with text: $err"

# Tables profiler users know: kernels by name with calls; FLOPs and time floors, sorted by either.
out="$("$kc" tests/models/mlp.pt2 --by kernel)"
[[ "$out" == *"kernel"*"calls"*"% calls"* ]] && printf '%s\n' "$out" | grep -Eq "^scal_kernel.* 2 +20\.0% +2 " ||
  fail "--by kernel: $out"
calls="$(printf '%s\n' "$out" | awk '/^kernel /{on=1; next} on && NF==0{on=0} on && $0 !~ /^\?/{for(i=1;i<=NF;i++) if ($i ~ /%$/) {s+=$(i-1); break}} END{print s}')"
[ "$calls" -eq 10 ] || fail "--by kernel: calls sum to $calls, not the 8 kernels and 2 memsets"
"$kc" tests/models/transformer_block.pt2 --by line --sort flops | awk '/^source line/{getline; print $1}' |
  grep -q "models.py:75" || fail "--sort flops: line 75 (the MLP's GEMMs) is not first"
"$kc" tests/models/transformer_block.pt2 --by op-type --sort time | awk '/^op type/{getline; print $1}' |
  grep -q "^linear$" || fail "--sort time: linear is not first"

# JSON: the documented totals keys, and the acceptance examples of the product.
json="$("$kc" tests/models/add_relu.pt2 --format json)"
for key in eager_kernels fused_kernels memcpy memset host_syncs eager_hbm_transfers fused_hbm_transfers \
           eager_hbm_bytes fused_hbm_bytes unknown_ops; do
  printf '%s' "$json" | grep -q "\"$key\"" || fail "totals lack $key"
done
printf '%s' "$json" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert {"by_line", "by_module", "by_op_type", "module_tree", "budgets"} <= r.keys(), r.keys()
assert r["module_tree"][0]["depth"] == 0 and r["module_tree"][0]["ops"] == r["totals"]["ops"]
assert sum(t["eager_kernels"] for t in r["by_op_type"]) == r["totals"]["eager_kernels"]
assert r["budgets"] == {"verdict": "none", "checks": []}' || fail "JSON rollups and budgets (docs/json.md)"
# FLOPs and time floors roll up as every count does: each rollup sums to the totals.
"$kc" tests/models/transformer_block.pt2 --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)
t = r["totals"]
for key in ("by_line", "by_module", "by_op_type"):
    assert sum(x["flops"] for x in r[key]) == t["flops"], key
    assert abs(sum(x["time_floor_s"] for x in r[key]) - t["eager_time_floor_s"]) < 1e-12, key
tree = r["module_tree"]
assert tree[0]["flops"] == t["flops"]
assert sum(n["flops"] for n in tree if n["depth"] == 1) <= t["flops"]' || fail "FLOPs and floors of the rollups"
totals() { "$kc" "$1" --format json | python3 -c 'import json,sys; t=json.load(sys.stdin)["totals"]; print(t["eager_kernels"], t["eager_hbm_transfers"], t["fused_kernels"], t["fused_hbm_transfers"])'; }
[ "$(totals tests/models/add.pt2)" = "1 3 1 3" ] || fail "a + b: $(totals tests/models/add.pt2)"
[ "$(totals tests/models/add_relu.pt2)" = "2 5 1 3" ] || fail "(a + b).relu(): $(totals tests/models/add_relu.pt2)"
[ "$(totals tests/models/mul_add_gelu.pt2 | cut -d' ' -f1,3)" = "3 1" ] || fail "gelu(a * b + 1)"

# --target selects a registry target by name (the default is the first); the tests' own target
# (tests/passes/test_target.cc) is not in the product. Two targets' reports differing where their
# rules do is tests/passes/target_test.cc's.
kernels() { "$kc" tests/models/conv_bn_relu.pt2 "$@" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["eager_kernels"])'; }
[ "$(kernels --target torch2.11-h200)" -eq "$(kernels)" ] || fail "--target torch2.11-h200 is not the default"
"$kc" tests/models/conv_bn_relu.pt2 --target torch2.11-test >/dev/null 2>&1 && fail "the test target ships in the product"

# -o writes the same report to a file.
out="$(mktemp)"
"$kc" tests/models/add.pt2 -o "$out" && cmp -s "$out" <("$kc" tests/models/add.pt2) || fail "-o differs from stdout"
rm -f "$out"

# A model exported with weights analyzes the same once they are stripped: they are never read.
stripped="$(mktemp --suffix=.pt2)"
python3 validate/strip_weights.py tests/models/mlp.pt2 "$stripped"
cmp -s <("$kc" tests/models/mlp.pt2 --format json | grep -v '"path"') \
       <("$kc" "$stripped" --format json | grep -v '"path"') || fail "stripping weights changed the report"
rm -f "$stripped"
# Review against a baseline: a model or a JSON report; the increase budgets fail a growing model.
report="$(mktemp --suffix=.json)"
"$kc" tests/models/mlp.pt2 --format json -o "$report"
"$kc" tests/models/mlp.pt2 --baseline "$report" --max-kernel-increase 0 --max-bytes-increase 0 >/dev/null ||
  fail "an unchanged model went over its increase budget"
err="$("$kc" tests/models/transformer_block.pt2 --baseline "$report" --max-kernel-increase 5 2>&1 >/dev/null)"
[ $? -eq 1 ] && [[ "$err" == *"eager kernels added (each unknown op counted as one): 10, over the budget of 5 (--max-kernel-increase)"* ]] ||
  fail "kernel increase budget: $err"
"$kc" tests/models/transformer_block.pt2 --baseline tests/models/mlp.pt2 --format json |
  python3 -c 'import json,sys; b=json.load(sys.stdin)["baseline"]["totals"]["eager_kernels"]; assert (b["before"], b["after"]) == (8, 18), b' ||
  fail "JSON baseline totals"
rm -f "$report"
# explain says the seed's three examples in its words: a + b is 1 kernel and 3 transfers;
# (a + b).relu() is 2 kernels and 5 transfers; fused, it is 1 kernel and 3 transfers again.
"$kc" explain tests/models/add.pt2 | grep -q "eager    1 kernel and 3 array-sized HBM transfers" || fail "explain a + b"
explained="$("$kc" explain tests/models/add_relu.pt2)"
grep -q "eager    2 kernels and 5 array-sized HBM transfers" <<<"$explained" || fail "explain (a + b).relu() eager"
grep -q "fused    1 kernel and 3 array-sized HBM transfers" <<<"$explained" || fail "explain (a + b).relu() fused"
# Selections: one op, or the ops of one source line; a selection matching nothing is an error.
[ "$("$kc" explain tests/models/transformer_block.pt2 --op 7 | grep -c '^op ')" -eq 1 ] || fail "explain --op 7"
[ "$("$kc" explain tests/models/transformer_block.pt2 --line models.py:75 | grep -c '^op ')" -eq 5 ] || fail "explain --line"
"$kc" explain tests/models/add.pt2 --op 9 >/dev/null 2>&1; [ $? -eq 2 ] || fail "explain --op out of range did not exit 2"
# The exercises are found beside the binary, through --exercises, or through KERNELCOUNT_EXERCISES.
(kc_abs="$(realpath "$kc")"; cd / && "$kc_abs" exercise list | grep -q "a + b") || fail "exercises not found beside the binary"
"$kc" exercise list --exercises exercises | grep -q "a + b" || fail "exercise list --exercises"
KERNELCOUNT_EXERCISES=/nonexistent "$kc" exercise list >/dev/null 2>&1; [ $? -eq 2 ] || fail "a missing exercises folder did not exit 2"
"$kc" exercise check 2 --kernels 2 --transfers 5 >/dev/null || fail "exercise 2's right answer"
out="$("$kc" exercise check 2 --kernels 1 --transfers 3)"; [ $? -eq 1 ] || fail "exercise 2's wrong answer did not exit 1"
# A wrong answer is a hint, not the answer key: at most three ops named, none with its counts.
out="$("$kc" exercise check 12 --kernels 0,0,0,0 --transfers 0,0,0,0)"
[ $? -eq 1 ] && [ "$(printf '%s\n' "$out" | grep -c '^  op ')" -le 3 ] && [[ "$out" == *"(and 1 other op)"* ]] &&
  ! printf '%s\n' "$out" | grep -Eq "[0-9]+ (kernels?|transfers?)\b|the answer is|the H200 ran" ||
  fail "a wrong exercise answer gives answers away: $out"
# TorchScript: an op refusing a float32 --input says how to give the dtype.
err="$("$kc" tests/models/traced_tokens.pt --input 2x8 --input 2x8 2>&1)"
[ $? -eq 2 ] && [[ "$err" == *"an --input without a dtype is float32"*"--input 2x8:int64"* ]] ||
  fail "--input without the dtype token ids need: $err"
# TorchScript: --input by name in any order is the same as positional; a model saved on a GPU
# gives the same report as the host-saved one, with a note naming the GPU.
cmp -s <("$kc" tests/models/traced_tokens.pt --input 2x8:int64 --input 2x8:int64) \
       <("$kc" tests/models/traced_tokens.pt --input attention_mask=2x8:int64 --input input_ids=2x8:int64) ||
  fail "named --input differs from positional"
"$kc" tests/models/traced_transformer_block.pt --input 2x16x64 --format json >"${TMPDIR:-/tmp}/kc-host.$$.json"
"$kc" tests/models/traced_transformer_block_cuda.pt --input 2x16x64 --format json >"${TMPDIR:-/tmp}/kc-gpu.$$.json"
python3 - "${TMPDIR:-/tmp}/kc-host.$$.json" "${TMPDIR:-/tmp}/kc-gpu.$$.json" <<'PY' || fail "GPU-saved TorchScript report"
import json, sys
host, gpu = (json.load(open(p)) for p in sys.argv[1:])
assert gpu["model"]["notes"] == ["saved on cuda:0: every tensor mapped to the host to load"], gpu["model"]["notes"]
for r in (host, gpu):
    del r["model"]["path"], r["model"]["notes"]
assert host == gpu, "the reports differ beyond the note"
PY
rm -f "${TMPDIR:-/tmp}/kc-host.$$.json" "${TMPDIR:-/tmp}/kc-gpu.$$.json"

# Bug (d): swapping an op that has a rule (GELU, 1 kernel) for one without (bernoulli) lowers the
# known kernels; the increase budget still fails, and every kernel budget counts the unknown op.
err="$("$kc" tests/models/mlp_unruled_act.pt2 --baseline tests/models/mlp.pt2 --max-kernel-increase 0 2>&1 >/dev/null)"
[ $? -eq 1 ] && [[ "$err" == *"added (each unknown op counted as one): not known, so over the budget of 0 (--max-kernel-increase): the change adds 1 op(s) without a launch rule (bernoulli.p)"* ]] ||
  fail "an unknown op hid a regression: $err"
# One verdict per sentence: a failing budget never reads "<=", a held one never "over".
[[ "$err" != *"<="* ]] || fail "a failing budget reads like a pass: $err"
out="$("$kc" tests/models/add_relu.pt2 --max-kernels 2 2>&1)"
[[ "$out" == *"ok    eager kernels (each unknown op counted as one): 2, within the budget of 2 (--max-kernels)"* ]] ||
  fail "a held budget: $out"
# The swap does not read as a saving: the diff adds the kernels the budgets count.
"$kc" tests/models/mlp_unruled_act.pt2 --baseline tests/models/mlp.pt2 | grep -Eq "^kernels \(eager, each unknown op as one\) +8 +8 +=" ||
  fail "the diff shows the unknown op's swap as a saving"
md="$("$kc" tests/models/mlp_unruled_act.pt2 --baseline tests/models/mlp.pt2 --max-kernel-increase 0 --format markdown 2>/dev/null)"
[[ "$md" == *"| exceeded | eager kernels added (each unknown op counted as one): the change adds 1 op(s) without a launch rule (bernoulli.p), whose kernels nobody knows | \`--max-kernel-increase\` | not known | 0 kernels |"* ]] ||
  fail "markdown verdict row: $(printf '%s\n' "$md" | grep exceeded)"
[[ "$md" != *"eager\\_kernels"* && "$md" != *"| eager_kernels"* ]] || fail "markdown diff shows raw JSON keys"
"$kc" tests/models/mlp_unruled_act.pt2 --max-kernels 7 >/dev/null 2>&1
[ $? -eq 1 ] || fail "--max-kernels does not count the unknown op"
"$kc" tests/models/mlp_unruled_act.pt2 --baseline tests/models/mlp.pt2 --max-kernel-increase 0 --format json 2>/dev/null |
  python3 -c 'import json,sys; b=json.load(sys.stdin)["budgets"]; assert b["verdict"] == "fail" and b["checks"][0]["unit"] == "kernels", b' ||
  fail "JSON budget verdict"

# Bug (e): the short dtype names tables print are accepted; a size named as INPUT.DIM; the
# help's examples run on the repository's models.
"$kc" tests/models/scripted_control_flow.pt --input 8x64:f32 >/dev/null || fail "--input 8x64:f32 refused"
"$kc" tests/models/traced_mlp.pt --input 32x64:torch.float32 >/dev/null || fail "--input ...:torch.float32 refused"
"$kc" tests/models/dynamic_batch.pt2 --dim x.0=64 | grep -q "symbol s77 = 64 (--dim)" || fail "--dim x.0=64"
"$kc" tests/models/dynamic_batch.pt2 --dim s77=64 | grep -q "symbol s77 = 64 (--dim)" || fail "--dim s77=64"
"$kc" --help | grep -q -- "--dim x.0=64" || fail "the help's --dim example changed: keep this check in step"
for args in "" "--by op" "--by line --sort kernels --top 20" "--by module --depth 2" "--format json" \
            "--format markdown" "--format sarif" "--format github" "--legend" "--by op-type --sort bytes"; do
  # shellcheck disable=SC2086
  "$kc" tests/models/transformer_block.pt2 $args >/dev/null || fail "kernelcount model.pt2 $args"
done

# Summary first: totals, then the top lines, modules, op types; --top cuts and says so.
out="$("$kc" tests/models/transformer_block.pt2 --top 2)"
[[ "$out" == *"source lines, top 2 of 6 by kernels"* && "$out" == *"(4 more source lines not shown"* ]] ||
  fail "summary --top 2: $out"
"$kc" tests/models/transformer_block.pt2 --legend | grep -q "^R+W" || fail "--legend"

# The baseline takes the options that apply to it: a .pt (with --input) against its .pt2, and a
# dynamic export with --dim against a static one.
"$kc" tests/models/traced_transformer_block.pt --input 2x16x64 --baseline tests/models/transformer_block.pt2 \
  --format json | python3 -c 'import json,sys; assert json.load(sys.stdin)["baseline"]["totals"]["eager_kernels"]' ||
  fail "a .pt against its .pt2"
"$kc" tests/models/transformer_block.pt2 --baseline tests/models/traced_transformer_block.pt --input 2x16x64 >/dev/null ||
  fail "a .pt2 against a .pt given --input"
# A trace against an export says they are different programs; two exports say nothing of it.
"$kc" tests/models/traced_transformer_block.pt --input 2x16x64 --baseline tests/models/transformer_block.pt2 |
  grep -q "^warning: the baseline is a torch.export program (.pt2) and this model a TorchScript module (.pt): two captures" ||
  fail "a .pt against a .pt2 says they are different programs"
"$kc" tests/models/transformer_block.pt2 --baseline tests/models/mlp.pt2 | grep -q "different programs" &&
  fail "two .pt2 said to be different programs"
dim="$("$kc" tests/models/dynamic_batch.pt2 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["model"]["notes"][0].split()[1])')"
"$kc" tests/models/dynamic_batch.pt2 --dim "$dim=64" --baseline tests/models/mlp.pt2 >/dev/null ||
  fail "a dynamic export with --dim against a static one"
"$kc" tests/models/mlp.pt2 --dim "$dim=64" >/dev/null 2>&1 && fail "--dim naming no symbol of the model itself passed"
err="$("$kc" tests/models/dynamic_batch.pt2 --dim nosuch=64 --baseline tests/models/mlp.pt2 2>&1 >/dev/null)"
[[ "$err" == *"--dim nosuch: neither the model nor the baseline"* ]] || fail "a --dim naming neither model: $err"

# A baseline from another target or kernelcount version is called out.
report="$(mktemp --suffix=.json)"
"$kc" tests/models/mlp.pt2 --format json | python3 -c 'import json,sys; j=json.load(sys.stdin); j["kernelcount_version"]="0.0.1"; j["target"]["name"]="torch2.10-h100"; print(json.dumps(j))' >"$report"
err="$("$kc" tests/models/mlp.pt2 --baseline "$report" 2>&1 >/dev/null)"
[[ "$err" == *"warning: the baseline was predicted for target torch2.10-h100"* && "$err" == *"kernelcount 0.0.1"* ]] ||
  fail "no warning for a baseline of another target or version: $err"
rm -f "$report"
[ $failed -eq 0 ] && echo "behaviour: all checks pass"
exit $failed
