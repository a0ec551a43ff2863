#!/usr/bin/env bash
# Runs kernelcount-validate on a GPU machine over the small test models (each cross-checked
# against torch.profiler by crosscheck_profiler.py, some also with --weights) and, with
# --truth, over the reference cases
# in data/truth/cases/. Writes NAME.json, NAME.txt and NAME.profiler.json per model into
# OUT_DIR and prints a summary; exits 1 when a run fails or a cross-check disagrees.
#   validate/device_check.sh BINARY OUT_DIR [--truth]
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$(readlink -f "$1")" OUT="$(mkdir -p "$2" && cd "$2" && pwd)" TRUTH="${3:-}"
PY="${PYTHON:-python3}"
# From the checkout's root, so that the outputs name models by repository-relative paths.
cd "$ROOT"
M=tests/models
status=0

check() {  # NAME MODEL [ARGS...]: validate (JSON and text), then the profiler cross-check
  local name="$1" model="$2"
  shift 2
  "$BIN" "$model" "$@" --format json --out "$OUT/$name.json" 2>"$OUT/$name.err"
  local rc=$?
  "$BIN" "$model" "$@" >"$OUT/$name.txt" 2>>"$OUT/$name.err"
  echo "=== $name: kernelcount-validate exit $rc"
  cat "$OUT/$name.txt" "$OUT/$name.err"
  [ "$rc" -le 1 ] || { status=1; return; }
  "$PY" validate/crosscheck_profiler.py "$model" "$@" --validate-json "$OUT/$name.json" \
    --out "$OUT/$name.profiler.json" >"$OUT/$name.profiler.log" 2>&1 || status=1
  grep -v Warning "$OUT/$name.profiler.log"
}

for m in add add_relu mul_add_gelu mlp conv_bn_relu transformer_block bf16_linear; do
  check "$m" "$M/$m.pt2"
done
check dynamic_batch "$M/dynamic_batch.pt2"
"$BIN" "$M/dynamic_batch.pt2" --dim s77=8 >"$OUT/dynamic_batch_8.txt" 2>&1 || status=1
echo "=== dynamic_batch --dim s77=8"
cat "$OUT/dynamic_batch_8.txt"
for m in mlp conv_bn_relu transformer_block; do  # the archive's weights instead of random ones
  "$BIN" "$M/$m.pt2" --weights --format json --out "$OUT/${m}_weights.json" 2>&1 || status=1
  echo "=== $m --weights: measured $("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["measured"])' "$OUT/${m}_weights.json")"
done
check traced_mlp "$M/traced_mlp.pt" --input 32x64:float32
check traced_shape_arith "$M/traced_shape_arith.pt" --input 8x32:float32
check scripted_control_flow "$M/scripted_control_flow.pt" --input 8x64:float32

if [ "$TRUTH" = "--truth" ]; then
  # One process per case (a CUPTI subscriber each), several at once on the one GPU.
  mkdir -p "$OUT/truth"
  ls data/truth/cases/*.pt2 | xargs -P 8 -I{} sh -c \
    'n=$(basename {} .pt2); timeout 120 "$0" {} --format json --out "$1/truth/$n.json" 2>"$1/truth/$n.err"' \
    "$BIN" "$OUT"
  echo "=== truth cases: $(ls "$OUT"/truth/*.json 2>/dev/null | wc -l) measured"
  for e in "$OUT"/truth/*.err; do [ -s "$e" ] && echo "$(basename "$e" .err): $(head -c 300 "$e")"; done
fi
exit $status
