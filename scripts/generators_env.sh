#!/usr/bin/env bash
# The generators' Python (scripts/regenerate.py): a virtual environment in the cache with the
# versions scripts/generators-requirements.txt pins, so that the fitted trees regenerate byte for
# byte wherever they are checked. Idempotent: created once per set of pins (its name holds
# their digest), then only its python is printed.
#   scripts/generators_env.sh      set it up if needed; print its python on stdout
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${KERNELCOUNT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kernelcount}"
PINS="$ROOT/scripts/generators-requirements.txt"
PYV="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
VENV="$CACHE/generators-python-$PYV-$(sha256sum "$PINS" | cut -c1-12)"
if [ ! -f "$VENV/.complete" ]; then
  echo "setup: creating the generators' Python environment $VENV (scikit-learn, numpy; scripts/generators-requirements.txt)" >&2
  # Python's venv module (Debian splits it out).
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "python$PYV-venv" >/dev/null
  fi
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --only-binary=:all: -r "$PINS" >&2
  touch "$VENV/.complete"
fi
echo "$VENV/bin/python"
