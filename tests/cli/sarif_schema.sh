#!/usr/bin/env bash
# The SARIF check itself: tests/cli/check_sarif.py validates against OASIS's SARIF 2.1.0 schema
# and rejects known-bad logs (its --self-test), and, end to end, a real log from the CLI passes
# while the same log broken (a result of level "fatal", no "version") fails with exit 1.
# Usage: tests/cli/sarif_schema.sh KERNELCOUNT   (from the repository root)
set -u
kc="$1"
failed=0
fail() { echo "FAIL $*"; failed=1; }
# The checks' Python: one that has jsonschema (Debian's, installed by scripts/setup.sh).
py=""
for p in python3 /usr/bin/python3; do
  "$p" -c 'import jsonschema' 2>/dev/null && { py="$p"; break; }
done
[ -n "$py" ] || { echo "FAIL no python3 with jsonschema (run scripts/setup.sh)"; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$py" tests/cli/check_sarif.py --self-test || fail "check_sarif.py --self-test"

"$kc" tests/models/mlp_unruled_act.pt2 --baseline tests/models/mlp.pt2 --max-kernel-increase 0 \
  --format sarif -o "$tmp/log.sarif" 2>/dev/null
[ $? -le 1 ] || fail "kernelcount --format sarif"
"$py" tests/cli/check_sarif.py "$tmp/log.sarif" kernelcount/budget-exceeded kernelcount/unknown-op ||
  fail "a real log does not validate"

broken() {  # broken NAME PYTHON-EDIT-OF-log: the edited log must fail the check
  "$py" - "$tmp/log.sarif" "$tmp/$1.sarif" "$2" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(log, open(sys.argv[2], "w"))
PY
  "$py" tests/cli/check_sarif.py "$tmp/$1.sarif" >"$tmp/$1.out"
  local status=$?
  [ $status -eq 1 ] || fail "$1: check_sarif.py exit $status, expected 1"
  grep -q "schema: $3" "$tmp/$1.out" || fail "$1: not rejected by the schema: $(cat "$tmp/$1.out")"
}
broken fatal 'log["runs"][0]["results"][0]["level"] = "fatal"' "'fatal' is not one of"
broken no_version 'del log["version"]' "'version' is a required property"

[ $failed -eq 0 ] && echo "sarif_schema: self-test, a real log valid, broken copies rejected"
exit $failed
