#!/usr/bin/env bash
# Generates the whole malformed-input corpus (tests/malformed/generate.py: about 5,000 inputs
# made from tests/models, including the 1 GB and 50 MB ones, deflated) into build/malformed and
# runs every case through build/kernelcount with tests/malformed/run.py's limits (10 s, 1 GiB
# peak RSS each). Prints the outcomes per class; exit 1 if any case failed.
# Usage: scripts/malformed.sh [--no-big] [--jobs N]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
gen_args=() run_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-big) gen_args+=(--no-big) ;;
    --jobs) run_args+=(--jobs "$2"); shift ;;
    *) echo "usage: scripts/malformed.sh [--no-big] [--jobs N]" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$ROOT/build/kernelcount" ] || "$ROOT/scripts/setup.sh" --target kernelcount
python3 "$ROOT/tests/malformed/generate.py" "$ROOT/build/malformed" "${gen_args[@]}"
python3 "$ROOT/tests/malformed/run.py" "$ROOT/build/kernelcount" "$ROOT/build/malformed" "${run_args[@]}"
