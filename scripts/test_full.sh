#!/usr/bin/env bash
# What CI runs: set up, build, every test including those labelled "full" (every corpus model,
# the whole markdown sample), then the whole suite once more under AddressSanitizer and
# UndefinedBehaviorSanitizer (scripts/test_sanitized.sh), and that every generated file is current
# (scripts/regenerate.py --check).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
(cd "$ROOT/build" && ctest --output-on-failure)
(cd "$ROOT" && python3 scripts/regenerate.py --check)
"$ROOT/scripts/test_sanitized.sh"
