#!/usr/bin/env bash
# The Python package's set-up, run by scripts/setup.sh: a virtual environment in the cache
# (outside the clone) with pinned PyTorch 2.11 and the test tools, then `pip install .` of this
# checkout into it, rebuilding incrementally in build/python. Idempotent; a second run only
# rebuilds what changed. Prints nothing but errors.
#   python/setup.sh            set up the environment and install the package
#   python/setup.sh --env      print the environment's python, for python/test.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${KERNELCOUNT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kernelcount}"
PYV="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
VENV="$CACHE/python-$PYV-torch2.11-v1"
if [ "${1:-}" = --env ]; then
  echo "$VENV/bin/python"
  exit 0
fi

# Python's venv module (Debian splits it out).
if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "python$PYV-venv" >/dev/null
fi

if [ ! -f "$VENV/.complete" ]; then
  echo "setup: creating the Python environment $VENV (PyTorch 2.11, pytest, pandas, nbclient)"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  pip=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)
  # Building and testing the package: the build backend and its bindings, the test tools.
  "${pip[@]}" "scikit-build-core==1.1.2" "nanobind==2.12.0" "pytest==9.2.0" "pandas==3.1.1" \
    "nbclient==0.11.0" "nbformat==5.11.1" "ipykernel==7.4.0"
  # The user's torch, as a user has it. Where a CUDA 13 toolkit provides the CUDA libraries
  # (this machine kind's image), only the few it lacks come from PyPI; else all of torch's.
  if [ -e /usr/local/cuda/lib64/libcublas.so.13 ] && [ -e /usr/local/cuda/lib64/libcudnn.so.9 ]; then
    "${pip[@]}" --no-deps "torch==2.11.0" "torchvision==0.26.0" "sympy==1.14.0" "mpmath==1.4.1" \
      "networkx==3.6.1" "jinja2==3.1.6" "markupsafe==3.0.4" "filelock==4.3.1" "fsspec==2026.9.0" \
      "typing_extensions==4.16.0" "numpy==2.4.6" "pillow==13.0.0" "nvidia-cufile==1.20.0.107" \
      "nvidia-cusparselt-cu13==0.10.0" "nvidia-nvshmem-cu13==3.8.0" "nvidia-nccl-cu13==2.32.3"
  else
    "${pip[@]}" "torch==2.11.0" "torchvision==0.26.0"
  fi
  touch "$VENV/.complete"
fi

# The package from this checkout: scikit-build-core runs CMake in build/python (kept, so a
# second install compiles only what changed; ccache shares objects with ./build).
# Nothing to do when the installed extension is newer than every source it is built from.
so="$(ls "$VENV"/lib/python*/site-packages/kernelcount/_core*.so 2>/dev/null | head -1 || true)"
if [ -n "$so" ] && [ -z "$(find "$ROOT/analyzer" "$ROOT/passes" "$ROOT/cli" "$ROOT/python/kernelcount" \
    "$ROOT/python/src" "$ROOT/python/CMakeLists.txt" "$ROOT/CMakeLists.txt" "$ROOT/pyproject.toml" \
    -newer "$so" -type f -print -quit)" ]; then
  # Another checkout may have installed its own copy since (the environment is shared): the
  # package must have been built from this one.
  [ "$(cat "$VENV/.kernelcount-source" 2>/dev/null)" = "$ROOT" ] && exit 0
fi

# cuDNN's folders as the CLI's build was given them (scripts/setup.sh), so that both ask the
# same cuDNN for a convolution neither has an answer for; LibTorch's headers as well, so that
# the package's TorchScript library is compiled as the CLI's was (ccache reuses its objects).
cached() { grep -s "^$1:" "$ROOT/build/CMakeCache.txt" | cut -d= -f2- || true; }
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation \
  -C build-dir="$ROOT/build/python" -C cmake.define.KERNELCOUNT_CUDNN_DIRS="$(cached KERNELCOUNT_CUDNN_DIRS)" \
  -C cmake.define.KERNELCOUNT_TORCH_PREFIX="$(cached CMAKE_PREFIX_PATH)" "$ROOT"
# Which checkout the installed package was built from: python/test.sh refuses to compare
# another's with this build's CLI.
echo "$ROOT" >"$VENV/.kernelcount-source"
