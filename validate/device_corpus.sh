#!/usr/bin/env bash
# On the GPU machine: builds kernelcount-validate, measures every corpus model with it, counts
# what torch.compile launches for a set of corpus entries (torch.profiler, in the background,
# time-limited), and measures the target's rates. Everything lands in OUT_DIR:
# corpus.tgz (one validate JSON per model), compile.json, target.json and logs.
#   validate/device_corpus.sh OUT_DIR [COMPILE_ENTRIES] [COMPILE_SECONDS]
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
ENTRIES="${2:-resnet50_fp32,vit_b_16_bf16,gpt2_fp32,llama_bf16,mobilenet_v3_large_fp32,convnext_tiny_bf16,bert_fp32,swin_t_bf16,efficientnet_b0_fp32,densenet121_bf16}"
COMPILE_S="${3:-300}"
cd "$ROOT"
export PYTHONUNBUFFERED=1
(timeout "$COMPILE_S" python3 validate/corpus/profile_counts.py --only "$ENTRIES" --out-json "$OUT/compile.json" \
  >"$OUT/compile.log" 2>&1) &
compile_pid=$!
BIN="$(validate/device_build.sh /tmp/kc-validate >"$OUT/build.log" 2>&1; tail -n1 "$OUT/build.log")"
[ -x "$BIN" ] || { tail -30 "$OUT/build.log"; exit 1; }
python3 validate/measure_target.py >"$OUT/target.json" 2>"$OUT/target.err"
mkdir -p "$OUT/corpus"
# One process (one CUPTI subscriber) per model, several at once on the one GPU.
ls validate/corpus/models/*.pt2 | xargs -P 6 -I{} sh -c \
  'n=$(basename {} .pt2); timeout 240 "$0" {} --format json --out "$1/corpus/$n.json" 2>"$1/corpus/$n.err"; echo "$n exit $?"' \
  "$BIN" "$OUT"
tar czf "$OUT/corpus.tgz" -C "$OUT" corpus && rm -rf "$OUT/corpus"
wait "$compile_pid"
echo "compile: $(grep -c '"compiled"' "$OUT/compile.json" 2>/dev/null) entries"
cat "$OUT/target.json"
