#!/usr/bin/env bash
# The truth of record for a set that has real runs but no replay (TorchScript traces, which
# kernelcount-validate does not replay): the real runs (data/results/SET/real.tar.xz) aligned
# op by op to kernelcount's own op list for each model (`kernelcount --format json`), written as
# data/results/SET/measured.tar.xz. The op list only places each real event beside its op;
# the counts are the real run's, and the accuracy scripts rerun kernelcount for the predictions.
#   data/truth_from_reports.sh [--kernelcount BIN] SET [SET ...]
#   (models: data/corpus/SET/models.tar.xz or the folder itself, with manifest.jsonl's --input specs)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
KC=build/kernelcount
if [ "${1:-}" = --kernelcount ]; then KC="$2"; shift 2; fi
[ $# -gt 0 ] || { echo "usage: $0 [--kernelcount BIN] SET [SET ...]" >&2; exit 2; }
for set in "$@"; do
  W=$(mktemp -d)
  trap 'rm -rf "$W"' EXIT
  models=data/corpus/$set
  if [ -f $models/models.tar.xz ]; then
    mkdir -p $W/models && tar -xJf $models/models.tar.xz -C $W/models
    models=$(dirname "$(find $W/models -name manifest.jsonl | head -n1)")
  fi
  mkdir -p $W/real $W/reports
  tar -xJf data/results/$set/real.tar.xz -C $W/real
  for f in $models/*.pt $models/*.pt2; do
    [ -f "$f" ] || continue
    name=$(basename "${f%.*}")
    [ -f $W/real/$name.real.json ] || continue
    inputs=$(python3 - "$models/manifest.jsonl" "$(basename "$f")" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if sys.argv[2] in (r.get("file"), str(r.get("name")) + ".pt", str(r.get("name")) + ".pt2"):
        print(" ".join("--input " + i for i in r.get("inputs", [])))
EOF
)
    # shellcheck disable=SC2086
    "$KC" "$f" $inputs --format json >$W/reports/$name.json ||
      { echo "truth_from_reports: $name: kernelcount failed" >&2; rm -f $W/reports/$name.json; }
  done
  python3 validate/real_truth.py truth $W/reports $W/real $W/out >&2
  mkdir -p $W/unpacked && tar -xf $W/out/measured.tar.xz -C $W/unpacked
  (cd $W/unpacked && tar -cf - measured | xz -9e) >data/results/$set/measured.tar.xz
  echo "truth_from_reports: data/results/$set/measured.tar.xz ($(ls $W/unpacked/measured | wc -l) models)"
  rm -rf "$W"
  trap - EXIT
done
