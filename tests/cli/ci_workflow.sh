#!/usr/bin/env bash
# Plays docs/ci/kernelcount.yml's review step (docs/ci/review.sh) on two exports, as the main
# branch and a change would give them, and checks exit codes and outputs:
#   unchanged model                       -> 0, "within budget", no ::error
#   GELU swapped for an op without a rule -> 1, the unknown op named in the diff, SARIF and annotations
#   a model that grew (MLP -> transformer) -> 1, the op types and lines that changed
#   one line changed among moved lines    -> 1, findings on that line alone
# then runs the workflow's steps as copied (tests/cli/play_workflow.py): a pull request, an
# unchanged model, a fork's pull request, a repository without code scanning, no KERNELCOUNT_REPO.
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
# Nothing changed, so no line has a finding (the notices of the costliest lines need --findings all).
grep -q "file=" "$tmp/unchanged.annotations" && fail "unchanged: findings on unchanged lines: $(cat "$tmp/unchanged.annotations")"
"$py" -c 'import json, sys; assert json.load(open(sys.argv[1]))["runs"][0]["results"] == []' \
  "$tmp/unchanged/kernelcount.sarif" || fail "unchanged: SARIF results on unchanged lines"

play unruled tests/models/mlp.pt2 tests/models/mlp_unruled_act.pt2 1
c="$tmp/unruled/comment.md"
grep -q "Verdict: over budget" "$c" || fail "unruled: no 'over budget' verdict"
grep -q "the change adds 1 op(s) without a launch rule (bernoulli.p)" "$c" || fail "unruled: the verdict does not say why"
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
# A change of one line among moved ones (a comment line inserted above line 73, a .clone() added on
# what is now line 75): the findings are on line 75 alone, in the annotations, SARIF and comment.
play edited tests/models/transformer_block.pt2 tests/models/transformer_block_edited.pt2 1
a="$tmp/edited.annotations"
[ "$(grep -c '^::error' "$a")" -eq 1 ] && grep -q "^::error file=tests/models/models.py,line=75,title=kernelcount/budget-exceeded::.*this line (line 74 before the change) adds 16.4 kB of HBM traffic: +clone" "$a" ||
  fail "edited: the budget error is not on the changed line 75 alone: $(cat "$a")"
grep -Eq "line=(74|76)," "$a" && fail "edited: a finding on a moved, unchanged line: $(cat "$a")"
"$py" - "$tmp/edited/kernelcount.sarif" <<'PY' || fail "edited: SARIF results not on line 75 alone"
import json, sys
results = json.load(open(sys.argv[1]))["runs"][0]["results"]
lines = {r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results}
assert lines == {75}, lines
PY
grep -q "| tests/models/models.py:75 (was 74) | changed |" "$tmp/edited/comment.md" ||
  fail "edited: the comment does not list line 75 (was 74) as changed"
grep -Eq "models.py:(74|76) \\(was" "$tmp/edited/comment.md" && fail "edited: a moved line listed as changed"
grep -q '^- `tests/models/models.py:75`: this line (line 74 before the change) adds 16.4 kB of HBM traffic: +clone' "$tmp/edited/comment.md" &&
  [ "$(grep -c '^- `tests/models/models.py:' "$tmp/edited/comment.md")" -eq 1 ] ||
  fail "edited: the comment does not point at line 75 alone"
# Asked for (--findings all), every line's findings come back.
"$KERNELCOUNT" tests/models/transformer_block_edited.pt2 --baseline tests/models/transformer_block.pt2 \
  --max-kernel-increase 0 --format github --findings all 2>/dev/null | grep -q "line=76,title=kernelcount/costly-line" ||
  fail "--findings all: no note on the costliest line"

# The workflow itself, step by step, on throwaway repositories (tests/cli/play_workflow.py).
grep -q 'CACHE="${KERNELCOUNT_CACHE:-' scripts/setup.sh || fail "scripts/setup.sh no longer caches in \$KERNELCOUNT_CACHE"
"$py" -m py_compile docs/ci/export_model.py || fail "docs/ci/export_model.py does not compile"
grep -q -- "--out" docs/ci/export_model.py || fail "docs/ci/export_model.py takes no --out"
workflow() {  # workflow NAME SCENARIO: the job's report as JSON in $tmp/NAME.json
  "$py" tests/cli/play_workflow.py "$KERNELCOUNT" docs/ci/kernelcount.yml "$2" "$tmp/wf-$1" >"$tmp/$1.json" ||
    fail "$1: play_workflow.py failed"
}
check() {  # check NAME PYTHON: asserts on the job's report `r`
  "$py" -c "import json, sys
r = json.load(open(sys.argv[1]))
ran = {s['name']: s for s in r['steps'] if s['ran']}
$2" "$tmp/$1.json" || fail "$1: $(head -c 3000 "$tmp/$1.json")"
}
workflow pr tests/models/mlp.pt2:tests/models/mlp_unruled_act.pt2
check pr "
assert r['status'] == 'failure' and ran['Fail when over budget']['exit'] == 1
review = ran['Review (budgets, comment, SARIF, annotations)']
assert review['exit'] == 0 and '::error file=tests/models/models.py,line=38,' in review['stdout'], review
assert r['env']['KERNELCOUNT'].endswith('/kernelcount/build/kernelcount')
assert r['setup_args'] == '--target kernelcount', r['setup_args']
cache = r['uses']['actions/cache']
assert cache['path'].replace('~', r['home']) == r['env']['KERNELCOUNT_CACHE'], cache
assert r['env']['CCACHE_DIR'].startswith(r['env']['KERNELCOUNT_CACHE'] + '/'), r['env']
assert r['setup_sh_sha256_16'] in cache['key'] and r['setup_sh_sha256_16'] in cache['restore-keys'], cache
assert r['uses']['actions/checkout']['fetch-depth'] == '0'
assert 'pip install torch==2.11.0 --index-url https://download.pytorch.org/whl/cpu' in r['stubs']
assert any(s.startswith('gh pr comment 7 --body-file kc-out/comment.md') for s in r['stubs']), r['stubs']
assert 'Verdict: over budget' in r['posted'] and r['posted'] in r['summary']
assert 'Upload findings to code scanning' in ran and ran['Upload findings to code scanning']['ok']"
workflow edited tests/models/transformer_block.pt2:tests/models/transformer_block_edited.pt2
check edited "
import re
review = ran['Review (budgets, comment, SARIF, annotations)']['stdout']
assert r['status'] == 'success' and 'Fail when over budget' not in ran
assert set(re.findall(r'line=(\\d+)', review)) == {'75'}, review
assert '| tests/models/models.py:75 (was 74) | changed |' in r['posted'], r['posted']"
workflow same tests/models/mlp.pt2:tests/models/mlp.pt2
check same "
assert r['status'] == 'success', r['status']
assert 'Fail when over budget' not in ran and 'Verdict: within budget' in r['posted']"
workflow fork tests/models/mlp.pt2:tests/models/mlp_unruled_act.pt2:fork
check fork "
assert 'Post the comment' not in ran and 'Upload findings to code scanning' not in ran, list(ran)
assert r['posted'] is None and not any(s.startswith('gh ') for s in r['stubs'])
assert 'Verdict: over budget' in r['summary'] and r['status'] == 'failure'"
workflow private tests/models/mlp.pt2:tests/models/mlp.pt2:no-code-scanning
check private "
assert 'Upload findings to code scanning' not in ran and 'Post the comment' in ran and r['status'] == 'success'"
workflow unset tests/models/mlp.pt2:tests/models/mlp.pt2:no-repo
check unset "
s = ran['Check the set-up']
assert s['exit'] == 1 and 'set the repository variable KERNELCOUNT_REPO' in s['stdout'], s
assert 'Fetch kernelcount' not in ran and r['status'] == 'failure'"

[ $failed -eq 0 ] && echo "ci_workflow: main and change played, and the workflow run as copied; exit codes, comment, SARIF and annotations as expected"
exit $failed
