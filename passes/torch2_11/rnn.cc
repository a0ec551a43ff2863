// Recurrent layers on the H200 (cuDNN RNN, aten/src/ATen/native/cudnn/RNN.cpp: _cudnn_rnn and
// get_algo). One aten::lstm/gru/rnn_tanh/rnn_relu call is one cudnnRNNForward call, preceded by
// ATen's own work: a copy of a batch-first input into sequence-major order, and, when the
// weights are not one flat cuDNN buffer, a zeroed buffer and one copy per weight tensor.
#include <algorithm>

#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

// The shape of one call, read from the op's arguments; `valid` is false for anything the rule
// has not been checked on (packed sequences, projections, training, other dtypes).
struct RnnShape {
  bool valid = false;
  int64_t layers = 0, directions = 0, seq = 0, batch = 0, hidden = 0;
  int64_t gates = 0;        // GEMM rows per hidden unit: LSTM 4, GRU 3, RNN 1
  int64_t params = 0;       // weight and bias tensors passed in `params`
  bool input_copy = false;  // the sequence-major view of the input is not contiguous
};

int64_t gates_of(const std::string& name) {
  if (name == "aten::lstm") return 4;
  if (name == "aten::gru") return 3;
  if (name == "aten::rnn_tanh" || name == "aten::rnn_relu") return 1;
  return 0;
}

RnnShape rnn_shape(const OpFacts& f) {
  RnnShape s;
  s.gates = gates_of(f.op->name);
  const Arg* params = f.arg("params");
  const Value* x = f.input(0);
  if (s.gates == 0 || f.op->overload != "input" || !params || !x || x->sizes.size() != 3) return s;
  if (f.dtype != DType::kFloat32 && f.dtype != DType::kBFloat16) return s;
  if (f.bool_arg("train", false) && f.arg("dropout") && !f.arg("dropout")->floats.empty() &&
      f.arg("dropout")->floats[0] != 0)
    return s;
  s.layers = f.int_arg("num_layers", 0);
  s.directions = f.bool_arg("bidirectional", false) ? 2 : 1;
  const bool batch_first = f.bool_arg("batch_first", false);
  const bool biases = f.bool_arg("has_biases", true);
  s.params = static_cast<int64_t>(params->tensors.size());
  // Weights per layer and direction: w_ih, w_hh (+ b_ih, b_hh); a projection adds w_hr.
  if (s.layers < 1 || s.params != s.layers * s.directions * (biases ? 4 : 2)) return s;
  const int w_hh = params->tensors[1];
  if (w_hh < 0) return s;
  const Value& w = f.graph->values[w_hh];
  if (w.sizes.size() != 2 || w.sizes[0] != s.gates * w.sizes[1]) return s;
  s.hidden = w.sizes[1];
  s.seq = x->sizes[batch_first ? 1 : 0];
  s.batch = x->sizes[batch_first ? 0 : 1];
  // _cudnn_rnn transposes a batch-first input and calls contiguous() on it.
  Value seq_major = *x;
  if (batch_first) {
    std::swap(seq_major.sizes[0], seq_major.sizes[1]);
    std::swap(seq_major.strides[0], seq_major.strides[1]);
  }
  s.input_copy = !seq_major.contiguous();
  s.valid = s.seq >= 1 && s.batch >= 1 && s.hidden >= 1;
  return s;
}

bool rnn_known(const OpFacts& f) {
  return rnn_shape(f).valid;
}

// get_algo picks CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H for hidden <= 192 (LSTM, GRU) or <= 384
// (RNN_TANH/RELU); measured, only f32 runs it as persistent kernels: bf16 runs per-step kernels
// at every hidden size of the sweep.
bool persistent(const RnnShape& s, DType dt) {
  if (dt != DType::kFloat32) return false;
  return s.gates == 1 ? s.hidden <= 384 : s.hidden <= 192;
}

// Input GEMMs (x * W_ih for all steps) of the standard algorithm: one per layer and direction,
// except unidirectional stacks, which cuDNN pipelines layer by layer over chunks of time steps
// (measured: S <= 4 one chunk per step; then 4 chunks, 8 from S = 128 (LSTM/GRU) or S = 64
// (RNN)).
int64_t input_gemms(const RnnShape& s) {
  if (s.layers == 1 || s.directions == 2) return s.layers * s.directions;
  int64_t chunks = s.seq <= 4 ? s.seq : 4;
  if (s.seq >= (s.gates == 1 ? 64 : 128)) chunks = 8;
  return s.layers * chunks;
}

// cuBLAS's f32 heuristic splits K of the input GEMMs of layers >= 2 (K = directions * hidden)
// and adds a reduce kernel: measured for K >= 512 when M*N (M = seq * batch, N = gates * hidden)
// is in (4096, 65536]; it also appears at a few K = 256 shapes, which this does not predict.
int64_t split_k_reduces(const RnnShape& s, DType dt, bool persist) {
  if (dt != DType::kFloat32 || s.layers < 2 || s.directions * s.hidden < 512) return 0;
  if (s.directions == 1 && !persist) return 0;  // chunked GEMMs: other shapes, not measured
  const int64_t mn = s.seq * s.batch * s.gates * s.hidden;
  return mn > 4096 && mn <= 65536 ? (s.layers - 1) * s.directions : 0;
}

// Whether the weights are already one flat buffer (RNN.cpp's try_get_weight_buf, which checks
// each weight's address against cuDNN's layout): dense views of one storage at distinct
// offsets, as flatten_parameters() leaves them and a trace saves them.
bool flat_weights(const OpFacts& f) {
  const Arg* params = f.arg("params");
  if (!params || params->kind != Arg::Kind::kTensorList || params->tensors.empty()) return false;
  int storage = -1;
  std::vector<int64_t> offsets;
  for (int id : params->tensors) {
    if (id < 0) return false;
    const Value& v = f.graph->values[id];
    if (v.storage < 0 || !v.contiguous() || (storage >= 0 && v.storage != storage)) return false;
    storage = v.storage;
    offsets.push_back(v.storage_offset);
  }
  std::sort(offsets.begin(), offsets.end());
  return std::adjacent_find(offsets.begin(), offsets.end()) == offsets.end();
}

Counts rnn_counts(const OpFacts& f) {
  const RnnShape s = rnn_shape(f);
  const bool persist = persistent(s, f.dtype);
  Counts c;
  // Weights as separate tensors (an export, or bf16, which flatten_parameters() skips): the
  // flat buffer is zeroed, then each weight is copied in with cudaMemcpyAsync. Weights that
  // already are one flat buffer are read in place.
  const bool flat = flat_weights(f);
  c.kernels = (s.input_copy ? 1 : 0) + (flat ? 0 : 1);
  c.memcpy = flat ? 0 : static_cast<int>(s.params);
  int64_t k = 0;
  if (persist) {
    // One input GEMM and the persistent kernel(s) per layer and direction (GRU runs two).
    k = s.layers * s.directions * (1 + (s.gates == 3 ? 2 : 1));
    // 2 layers, bidirectional: one more device-to-device copy (14/14 sweep configurations).
    if (s.layers == 2 && s.directions == 2) c.memcpy += 1;
  } else {
    // Per time step, layer and direction: the recurrent GEMM and the cell's elementwise kernel.
    k = s.layers * s.directions * 2 * s.seq + input_gemms(s);
  }
  k += split_k_reduces(s, f.dtype, persist);
  c.kernels += static_cast<int>(k);
  return c;
}

}  // namespace

void add_rnn_rules(std::vector<LaunchRule>& r) {
  r.push_back(
      rule("rnn.cudnn")
          .ops({"aten::lstm", "aten::gru", "aten::rnn_tanh", "aten::rnn_relu"})
          .when("unpacked input, f32/bf16, no projection, no training dropout. Weights as separate tensors (as "
                "exported): 1 fill + 1 memcpy per weight (none for weights flattened into one buffer, as a trace saves "
                "them), + 1 copy of a non-contiguous sequence-major input. f32 with hidden <= 192 (LSTM/GRU) or <= 384 "
                "(RNN): persistent, per layer and direction 1 input GEMM + 1 persistent kernel (GRU 2); else per step, "
                "layer and direction a GEMM and a cell kernel, + input GEMMs (1 per layer and direction; "
                "unidirectional stacks in 4-8 chunks of steps); f32 split-K reduces for layers >= 2",
                rnn_known)
          .compute(rnn_counts)
          .evidence("sweep:rnn/LSTM, sweep:rnn/GRU, sweep:rnn/RNN_TANH, sweep:rnn/RNN_RELU (316 of 320), "
                    "sweep:rnn/LSTM_h0c0, broad:rnn, broad:sequencer, torchscript_heldout:sequencer (flattened "
                    "weights: no fill, no memcpy)")
          .why("cuDNN runs the recurrent layer: it zeroes a buffer and copies each separately stored weight into its "
               "flat layout, then per layer and direction either one persistent kernel (small float32 hidden sizes) or "
               "one GEMM and one cell kernel per time step."));
}

}  // namespace kc::torch2_11
