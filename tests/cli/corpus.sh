#!/usr/bin/env bash
# Every exported real model (data/corpus/models and data/corpus/heldout) through the
# CLI: fused HBM bytes never exceed eager and no fusion group saves negative bytes (bug (b),
# Swin-T); the markdown report parses as CommonMark with its tables and <details> blocks in
# place and stays under 60,000 characters, alone and against a baseline (bug (c)); the SARIF
# log validates; exactly the programs whose GPU runs failed at a view are said not to run there.
# Usage: tests/cli/corpus.sh KERNELCOUNT [MODEL.pt2 ...]   (from the repository
# root; without models, every one of those two folders)
set -u
kc="$1"
shift
here="$(dirname "$0")"
failed=0
fail() { echo "FAIL $*"; failed=1; }
# The checks' Python: one that has markdown-it-py and jsonschema (Debian's, installed by
# scripts/setup.sh, or any other).
py=""
for p in python3 /usr/bin/python3; do
  "$p" -c 'import markdown_it, jsonschema' 2>/dev/null && { py="$p"; break; }
done
[ -n "$py" ] || { echo "FAIL no python3 with markdown-it-py and jsonschema (run scripts/setup.sh)"; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
prev=""
count=0
(($#)) || set -- data/corpus/models/*.pt2 data/corpus/heldout/*.pt2
for m in "$@"; do
  name="$(basename "$m" .pt2)"
  json="$tmp/$name.json"
  if ! "$kc" "$m" --format json -o "$json" 2>"$tmp/err"; then
    fail "$name: $(cat "$tmp/err")"
    continue
  fi
  "$py" - "$json" <<'PY' || fail "$name: fused bytes"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]
bad = []
if t["fused_hbm_bytes"] > t["eager_hbm_bytes"]: bad.append(f"fused {t['fused_hbm_bytes']} > eager {t['eager_hbm_bytes']}")
if t["fused_hbm_bytes_reduction"] > t["eager_hbm_bytes"]: bad.append("fused+reduction bytes > eager")
for plan in r["fusion"]:
    for g in plan["groups"]:
        if g["saved_bytes"] < 0: bad.append(f"{plan['variant']} group {g['id']} saves {g['saved_bytes']} bytes")
if bad:
    print("; ".join(bad[:5])); sys.exit(1)
PY
  "$kc" "$m" --format markdown -o "$tmp/$name.md" || fail "$name: markdown"
  "$py" "$here/check_markdown.py" "$tmp/$name.md" || fail "$name: markdown"
  if [ -n "$prev" ]; then
    "$kc" "$m" --format markdown --baseline "$prev" --max-kernel-increase 0 -o "$tmp/$name.base.md" 2>/dev/null
    [ $? -le 1 ] || fail "$name: markdown against $prev"
    "$py" "$here/check_markdown.py" "$tmp/$name.base.md" --baseline || fail "$name: markdown against a baseline"
  fi
  # A program the GPU cannot run carries its gpu-failure finding too.
  rules="kernelcount/budget-exceeded kernelcount/costly-line"
  if "$py" -c 'import json, sys; sys.exit(not json.load(open(sys.argv[1]))["gpu_failures"])' "$json"; then
    echo "$name" >>"$tmp/flagged"
    rules="$rules kernelcount/gpu-failure"
  fi
  "$kc" "$m" --format sarif --max-kernels 1 -o "$tmp/$name.sarif" 2>/dev/null
  "$py" "$here/check_sarif.py" "$tmp/$name.sarif" $rules || fail "$name: sarif"
  prev="$json"
  count=$((count + 1))
done
[ $count -gt 0 ] || fail "no corpus models found"
# The programs said not to run on the GPU are those whose real runs failed there, at such a view
# (data/results/corpus/measured.tar.xz's vit_b_16_fp32.err; the compiled runs of both,
# data/results/compiled/alone.tar.xz): the two float32 torchvision ViTs exported on the CPU.
if [ "$*" = "$(echo data/corpus/models/*.pt2 data/corpus/heldout/*.pt2)" ]; then
  flagged="$(sort "$tmp/flagged" 2>/dev/null | tr '\n' ' ')"
  [ "$flagged" = "vit_b_16_fp32 vit_b_32_fp32 " ] || fail "programs said not to run on the GPU: '$flagged'"
fi
[ $failed -eq 0 ] && echo "corpus: $count models: fused <= eager bytes, markdown and SARIF valid"
exit $failed
