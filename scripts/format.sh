#!/usr/bin/env bash
# Formats every tracked C++ file with .clang-format (tests/format_check.sh checks it).
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files '*.cc' '*.h' | xargs clang-format -i
