# Sourced by the budgeted GPU-session scripts (device_session.sh, device_torchscript.sh), which
# set DEFAULT_BUDGET and keep their arguments OUT_DIR [BUDGET_S]: sets ROOT, OUT, BUDGET and T0,
# enters the checkout, quiets the Python libraries, and defines `left` (seconds of budget left).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
BUDGET="${2:-$DEFAULT_BUDGET}"
cd "$ROOT"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
T0=$(date +%s)
left() { echo $((BUDGET - ($(date +%s) - T0))); }
