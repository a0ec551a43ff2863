// Recurrent layers under Inductor. AOTAutograd traces aten::lstm, gru, rnn_tanh and rnn_relu
// (the `input` overloads) through their Python decompositions (torch/_decomp/decompositions.py:
// lstm_impl, gru_impl, rnn_tanh_input, rnn_relu_input, registered as CompositeImplicitAutograd
// py_impls), never cuDNN's RNN. _rnn_helper runs, per layer and direction, one_layer_rnn (or
// one_layer_lstm):
//   precomputed_input = F.linear(inp, w_ih, b_ih)     one mm over every step; its bias add is
//                                                      unfused into the step's pointwise reader
//   for each step: F.linear(h, w_hh, b_hh) + the cell  one mm, then the cell's Triton kernel(s),
//                                                      which write the step's slice of the layer's cat
// A batch-first input is transposed to sequence-major first; F.linear on that view copies it
// contiguous (a Triton loop, fused into a Triton producer).
#include <algorithm>
#include <string>
#include <utility>

#include "analyzer/dtype.h"
#include "passes/counts.h"
#include "passes/inductor_builder.h"
#include "passes/launches.h"
#include "passes/target.h"

namespace kc::inductor {
namespace {

int64_t gates_of(const Op& op) {
  if (op.name == "aten::lstm") return 4;
  if (op.name == "aten::gru") return 3;
  if (op.name == "aten::rnn_tanh" || op.name == "aten::rnn_relu") return 1;
  return 0;
}

}  // namespace

std::optional<Builder::RecurrentPlan> Builder::decomposed_recurrent(int i) const {
  const Op& op = g.ops[i];
  const int64_t gates = gates_of(op);
  const Value* x = in0(op);
  const Arg* params = arg(op, "params");
  if (gates == 0 || op.overload != "input" || !x || x->sizes.size() != 3 || !params) return std::nullopt;
  const int64_t layers = int_arg(op, "num_layers", 0);
  const int64_t dirs = bool_arg(op, "bidirectional", false) ? 2 : 1;
  const bool biases = bool_arg(op, "has_biases", true);
  const bool batch_first = bool_arg(op, "batch_first", false);
  // Training dropout between layers adds loops the plan does not hold.
  const Arg* dropout = arg(op, "dropout");
  if (bool_arg(op, "train", false) && dropout && !dropout->floats.empty() && dropout->floats[0] != 0)
    return std::nullopt;
  // A projection (LSTM's w_hr) adds a matmul per step the plan does not hold.
  if (layers < 1 || static_cast<int64_t>(params->tensors.size()) != layers * dirs * (biases ? 4 : 2))
    return std::nullopt;
  const int w_hh = params->tensors[1];
  if (w_hh < 0 || g.values[w_hh].sizes.size() != 2) return std::nullopt;
  const int64_t hidden = g.values[w_hh].sizes[1];
  if (g.values[w_hh].sizes[0] != gates * hidden) return std::nullopt;
  const int64_t seq = x->sizes[batch_first ? 1 : 0], batch = x->sizes[batch_first ? 0 : 1];
  if (seq < 1 || batch < 1 || hidden < 1) return std::nullopt;

  RecurrentPlan p;
  // Array-sized traffic, kernel by kernel: each reads its operands and writes its result.
  const int64_t elem = dtype_size(x->dtype);
  auto kernel = [&](int reads, int writes, int64_t read_elems, int64_t write_elems, int64_t times) {
    Traffic t;
    t.reads = static_cast<int>(std::min<int64_t>(reads * times, kMaxRepeat));
    t.writes = static_cast<int>(std::min<int64_t>(writes * times, kMaxRepeat));
    t.read_bytes = mul_checked(mul_checked(read_elems, elem, "HBM bytes"), times, "HBM bytes");
    t.write_bytes = mul_checked(mul_checked(write_elems, elem, "HBM bytes"), times, "HBM bytes");
    p.traffic += t;
  };
  // Each GEMM goes through pad_mm like any other (inductor_pad_mm.cc). A step's hidden state is
  // the previous cell's contiguous result, its pad a Triton loop of its own each step; the first
  // step's joins the initial state's loop when a Triton loop computes it (zeros).
  const int hx = op.tensor_inputs().size() > 1 ? op.tensor_inputs()[1] : -1;
  const int hx_producer = hx >= 0 ? g.values[hx].producer : -1;
  const bool hx_triton = hx_producer >= 0 && lower[hx_producer] == Lower::kPointwise;
  for (int64_t l = 0; l < layers; ++l) {
    const int64_t in = l == 0 ? x->sizes[2] : dirs * hidden;
    const PaddedMm input_gemm = padded_mm(seq * batch, in, gates * hidden, x->dtype, l > 0);
    const PaddedMm step_gemm = padded_mm(batch, hidden, gates * hidden, x->dtype, true);
    auto mm = [&](const PaddedMm& a) { return gemm_alone("aten::mm", 1, a.m, a.k, a.n, x->dtype, a.w_transposed); };
    // The layer's kernels with these answers of pad_mm for its two GEMMs.
    auto layer_kernels = [&](const PaddedMm& input, const PaddedMm& step) {
      const int64_t step_loops = step.loops * seq - (step.loops > 0 && hx_triton ? 1 : 0);
      return dirs * (mm(input).kernels + seq * (mm(step).kernels + 1) + input.loops + step_loops);
    };
    const int input_pads = input_gemm.loops, step_pads = step_gemm.loops;
    const int64_t pads = input_pads + step_pads * seq - (step_pads > 0 && hx_triton ? 1 : 0);
    const int64_t here = layer_kernels(input_gemm, step_gemm);
    p.kernels += here;
    // Each GEMM's answer is a timing, which compiles give differently: the count either way.
    for (const int64_t other :
         {layer_kernels(padded_mm_as(seq * batch, in, gates * hidden, x->dtype, input_pads == 0), step_gemm),
          layer_kernels(input_gemm, padded_mm_as(batch, hidden, gates * hidden, x->dtype, step_pads == 0))}) {
      p.timed_more += std::max<int64_t>(0, other - here);
      p.timed_fewer += std::max<int64_t>(0, here - other);
    }
    const int64_t g_h = gates * hidden, times = dirs * seq;
    kernel(2, 1, seq * batch * in + g_h * in, seq * batch * g_h, dirs);        // every step's input mm
    kernel(2, 1, batch * hidden + g_h * hidden, batch * g_h, times);           // the step's mm
    kernel(1, 1, batch * hidden, batch * hidden, dirs * (pads - input_pads));  // its pads
    // The cell: the two GEMMs' step slices, the biases, an LSTM's cell state; the new state.
    const int lstm = gates == 4 ? 1 : 0;
    kernel(2 + (biases ? 2 : 0) + lstm, 1 + lstm, 2 * batch * g_h + (biases ? 2 * g_h : 0) + lstm * batch * hidden,
           (1 + lstm) * batch * hidden, times);
    p.padded = p.padded || input_pads > 0 || step_pads > 0;
  }
  // The sequence-major copy of a batch-first input: a Triton loop of its own unless its producer
  // is one (then the copy is that loop's store).
  Value seq_major = *x;
  std::swap(seq_major.sizes[0], seq_major.sizes[1]);
  std::swap(seq_major.strides[0], seq_major.strides[1]);
  const int producer = x->producer;
  if (batch_first && !seq_major.contiguous() &&
      (producer < 0 || (lower[producer] != Lower::kPointwise && lower[producer] != Lower::kReduction))) {
    p.kernels += 1;
    kernel(1, 1, x->numel(), x->numel(), 1);
  }
  p.why =
      "a recurrent layer: Inductor runs its decomposition, per layer and direction one cuBLAS mm of every "
      "step's input, then per time step an mm of the hidden state and the cell's Triton kernel" +
      std::string(p.padded ? "; pad_mm pads its GEMMs to aligned sizes (the target's pad_mm tree)" : "");
  // pad_mm's answers are timings on the GPU, which compiles of one program give differently.
  if (p.timed_more > 0 || p.timed_fewer > 0)
    p.why += "; pad_mm times its unaligned GEMMs on the GPU: a compile answering the other way launches " +
             (p.timed_more > 0 ? "up to " + std::to_string(p.timed_more) + " kernels more" : std::string()) +
             (p.timed_more > 0 && p.timed_fewer > 0 ? " or " : "") +
             (p.timed_fewer > 0 ? "up to " + std::to_string(p.timed_fewer) + " fewer" : std::string());
  return p;
}

}  // namespace kc::inductor
