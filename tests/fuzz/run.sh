#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan+UBSan, build-fuzz/) and runs each for SECONDS
# on its seed corpus (tests/fuzz/seeds/<target>, from the test models; a torchscript seed is
# its --input specs on one line, then the .pt's bytes), keeping what it finds
# new in build-fuzz/corpus/<target>. A crash leaves crash-* in build-fuzz/findings/<target>
# and fails the script; reproduce with build-fuzz/tests/fuzz/fuzz_<target> FILE.
# TARGET:JOBS runs JOBS libFuzzer processes on the target (one a core) and sums their executions.
# An input that runs past FUZZ_TIMEOUT seconds (default 10) is a finding; raise it on a machine
# where builds share the cores, or a starved job reports a timeout that does not reproduce.
# Usage: tests/fuzz/run.sh SECONDS [TARGET[:JOBS]...]   (targets: pt2_json sym_expr cli_specs baseline torchscript)
set -euo pipefail
seconds="${1:?usage: tests/fuzz/run.sh SECONDS [TARGET[:JOBS]...]}"
shift
specs=("$@")
[ ${#specs[@]} -eq 0 ] && specs=(pt2_json sym_expr cli_specs baseline torchscript)
targets=("${specs[@]%%:*}")
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$ROOT/build-fuzz"

# clang with libFuzzer from Debian, idempotently (the main set-up needs only g++).
if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz: installing clang"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q clang >/dev/null
fi

# LibTorch and the other dependencies as the main set-up installs them.
"$ROOT/scripts/setup.sh" --target kernelcount >/dev/null
CACHE="${KERNELCOUNT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kernelcount}"
RUNTIME_LIBS="$(grep -s KERNELCOUNT_EXTRA_RPATH: "$ROOT/build/CMakeCache.txt" | cut -d= -f2- || true)"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DKERNELCOUNT_FUZZ=ON -DCMAKE_PREFIX_PATH="$CACHE/libtorch-2.11.0/torch/share/cmake" \
  -DKERNELCOUNT_EXTRA_RPATH="$RUNTIME_LIBS" >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")

# LibTorch's static initialisers allocate for the life of the process: leaks are not findings.
# No allocation stacks while fuzzing (a fifth of the time goes to recording them); rerunning a
# finding with the target binary alone prints them.
export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:malloc_context_size=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The convolution rules' shape trees, not cuDNN's heuristics: those run in an uninstrumented
# library (its queries with absurd shapes are in tests/passes/cudnn_heuristics_test.cc).
export KERNELCOUNT_CUDNN=off
status=0
for spec in "${specs[@]}"; do
  t="${spec%%:*}" jobs=1
  [[ "$spec" == *:* ]] && jobs="${spec#*:}"
  corpus="$BUILD/corpus/$t" findings="$BUILD/findings/$t"
  mkdir -p "$corpus" "$findings"
  log="$BUILD/fuzz_$t.log"
  echo "fuzz: $t for ${seconds}s, $jobs job(s) (log $log)"
  run=("$BUILD/tests/fuzz/fuzz_$t" "$corpus" "$ROOT/tests/fuzz/seeds/$t" -max_total_time="$seconds"
       -rss_limit_mb=4096 -timeout="${FUZZ_TIMEOUT:-10}" -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$findings/")
  if [ "$jobs" -eq 1 ]; then
    "${run[@]}" >"$log" 2>&1 || true
    logs=("$log")
  else
    # Each job logs to fuzz-N.log in the working directory.
    jobdir="$BUILD/jobs/$t" && rm -rf "$jobdir" && mkdir -p "$jobdir"
    (cd "$jobdir" && "${run[@]}" -jobs="$jobs" -workers="$jobs" >"$log" 2>&1 || true)
    logs=("$jobdir"/fuzz-*.log)
  fi
  execs=$(cat "${logs[@]}" | awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}')
  done_jobs=$(cat "${logs[@]}" | grep -c "stat::number_of_executed_units" || true)
  found=$(ls "$findings" | wc -l)
  echo "fuzz: $t: $execs executions by $done_jobs of $jobs job(s), $found findings"
  if [ "$found" -ne 0 ]; then
    echo "fuzz: $t FOUND A PROBLEM: $(ls "$findings")"; status=1
  elif [ "$done_jobs" -ne "$jobs" ]; then
    # A job killed from outside (or out of memory without an artifact) leaves no final stats.
    echo "fuzz: $t: only $done_jobs of $jobs job(s) finished; see ${logs[*]}"; status=1
  fi
done
exit $status
