#!/usr/bin/env bash
# One GPU-machine call measuring what torch.compile launches (validate/compile_run.py: the
# compiled program's real run, kernel names, Inductor's output code) for a list of models, within
# a wall-clock budget; meanwhile builds kernelcount-validate, and afterwards checks the test models
# with it (validate/device_all.sh), as every device script does (after, not during: Inductor takes
# some choices by timing on the GPU, and compile_run.py keeps those timings to one process at a time).
#   validate/device_compile.sh OUT_DIR BUDGET_S MODEL.pt2 [...]
# Writes OUT_DIR/compiled.tar.xz (<name>.compiled.json, <name>.code.py.xz, real_status.jsonl)
# and OUT_DIR/logs.tgz. KC_COMPILE_JOBS (default 6): models compiled at once. KC_ALL_MARGIN_S
# (default 240; 190 was too few for device_all.sh to finish): seconds kept for device_all.sh at the end.
# KC_COMPILE_TIMEOUT (default 300): seconds per model, compile included. The workers import the
# modules that register the custom ops archives call (transformers' MoE grouped_mm_fallback,
# torchvision's), as real_run.py's callers do.
# KC_COMPILE_ROUNDS (default 1): compile the same models this many times, each round in fresh
# processes with fresh Inductor caches (rounds after the first in compiled/round<k>/), so that what
# a compile decides by timing (pad_mm) shows how often it goes each way.
set -uo pipefail
DEFAULT_BUDGET=540
OUT_ARG="$1"; BUDGET_ARG="$2"; shift 2
. "$(dirname "${BASH_SOURCE[0]}")/device_session_env.sh" "$OUT_ARG" "$BUDGET_ARG"
W=/tmp/kcc; mkdir -p $W/logs $W/compiled
build_in_background
ROUNDS=${KC_COMPILE_ROUNDS:-1}
for r in $(seq 1 $ROUNDS); do
  dir=$W/compiled; [ $r -gt 1 ] && dir=$W/compiled/round$r
  # The time left before device_all.sh's margin, shared among the rounds still to run.
  python3 validate/compile_run.py $dir "$@" --jobs "${KC_COMPILE_JOBS:-6}" --timeout "${KC_COMPILE_TIMEOUT:-300}" \
    --import transformers.integrations.moe --import torchvision \
    --deadline-s $(( ($(left) - ${KC_ALL_MARGIN_S:-240}) / (ROUNDS - r + 1) )) >>$W/logs/compile.log 2>&1
done
echo "device_compile: compiled runs done at $(( $(date +%s) - T0 )) s: $(tail -n1 $W/logs/compile.log)"
check_test_models_after_build
rm -rf $W/compiled/.w*/inductor-cache $W/compiled/round*/.w*/inductor-cache
tar cJf "$OUT/compiled.tar.xz" -C $W compiled
tar czf "$OUT/logs.tgz" -C $W logs $( [ -d $W/all ] && echo all )
tail -n1 $W/logs/device_all.log 2>/dev/null
grep -h '"ok": false' $W/compiled/real_status.jsonl | head -20
# The call's status is the test models' check (a model that failed to compile is listed above).
grep -q '^device_all exit 0$' $W/logs/device_all.log 2>/dev/null
