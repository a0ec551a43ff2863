# Sourced by the budgeted GPU-session scripts (device_session.sh, device_torchscript.sh,
# device_truth.sh), which set DEFAULT_BUDGET and keep their arguments OUT_DIR [BUDGET_S]: sets
# ROOT, OUT, BUDGET and T0, enters the checkout, quiets the Python libraries, and defines `left`
# (seconds of budget left) and `build_and_check_test_models`.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
BUDGET="${2:-$DEFAULT_BUDGET}"
cd "$ROOT"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
T0=$(date +%s)
left() { echo $((BUDGET - ($(date +%s) - T0))); }

# Builds kernelcount-validate into /tmp/kc-validate (BIN: the binary's path) and runs
# validate/device_all.sh over the test models in the background, until MARGIN_S seconds before
# the budget ends (ALL_PID; its log in $W/logs/device_all.log), as every device script does.
# Needs W. Returns 1, after printing the build log's end, when the build failed.
build_and_check_test_models() {  # NAME MARGIN_S
  KC_BUILD_DIAG=1 validate/device_build.sh /tmp/kc-validate >"$W/logs/build.log" 2>&1
  BIN="$(tail -n1 "$W/logs/build.log")"
  echo "$1: build done at $(( $(date +%s) - T0 )) s: $BIN"
  if [ ! -x "$BIN" ]; then tail -30 "$W/logs/build.log"; return 1; fi
  (KC_PREBUILT="$BIN" timeout $(( $(left) - $2 )) validate/device_all.sh "$W/all" >"$W/logs/device_all.log" 2>&1
   echo "device_all exit $?" >>"$W/logs/device_all.log") &
  ALL_PID=$!
}

# For the Nsight Compute scripts (device_dram.sh, device_dram_probe.sh), whose measurements no
# other process may share (its kernels would share the L2 and the DRAM counters):
# record_gpu FILE writes the GPU's name, clocks and L2 and Nsight Compute's version;
# build_in_background starts the validator's build (BUILD_PID); check_test_models_after_build
# waits for it, then runs device_all.sh over the test models until 15 s before the budget ends.
# Need W.
record_gpu() {  # FILE
  { nvidia-smi --query-gpu=name,driver_version,memory.used,clocks.sm,clocks.mem --format=csv; ncu --version
    python3 -c 'import torch; p = torch.cuda.get_device_properties(0); print("L2_cache_size", p.L2_cache_size, "SMs", p.multi_processor_count)'
  } >"$1" 2>&1
}
build_in_background() {
  (KC_BUILD_DIAG=1 nice validate/device_build.sh /tmp/kc-validate >"$W/logs/build.log" 2>&1) &
  BUILD_PID=$!
}
check_test_models_after_build() {
  wait "$BUILD_PID"
  BIN="$(tail -n1 "$W/logs/build.log")"
  if [ -x "$BIN" ]; then
    KC_PREBUILT="$BIN" timeout $(( $(left) - 15 )) validate/device_all.sh "$W/all" >"$W/logs/device_all.log" 2>&1
    echo "device_all exit $?" >>"$W/logs/device_all.log"
  else
    tail -20 "$W/logs/build.log"
  fi
}
