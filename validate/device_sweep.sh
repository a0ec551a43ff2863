#!/usr/bin/env bash
# Op shape sweeps on the GPU machine (research/sweeps/sweep.py) within a time budget, several
# processes sharing the one GPU (each takes every PROCS-th configuration, so whatever finishes is
# an even sample of the family): OUT_DIR/sweep_FAMILIES.jsonl.gz, one line per configuration.
#   validate/device_sweep.sh OUT_DIR SECONDS FAMILIES [PROCS [SCALE]]   (PROCS default 4; SCALE: sweep.py --scale)
# e.g. validate/device_sweep.sh $OUT 480 gemm_random 4, then on the workstation
#   python3 generators/fit_gemm.py --sweep OUT_DIR/sweep_gemm_random.jsonl.gz
# Meanwhile validate/device_all.sh builds kernelcount-validate and runs it on the test models
# (its log and outputs in OUT_DIR/device_all.tgz), as every device script does, unless KC_NO_DEVICE_ALL=1 (a caller that runs it).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(mkdir -p "${1:?OUT_DIR}" && cd "$1" && pwd)"
SECONDS_BUDGET="${2:?SECONDS}"
FAMILIES="${3:?FAMILIES}"
PROCS="${4:-4}"
SCALE="${5:-1}"
W=/tmp/kc-sweep
rm -rf "$W" && mkdir -p "$W"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore

all_pid=""
if [ "${KC_NO_DEVICE_ALL:-0}" != 1 ]; then
  (KC_REPRO=0 nice "$ROOT/validate/device_all.sh" "$W/all" >"$W/device_all.log" 2>&1
   echo "device_all exit $?" >>"$W/device_all.log") &
  all_pid=$!
fi

pids=()
for i in $(seq 0 $((PROCS - 1))); do
  timeout $((SECONDS_BUDGET + 60)) python3 "$ROOT/research/sweeps/sweep.py" --out "$W/part_$i.jsonl" \
    --families "$FAMILIES" --shard "$i/$PROCS" --scale "$SCALE" --chunk 50 --deadline-s "$SECONDS_BUDGET" >"$W/part_$i.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
tail -qn1 "$W"/part_*.log
name="sweep_${FAMILIES//,/_}"
cat "$W"/part_*.jsonl | gzip -9 >"$OUT/$name.jsonl.gz"
echo "device_sweep: $(zcat "$OUT/$name.jsonl.gz" | grep -c '"family"') configurations," \
  "$(zcat "$OUT/$name.jsonl.gz" | grep -c '"error"') with an error, in $OUT/$name.jsonl.gz"
# GEMM sweeps come back as research/sweeps/gemm_table.py's compact table (a tenth of the size).
if [[ "$FAMILIES" == gemm_random* ]]; then
  python3 "$ROOT/research/sweeps/gemm_table.py" "$OUT/$name.csv.gz" "$OUT/$name.jsonl.gz" && rm "$OUT/$name.jsonl.gz"
fi

if [ -n "$all_pid" ]; then
  wait "$all_pid"
  tail -n1 "$W/device_all.log"
  grep -q "device_all exit 0" "$W/device_all.log" || status=1
  tar czf "$OUT/device_all.tgz" -C "$W" device_all.log all
fi
exit $status
