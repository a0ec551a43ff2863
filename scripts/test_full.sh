#!/usr/bin/env bash
# What CI runs: set up, build, every test including those labelled "full" (every corpus model,
# the whole markdown sample), then the whole suite once more under AddressSanitizer and
# UndefinedBehaviorSanitizer (scripts/test_sanitized.sh), and that every generated file is current
# (scripts/regenerate.py --check, with the fitted trees' pinned scikit-learn).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
(cd "$ROOT/build" && ctest --output-on-failure)
# Under the generators' Python (the pinned scikit-learn; created once in the cache), so that the
# fitted trees are checked too: nothing may be skipped here.
GENERATORS_PY="$("$ROOT/scripts/generators_env.sh")"
(cd "$ROOT" && "$GENERATORS_PY" scripts/regenerate.py --check --no-skip)
"$ROOT/scripts/test_sanitized.sh"
