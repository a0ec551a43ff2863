#!/usr/bin/env bash
# The Python package's tests (python/tests, pytest): the package python/setup.sh installed into
# its environment, checked against the CLI of a build. Registered with ctest as python_package.
#   python/test.sh [BUILD_DIR] [PYTEST_ARGS...]      BUILD_DIR defaults to ./build
# Fails, never skips, when the environment or the package is missing or stale.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fail() { echo "python/test.sh: $*" >&2; exit 1; }
given="${1:-$ROOT/build}"
shift || true
BUILD="$(cd "$given" 2>/dev/null && pwd)" || fail "no build folder $given"
PY="$("$ROOT/python/setup.sh" --env)"
[ -x "$PY" ] || fail "no Python environment at $PY: run scripts/setup.sh (it runs python/setup.sh)"
[ -x "$BUILD/kernelcount" ] || fail "no CLI at $BUILD/kernelcount: build it first"
installed="$("$PY" -c 'import kernelcount, os; print(os.path.dirname(kernelcount.__file__))')" ||
  fail "kernelcount is not installed in $PY: run python/setup.sh"
for f in "$ROOT"/python/kernelcount/*.py; do
  cmp -s "$f" "$installed/$(basename "$f")" || fail "the installed package is older than $f: run python/setup.sh"
done
source_root="$(cat "$(dirname "$(dirname "$PY")")/.kernelcount-source" 2>/dev/null || true)"
[ "$source_root" = "$ROOT" ] ||
  fail "the installed package was built from ${source_root:-an unknown checkout}, not this one: run python/setup.sh"
# torch (the user's, with CUDA) loads its CUDA libraries even on a machine without a GPU: the
# wheels' and a CUDA toolkit's.
site="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
libs="$(find "$site/nvidia" -name lib -type d 2>/dev/null | paste -sd: || true)"
export LD_LIBRARY_PATH="${libs}:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KERNELCOUNT_CLI="$BUILD/kernelcount"
cd "$ROOT/python/tests"
exec "$PY" -m pytest -q -p no:cacheprovider -p no:logging "$@" .
