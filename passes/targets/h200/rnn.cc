// Recurrent layers on the H200 (cuDNN RNN, aten/src/ATen/native/cudnn/RNN.cpp). No rule yet:
// LSTM, GRU and RNN layers stay unknown until a rule stands on a measurement.
#include "passes/targets/h200/rules.h"

namespace kc::h200 {

void add_rnn_rules(std::vector<LaunchRule>&) {}

}  // namespace kc::h200
