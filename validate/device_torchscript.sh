#!/usr/bin/env bash
# One GPU-machine session for the TorchScript corpus: traces the corpus architectures on the GPU
# (research/corpus/export_torchscript.py, several shards at once, weights zeroed, deflated),
# builds kernelcount-validate and runs it over the test models (validate/device_all.sh), then
# measures every traced model through torch::jit with the --input specs its manifest records.
# Packs everything into a few files in OUT_DIR.
#   validate/device_torchscript.sh OUT_DIR [BUDGET_S]        (default 540)
# Environment: KC_TS_ONLY=model,model (default: export_torchscript.py's list), KC_SHARDS=8.
set -uo pipefail
DEFAULT_BUDGET=540
. "$(dirname "${BASH_SOURCE[0]}")/device_session_env.sh"
W=/tmp/kcts; mkdir -p $W/logs $W/ts $W/results

SHARDS="${KC_SHARDS:-8}"
pids=()
for i in $(seq 0 $((SHARDS - 1))); do
  timeout $((BUDGET - 200)) python3 research/corpus/export_torchscript.py --out $W/ts --shard $i/$SHARDS \
    ${KC_TS_ONLY:+--only "$KC_TS_ONLY"} >$W/logs/export-$i.log 2>&1 &
  pids+=($!)
done

if build_and_check_test_models device_torchscript 30; then
  for p in "${pids[@]}"; do wait $p; done
  cat $W/ts/manifest-*.jsonl >$W/ts/manifest.jsonl 2>/dev/null
  echo "device_torchscript: traced $(ls $W/ts/*.pt 2>/dev/null | wc -l) at $(( $(date +%s) - T0 )) s"
  # One validate process per model (one CUPTI subscriber each), several at once.
  python3 - "$BIN" $W/ts $W/results $(( $(left) - 40 )) <<'PY'
import json, os, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
binary, models, out, budget = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
end = time.time() + budget
recs = [json.loads(l) for l in open(os.path.join(models, "manifest.jsonl")) if l.strip()]
recs = [r for r in recs if "error" not in r]
def run(r):
    left = end - time.time()
    if left < 10:
        return r["name"], "skipped: deadline"
    args = [binary, os.path.join(models, r["file"]), "--format", "json", "--out", os.path.join(out, r["name"] + ".json")]
    for s in r["inputs"]:
        args += ["--input", s]
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=min(120, left))
        return r["name"], f"exit {p.returncode} {p.stderr.strip()[-300:]}"
    except subprocess.TimeoutExpired:
        return r["name"], "timeout"
with ThreadPoolExecutor(8) as pool, open(os.path.join(out, "status.txt"), "w") as st:
    for name, status in pool.map(run, recs):
        st.write(f"{name}: {status}\n")
        print(name, status.splitlines()[0] if status else "", flush=True)
PY
  wait $ALL_PID
  echo "device_torchscript: $(tail -n1 $W/logs/device_all.log)"
  grep -E '^=== ' $W/logs/device_all.log | head -40
fi
for p in "${pids[@]}"; do kill $p 2>/dev/null; done
echo "device_torchscript: measured $(ls $W/results/*.json 2>/dev/null | wc -l) of $(ls $W/ts/*.pt 2>/dev/null | wc -l) traced"
tar czf $OUT/ts_models.tgz -C $W ts 2>/dev/null
tar czf $OUT/ts_results.tgz -C $W results 2>/dev/null
tar czf $OUT/logs.tgz -C $W logs all 2>/dev/null
exit 0
