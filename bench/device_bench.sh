#!/usr/bin/env bash
# The benchmark's GPU-machine row: builds kernelcount there (with kernelcount-validate,
# validate/device_build.sh), times `kernelcount resnet50.pt2` against building ResNet-50 and
# counting its kernels under torch.profiler (python bench/bench.py --gpu), then runs
# kernelcount-validate over the test models (validate/device_all.sh), as every device script does.
#   bench/device_bench.sh OUT_DIR
# Writes OUT_DIR/bench_gpu.json (merge its gpu_route into bench/results.json) and
# OUT_DIR/bench_logs.tgz (the build, the benchmark and device_all's logs and outputs).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FINAL="$(mkdir -p "$1" && cd "$1" && pwd)"
OUT=/tmp/kc-device-bench; mkdir -p $OUT
trap 'cp "$OUT/bench_gpu.json" "$FINAL/" 2>/dev/null; tar czf "$FINAL/bench_logs.tgz" -C "$OUT" . 2>/dev/null' EXIT
cd "$ROOT"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
B=/tmp/kc-validate
validate/device_build.sh $B >"$OUT/build.log" 2>&1
BIN="$(tail -n1 "$OUT/build.log")"
cmake --build $B --target kernelcount -j"$(nproc)" >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "device_bench: built $B/kernelcount and $BIN"
python3 bench/bench.py --gpu --kernelcount $B/kernelcount --runs 5 --work /tmp/kcbench --json "$OUT/bench_gpu.json" \
  >"$OUT/bench.log" 2>&1
echo "device_bench: bench exit $?"; tail -5 "$OUT/bench.log"
python3 bench/profiler_route.py resnet50 2>&1 | tail -1
$B/kernelcount /tmp/kcbench/resnet50.pt2 | sed -n 5,9p
# KC_NO_DEVICE_ALL=1: a script earlier in the same call has just run it on this build.
if [ "${KC_NO_DEVICE_ALL:-0}" != 1 ]; then
  KC_PREBUILT="$BIN" validate/device_all.sh "$OUT/all" >"$OUT/device_all.log" 2>&1
  echo "device_all exit $?"
  grep -E '^=== ' "$OUT/device_all.log" | head -20
fi
