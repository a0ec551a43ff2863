#!/usr/bin/env bash
# The quick suite (minutes): set up (idempotently), build everything, run every test but those
# labelled "full" (the whole corpora; scripts/test_full.sh runs them and the sanitized build).
# Extra arguments go to ctest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cd "$ROOT/build"
ctest --output-on-failure -LE full "$@"
