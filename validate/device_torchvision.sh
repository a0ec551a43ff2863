#!/usr/bin/env bash
# On the GPU machine: sweeps torchvision's ops (research/sweeps/torchvision_ops.py) while
# kernelcount-validate is built and run over the test models (validate/device_all.sh), as every
# device script does. Writes OUT_DIR/torchvision_ops.jsonl, OUT_DIR/all.tgz and OUT_DIR/all.log.
#   validate/device_torchvision.sh OUT_DIR [--quick]
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
shift
cd "$ROOT"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
(validate/device_all.sh /tmp/kc-all >"$OUT/all.log" 2>&1; echo "device_all exit $?" >>"$OUT/all.log") &
all_pid=$!
python3 research/sweeps/torchvision_ops.py "$OUT/torchvision_ops.jsonl" "$@"
wait $all_pid
tail -n1 "$OUT/all.log"
tar czf "$OUT/all.tgz" -C /tmp kc-all
