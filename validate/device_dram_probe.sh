#!/usr/bin/env bash
# One GPU-machine call for validate/dram_probe.py under Nsight Compute (reuse distance against
# the L2's hashed sets; cuDNN's float32 grouped-convolution transforms), caches as they are and
# flushed; meanwhile builds kernelcount-validate, and afterwards runs validate/device_all.sh over
# the test models, as every device script does (after, not during: another process's kernels
# would share the L2 and the DRAM counters).
#   validate/device_dram_probe.sh OUT_DIR [BUDGET_S]
# Writes OUT_DIR/probe.json (python3 validate/dram_probe.py report OUT_DIR/probe.json reads it),
# OUT_DIR/probe_report.txt and OUT_DIR/logs.tgz.
set -uo pipefail
DEFAULT_BUDGET=540
OUT_ARG="$1"; BUDGET_ARG="${2:-}"; shift $(( $# < 2 ? $# : 2 ))
. "$(dirname "${BASH_SOURCE[0]}")/device_session_env.sh" "$OUT_ARG" "$BUDGET_ARG"
W=/tmp/kcp; mkdir -p $W/logs
record_gpu $W/logs/gpu.txt
build_in_background
timeout $(( $(left) - ${KC_ALL_MARGIN_S:-240} )) python3 validate/dram_probe.py drive "$OUT" >$W/logs/probe.log 2>&1
echo "device_dram_probe: ncu done at $(( $(date +%s) - T0 )) s: $(tail -n1 $W/logs/probe.log)"
python3 validate/dram_probe.py report "$OUT/probe.json" >"$OUT/probe_report.txt" 2>&1
rm -f "$OUT"/probe_*.ncu-rep
check_test_models_after_build
tar czf "$OUT/logs.tgz" -C $W logs $( [ -d $W/all ] && echo all )
cat $W/logs/gpu.txt "$OUT/probe_report.txt"; tail -n1 $W/logs/device_all.log
