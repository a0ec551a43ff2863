#!/usr/bin/env bash
# The ctest entry: a small sample of the malformed corpus (every class, no multi-megabyte
# inputs) through the real CLI with run.py's limits. The whole corpus: scripts/malformed.sh.
# Usage: tests/malformed/sample.sh KERNELCOUNT OUT_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python3 "$here/generate.py" "$2" --sample 100 >/dev/null
python3 "$here/run.py" "$1" "$2" --jobs 2
