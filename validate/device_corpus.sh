#!/usr/bin/env bash
# On the GPU machine: builds kernelcount-validate and measures every model of a folder with it
# (one validate JSON per model, packed into OUT_DIR/measured.tgz). Optionally also counts what
# torch.compile launches for corpus entries (torch.profiler, in the background, time-limited)
# and measures the target's rates.
#   validate/device_corpus.sh OUT_DIR [MODELS_DIR]
# Environment: KC_COMPILE=entry,entry  KC_COMPILE_S=300  KC_TARGET=1 (measure_target.py)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
MODELS="${2:-data/corpus/models}"
cd "$ROOT"
export PYTHONUNBUFFERED=1
compile_pid=""
if [ -n "${KC_COMPILE:-}" ]; then
  (timeout "${KC_COMPILE_S:-300}" python3 research/corpus/profile_counts.py --only "$KC_COMPILE" \
    --out-json "$OUT/compile.json" >"$OUT/compile.log" 2>&1) &
  compile_pid=$!
fi
BIN="$(validate/device_build.sh /tmp/kc-validate >"$OUT/build.log" 2>&1; tail -n1 "$OUT/build.log")"
[ -x "$BIN" ] || { tail -30 "$OUT/build.log"; exit 1; }
[ "${KC_TARGET:-0}" = 1 ] && python3 validate/measure_target.py >"$OUT/target.json" 2>"$OUT/target.err"
mkdir -p "$OUT/measured"
# One process (one CUPTI subscriber) per model, several at once on the one GPU.
ls "$MODELS"/*.pt2 | xargs -P 6 -I{} sh -c \
  'n=$(basename {} .pt2); timeout 240 "$0" {} --format json --out "$1/measured/$n.json" 2>"$1/measured/$n.err"; echo "$n exit $?"' \
  "$BIN" "$OUT"
tar czf "$OUT/measured.tgz" -C "$OUT" measured && rm -rf "$OUT/measured"
[ -n "$compile_pid" ] && wait "$compile_pid" && echo "compile: $(grep -c '"compiled"' "$OUT/compile.json" 2>/dev/null) entries"
exit 0
