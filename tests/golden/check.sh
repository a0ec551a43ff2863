#!/usr/bin/env bash
# Runs the real CLI on every case of cases.txt and compares with the golden file.
# Usage: tests/golden/check.sh KERNELCOUNT [--update] [CASES]   (from the repository root;
# CASES defaults to tests/golden/cases.txt)
# --update rewrites the golden files; review the change with `git diff tests/golden`.
set -u
kc="$1"
update="${2:-}"
dir="$(dirname "$0")"
cases="${3:-$dir/cases.txt}"
failed=0
while read -r name ext args; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  golden="$dir/$name.$ext"
  # shellcheck disable=SC2086
  actual="$("$kc" $args 2>&1)"
  status=$?
  if [ "$update" = "--update" ]; then
    printf '%s\n' "$actual" >"$golden"
    echo "updated $golden"
  elif [ $status -gt 1 ]; then  # 1 (over budget) is a report too; its stderr lines are in the output
    echo "FAIL $name.$ext: exit status $status: $actual"
    failed=1
  elif ! diff -u "$golden" <(printf '%s\n' "$actual") >/tmp/kc-golden-diff.$$ 2>&1; then
    echo "FAIL $name.$ext differs from the golden file:"
    head -40 /tmp/kc-golden-diff.$$
    failed=1
  fi
done <"$cases"
rm -f /tmp/kc-golden-diff.$$
[ $failed -eq 0 ] && [ "$update" != "--update" ] && echo "golden: all cases match"
exit $failed
