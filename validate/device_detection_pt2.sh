#!/usr/bin/env bash
# One GPU-machine session for torchvision's detectors as .pt2: each is exported on the GPU with
# every score threshold at 0 (research/corpus/export_detection_pt2.py: torch.export, else
# draft_export, one process per model), then its exported program's own run measured
# (validate/real_run.py, the truth of record). A model that does not export or run is recorded
# and the others go on. kernelcount-validate is not built: the real run is the truth.
#   validate/device_detection_pt2.sh OUT_DIR [BUDGET_S]
#   KC_DETECTION_PT2_ARGS: export_detection_pt2.py's options (default: --set all).
# Writes OUT_DIR/detection_pt2.tar.xz (stripped/ archives without weights, manifest.jsonl, the
# export logs), real.tar.xz (detection_pt2/<name>.real.json, real_status.jsonl), logs.tgz.
set -uo pipefail
DEFAULT_BUDGET=240
. "$(dirname "${BASH_SOURCE[0]}")/device_session_env.sh" "$@"
W=/tmp/kcdp; rm -rf $W; mkdir -p $W/logs $W/real/detection_pt2 $W/sets/detection_pt2
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv >$W/logs/gpu.txt 2>&1
python3 -c 'import torch, torchvision; print(torch.__version__, torchvision.__version__)' >>$W/logs/gpu.txt 2>&1

# Exports get what the budget leaves after about 80 s of real runs; the last to finish is killed.
python3 research/corpus/export_detection_pt2.py $W/sets/detection_pt2 --jobs 12 \
  --timeout $(( $(left) - 85 )) ${KC_DETECTION_PT2_ARGS:---set all} >$W/logs/export.log 2>&1
tail -n1 $W/logs/export.log
models=$(ls $W/sets/detection_pt2/*.pt2 2>/dev/null)
if [ -n "$models" ]; then
  python3 validate/real_run.py $W/real/detection_pt2 $models --jobs 6 --import torchvision \
    --timeout 90 --deadline-s $(( $(left) - 12 )) >$W/logs/real.log 2>&1
  tail -n1 $W/logs/real.log
  cat $W/real/detection_pt2/real_status.jsonl
fi

export XZ_OPT="-6 -T0"
cp $W/sets/detection_pt2/manifest.jsonl $W/sets/detection_pt2/stripped/ 2>/dev/null
cp -r $W/sets/detection_pt2/logs $W/logs/export_logs 2>/dev/null
tar cJf $OUT/detection_pt2.tar.xz -C $W/sets/detection_pt2 stripped
tar cJf $OUT/real.tar.xz -C $W/real . 2>/dev/null
tar czf $OUT/logs.tgz -C $W logs 2>/dev/null
ls -la $OUT
echo "device_detection_pt2: done at $(( $(date +%s) - T0 )) s"
