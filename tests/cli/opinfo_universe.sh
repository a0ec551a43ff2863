#!/usr/bin/env bash
# Every sample of PyTorch's OpInfo database, exported on the host (research/corpus/export_opinfo.py:
# about 33,500 samples of 688 OpInfos, 32,400 of which export), and every reference input that is
# no sample input (--reference: about 19,100, 18,700 of which export), loads in kernelcount with a
# launch rule for every op: research/accuracy/opinfo_scan.py exits 1 on a refusal or an op no rule
# knows. Labelled `full` (22 minutes on two cores in CI at 9665ab8); needs the Python environment
# python/setup.sh makes (PyTorch 2.11).
#   tests/cli/opinfo_universe.sh KERNELCOUNT
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KC="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
PY="$("$ROOT/python/setup.sh" --env)"
[ -x "$PY" ] || { echo "opinfo_universe: no Python environment at $PY: run scripts/setup.sh" >&2; exit 1; }
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
cd "$ROOT"
for kind in samples reference; do
  "$PY" research/corpus/export_opinfo.py "$OUT/$kind" --samples 100000 --jobs 2 \
    $([ "$kind" = reference ] && echo --reference) >"$OUT.log" 2>&1 ||
    { tail -5 "$OUT.log" >&2; rm -f "$OUT.log"; exit 1; }
  grep "^export_opinfo:" "$OUT.log"
done
rm -f "$OUT.log"
python3 research/accuracy/opinfo_scan.py "$KC" "$OUT/samples" "$OUT/reference"
