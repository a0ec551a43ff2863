#!/usr/bin/env bash
# Writes data/results/dram/accuracy.txt: the expected DRAM bytes of the committed model against
# every DRAM measurement (each set in sample), then left out by family over all the sets pooled
# (the L2's share and ways chosen per fold), and the hard cut-off alone for comparison. Run from
# the repository root after building; about 20 minutes on two cores.
#   research/accuracy/dram_report.sh [BIN]     (default build/kernelcount)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BIN="${1:-build/kernelcount}"
R=data/results
SETS="$R/dram/measured.tar.xz $R/dram_oos1/measured.tar.xz $R/dram_oos2/measured.tar.xz $R/dram_oos3/measured.tar.xz"
SHARES=0.5625,0.59375,0.625,0.65625,0.6875,0.71875,0.75,0.78125
run() {  # TITLE COMMAND...
  local title="$1"; shift
  echo "$* ($title):"
  "$@"
  echo
}
{
  echo "Model as committed: the L2's usable share and hashed ways of passes/targets/h200/target.cc, cuDNN's float32 grouped-convolution transforms laid out (passes/kernel_steps.cc)."
  echo
  run "the first set, in sample" python3 research/accuracy/dram_accuracy.py "$BIN"
  run "in sample" python3 research/accuracy/dram_accuracy.py "$BIN" $R/dram_oos1/measured.tar.xz --set oos-1 --in-sample
  run "in sample: looked at, and the two L2 parameters chosen with it" \
    python3 research/accuracy/dram_accuracy.py "$BIN" $R/dram_oos2/measured.tar.xz --set oos-2 --in-sample
  run "in sample since its first look (first_look.txt): the two L2 parameters chosen with it" \
    python3 research/accuracy/dram_accuracy.py "$BIN" $R/dram_oos3/measured.tar.xz --set oos-3 --in-sample
  run "all four sets pooled; share and ways chosen together per fold, ways 0 the hard cut-off" \
    python3 research/accuracy/dram_lofo.py --grid "$BIN" $SHARES 0,8,12,16,20,24,32 --measured $SETS
  run "the hard cut-off alone, for comparison" \
    python3 research/accuracy/dram_lofo.py --grid "$BIN" $SHARES 0 --measured $SETS
} | sed "s#$BIN#build/kernelcount#g" >$R/dram/accuracy.txt
echo "dram_report: wrote $R/dram/accuracy.txt"
