#!/usr/bin/env bash
# One GPU-machine session for the broad measurement campaign, within a wall-clock budget:
# exports the broad corpus (research/corpus/export_broad.py, several shards at once), runs the
# op shape sweeps (research/sweeps/sweep.py), builds kernelcount-validate and runs it over the
# test models (validate/device_all.sh), and measures every exported model as it appears
# (research/corpus/measure_broad.py). Packs everything into at most 8 files in OUT_DIR.
#   validate/device_session.sh OUT_DIR [BUDGET_S]        (default 560)
# Environment: KC_PREBUILT=BIN (skip the build), KC_MODELS=DIR (measure these stripped .pt2
# instead of exporting; with KC_SKIP_DONE=DIR of earlier results to skip), KC_NO_SWEEP=1,
# KC_SEED_MODELS=DIR (stripped .pt2 exported earlier, measured too), KC_SWEEP_PARTS="a:conv b:gemm,..."
# (sweep processes: name:families, or name:families@I/N for the Ith of N shards), KC_EXPORT_SHARDS=8, KC_JOBS=10 (validate processes); for CPU dry runs KC_DEVICE=cpu,
# KC_EXPORT_ONLY=model,model, KC_EXPORT_SET=fresh6 (export_broad.py --set).
set -uo pipefail
DEFAULT_BUDGET=560
. "$(dirname "${BASH_SOURCE[0]}")/device_session_env.sh"
W=/tmp/kcs; mkdir -p $W/logs $W/broad $W/results $W/sweeps
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv >$W/logs/gpu.txt 2>&1

# 0. models exported earlier (stripped .pt2) join the ones exported now
[ -n "${KC_SEED_MODELS:-}" ] && cp "$KC_SEED_MODELS"/*.pt2 $W/broad/
# 1. exports (CPU-bound tracing; 8 processes), unless models were given
SHARDS="${KC_EXPORT_SHARDS:-8}"
MODELS="${KC_MODELS:-$W/broad}"
export_pids=()
if [ -z "${KC_MODELS:-}" ]; then
  for i in $(seq 0 $((SHARDS - 1))); do
    timeout $((BUDGET - 150)) python3 research/corpus/export_broad.py --out $W/broad --shard $i/$SHARDS \
      --timeout 100 --deadline-s $((BUDGET - 230)) --device "${KC_DEVICE:-cuda}" ${KC_EXPORT_ONLY:+--only "$KC_EXPORT_ONLY"} ${KC_EXPORT_SET:+--set "$KC_EXPORT_SET"} \
      >$W/logs/export-$i.log 2>&1 &
    export_pids+=($!)
  done
fi
( for p in "${export_pids[@]}"; do while kill -0 $p 2>/dev/null; do sleep 2; done; done; touch $MODELS/DONE ) &

# 2. sweeps (three processes, families split)
sweep_pids=()
if [ "${KC_NO_SWEEP:-0}" != 1 ]; then
  for part in ${KC_SWEEP_PARTS:-a:conv b:gemm,sdpa,rnn,where c:reduction,index,resample,copy,norm}; do
    fams="${part#*:}"; shard=0/1
    [[ "$fams" == *@* ]] && { shard="${fams#*@}"; fams="${fams%@*}"; }
    timeout $((BUDGET - 60)) python3 research/sweeps/sweep.py --out $W/sweeps/sweep_${part%%:*}.jsonl \
      --device "${KC_DEVICE:-cuda}" --families "$fams" --shard "$shard" --deadline-s $((BUDGET - 90)) \
      >$W/logs/sweep_${part%%:*}.log 2>&1 &
    sweep_pids+=($!)
  done
fi

# 3. build, then the test models in the background
if [ -n "${KC_PREBUILT:-}" ]; then
  BIN="$(readlink -f "$KC_PREBUILT")"; echo "prebuilt $BIN" >$W/logs/build.log
else
  KC_BUILD_DIAG=1 validate/device_build.sh /tmp/kc-validate >$W/logs/build.log 2>&1
  BIN="$(tail -n1 $W/logs/build.log)"
fi
echo "session: build done at $(( $(date +%s) - T0 )) s: $BIN"
[ -x "$BIN" ] || { tail -30 $W/logs/build.log; }
if [ -x "$BIN" ]; then
  (KC_PREBUILT="$BIN" KC_REPRO=${KC_REPRO:-1} timeout $((BUDGET - 40 - ($(date +%s) - T0))) \
     validate/device_all.sh $W/all >$W/logs/device_all.log 2>&1; echo "device_all exit $?" >>$W/logs/device_all.log) &
  all_pid=$!
  # 4. measure the corpus as it is exported
  skip=()
  [ -n "${KC_SKIP_DONE:-}" ] && cp "$KC_SKIP_DONE"/*.json $W/results/ 2>/dev/null && skip=(--skip-done)
  python3 research/corpus/measure_broad.py "$BIN" "$MODELS" $W/results --jobs "${KC_JOBS:-10}" --timeout 100 \
    --follow $MODELS/DONE --deadline-s $(( $(left) - 60 )) --grace-s 20 "${skip[@]}" 2>&1 | tee $W/logs/measure.log
  [ -n "${KC_SKIP_DONE:-}" ] && for f in "$KC_SKIP_DONE"/*.json; do rm -f "$W/results/$(basename "$f")"; done
  wait $all_pid
  echo "session: $(tail -n1 $W/logs/device_all.log)"
  grep -E '^device_build:|^noweights|^=== ' $W/logs/device_all.log $W/all/*.log 2>/dev/null | head -40
fi
for p in "${sweep_pids[@]}"; do wait $p; done
for p in "${export_pids[@]}"; do kill $p 2>/dev/null; done

# 5. pack (at most 8 files back)
cat $W/broad/manifest-*.jsonl >$W/broad/manifest.jsonl 2>/dev/null
echo "session: exported $(ls $W/broad/*.pt2 2>/dev/null | wc -l), export errors $(grep -c '"error"' $W/broad/manifest.jsonl 2>/dev/null), measured $(ls $W/results/*.json 2>/dev/null | wc -l), sweep lines $(cat $W/sweeps/*.jsonl 2>/dev/null | wc -l)"
tar czf $OUT/broad_pt2.tgz -C $W broad 2>/dev/null
tar czf $OUT/broad_results.tgz -C $W results 2>/dev/null
tar czf $OUT/sweeps.tgz -C $W sweeps 2>/dev/null
tar czf $OUT/logs.tgz -C $W logs all 2>/dev/null
[ -x "${BIN:-}" ] && [ -z "${KC_PREBUILT:-}" ] && tar czf $OUT/validate_bin.tgz -C "$(dirname "$BIN")" kernelcount-validate
ls -la $OUT
echo "session: done at $(( $(date +%s) - T0 )) s"
