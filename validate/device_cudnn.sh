#!/usr/bin/env bash
# Checks on a GPU machine that cuDNN's engine choices asked without a GPU (the built-in H200
# device properties of passes/targets/h200/cudnn_heuristics.cc) are the ones cuDNN makes for the
# GPU itself. Writes GPU 0's properties as cuDNN serializes them (live_properties.json), then asks
# every query of validate/sweeps/results/cudnn_engines.jsonl.gz twice, as the built-in H200 and
# as GPU 0 (KERNELCOUNT_CUDNN_GPU=0), with the cuDNN and cuBLASLt of the nvidia wheels beside
# torch (the copies PyTorch runs), and compares both with the cache (validate/sweeps/cudnn_check.py).
#   validate/device_cudnn.sh ENGINES_BIN OUT_DIR [JOBS]
# ENGINES_BIN: a kernelcount-cudnn-engines built anywhere (it needs no CUDA runtime to build).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$(readlink -f "${1:?ENGINES_BIN}")"
OUT="$(mkdir -p "${2:?OUT_DIR}" && cd "$2" && pwd)"
JOBS="${3:-6}"
site="$(python3 -c 'import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))')"
dirs=""
for lib in libcudnn.so.9 libcublasLt.so.13; do
  f="$(find "$site/nvidia" -name "$lib" 2>/dev/null | head -n1)"
  [ -n "$f" ] || { echo "device_cudnn: no $lib under $site/nvidia" >&2; exit 2; }
  dirs="$dirs${dirs:+:}$(dirname "$f")"
done
export KERNELCOUNT_CUDNN="$dirs"

"$BIN" --live-properties >"$OUT/live_properties.json" 2>"$OUT/status.txt" ||
  echo "device_cudnn: GPU 0's properties could not be read ($(tail -n1 "$OUT/status.txt"))" >&2
W="$(mktemp -d)"
python3 "$ROOT/validate/sweeps/cudnn_check.py" queries "$W/queries.jsonl"
split -n "l/$JOBS" -d "$W/queries.jsonl" "$W/part."
parts=("$W"/part.*)
for mode in builtin gpu0; do
  for part in "${parts[@]}"; do
    if [ "$mode" = gpu0 ]; then
      KERNELCOUNT_CUDNN_GPU=0 "$BIN" <"$part" >"$part.$mode" 2>>"$OUT/status.txt" &
    else
      "$BIN" <"$part" >"$part.$mode" 2>>"$OUT/status.txt" &
    fi
  done
done
wait
for mode in builtin gpu0; do
  for part in "${parts[@]}"; do cat "$part.$mode"; done >"$OUT/answers_$mode.jsonl"
done
sort -u "$OUT/status.txt"
python3 "$ROOT/validate/sweeps/cudnn_check.py" compare "$W/queries.jsonl" "$OUT/answers_builtin.jsonl" \
  "$OUT/answers_gpu0.jsonl" | tee "$OUT/compare.txt"
gzip -f "$OUT"/answers_*.jsonl
rm -rf "$W"
