#!/usr/bin/env bash
# One GPU-machine session for the truth of record: measures the corpora's real runs
# (validate/real_run.py: ep.module() under torch.profiler) and, beside them, kernelcount-validate's
# op-by-op replay of the same archives, within a wall-clock budget; also builds validate and
# runs it over the test models (validate/device_all.sh), as every device script does.
#   validate/device_truth.sh OUT_DIR BUDGET_S SET [SET ...]
# A SET is a folder of data/corpus/ (broad, fresh, fresh2, ..., heldout, models, opset,
# torchscript);
# sets are taken in the order given and each model's real run and replay run at once.
# Writes OUT_DIR/real.tar.xz (SET/<name>.real.json, SET/real_status.jsonl), OUT_DIR/replay.tar.xz
# (SET/<name>.json, .err), OUT_DIR/logs.tgz, OUT_DIR/all.tgz. Compare them with
# validate/real_truth.py. Environment: KC_REAL_JOBS=8, KC_JOBS=6 (replay processes), KC_NO_REPLAY=1,
# KC_REPLAY_SETS="set set" (replay only these).
set -uo pipefail
DEFAULT_BUDGET=540
OUT_ARG="$1"; BUDGET_ARG="$2"; shift 2
. "$(dirname "${BASH_SOURCE[0]}")/device_session_env.sh" "$OUT_ARG" "$BUDGET_ARG"
W=/tmp/kct; mkdir -p $W/logs $W/real $W/replay
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv >$W/logs/gpu.txt 2>&1

# The TorchScript set is packed: unpacked here, run with its manifest's input specs. Other sets
# packed as models.tar.xz (fresh5, fresh6, opinfo) are unpacked too.
mkdir -p $W/ts && tar xJf data/corpus/torchscript/models.tar.xz -C $W/ts
models_of() {
  if [ "$1" = torchscript ]; then ls $W/ts/ts/*.pt; return; fi
  if [ -f "data/corpus/$1/models.tar.xz" ]; then
    mkdir -p $W/packed && tar xJf "data/corpus/$1/models.tar.xz" -C $W/packed &&
      ls $W/packed/$1/*.pt2 $W/packed/$1/*.pt 2>/dev/null
  else
    ls "data/corpus/$1"/*.pt2 2>/dev/null
  fi
}
# A set's TorchScript input specs: its own manifest where it packs one (the detection sets), else
# the TorchScript set's.
manifest_of() {
  if [ -f "$W/packed/$1/manifest.jsonl" ]; then echo "$W/packed/$1/manifest.jsonl"
  else echo data/corpus/torchscript/manifest.jsonl; fi
}

# 1. real runs need no build: they start at once, set after set, in the background
(
  for set in "$@"; do
    mkdir -p $W/real/$set
    models=$(models_of $set)
    # shellcheck disable=SC2086
    python3 validate/real_run.py $W/real/$set $models --jobs "${KC_REAL_JOBS:-8}" \
      --manifest "$(manifest_of $set)" --import transformers.integrations.moe --import torchvision \
      --timeout 120 --deadline-s $(( $(left) - 45 )) >>$W/logs/real.log 2>&1
    echo "real $set done at $(( $(date +%s) - T0 )) s" >>$W/logs/real.log
  done
) &
real_pid=$!

# 2. build, then the test models in the background and the replays of each set
if build_and_check_test_models device_truth 40; then
  if [ "${KC_NO_REPLAY:-0}" != 1 ]; then
    for set in ${KC_REPLAY_SETS:-$@}; do
      [ "$(left)" -gt 60 ] || break
      dir="data/corpus/$set"; ts=()
      [ -f "$dir/models.tar.xz" ] && dir=$W/packed/$set
      [ "$set" = torchscript ] && { dir=$W/ts/ts; ts=(--manifest data/corpus/torchscript/manifest.jsonl); }
      python3 research/corpus/measure_broad.py "$BIN" "$dir" $W/replay/$set --jobs "${KC_JOBS:-6}" "${ts[@]}" \
        --timeout 100 --deadline-s $(( $(left) - 50 )) --grace-s 15 >>$W/logs/replay.log 2>&1
      echo "replay $set done at $(( $(date +%s) - T0 )) s" >>$W/logs/replay.log
    done
  fi
  wait $ALL_PID
  echo "device_truth: $(tail -n1 $W/logs/device_all.log)"
fi
wait $real_pid
grep -h "^real_run:\|done at" $W/logs/real.log $W/logs/replay.log

# 3. pack (at most 8 files back)
export XZ_OPT="-6 -T0"
tar cJf $OUT/real.tar.xz -C $W/real . 2>/dev/null
tar cJf $OUT/replay.tar.xz -C $W/replay . 2>/dev/null
tar czf $OUT/logs.tgz -C $W logs 2>/dev/null
tar czf $OUT/all.tgz -C $W all 2>/dev/null
ls -la $OUT
echo "device_truth: done at $(( $(date +%s) - T0 )) s"
