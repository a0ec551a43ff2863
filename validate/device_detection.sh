#!/usr/bin/env bash
# One GPU-machine session for torchvision's detection models and transposed convolutions at
# decoder shapes: the detectors are traced on the GPU (research/corpus/export_detection.py; torch.export
# cannot export them), their real runs measured with validate/real_run.py, and the
# convt_decoder sweep (research/sweeps/sweep.py) runs beside them; kernelcount-validate is built
# and run over the test models (validate/device_all.sh), as every device script does.
#   validate/device_detection.sh OUT_DIR [BUDGET_S]        (KC_NO_SWEEP=1: the detectors only)
#   KC_DETECTION_ARGS="--all-scores": export_detection.py's options; KC_SWEEP=FAMILIES: the sweep
#   families run beside them (default convt_decoder).
# Writes OUT_DIR/detection.tar.xz (the zero-weight traces, manifest.jsonl, the export log),
# real.tar.xz (detection/<name>.real.json, real_status.jsonl), sweep_convt_decoder.jsonl.gz,
# logs.tgz, all.tgz.
set -uo pipefail
DEFAULT_BUDGET=420
. "$(dirname "${BASH_SOURCE[0]}")/device_session_env.sh" "$@"
W=/tmp/kcd; mkdir -p $W/logs $W/real/detection $W/sets
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv >$W/logs/gpu.txt 2>&1

if [ "${KC_NO_SWEEP:-0}" != 1 ]; then
  (KC_NO_DEVICE_ALL=1 validate/device_sweep.sh $W/sweep $(( $(left) - 120 )) ${KC_SWEEP:-convt_decoder} 3 >$W/logs/sweep.log 2>&1) &
  sweep_pid=$!
fi
python3 research/corpus/export_detection.py $W/sets/detection ${KC_DETECTION_ARGS:-} >$W/logs/export_detection.log 2>&1
python3 validate/real_run.py $W/real/detection $W/sets/detection/*.pt --jobs 4 \
  --manifest $W/sets/detection/manifest.jsonl --import torchvision --timeout 150 --deadline-s $(( $(left) - 60 )) >$W/logs/real.log 2>&1 &
real_pid=$!
if build_and_check_test_models device_detection 40; then
  wait $ALL_PID
  echo "device_detection: $(tail -n1 $W/logs/device_all.log)"
fi
wait $real_pid
[ -n "${sweep_pid:-}" ] && wait $sweep_pid
grep -h "^real_run:\|^device_sweep:" $W/logs/*.log
grep '^{' $W/logs/export_detection.log | cut -c1-200

export XZ_OPT="-6 -T0"
cp $W/sets/detection/manifest.jsonl $W/logs/export_detection.log $W/sets/detection/zeroed/ 2>/dev/null
tar cJf $OUT/detection.tar.xz -C $W/sets/detection zeroed
tar cJf $OUT/real.tar.xz -C $W/real . 2>/dev/null
cp $W/sweep/sweep_*.jsonl.gz $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz -C $W logs 2>/dev/null
tar czf $OUT/all.tgz -C $W all 2>/dev/null
ls -la $OUT
echo "device_detection: done at $(( $(date +%s) - T0 )) s"
