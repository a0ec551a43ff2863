#!/usr/bin/env bash
# One command on a fresh GPU machine: builds kernelcount-validate (validate/device_build.sh,
# headers from .carry/include, which validate/fetch_headers.sh fills and the device call
# carries) and runs it over every test model (validate/device_check.sh, with the torch.profiler
# cross-check), then over weight-stripped and weight-blanked copies of the .pt2 test models
# (random weights; their counts must equal the full archive's). Exits 0 when all ran.
#   validate/device_all.sh OUT_DIR [BUILD_DIR]
# Writes OUT_DIR/build.log, OUT_DIR/check/ (device_check.sh's files), OUT_DIR/noweights/.
# KC_PREBUILT=BIN skips the build and uses BIN. KC_REPRO=1 also configures the build as the old device_build.sh did (system header packages
# first, CMake's default include order and C++ ABI) and records which header copies and flags
# that picks, in OUT_DIR/repro.log.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
BUILD="${2:-/tmp/kc-validate}"
cd "$ROOT"
export PYTHONUNBUFFERED=1
status=0

if [ "${KC_REPRO:-0}" = 1 ]; then
  (
    R=/tmp/kc-repro
    echo "== json.hpp / CLI.hpp on this machine"
    find / -xdev \( -path /proc -o -path /sys \) -prune -o \( -name json.hpp -o -name CLI.hpp \) -print 2>/dev/null
    echo "== environment flags"; env | grep -E 'FLAGS|CPATH|INCLUDE|LD_LIBRARY|LD_PRELOAD|CC=|CXX=' || true
    echo "== compiler default C++11 ABI: $(echo '#include <string>
_GLIBCXX_USE_CXX11_ABI' | ${CXX:-c++} -x c++ -E - 2>/dev/null | tail -1)"
    echo "== libcupti / libcudart copies and their SONAMEs"
    site="$(python3 -c 'import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))')"
    for l in $(find /usr/local/cuda* "$site/nvidia" -name 'libcupti.so*' -o -name 'libcudart.so*' 2>/dev/null); do
      echo "  $l -> $(readelf -d "$l" 2>/dev/null | grep SONAME | sed 's/.*\[//;s/\]//')"
    done
    echo "== torch ABI: $(python3 -c 'import torch; print(torch._C._GLIBCXX_USE_CXX11_ABI)')"
    tp="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
    cmake -S . -B $R -DCMAKE_PREFIX_PATH="$tp" -DKERNELCOUNT_HEADERS="$ROOT/.carry/include" -DKERNELCOUNT_TESTS=OFF >$R.log 2>&1
    echo "== old configure: $(grep -E 'nlohmann_json_DIR|CLI11_DIR|KC_JSON_INCLUDE|KC_CLI11_INCLUDE|CUDA_cupti_LIBRARY|CUDA_cudart_LIBRARY' $R/CMakeCache.txt | tr '\n' ' ')"
    python3 - $R <<'PY'
import json, shlex, subprocess, sys
cc = json.load(open(sys.argv[1] + "/compile_commands.json"))
for c in cc:
    if not c["file"].endswith(("passes/pipeline.cc", "analyzer/pt2_loader.cc", "validate/main.cc", "validate/measure.cc")):
        continue
    args = [a for a in shlex.split(c["command"]) if a not in ("-c",)]
    o = args.index("-o"); del args[o:o + 2]
    dep = subprocess.run(args + ["-M", "-MG"], cwd=c["directory"], capture_output=True, text=True).stdout
    hdrs = sorted({w for w in dep.split() if w.endswith(("nlohmann/json.hpp", "CLI/CLI.hpp", "cupti.h", "cuda_runtime_api.h"))})
    abi = "-D_GLIBCXX_USE_CXX11_ABI=1" in c["command"]
    print("==", c["file"].split("/main/")[-1] if "/main/" in c["file"] else c["file"], "ABI flag:", abi, "headers:", hdrs)
PY
  ) >"$OUT/repro.log" 2>&1 &
  repro_pid=$!
fi

if [ -n "${KC_PREBUILT:-}" ]; then  # a binary device_build.sh made earlier in this session
  BIN="$KC_PREBUILT"; echo "$BIN" >"$OUT/build.log"
else
  KC_BUILD_DIAG=1 validate/device_build.sh "$BUILD" >"$OUT/build.log" 2>&1
  BIN="$(tail -n1 "$OUT/build.log")"
fi
if [ ! -x "$BIN" ]; then tail -40 "$OUT/build.log"; exit 1; fi
grep '^device_build:' "$OUT/build.log"

validate/device_check.sh "$BIN" "$OUT/check" >"$OUT/check.log" 2>&1 || status=1
grep -E '^=== |error|differ|FAIL|mismatch' "$OUT/check.log" | head -60

# Weight-stripped and weight-blanked archives validate with random weights, as the full one
# (models that call ops outside LibTorch excepted: the replay cannot dispatch them).
mkdir -p "$OUT/noweights"
for m in tests/models/*.pt2; do
  n="$(basename "$m" .pt2)"
  python3 validate/strip_weights.py "$m" "$OUT/noweights/${n}_stripped.pt2"
  python3 validate/blank_weights.py "$m" "$OUT/noweights/${n}_blanked.pt2"
  outside=0
  for v in "" _stripped _blanked; do
    src="$OUT/noweights/$n$v.pt2"; [ -z "$v" ] && src="$m"
    "$BIN" "$src" --format json --out "$OUT/noweights/$n$v.json" 2>"$OUT/noweights/$n$v.err"
    rc=$?
    echo "noweights: $n$v exit $rc $(head -c 200 "$OUT/noweights/$n$v.err")"
    # A model calling ops outside LibTorch (torchvision's) cannot be replayed from C++; its
    # measurement is its real run (validate/real_run.py).
    if [ "$rc" = 2 ] && grep -q "Could not find schema for" "$OUT/noweights/$n$v.err"; then outside=1; continue; fi
    [ "$rc" -le 1 ] || status=1
  done
  if [ "$outside" = 1 ]; then echo "noweights: $n calls ops outside LibTorch: not replayed"; continue; fi
  python3 - "$OUT/noweights/$n" <<'PY' || status=1
import json, sys
p = sys.argv[1]
# Ops whose count the values decide (a solver's sweeps: "data_dependent" in the prediction) may
# launch differently on other weights or inputs; every other op must launch the same.
runs = [json.load(open(p + v + ".json"))["ops"] for v in ("", "_stripped", "_blanked")]
def counts(ops, by_value):
    return [(o["op"], {k: o["measured"][k] for k in ("kernels", "memcpy", "memset")}) for o in ops
            if ("data_dependent" in o["predicted"]) == by_value]
tot = [counts(ops, False) for ops in runs]
ok = tot[0] == tot[1] == tot[2]
total = {k: sum(c[k] for _, c in tot[0]) for k in ("kernels", "memcpy", "memset")}
varied = len(counts(runs[0], True))
print("noweights:", p.split("/")[-1], "measured full/stripped/blanked equal:" if ok else "DIFFER:",
      total if ok else [c for c in zip(*tot) if c[0] != c[1] or c[0] != c[2]][:3],
      f"({varied} data-dependent ops set apart)" if varied else "")
sys.exit(0 if ok else 1)
PY
done
rm -f "$OUT"/noweights/*.pt2
[ -n "${repro_pid:-}" ] && wait "$repro_pid"
echo "device_all: exit $status"
exit $status
