#!/usr/bin/env bash
# The review step of docs/ci/kernelcount.yml, on two exports of the model: the main branch's
# and the change's. Writes OUT_DIR/base.json (the baseline report), OUT_DIR/comment.md (the
# pull-request comment: verdict and diff first), OUT_DIR/kernelcount.sarif (findings for code
# scanning) and prints GitHub annotations on stdout. Exit status: kernelcount's (0 within the
# budgets, 1 over a budget, 2 bad input). tests/cli/ci_workflow.sh runs this very script.
#
# Usage: review.sh BASE_MODEL HEAD_MODEL OUT_DIR
# Environment: KERNELCOUNT (default: kernelcount on PATH); KC_BUDGETS (default below);
#              KC_SOURCE_ROOT (where the export's source paths start; default: the current directory).
set -u
base="$1" head="$2" out="$3"
kc="${KERNELCOUNT:-kernelcount}"
# shellcheck disable=SC2206
budgets=(${KC_BUDGETS:---max-kernel-increase 0 --max-bytes-increase 0 --max-unknown 0})
root=(--source-root "${KC_SOURCE_ROOT:-$PWD}")
mkdir -p "$out"
"$kc" "$base" --format json -o "$out/base.json" || exit 2
"$kc" "$head" --baseline "$out/base.json" "${budgets[@]}" --format markdown -o "$out/comment.md" 2>"$out/stderr.txt"
status=$?
cat "$out/stderr.txt" >&2
[ $status -le 1 ] || exit $status
"$kc" "$head" --baseline "$out/base.json" "${budgets[@]}" "${root[@]}" --format sarif -o "$out/kernelcount.sarif" 2>/dev/null
"$kc" "$head" --baseline "$out/base.json" "${budgets[@]}" "${root[@]}" --format github 2>/dev/null
exit $status
