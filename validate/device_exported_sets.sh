#!/usr/bin/env bash
# One GPU-machine session for the sets exported there: PyTorch's OpInfo samples
# (research/corpus/export_opinfo.py) and the control-flow programs (export_control_flow.py) are exported on
# the machine (its 16 cores do it in seconds), and their real runs measured (validate/real_run.py),
# with those of the opset archives no measured.tar.xz holds yet; kernelcount-validate is built,
# replays the small sets and runs over the test models (validate/device_all.sh), as every device
# script does. torchvision's detectors have their own session (device_detection.sh).
#   validate/device_exported_sets.sh OUT_DIR [BUDGET_S]
# KC_OPINFO_ARGS: more arguments for export_opinfo.py (`--first 3 --samples 2`: the held-out
# samples 3 and 4 of every op, which the corpus's samples 0-2 never held).
# Writes OUT_DIR/real.tar.xz (SET/<name>.real.json), replay.tar.xz (SET/<name>.json, .err),
# sets.tar.xz (control/ as exported, the opset_new names), opinfo.tar.xz.partNN (the OpInfo
# archives without their sample inputs, and manifest.jsonl), logs.tgz, all.tgz.
set -uo pipefail
DEFAULT_BUDGET=500
. "$(dirname "${BASH_SOURCE[0]}")/device_session_env.sh" "$@"
W=/tmp/kcx; mkdir -p $W/logs $W/real $W/replay $W/sets/opset_new
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv >$W/logs/gpu.txt 2>&1

# 1. exports on the CPU, beside the build
python3 research/corpus/export_opinfo.py $W/sets/opinfo --jobs 12 ${KC_OPINFO_ARGS:-} >$W/logs/export_opinfo.log 2>&1 &
opinfo_pid=$!
python3 research/corpus/export_control_flow.py $W/sets/control >$W/logs/export_control.log 2>&1
mkdir -p $W/opset && tar -xJf data/corpus/opset/models.tar.xz -C $W/opset
python3 - "$W/opset/opset" >$W/logs/opset_new.txt <<'PY'
import os, sys
sys.path.insert(0, "validate")
from measured_io import measured
have = {name for name, _ in measured("data/results/opset")}
for f in sorted(os.listdir(sys.argv[1])):
    if f.endswith(".pt2") and f[:-4] not in have:
        print(f)
PY
for f in $(cat $W/logs/opset_new.txt); do ln -s "$W/opset/opset/$f" $W/sets/opset_new/$f; done

# 2. real runs, set after set, in the background
real_set() {  # SET [MANIFEST]
  mkdir -p $W/real/$1
  python3 validate/real_run.py $W/real/$1 $(ls $W/sets/$1/*.pt2 $W/sets/$1/*.pt 2>/dev/null) \
    --jobs "${KC_REAL_JOBS:-12}" ${2:+--manifest $2} --timeout 120 --deadline-s $(( $(left) - 40 )) >>$W/logs/real.log 2>&1
  echo "real $1 done at $(( $(date +%s) - T0 )) s" >>$W/logs/real.log
}
(
  real_set control
  real_set opset_new
  while kill -0 $opinfo_pid 2>/dev/null; do sleep 2; done
  real_set opinfo
) &
real_pid=$!

# 3. build, the test models, and the replays of the small sets
if build_and_check_test_models device_exported_sets 40; then
  for set in control opset_new; do
    [ "$(left)" -gt 60 ] || break
    python3 research/corpus/measure_broad.py "$BIN" $W/sets/$set $W/replay/$set --jobs 4 \
      --timeout 100 --deadline-s $(( $(left) - 50 )) --grace-s 15 >>$W/logs/replay.log 2>&1
    echo "replay $set done at $(( $(date +%s) - T0 )) s" >>$W/logs/replay.log
  done
  wait $ALL_PID
  echo "device_exported_sets: $(tail -n1 $W/logs/device_all.log)"
fi
wait $real_pid
grep -h "^real_run:\|done at\|export_opinfo:" $W/logs/*.log

# 4. pack: the OpInfo archives without sample inputs (the exporter regenerates them, seeded)
mkdir -p $W/pack/opinfo
python3 -c 'import glob, os, sys; sys.path.insert(0, "validate"); from strip_weights import strip_weights
for f in glob.glob(sys.argv[1] + "/*.pt2"): strip_weights(f, os.path.join(sys.argv[2], os.path.basename(f)))' \
  $W/sets/opinfo $W/pack/opinfo 2>>$W/logs/pack.log
cp $W/sets/opinfo/manifest.jsonl $W/pack/opinfo/
export XZ_OPT="-6 -T0"
tar cJf $W/opinfo.tar.xz -C $W/pack opinfo
split -b 15m -d $W/opinfo.tar.xz $OUT/opinfo.tar.xz.part
tar cJf $OUT/sets.tar.xz -C $W/sets control -C $W/logs opset_new.txt 2>/dev/null
tar cJf $OUT/real.tar.xz -C $W/real . 2>/dev/null
tar cJf $OUT/replay.tar.xz -C $W/replay . 2>/dev/null
tar czf $OUT/logs.tgz -C $W logs 2>/dev/null
tar czf $OUT/all.tgz -C $W all 2>/dev/null
ls -la $OUT
echo "device_exported_sets: done at $(( $(date +%s) - T0 )) s"
