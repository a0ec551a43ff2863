#!/usr/bin/env bash
# One GPU-machine session for torchvision's detectors as .pt2: each is exported on the GPU with
# every score threshold at 0 (research/corpus/export_detection_pt2.py: torch.export, else
# draft_export; one process per model), and each archive's own run is measured as soon as it is
# written (validate/real_run.py, the truth of record), while the slower exports go on. A model
# that does not export or run is recorded and the others go on. kernelcount-validate is not
# built: the real run is the truth.
#   validate/device_detection_pt2.sh OUT_DIR [BUDGET_S]
#   KC_DETECTION_PT2_ARGS: which models (export_detection_pt2.py's options; default --set all).
#   KC_DETECTION_PT2_B2: the models also exported with a batch of 2 images (comma-separated;
#   default ssdlite320_mobilenet_v3_large,retinanet_resnet50_fpn,fasterrcnn_mobilenet_v3_large_320_fpn;
#   "none" for none).
# Writes OUT_DIR/detection_pt2.tar.xz (stripped/: the archives without weights, manifest.jsonl,
# the export logs), real.tar.xz (detection_pt2/<name>.real.json, real_status.jsonl), logs.tgz.
set -uo pipefail
DEFAULT_BUDGET=240
. "$(dirname "${BASH_SOURCE[0]}")/device_session_env.sh" "$@"
W=/tmp/kcdp; rm -rf $W; S=$W/sets/detection_pt2; R=$W/real/detection_pt2
mkdir -p $W/logs $R $S $W/runs
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv >$W/logs/gpu.txt 2>&1
python3 -c 'import torch, torchvision; print(torch.__version__, torchvision.__version__)' >>$W/logs/gpu.txt 2>&1

# torch.export.export refuses every one of these models (a guard on a data-dependent size: tried
# on the host, research/corpus/export_detection_pt2.py --methods export), so only draft_export is
# tried here (KC_DETECTION_PT2_METHODS=export,draft tries both).
M="--methods ${KC_DETECTION_PT2_METHODS:-draft}"
# Exports get what the budget leaves after a last real run (about 60 s); one still running then
# is killed and recorded.
B2="${KC_DETECTION_PT2_B2:-ssdlite320_mobilenet_v3_large,retinanet_resnet50_fpn,fasterrcnn_mobilenet_v3_large_320_fpn}"
python3 research/corpus/export_detection_pt2.py $S ${KC_DETECTION_PT2_ARGS:---set all} $M --jobs 16 --timeout $(( $(left) - 65 )) \
  >$W/logs/export.log 2>&1 &
pids="$!"
if [ "$B2" != none ]; then
  python3 research/corpus/export_detection_pt2.py $S --only "$B2" --batch 2 $M --jobs 8 \
    --timeout $(( $(left) - 65 )) >$W/logs/export_b2.log 2>&1 &
  pids="$pids $!"
fi

# Each archive is measured once its export record is written (the archive is complete then).
started=" "
exporting() { for p in $pids; do kill -0 $p 2>/dev/null && return 0; done; return 1; }
while :; do
  busy=0; exporting && busy=1
  for rec in $S/*.json; do
    [ -f "$rec" ] || continue
    n=$(basename "$rec" .json)
    case "$started" in *" $n "*) continue ;; esac
    [ -f "$S/$n.pt2" ] || { started="$started$n "; continue; }
    started="$started$n "
    mkdir -p $W/runs/$n
    python3 validate/real_run.py $W/runs/$n $S/$n.pt2 --jobs 1 --import torchvision --timeout 90 \
      --deadline-s $(( $(left) - 8 )) >$W/logs/real_$n.log 2>&1 &
  done
  [ $busy = 1 ] || break
  [ "$(left)" -gt 10 ] || break
  sleep 3
done
wait
cat $W/runs/*/real_status.jsonl >$R/real_status.jsonl 2>/dev/null
mv $W/runs/*/*.real.json $R/ 2>/dev/null
for rec in $S/*.json; do [ -f "$rec" ] && { cat "$rec"; echo; }; done >$S/stripped/manifest.jsonl
grep -h '^export_detection_pt2:' $W/logs/export*.log
echo "real runs: $(grep -c '"ok": true' $R/real_status.jsonl) measured of $(ls $S/*.pt2 2>/dev/null | wc -l) archives"
cut -c1-300 $R/real_status.jsonl

export XZ_OPT="-6 -T0"
cp -r $S/logs $W/logs/export_logs 2>/dev/null
tar cJf $OUT/detection_pt2.tar.xz -C $S stripped
tar cJf $OUT/real.tar.xz -C $W/real . 2>/dev/null
tar czf $OUT/logs.tgz -C $W logs 2>/dev/null
ls -la $OUT
echo "device_detection_pt2: done at $(( $(date +%s) - T0 )) s"
