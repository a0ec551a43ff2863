#!/usr/bin/env bash
# Every kind of bad input gets one line "kernelcount: error: ..." naming the problem, and
# exit status 2: never a crash, an abort or a stack trace.
# Usage: tests/cli/bad_input.sh KERNELCOUNT   (from the repository root)
set -u
kc="$1"
bad=tests/models/bad
failed=0
expect() {  # expect "what it must say" args...
  local want="$1"; shift
  local err status
  err="$("$kc" "$@" 2>&1 >/dev/null)"
  status=$?
  local lines
  lines=$(printf '%s\n' "$err" | wc -l)
  if [ $status -ne 2 ] || [ "$lines" -ne 1 ] || [[ "$err" != "kernelcount: error: "* ]] || [[ "$err" != *"$want"* ]]; then
    echo "FAIL kernelcount $*: status $status, expected 2 and one line containing '$want'; got:"
    printf '%s\n' "$err" | head -5
    failed=1
  fi
}
expect "cannot open file" "$bad/does_not_exist.pt2"
expect "file is empty" "$bad/empty.pt2"
expect "not a model archive" "$bad/not_a_zip.pt2"
expect "truncated or damaged" "$bad/truncated.pt2"
expect "not a PyTorch model" "$bad/foreign.zip"
expect "expected a string" "$bad/wrong_type.pt2"
expect "unknown op aten::no_such_op" "$bad/unknown_op.pt2"
expect "64 bits" "$bad/huge_shape.pt2"
expect "missing field 'dtype'" "$bad/missing_field.pt2"
expect "TorchScript models carry no input shapes" tests/models/traced_mlp.pt
expect "aten::cummax at tests/models/models.py:170: no meta kernel and no TorchScript shape function" \
  "$bad/no_shape_function.pt" --input 100
# TorchScript code nested thousands of brackets deep would overflow the parser's stack.
expect "nests brackets 5000 deep" "$bad/deep_nesting.pt" --input 32x64:float32
expect "more than deflate's 1032 to 1 allows" "$bad/lying_size.pt" --input 32x64:float32
expect "pickle data.pkl holds a string of 2147483647 bytes" "$bad/long_pickle_string.pt" --input 32x64:float32
expect "pickle data.pkl stores memo entry 2147483647 in a record of" "$bad/long_memo_index.pt" --input 32x64:float32
expect "tensor record constants/0 holds 8 bytes, but constants.pkl declares 200 elements" "$bad/long_storage.pt" \
  --input 2x16:float32
expect "mat1 and mat2 shapes cannot be multiplied" tests/models/traced_mlp.pt --input 32x65:float32
expect "forward() has no input of that name (input_ids, attention_mask)" tests/models/traced_tokens.pt \
  --input ids=2x8:int64 --input attention_mask=2x8:int64
expect "overflows 64 bits" tests/models/traced_mlp.pt --input 4294967296x4294967296x4:float32
expect "unknown dtype" tests/models/traced_mlp.pt --input 32x64:float99
expect "a name before '='" tests/models/traced_mlp.pt --input =32x64
expect "no symbol of that name" tests/models/dynamic_batch.pt2 --dim nosuch=4
expect "expected NAME=VALUE" tests/models/dynamic_batch.pt2 --dim 4
# A torch.export.Dim name is not in the archive: the error names the symbol and INPUT.DIM.
expect "its symbols: s77 (x.0)" tests/models/dynamic_batch.pt2 --dim batch=8
expect "--top must be" tests/models/add.pt2 --top -1
expect "unknown target" tests/models/add.pt2 --target tpu
expect "--dim applies to .pt2 models" tests/models/traced_mlp.pt --input 32x64:float32 --dim s0=4
expect "--input applies to TorchScript models" tests/models/add.pt2 --input 4x4:float32
expect "format" tests/models/add.pt2 --format yaml
expect "no model given" --format json
expect "need --baseline" tests/models/add.pt2 --max-kernel-increase 0
expect "not a kernelcount JSON report" tests/models/add.pt2 --baseline tests/models/bad/not_a_report.json
expect "not a model archive" tests/models/add.pt2 --baseline tests/golden/cases.txt
# Hardening regressions: each of these crashed, hung or gave a silent wrong answer once.
expect "input x has rank 0 [], expected rank at least 1" "$bad/rank0_linear.pt2"
expect "query select has rank 0" "$bad/rank0_sdpa.pt2"
expect "but weight p_conv_weight has rank 3" "$bad/rank3_conv_weight.pt2"
expect "division by zero" "$bad/sym_div_zero.pt2"
expect "overflows 64 bits" "$bad/sym_min_div.pt2"
expect "nested deeper than 200 levels" "$bad/sym_deep.pt2"
expect "reads add before op 1 writes it" "$bad/reversed.pt2"
expect "reads its own output relu" "$bad/self_read.pt2"
expect "HBM bytes overflow 64 bits" "$bad/overflow_bytes.pt2"
expect "nested deeper than 64 levels" "$bad/deep_json.pt2"
expect "totals.eager_kernels is negative" tests/models/add.pt2 --baseline "$bad/negative_totals.json"
expect "forward() has no input of that name" tests/models/traced_mlp.pt --input nosuch=32x64
expect "out of range" tests/models/add.pt2 --max-kernels 99999999999999999999
# libFuzzer findings (tests/fuzz/regressions/): a .debug_pkl whose string-table index libtorch
# would follow out of bounds.
expect "debug info code/__torch__/models.py.debug_pkl is damaged: a text index out of its string table" \
  tests/fuzz/regressions/torchscript_debug_table.pt --input 2x3x16x16:float32
# A code record claiming 4 GB inflated from 215 bytes, in a directory whose last extra field
# overruns its record: the directory was dropped, the size went unchecked, and the code's
# bracket scan read 4 GB (8 s; a fuzzing timeout).
expect "claims 4194304325 bytes inflated from 215" tests/fuzz/regressions/torchscript_bad_extra_field.pt --input 64x4
# A 0-dim constant whose storage the pickle declares empty: libtorch's unpickler sets a tensor's
# sizes without checking them against its storage, and floor_divide read address 0.
expect "a tensor of the model reaches past its storage" tests/fuzz/regressions/torchscript_view_past_storage.pt \
  --input 2x16:float32
copy="$(mktemp -d)/model.pt2"
cp tests/models/add.pt2 "$copy"
expect "is an input of this run" "$copy" -o "$copy"
cmp -s tests/models/add.pt2 "$copy" || { echo "FAIL -o over the model changed it"; failed=1; }
expect "not a regular file" tests/models/add.pt2 -o /dev/full
err="$("$kc" tests/models/add.pt2 2>&1 >/dev/full)"
status=$?
if [ $status -ne 2 ] || [[ "$err" != "kernelcount: error: cannot write the report to standard output" ]]; then
  echo "FAIL kernelcount tests/models/add.pt2 >/dev/full: status $status: $err"; failed=1
fi
fifo="$(dirname "$copy")/fifo"
mkfifo "$fifo"
expect "not a regular file" "$fifo"
expect "not a regular file" tests/models/add.pt2 --baseline "$fifo"
expect "not a regular file" tests/models/add.pt2 -o "$fifo"
rm -rf "$(dirname "$copy")"
[ $failed -eq 0 ] && echo "bad_input: every case gives one clear line and status 2"
exit $failed
