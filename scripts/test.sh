#!/usr/bin/env bash
# The whole test suite: set up (idempotently), build everything, run every test.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cd "$ROOT/build"
ctest --output-on-failure
# Once more with the project's code under AddressSanitizer and UndefinedBehaviorSanitizer.
"$ROOT/scripts/test_sanitized.sh"
