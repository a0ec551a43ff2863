#!/usr/bin/env bash
# Configures and builds kernelcount-validate on a GPU machine that has python3 with a CUDA
# build of torch, CMake and a CUDA toolkit, but no Debian dev packages: nlohmann/json.hpp and
# CLI/CLI.hpp come from KERNELCOUNT_HEADERS (default: .carry/include in the checkout).
#   validate/device_build.sh [BUILD_DIR]      (default: $TMPDIR/kernelcount-validate-build)
# Prints the path of the built binary on its last line.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-${TMPDIR:-/tmp}/kernelcount-validate-build}"
PY="${PYTHON:-python3}"
HEADERS="${KERNELCOUNT_HEADERS:-$ROOT/.carry/include}"
[ -f "$HEADERS/nlohmann/json.hpp" ] && [ -f "$HEADERS/CLI/CLI.hpp" ] || {
  echo "device_build: $HEADERS lacks nlohmann/json.hpp or CLI/CLI.hpp" >&2; exit 2; }

TORCH_PREFIX="$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)')"
SITE="$(cd "$TORCH_PREFIX/../../.." && pwd)"  # site-packages holding torch/ and nvidia/

# CUDA toolkit: CUDAToolkit_ROOT if set, else the one nvcc on PATH belongs to, else /usr/local.
CUDA_ROOT="${CUDAToolkit_ROOT:-}"
if [ -z "$CUDA_ROOT" ] && command -v nvcc >/dev/null; then
  CUDA_ROOT="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")"
fi
for d in /usr/local/cuda /usr/local/cuda-13.0; do
  [ -z "$CUDA_ROOT" ] && [ -x "$d/bin/nvcc" ] && CUDA_ROOT="$d"
done
[ -n "$CUDA_ROOT" ] || { echo "device_build: no CUDA toolkit (set CUDAToolkit_ROOT)" >&2; exit 2; }

# CUPTI: the toolkit's targets/x86_64-linux/ folders, else the nvidia-cuda-cupti wheel beside torch.
cupti_inc="" cupti_lib=""
for dir in "$CUDA_ROOT/targets/x86_64-linux" "$CUDA_ROOT/extras/CUPTI" "$CUDA_ROOT"; do
  if [ -z "$cupti_inc" ] && [ -f "$dir/include/cupti.h" ]; then
    lib="$(ls "$dir"/lib/libcupti.so "$dir"/lib64/libcupti.so "$dir"/lib/libcupti.so.* 2>/dev/null | head -n1 || true)"
    [ -n "$lib" ] && cupti_inc="$dir/include" && cupti_lib="$lib"
  fi
done
if [ -z "$cupti_inc" ]; then
  hdr="$(find "$SITE/nvidia" -name cupti.h -path '*include*' 2>/dev/null | head -n1 || true)"
  if [ -n "$hdr" ]; then
    cupti_inc="$(dirname "$hdr")"
    cupti_lib="$(ls "$cupti_inc"/../lib/libcupti.so* 2>/dev/null | head -n1 || true)"
  fi
fi
[ -n "$cupti_inc" ] && [ -n "$cupti_lib" ] || { echo "device_build: no CUPTI found" >&2; exit 2; }
echo "device_build: torch $TORCH_PREFIX, CUDA $CUDA_ROOT, CUPTI $cupti_lib"

cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$TORCH_PREFIX" \
  -DKERNELCOUNT_HEADERS="$HEADERS" -DKERNELCOUNT_TESTS=OFF \
  -DCUDAToolkit_ROOT="$CUDA_ROOT" \
  -DCUDAToolkit_CUPTI_INCLUDE_DIR="$cupti_inc" -DCUDA_cupti_LIBRARY="$cupti_lib" >"$BUILD.configure.log" 2>&1 ||
  { cat "$BUILD.configure.log" >&2; exit 1; }
grep "kernelcount-validate: skipped" "$BUILD.configure.log" >&2 && exit 1
cmake --build "$BUILD" --target kernelcount-validate -j"$(nproc)"
echo "$BUILD/validate/kernelcount-validate"
