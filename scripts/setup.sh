#!/usr/bin/env bash
# Idempotent set-up shared by the README's two commands: Debian packages (graphviz renders
# --format dot in the tests), LibTorch 2.11.0
# unpacked from the PyPI wheel into a cache outside the clone, then a CMake build in ./build,
# then the Python package in an environment in the same cache (python/setup.sh).
# A second run only rebuilds what changed.
set -euo pipefail

TORCH_VERSION=2.11.0
CACHE="${KERNELCOUNT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kernelcount}"
LIBTORCH="$CACHE/libtorch-$TORCH_VERSION"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

need_pkgs=()
for tool in cmake g++ make unzip python3; do
  command -v "$tool" >/dev/null || need_pkgs+=("$tool")
done
# python3-markdown-it and python3-jsonschema: the tests parse the markdown report as CommonMark
# and validate the SARIF log (tests/cli/check_markdown.py, check_sarif.py); graphviz: the
# tests render --format dot (tests/cli/pictures.sh); zlib1g-dev: zip records and the built-in
# cuDNN answers are inflated with zlib (analyzer/zip_archive.cc, passes/torch2_11/cudnn_table.h);
# ccache: a second build (a new clone, the sanitized pass) compiles only what changed.
for p in ccache libcli11-dev nlohmann-json3-dev zlib1g-dev catch2 python3-markdown-it python3-jsonschema graphviz clang-format; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need_pkgs+=("$p")
done
python3 -m pip --version >/dev/null 2>&1 || need_pkgs+=(python3-pip)
if ((${#need_pkgs[@]})); then
  echo "setup: installing Debian packages: ${need_pkgs[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need_pkgs[@]}"
fi

# Kept: headers, CMake files, the CPU libraries the analyzer links, and libtorch_cuda/libc10_cuda
# so that kernelcount-validate compiles and links wherever a CUDA toolkit is installed (it runs
# only on a GPU machine). The rest of the wheel (Python bindings, other CUDA libraries) is not.
if [ ! -f "$LIBTORCH/.complete-v2" ]; then
  echo "setup: fetching LibTorch $TORCH_VERSION from the PyPI torch wheel (530 MB, once) into $LIBTORCH"
  tmp="$(mktemp -d "$CACHE.XXXX" 2>/dev/null || { mkdir -p "$CACHE"; mktemp -d "$CACHE/tmp.XXXX"; })"
  python3 -m pip download --progress-bar on --no-deps --only-binary=:all: --python-version 3.11 \
    --platform manylinux_2_28_x86_64 -d "$tmp" "torch==$TORCH_VERSION"
  rm -rf "$LIBTORCH" && mkdir -p "$LIBTORCH"
  unzip -q "$tmp"/torch-*.whl 'torch/include/*' 'torch/share/cmake/*' \
    'torch/lib/libc10.so' 'torch/lib/libtorch.so' 'torch/lib/libtorch_cpu.so' \
    'torch/lib/libgomp.so.1' 'torch/lib/libtorch_global_deps.so' \
    'torch/lib/libtorch_cuda.so' 'torch/lib/libc10_cuda.so' -d "$LIBTORCH"
  rm -rf "$tmp"
  touch "$LIBTORCH/.complete-v2"
fi

# The cu130 wheel's libtorch_cpu.so links libcudart and libcupti (for its profiler) even
# though nothing here calls them. Where no CUDA 13 toolkit provides them, take the two
# runtime wheels from PyPI.
RUNTIME_LIBS=""
if ! ldconfig -p | grep -q 'libcupti.so.13' && [ ! -e /usr/local/cuda-13.0/lib64/libcupti.so.13 ] \
   && [ ! -e /usr/local/cuda/lib64/libcupti.so.13 ]; then
  if [ ! -f "$CACHE/cuda13-runtime/.complete" ]; then
    echo "setup: fetching libcudart and libcupti 13 (needed to load libtorch_cpu.so)"
    python3 -m pip install -q --no-deps --target "$CACHE/cuda13-runtime" \
      "nvidia-cuda-runtime==13.0.96" "nvidia-cuda-cupti==13.0.85"
    touch "$CACHE/cuda13-runtime/.complete"
  fi
  RUNTIME_LIBS="$(find "$CACHE/cuda13-runtime" -name 'libcu*.so.13' -printf '%h\n' | sort -u | paste -sd';')"
fi

# cuDNN 9.19 (the version PyTorch 2.11's CUDA wheels run) and the cuBLASLt 13 it calls: the
# convolution rules ask cuDNN's own engine heuristics, without a GPU, where they can load it.
# Taken from a CUDA 13 toolkit that has them, else from PyPI's wheels (about 800 MB, once);
# KERNELCOUNT_CUDNN=off skips this and leaves the rules to their shape trees.
CUDNN_DIRS=""
system_cudnn=no
loadable="$(ldconfig -p)"
for inc in /usr/local/cuda-13.0/include /usr/local/cuda/include /usr/include /usr/include/x86_64-linux-gnu; do
  if grep -qs 'define CUDNN_MAJOR 9$' "$inc/cudnn_version.h" && grep -qs 'define CUDNN_MINOR 19$' "$inc/cudnn_version.h" &&
     grep -q 'libcudnn.so.9 ' <<<"$loadable" && grep -q 'libcublasLt.so.13 ' <<<"$loadable"; then
    system_cudnn=yes
  fi
done
if [ "${KERNELCOUNT_CUDNN:-}" != off ] && [ $system_cudnn = no ]; then
  if [ ! -f "$CACHE/cudnn-9.19/.complete" ]; then
    echo "setup: fetching cuDNN 9.19 and cuBLASLt 13 from PyPI into $CACHE/cudnn-9.19 (convolution heuristics)"
    python3 -m pip install --progress-bar on --no-deps --target "$CACHE/cudnn-9.19" "nvidia-cudnn-cu13==9.19.0.56" "nvidia-cublas==13.0.2.14"
    touch "$CACHE/cudnn-9.19/.complete"
  fi
  CUDNN_DIRS="$CACHE/cudnn-9.19/nvidia/cudnn/lib;$CACHE/cudnn-9.19/nvidia/cu13/lib"
fi

echo "setup: building in $ROOT/build (the first build takes minutes; later ones compile only what changed)"
cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$LIBTORCH/torch/share/cmake" \
  -DKERNELCOUNT_EXTRA_RPATH="$RUNTIME_LIBS" -DKERNELCOUNT_CUDNN_DIRS="$CUDNN_DIRS" >/dev/null
cmake --build "$ROOT/build" -j"$(nproc)" "$@"

# The Python package (python/setup.sh): its environment in the cache and `pip install .`, on a
# whole build only (a run for some targets, as test_sanitized.sh's, leaves it as it is).
if [ $# -eq 0 ]; then
  "$ROOT/python/setup.sh"
fi
