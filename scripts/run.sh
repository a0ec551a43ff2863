#!/usr/bin/env bash
# The main job: set up (idempotently), build, and analyze the transformer block shipped in
# tests/models. Extra arguments go to kernelcount (e.g. --by line, --format json).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" --target kernelcount >/dev/null
cd "$ROOT"
exec build/kernelcount tests/models/transformer_block.pt2 "$@"
