#!/usr/bin/env bash
# Every C++ file the repository tracks is formatted by .clang-format (Debian 12's clang-format,
# which scripts/setup.sh installs). Prints the files that differ and exits 1 when any does.
#   tests/format_check.sh            (from the repository root; scripts/format.sh fixes them)
set -u
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format_check: clang-format is not installed"; exit 1; }
bad=$(git ls-files '*.cc' '*.h' | while read -r f; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"
done)
[ -z "$bad" ] && exit 0
echo "not formatted (run scripts/format.sh):"
echo "$bad"
exit 1
