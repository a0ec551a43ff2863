#!/usr/bin/env bash
# The main job: set up (idempotently), build, and analyze the transformer block shipped in
# tests/models. Extra arguments go to kernelcount (e.g. --by line, --format json). What set-up
# does goes to stderr, so stdout holds the report alone.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" --target kernelcount >&2
cd "$ROOT"
exec build/kernelcount tests/models/transformer_block.pt2 "$@"
