#!/usr/bin/env bash
# One GPU-machine call for the DRAM bytes per op of a sample of corpus models
# (validate/dram_run.py under Nsight Compute, caches as they are and flushed before each
# kernel), within a wall-clock budget; meanwhile builds kernelcount-validate, and afterwards runs
# validate/device_all.sh over the test models, as every device script does (after, not during:
# another process's kernels would share the L2 and the DRAM counters).
#   validate/device_dram.sh OUT_DIR BUDGET_S [MODEL.pt2 ...]   (default: validate/dram/sample.txt)
# Writes OUT_DIR/dram.tar.xz (<name>.dram.json, dram_status.jsonl, ncu.log) and OUT_DIR/logs.tgz.
# KC_ALL_MARGIN_S (default 240): seconds kept for device_all.sh at the end (120 s was too few:
# its test-model checks all agreed but it did not finish). Kept in every call: as every device
# script does, this one checks the validator on the test models, however short the budget.
set -uo pipefail
DEFAULT_BUDGET=540
OUT_ARG="$1"; BUDGET_ARG="$2"; shift 2
. "$(dirname "${BASH_SOURCE[0]}")/device_session_env.sh" "$OUT_ARG" "$BUDGET_ARG"
W=/tmp/kcd; mkdir -p $W/logs $W/dram
record_gpu $W/logs/gpu.txt
# A short call (under twice the margin) measures in batches of 3 models: a batch that overruns
# the budget is killed whole, so smaller batches keep what fitted.
margin=${KC_ALL_MARGIN_S:-240}; batch=6
if [ "$BUDGET" -lt $(( 2 * margin )) ]; then batch=3; fi
build_in_background
if [ $# -gt 0 ]; then models=("$@"); else mapfile -t models < <(grep -v '^#' validate/dram/sample.txt); fi
python3 validate/dram_run.py drive $W/dram "${models[@]}" --batch $batch \
  --budget-s $(( $(left) - margin )) >$W/logs/dram.log 2>&1
echo "device_dram: ncu done at $(( $(date +%s) - T0 )) s: $(tail -n1 $W/logs/dram.log)"
check_test_models_after_build
tar cJf "$OUT/dram.tar.xz" -C $W dram
tar czf "$OUT/logs.tgz" -C $W logs $( [ -d $W/all ] && echo all )
cat $W/logs/gpu.txt; grep -v '^dram_run: measured' $W/dram/ncu.log | grep -v '^==PROF==' | tail -15
tail -5 $W/dram/dram_status.jsonl; tail -n1 $W/logs/device_all.log
