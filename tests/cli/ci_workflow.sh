#!/usr/bin/env bash
# Plays docs/ci/kernelcount.yml's review step (docs/ci/review.sh) on two exports, as the main
# branch and a change would give them, and checks exit codes and outputs:
#   unchanged model                       -> 0, "within budget", no ::error
#   GELU swapped for an op without a rule -> 1, the unknown op named in the diff, SARIF and annotations
#   a model that grew (MLP -> transformer) -> 1, the op types and lines that changed
# Usage: tests/cli/ci_workflow.sh KERNELCOUNT   (from the repository root)
set -u
export KERNELCOUNT="$1"
failed=0
fail() { echo "FAIL $*"; failed=1; }
py=""
for p in python3 /usr/bin/python3; do
  "$p" -c 'import markdown_it, jsonschema' 2>/dev/null && { py="$p"; break; }
done
[ -n "$py" ] || fail "no python3 with markdown-it-py and jsonschema (run scripts/setup.sh)"
grep -q "docs/ci/review.sh" docs/ci/kernelcount.yml || fail "the workflow no longer runs docs/ci/review.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

play() {  # play NAME BASE HEAD EXPECTED_STATUS
  local out="$tmp/$1"
  docs/ci/review.sh "$2" "$3" "$out" >"$out.annotations" 2>"$out.stderr"
  local status=$?
  [ $status -eq "$4" ] || fail "$1: exit status $status, expected $4: $(cat "$out.stderr")"
  for f in base.json comment.md kernelcount.sarif; do [ -s "$out/$f" ] || fail "$1: no $f"; done
  if [ -n "$py" ]; then
    "$py" tests/cli/check_markdown.py "$out/comment.md" --baseline || fail "$1: comment.md"
    "$py" tests/cli/check_sarif.py "$out/kernelcount.sarif" || fail "$1: kernelcount.sarif"
  fi
}

play unchanged tests/models/mlp.pt2 tests/models/mlp.pt2 0
grep -q "Verdict: within budget" "$tmp/unchanged/comment.md" || fail "unchanged: no 'within budget' verdict"
grep -q "^::error" "$tmp/unchanged.annotations" && fail "unchanged: an ::error annotation"

play unruled tests/models/mlp.pt2 tests/models/mlp_unruled_act.pt2 1
c="$tmp/unruled/comment.md"
grep -q "Verdict: over budget" "$c" || fail "unruled: no 'over budget' verdict"
grep -q "op(s) without a launch rule added" "$c" || fail "unruled: the verdict does not say why"
grep -q "| bernoulli.p | added |" "$c" || fail "unruled: bernoulli.p not listed as added"
grep -q "| gelu | removed |" "$c" || fail "unruled: gelu not listed as removed"
grep -q "^::error file=tests/models/models.py,line=38,title=kernelcount/budget-exceeded::" "$tmp/unruled.annotations" ||
  fail "unruled: no budget annotation on models.py:38: $(cat "$tmp/unruled.annotations")"
grep -q "^::warning file=tests/models/models.py,line=38,title=kernelcount/unknown-op::" "$tmp/unruled.annotations" ||
  fail "unruled: no unknown-op annotation"
[ -z "$py" ] || "$py" tests/cli/check_sarif.py "$tmp/unruled/kernelcount.sarif" kernelcount/budget-exceeded \
  kernelcount/unknown-op || fail "unruled: SARIF findings"

play grew tests/models/mlp.pt2 tests/models/transformer_block.pt2 1
c="$tmp/grew/comment.md"
grep -q "| layer\\\\_norm | added | 0 -\\\\> 2 |" "$c" || fail "grew: layer_norm not listed as added"
grep -q "tests/models/models.py:75 | added" "$c" || fail "grew: source line 75 not listed"
grep -q "eager kernels added (each unknown op counted as one) | \`--max-kernel-increase\` | 10 kernels | 0 kernels" "$c" ||
  fail "grew: verdict row"
[ $failed -eq 0 ] && echo "ci_workflow: main and change played; exit codes, comment, SARIF and annotations as expected"
exit $failed
