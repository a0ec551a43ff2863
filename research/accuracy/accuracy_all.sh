#!/usr/bin/env bash
# Regenerates every saved accuracy figure of the current rules against the corpora's truth (the
# real run, data/results/*/measured.tar.xz): data/results/<set>/accuracy_{rules,lofo}.{txt,json}.
# The README and docs quote these files (generators/update_docs.py). Run from the repository root
# after building; about 30 minutes on two cores.
#   research/accuracy/accuracy_all.sh [SET ...]    (default: every set below)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
A="python3 research/accuracy/broad_accuracy.py --kernelcount ${KC_BIN:-build/kernelcount}"  # KC_BIN: a copy, to keep building meanwhile
R=data/results
run() {  # NAME OUT_BASE ARGS...
  local out="$2"; shift 2
  echo "accuracy_all: $out" >&2
  $A "$@" --json "$out.json" >"$out.txt"
}
for set in ${@:-broad-lofo broad fresh fresh2 fresh3 fresh4 fresh5 fresh6 opset opinfo opinfo_heldout opinfo_reference opinfo_reference2 control torchscript-lofo torchscript torchscript_heldout-lofo torchscript_heldout torchscript_rest-lofo torchscript_rest detection detection_all_scores detection_heldout detection_pt2 host-syncs}; do
  case "$set" in
    broad-lofo) run "$set" $R/broad/accuracy_lofo --mode lofo --conv-lofo generators/conv_lofo.json.gz --worst 15 --misses 20 ;;
    broad) run "$set" $R/broad/accuracy_rules --mode rules --worst 15 --misses 40 ;;
    fresh*) models=data/corpus/$set; [ -f $models/models.tar.xz ] && models=$models/models.tar.xz
            run "$set" $R/$set/accuracy_rules --mode rules --models $models --measured $R/$set/measured.tar.xz \
              --worst 15 --misses 40 ;;
    opinfo|opinfo_heldout|opinfo_reference*) run "$set" $R/$set/accuracy_rules --models data/corpus/$set/models.tar.xz \
              --measured $R/$set/measured.tar.xz --worst 10 --misses 40 ;;
    control) run "$set" $R/control/accuracy_rules --models data/corpus/control --measured $R/control/measured.tar.xz \
               --worst 12 ;;
    opset) run "$set" $R/opset/accuracy_rules --models data/corpus/opset/models.tar.xz --measured $R/opset/measured.tar.xz --worst 5 --misses 40 ;;
    torchscript-lofo) run "$set" $R/torchscript/accuracy_lofo --mode lofo --models data/corpus/torchscript/models.tar.xz \
                        --measured $R/torchscript/measured.tar.xz --conv-lofo generators/conv_lofo.json.gz \
                        --conv-corpus torchscript --worst 15 --misses 30 ;;
    torchscript) run "$set" $R/torchscript/accuracy_rules --mode rules --models data/corpus/torchscript/models.tar.xz \
                   --measured $R/torchscript/measured.tar.xz --worst 15 --misses 30 ;;
    # Their traces are kept out of the repository (20 MB and more): validate/device_torchscript_real.sh
    # makes them again on a GPU machine with the manifest's list (data/corpus/<set>/README.md).
    torchscript_heldout|torchscript_rest)
      if [ -f data/corpus/$set/models.tar.xz ]; then
        run "$set" $R/$set/accuracy_rules --mode rules --models data/corpus/$set/models.tar.xz \
          --measured $R/$set/measured.tar.xz --worst 15 --misses 30
      else
        echo "accuracy_all: $set skipped: data/corpus/$set/models.tar.xz is not here (see its README)" >&2
      fi ;;
    # Left out by family: the measured signature table without the model's family, and each
    # convolution predicted by trees fitted without its family (.pt2 convolutions included):
    # conv_lofo.json.gz's entry for the set (generators/fit_conv.py --lofo-extra).
    torchscript_heldout-lofo|torchscript_rest-lofo)
      s=${set%-lofo}
      if [ -f data/corpus/$s/models.tar.xz ]; then
        run "$set" $R/$s/accuracy_lofo --mode lofo --models data/corpus/$s/models.tar.xz \
          --measured $R/$s/measured.tar.xz --conv-lofo generators/conv_lofo.json.gz \
          --conv-corpus $s --worst 15 --misses 30
      else
        echo "accuracy_all: $set skipped: data/corpus/$s/models.tar.xz is not here (see its README)" >&2
      fi ;;
    detection*) run "$set" $R/$set/accuracy_rules --mode rules --models data/corpus/$set/models.tar.xz \
                  --measured $R/$set/measured.tar.xz --worst 6 --misses 30 ;;
    # Host syncs and memcpys per model against the real runs' (research/accuracy/host_syncs.py).
    host-syncs)
      for s in broad torchscript detection detection_all_scores detection_heldout; do
        models=data/corpus/$s; [ -f $models/models.tar.xz ] && models=$models/models.tar.xz
        echo "accuracy_all: $R/host_syncs/$s" >&2
        python3 research/accuracy/host_syncs.py --kernelcount "${KC_BIN:-build/kernelcount}" --models $models \
          --real $R/host_syncs/real_syncs.json.gz --set $s --json $R/host_syncs/$s.json >$R/host_syncs/$s.txt
      done
      # Measured with their syncs (real.tar.xz) after the sync rules were written: out of sample.
      for s in torchscript_heldout torchscript_rest; do
        [ -f data/corpus/$s/models.tar.xz ] || { echo "accuracy_all: host syncs of $s skipped: no traces" >&2; continue; }
        echo "accuracy_all: $R/host_syncs/$s" >&2
        python3 research/accuracy/host_syncs.py --kernelcount "${KC_BIN:-build/kernelcount}" \
          --models data/corpus/$s/models.tar.xz --real $R/$s/real.tar.xz \
          --json $R/host_syncs/$s.json >$R/host_syncs/$s.txt
      done ;;
    *) echo "accuracy_all: unknown set $set" >&2; exit 2 ;;
  esac
done
