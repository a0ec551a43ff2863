#!/usr/bin/env bash
# Inductor's pad_mm decisions on this GPU (research/sweeps/pad_mm_sweep.py), measured alone on
# the GPU (they are timings), then kernelcount-validate built and run on the test models
# (validate/device_all.sh), as every device script does.
#   validate/device_pad_mm.sh OUT_DIR SECONDS
# Writes OUT_DIR/pad_mm_sweep.jsonl.gz and OUT_DIR/device_all.tgz; exits non-zero when either
# part failed. Then, on the workstation: python3 generators/fit_pad_mm.py OUT_DIR/pad_mm_sweep.jsonl.gz
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(mkdir -p "${1:?OUT_DIR}" && cd "$1" && pwd)"
SECONDS_BUDGET="${2:?SECONDS}"
W=/tmp/kc-pad-mm
rm -rf "$W" && mkdir -p "$W"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
status=0
timeout $((SECONDS_BUDGET + 60)) python3 "$ROOT/research/sweeps/pad_mm_sweep.py" "$W/pad_mm_sweep.jsonl" \
  --deadline-s "$SECONDS_BUDGET" --n 100000 || status=1
gzip -9 <"$W/pad_mm_sweep.jsonl" >"$OUT/pad_mm_sweep.jsonl.gz"
"$ROOT/validate/device_all.sh" "$W/all" >"$W/device_all.log" 2>&1
echo "device_all exit $?" >>"$W/device_all.log"
tail -n1 "$W/device_all.log"
grep -q "device_all exit 0" "$W/device_all.log" || status=1
tar czf "$OUT/device_all.tgz" -C "$W" device_all.log all
exit $status
