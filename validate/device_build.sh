#!/usr/bin/env bash
# Configures and builds kernelcount-validate on a GPU machine that has python3 with a CUDA
# build of torch, CMake and a CUDA toolkit, but no Debian dev packages.
#   validate/device_build.sh [BUILD_DIR]      (default: $TMPDIR/kernelcount-validate-build)
# Prints the path of the built binary on its last line.
#
# Header-only dependencies come from ONE place: KERNELCOUNT_HEADERS (default .carry/include,
# filled here by validate/fetch_headers.sh with Debian 12's nlohmann-json3-dev 3.11.2 and
# libcli11-dev 2.1.2). Any other copy on the machine (a system package, a CMake package config,
# CPATH, a toolkit's include folder) is kept out: find_package is disabled for both, the
# folder is searched first (-I, ahead of every -isystem), and after the build every object's
# dependency list is checked to name only these copies.
# Every translation unit is compiled with the C++ ABI torch was built with
# (_GLIBCXX_USE_CXX11_ABI), also the GPU-free libraries (kc_core) that the top-level CMake
# leaves at the compiler's default; CUPTI and cudart are linked from the nvidia wheels that
# libtorch itself loads, so one copy of each is in the process. Run with KC_BUILD_DIAG=1 to
# print every json.hpp / CLI.hpp on the machine.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-${TMPDIR:-/tmp}/kernelcount-validate-build}"
PY="${PYTHON:-python3}"
HEADERS="$(cd "${KERNELCOUNT_HEADERS:-$ROOT/.carry/include}" 2>/dev/null && pwd || true)"
[ -n "$HEADERS" ] && [ -f "$HEADERS/nlohmann/json.hpp" ] && [ -f "$HEADERS/CLI/CLI.hpp" ] || {
  echo "device_build: ${KERNELCOUNT_HEADERS:-$ROOT/.carry/include} lacks nlohmann/json.hpp or CLI/CLI.hpp (run validate/fetch_headers.sh where apt-get works, and carry .carry)" >&2; exit 2; }
# Nothing from the environment may add include folders or flags of its own.
unset CPATH CPLUS_INCLUDE_PATH C_INCLUDE_PATH CXXFLAGS CPPFLAGS LDFLAGS

if [ "${KC_BUILD_DIAG:-0}" = 1 ]; then
  echo "device_build: header copies on this machine:" >&2
  find / -xdev \( -path /proc -o -path /sys \) -prune -o \( -name json.hpp -o -name CLI.hpp -o -name json_fwd.hpp \) -print 2>/dev/null | sed 's/^/  /' >&2 || true
fi

read -r TORCH_PREFIX TORCH_ABI < <("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path, int(torch._C._GLIBCXX_USE_CXX11_ABI))')
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

# CUPTI and cudart: the copies libtorch loads (the nvidia wheels beside torch, through its
# RPATH), so that the process holds one of each; the toolkit's only where the wheels lack them.
wheel_lib() {  # NAME: the wheel's lib<NAME>.so.N
  find "$SITE/nvidia" -name "lib$1.so.[0-9]*" -path '*/lib/*' 2>/dev/null | sort | head -n1
}
cupti_lib="$(wheel_lib cupti)" cudart_lib="$(wheel_lib cudart)" cupti_inc=""
hdr="$(find "$SITE/nvidia" -name cupti.h -path '*include*' 2>/dev/null | head -n1 || true)"
[ -n "$hdr" ] && cupti_inc="$(dirname "$hdr")"
for dir in "$CUDA_ROOT/targets/x86_64-linux" "$CUDA_ROOT/extras/CUPTI" "$CUDA_ROOT"; do
  if [ -z "$cupti_inc" ] && [ -f "$dir/include/cupti.h" ]; then cupti_inc="$dir/include"; fi
  if [ -z "$cupti_lib" ]; then
    cupti_lib="$(ls "$dir"/lib/libcupti.so "$dir"/lib64/libcupti.so 2>/dev/null | head -n1 || true)"
  fi
done
[ -n "$cupti_inc" ] && [ -n "$cupti_lib" ] || { echo "device_build: no CUPTI found" >&2; exit 2; }
cudart_arg=()
[ -n "$cudart_lib" ] && cudart_arg=(-DCUDA_cudart_LIBRARY="$cudart_lib")
echo "device_build: torch $TORCH_PREFIX (C++11 ABI $TORCH_ABI), CUDA $CUDA_ROOT, CUPTI $cupti_lib ($cupti_inc), cudart ${cudart_lib:-toolkit}, headers $HEADERS ($(tr '\n' ' ' <"$HEADERS/PACKAGES" 2>/dev/null))"

rm -f "$BUILD/CMakeCache.txt"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$TORCH_PREFIX" \
  -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON \
  -DKC_JSON_INCLUDE="$HEADERS" -DKC_CLI11_INCLUDE="$HEADERS" -DKERNELCOUNT_HEADERS="$HEADERS" \
  -DCMAKE_CXX_FLAGS="-I$HEADERS -D_GLIBCXX_USE_CXX11_ABI=$TORCH_ABI" \
  -DKERNELCOUNT_TESTS=OFF \
  -DCUDAToolkit_ROOT="$CUDA_ROOT" "${cudart_arg[@]}" \
  -DCUDAToolkit_CUPTI_INCLUDE_DIR="$cupti_inc" -DCUDA_cupti_LIBRARY="$cupti_lib" >"$BUILD.configure.log" 2>&1 ||
  { cat "$BUILD.configure.log" >&2; exit 1; }
grep "kernelcount-validate: skipped" "$BUILD.configure.log" >&2 && exit 1
cmake --build "$BUILD" --target kernelcount-validate -j"$(nproc)" -- VERBOSE=0 >"$BUILD.build.log" 2>&1 ||
  { tail -40 "$BUILD.build.log" >&2; exit 1; }

# Every object must have been compiled against the one copy of each header library.
bad="$(find "$BUILD" -name '*.o.d' -print0 | xargs -0 grep -hoE '[^ ]*(nlohmann/json\.hpp|CLI/CLI\.hpp)' | sort -u | grep -v "^$HEADERS/" || true)"
[ -z "$bad" ] || { echo "device_build: objects compiled against other header copies:" >&2; echo "$bad" >&2; exit 1; }
BIN="$BUILD/validate/kernelcount-validate"
# One libcupti and one libcudart in the process.
libs="$(ldd "$BIN" | grep -E 'libcupti|libcudart' | awk '{print $3}' | sort -u)"
for l in cupti cudart; do
  n="$(echo "$libs" | grep -c "lib$l" || true)"
  [ "$n" -le 1 ] || { echo "device_build: $n copies of lib$l: $libs" >&2; exit 1; }
done
echo "device_build: built with one header copy each; $(echo $libs)"
echo "$BIN"
