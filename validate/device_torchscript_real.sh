#!/usr/bin/env bash
# One GPU-machine session for a new TorchScript set measured as its real run: traces the given
# architectures on the GPU (research/corpus/export_torchscript.py, several shards at once,
# weights zeroed, deflated), then runs each trace as a user does (validate/real_run.py:
# torch.jit.load, optimizations off, under torch.profiler after warm-up); meanwhile builds
# kernelcount-validate and runs it over the test models (validate/device_all.sh), as every
# device script does.
#   KC_TS_ONLY=model,model validate/device_torchscript_real.sh OUT_DIR [BUDGET_S]   (default 540)
# Writes OUT_DIR/models.tar.xz.part-* (ts/*.pt and ts/manifest.jsonl, in parts of 15 MiB: a device
# call brings back files of at most 16 MiB; `cat models.tar.xz.part-* > models.tar.xz`),
# OUT_DIR/real.tar.xz (*.real.json, real_status.jsonl) and OUT_DIR/logs.tgz.
# Environment: KC_SHARDS=8, KC_REAL_JOBS=8.
set -uo pipefail
DEFAULT_BUDGET=540
. "$(dirname "${BASH_SOURCE[0]}")/device_session_env.sh"
W=/tmp/kctsr; mkdir -p $W/logs $W/ts $W/real
[ -n "${KC_TS_ONLY:-}" ] || { echo "device_torchscript_real: set KC_TS_ONLY" >&2; exit 2; }

SHARDS="${KC_SHARDS:-8}"
pids=()
for i in $(seq 0 $((SHARDS - 1))); do
  timeout $((BUDGET / 3)) python3 research/corpus/export_torchscript.py --out $W/ts --shard $i/$SHARDS \
    --only "$KC_TS_ONLY" >$W/logs/export-$i.log 2>&1 &
  pids+=($!)
done
build_and_check_test_models device_torchscript_real 30 || true
for p in "${pids[@]}"; do wait $p; done
cat $W/ts/manifest-*.jsonl >$W/ts/manifest.jsonl 2>/dev/null
rm -f $W/ts/manifest-*.jsonl
echo "device_torchscript_real: traced $(ls $W/ts/*.pt 2>/dev/null | wc -l) at $(( $(date +%s) - T0 )) s"
python3 validate/real_run.py $W/real $W/ts/*.pt --jobs "${KC_REAL_JOBS:-8}" --manifest $W/ts/manifest.jsonl \
  --timeout 120 --deadline-s $(( $(left) - 40 )) >$W/logs/real.log 2>&1
echo "device_torchscript_real: measured $(ls $W/real/*.real.json 2>/dev/null | wc -l) at $(( $(date +%s) - T0 )) s"
[ -n "${ALL_PID:-}" ] && wait $ALL_PID
echo "device_torchscript_real: $(tail -n1 $W/logs/device_all.log 2>/dev/null)"
grep -E '^=== ' $W/logs/device_all.log 2>/dev/null | head -20
tar cJf $W/models.tar.xz -C $W ts && split -b 15M $W/models.tar.xz $OUT/models.tar.xz.part-
tar cJf $OUT/real.tar.xz -C $W/real .
tar czf $OUT/logs.tgz -C $W logs all 2>/dev/null
exit 0
