#!/usr/bin/env bash
# The whole test suite once more with the project's code under AddressSanitizer and
# UndefinedBehaviorSanitizer (g++, a separate build dir: build-asan/). LibTorch itself is not
# instrumented, so memory errors inside it go unseen; its start-up allocations that live
# until exit are not reported as leaks.
# Usage: scripts/test_sanitized.sh [ctest args...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" --target kernelcount >/dev/null
CACHE="${KERNELCOUNT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kernelcount}"
RUNTIME_LIBS="$(grep -s KERNELCOUNT_EXTRA_RPATH: "$ROOT/build/CMakeCache.txt" | cut -d= -f2- || true)"
CUDNN_DIRS="$(grep -s KERNELCOUNT_CUDNN_DIRS: "$ROOT/build/CMakeCache.txt" | cut -d= -f2- || true)"
cmake -S "$ROOT" -B "$ROOT/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKERNELCOUNT_SANITIZE=ON \
  -DCMAKE_PREFIX_PATH="$CACHE/libtorch-2.11.0/torch/share/cmake" -DKERNELCOUNT_EXTRA_RPATH="$RUNTIME_LIBS" \
  -DKERNELCOUNT_CUDNN_DIRS="$CUDNN_DIRS" >/dev/null
targets=(kernelcount kc_pass_tests kc_report_tests kc_pt2_tests kc_loader_tests kc-schema-table kc_validate_tests kc_cudnn_tests)
# The sweep checker exists where a CUDA toolkit does (as in the main build); its test needs it.
available="$(cmake --build "$ROOT/build-asan" --target help)"
[[ "$available" == *kernelcount-sweepcheck* ]] && targets+=(kernelcount-sweepcheck)
cmake --build "$ROOT/build-asan" -j"$(nproc)" --target "${targets[@]}"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Every test but the malformed-input sample, whose runner caps each run's address space at
# 1 GiB: ASan reserves terabytes of shadow memory up front and cannot start under that cap. The
# sample runs in the main suite; the fuzz targets cover the same inputs with ASan.
cd "$ROOT/build-asan" && ctest --output-on-failure -E '^malformed_sample$' "$@"
