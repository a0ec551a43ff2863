#!/usr/bin/env bash
# cuDNN's engine choices on a GPU machine, with the cuDNN and cuBLASLt of the nvidia wheels
# beside torch (the copies PyTorch runs). ENGINES_BIN: a kernelcount-cudnn-engines built
# anywhere (it needs no CUDA runtime to build).
#   validate/device_cudnn.sh check ENGINES_BIN OUT_DIR [JOBS]
#     Whether the choices asked without a GPU (the default target's device properties,
#     passes/targets/h200/device.json) are the GPU's own: writes GPU 0's properties as cuDNN
#     serializes them (live_properties.json: a target's device.json), asks every query of
#     data/sweeps/cudnn_engines.jsonl.gz twice, as the built-in H200 and as GPU 0
#     (KERNELCOUNT_CUDNN_GPU=0), and compares both with the cache (research/sweeps/cudnn_check.py).
#   validate/device_cudnn.sh sweep ENGINES_BIN OUT_DIR JOBS SECONDS [SEED]
#     GPU 0's answers for random 1x1 convolutions (generators/cudnn_queries.py), asked by
#     JOBS processes for SECONDS, in sweep_gpu0.jsonl.gz ({"q", "e"} lines, the cache's form);
#     `research/sweeps/cudnn_check.py pointwise` adds the answers without a GPU and writes
#     data/sweeps/cudnn_gpu_pointwise.csv.gz, which fit_conv.py learns from.
# Meanwhile validate/device_all.sh runs on the test models (OUT_DIR/all; headers from
# .carry/include, carried), unless KC_NO_DEVICE_ALL=1 (a caller that runs it itself).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODE="${1:?check or sweep}"
BIN="$(readlink -f "${2:?ENGINES_BIN}")"
OUT="$(mkdir -p "${3:?OUT_DIR}" && cd "$3" && pwd)"
JOBS="${4:-6}"
site="$(python3 -c 'import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))')"
dirs=""
for lib in libcudnn.so.9 libcublasLt.so.13; do
  f="$(find "$site/nvidia" -name "$lib" 2>/dev/null | head -n1)"
  [ -n "$f" ] || { echo "device_cudnn: no $lib under $site/nvidia" >&2; exit 2; }
  dirs="$dirs${dirs:+:}$(dirname "$f")"
done
export KERNELCOUNT_CUDNN="$dirs"
# As every device script does, validate/device_all.sh builds kernelcount-validate and runs it on
# the test models meanwhile (into OUT_DIR/all), unless the caller runs it (KC_NO_DEVICE_ALL=1).
all_pid=""
if [ "${KC_NO_DEVICE_ALL:-0}" != 1 ]; then
  (KC_REPRO=0 nice "$ROOT/validate/device_all.sh" "$OUT/all" >"$OUT/device_all.log" 2>&1
   echo "device_all exit $?" >>"$OUT/device_all.log") &
  all_pid=$!
fi
finish() {  # the device_all run's last line, and its status as the script's
  [ -n "$all_pid" ] || exit 0
  wait "$all_pid"
  tail -n1 "$OUT/device_all.log"
  grep -q "device_all exit 0" "$OUT/device_all.log"
  exit $?
}

if [ "$MODE" = sweep ]; then
  seconds="${5:?SECONDS}" W="$(mktemp -d)"
  deadline=$(( $(date +%s) + seconds ))
  # Chunks of 2,000, each written whole: a process stopped at the deadline loses none.
  python3 "$ROOT/generators/cudnn_queries.py" $((JOBS * 60000)) "${6:-1}" | split -l 2000 -d -a 4 - "$W/chunk."
  chunks=("$W"/chunk.*)
  for j in $(seq 0 $((JOBS - 1))); do
    (for ((i = j; i < ${#chunks[@]}; i += JOBS)); do
       [ "$(date +%s)" -lt "$deadline" ] || break
       KERNELCOUNT_CUDNN_GPU=0 timeout $((deadline - $(date +%s) + 5)) "$BIN" <"${chunks[$i]}" >"${chunks[$i]}.tmp" 2>/dev/null &&
         mv "${chunks[$i]}.tmp" "${chunks[$i]}.gpu0"
     done) &
  done
  wait
  python3 - "$W" "$OUT/sweep_gpu0.jsonl.gz" <<'PY'
import glob, gzip, json, sys
n = 0
with gzip.open(sys.argv[2], "wt") as out:
    for answers in sorted(glob.glob(sys.argv[1] + "/chunk.*.gpu0")):
        for q, a in zip(open(answers[:-5]), open(answers)):
            out.write(json.dumps({"q": q.strip(), "e": json.loads(a)}, separators=(",", ":")) + "\n")
            n += 1
print(f"device_cudnn sweep: {n} answers")
PY
  rm -rf "$W"
  finish
fi
"$BIN" --live-properties >"$OUT/live_properties.json" 2>"$OUT/status.txt" ||
  echo "device_cudnn: GPU 0's properties could not be read ($(tail -n1 "$OUT/status.txt"))" >&2
W="$(mktemp -d)"
python3 "$ROOT/research/sweeps/cudnn_check.py" queries "$W/queries.jsonl"
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
python3 "$ROOT/research/sweeps/cudnn_check.py" compare "$W/queries.jsonl" "$OUT/answers_builtin.jsonl" \
  "$OUT/answers_gpu0.jsonl" | tee "$OUT/compare.txt"
gzip -f "$OUT"/answers_*.jsonl
rm -rf "$W"
finish
