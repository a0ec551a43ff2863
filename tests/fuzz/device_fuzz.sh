#!/usr/bin/env bash
# The libFuzzer targets on a machine with more cores than a workstation (the GPU machine's 16):
# `pack` (here) builds them (tests/fuzz/run.sh's build-fuzz/), strips and compresses them into
# .carry/fuzz with validate's headers (.carry/include, compressed too: a device call carries at
# most 64 MiB with the working tree, so name `.carry/fuzz` alone and pack few targets a call);
# `run` (there) runs each target for SECONDS with WORKERS parallel libFuzzer jobs and sums the
# executions its jobs report. Meanwhile it builds kernelcount-validate and runs it over the test
# models (validate/device_all.sh), as every device script does. A finding fails the run and comes
# back in OUT_DIR/findings/<target>/ to be reproduced here with build-fuzz/tests/fuzz/fuzz_<target>.
#   tests/fuzz/device_fuzz.sh pack TARGET...
#   tests/fuzz/device_fuzz.sh run OUT_DIR SECONDS TARGET:WORKERS...
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CARRY="$ROOT/.carry/fuzz"
mode="${1:?usage: device_fuzz.sh pack TARGET... | run OUT_DIR SECONDS TARGET:WORKERS...}"
shift

if [ "$mode" = pack ]; then
  set -e
  "$ROOT/tests/fuzz/run.sh" 1 "$@" >/dev/null  # builds the targets (and runs each for a second)
  [ -f "$ROOT/.carry/include/nlohmann/json.hpp" ] || "$ROOT/validate/fetch_headers.sh"
  rm -rf "$CARRY" && mkdir -p "$CARRY"
  for t in "$@"; do
    strip -s -o "$CARRY/fuzz_$t" "$ROOT/build-fuzz/tests/fuzz/fuzz_$t"
    xz -9e -T0 "$CARRY/fuzz_$t"
  done
  tar cJf "$CARRY/include.tar.xz" -C "$ROOT/.carry" include
  du -sh "$CARRY"
  exit 0
fi

OUT="$(mkdir -p "${1:?OUT_DIR}" && cd "$1" && pwd)"
seconds="${2:?SECONDS}"
shift 2
W=/tmp/kc-fuzz
rm -rf "$W" && mkdir -p "$W/bin"
# Unpacked with Python's lzma (the machine may lack xz).
unxz() { python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"; }
if [ ! -f "$ROOT/.carry/include/nlohmann/json.hpp" ]; then
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$CARRY/include.tar.xz" "$ROOT/.carry"
fi

# The targets link LibTorch's CPU libraries and the CUDA runtime (validate's measurement code
# shares kc_core): this machine's own copies, from its PyTorch and CUDA installs.
site="$(python3 -c 'import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))')"
libs="$site/torch/lib"
for d in "$site"/nvidia/*/lib /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64; do
  [ -d "$d" ] && libs="$libs:$d"
done
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:malloc_context_size=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

(KC_REPRO=0 nice "$ROOT/validate/device_all.sh" "$W/all" >"$W/device_all.log" 2>&1
 echo "device_all exit $?" >>"$W/device_all.log") &
all_pid=$!

pids=()
for spec in "$@"; do
  t="${spec%%:*}" workers="${spec#*:}"
  bin="$W/bin/fuzz_$t"
  unxz "$CARRY/fuzz_$t.xz" "$bin" && chmod +x "$bin"
  mkdir -p "$W/$t" "$W/findings/$t"
  if ldd "$bin" | grep -q "not found"; then
    echo "fuzz: $t: missing libraries: $(ldd "$bin" | grep 'not found' | tr -s ' \t' ' ')" | tee -a "$W/summary.txt"
    continue
  fi
  mkdir -p "$W/corpus/$t"
  (cd "$W/$t" && timeout $((seconds + 120)) "$bin" "$W/corpus/$t" "$ROOT/tests/fuzz/seeds/$t" \
     -jobs="$workers" -workers="$workers" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 \
     -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$W/findings/$t/" >"$W/$t/main.log" 2>&1) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done

status=0
for spec in "$@"; do
  t="${spec%%:*}" workers="${spec#*:}"
  [ -d "$W/$t" ] || continue
  execs=$(cat "$W/$t"/fuzz-*.log 2>/dev/null | awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}')
  jobs_done=$(cat "$W/$t"/fuzz-*.log 2>/dev/null | grep -c "stat::number_of_executed_units")
  found=$(ls "$W/findings/$t" | wc -l)
  echo "fuzz: $t: $execs executions in ${seconds}s by $jobs_done of $workers jobs, $found findings" | tee -a "$W/summary.txt"
  [ "$found" -eq 0 ] && [ "$jobs_done" -eq "$workers" ] || status=1
done
wait "$all_pid"
tail -n1 "$W/device_all.log" | tee -a "$W/summary.txt"
grep -q "device_all exit 0" "$W/device_all.log" || status=1
cp "$W/summary.txt" "$OUT/"
tar czf "$OUT/findings.tgz" -C "$W" findings
tar czf "$OUT/logs.tgz" -C "$W" device_all.log all $(cd "$W" && ls -d */ | grep -v -e all -e findings -e corpus -e bin)
exit $status
