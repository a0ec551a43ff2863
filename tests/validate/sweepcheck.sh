#!/usr/bin/env bash
# kernelcount-sweepcheck: sweep records in, one prediction per buildable record out, with the
# measured counts beside it; records of other ops are skipped; a line that is not JSON is an error.
set -euo pipefail
bin="$1"
fail() { echo "sweepcheck: $*" >&2; exit 1; }

# Measured sweep shapes: a conv_dense one (bf16, 2x128x56x56 * 24x128x3x3, "same" padding:
# T2 + core + T1), a bias-less f32 linear of gemm_f32 (64x128 by 160: split-K + reduce), and an
# op the tool does not build.
out="$(printf '%s\n' \
  '{"id": 1, "family": "conv_dense", "op": "conv2d", "params": {"stride": 1, "pad": 1, "g": 1}, "inputs": [[[2, 128, 56, 56], [401408, 3136, 56, 1], "bfloat16"], [[24, 128, 3, 3], [1152, 9, 3, 1], "bfloat16"]], "kernels": 4, "memcpy": 0, "memset": 0}' \
  '{"id": 2, "family": "gemm_f32", "op": "linear", "params": {}, "inputs": [[[64, 128], [128, 1], "float32"], [[160, 128], [128, 1], "float32"], "None"], "kernels": 2, "memcpy": 0, "memset": 0}' \
  '{"id": 3, "family": "norm", "op": "layer_norm", "params": {}, "inputs": [], "kernels": 1, "memcpy": 0, "memset": 0}' \
  | "$bin")"
[ "$(echo "$out" | wc -l)" = 2 ] || fail "expected 2 rows, got: $out"
echo "$out" | head -1 | grep -q '"measured":\[4,0,0\].*"predicted":\[4,0,0\],"rule":"conv"' || fail "conv row: $out"
echo "$out" | tail -1 | grep -q '"measured":\[2,0,0\],"op":"linear".*"predicted":\[2,0,0\]' || fail "linear row: $out"

if err="$(echo 'not json' | "$bin" 2>&1)"; then fail "a non-JSON line was accepted"; fi
[ "$(echo "$err" | wc -l)" = 1 ] || fail "expected one error line, got: $err"
echo "sweepcheck: ok"
