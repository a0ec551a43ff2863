// The project's graph IR: one straight-line list of aten ops over tensor values, with shapes,
// dtypes, strides, aliasing and source locations. Both loaders produce it; every pass reads it
// and none of them needs libtorch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/dtype.h"
#include "analyzer/name.h"
#include "analyzer/shared_string.h"

namespace kc {

// Where a value comes from before the first op runs.
enum class ValueRole : uint8_t { kInput, kParameter, kBuffer, kConstant, kIntermediate };

// Where a value lives when the model runs on the target: in the GPU's memory (HBM) or on the
// host. Decided once per graph (analyzer/placement.h); every pass and validate read it.
enum class Placement : uint8_t { kDevice, kHost };

// A tensor value. Sizes are concrete: symbolic sizes are resolved by the loader.
struct Value {
  std::string name;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  DType dtype = DType::kUnknown;
  SharedString device;  // as recorded in the file ("cpu", "cuda:0", "meta"), shared; see `placement`
  Placement placement = Placement::kDevice;
  ValueRole role = ValueRole::kIntermediate;
  int producer = -1;  // index of the op that writes it; -1 for graph inputs and weights
  // A parameter that requires grad as the model runs (TorchScript's, as torch.jit.load leaves
  // them; a .pt2's as its tensor_meta records), or a view of one. matmul folds its other
  // operand differently then.
  bool requires_grad = false;
  // A TorchScript weight's saved storage (an index per storage, -1 where unknown) and its
  // element offset in it: nn.LSTM's flatten_parameters() leaves its weights as consecutive
  // views of one buffer, which cuDNN then reads in place.
  int storage = -1;
  int64_t storage_offset = 0;

  int64_t numel() const;
  // Bytes of the elements this view addresses (numel * itemsize); 0 for unknown dtypes.
  int64_t bytes() const;
  // True when the strides are the row-major strides of the sizes (size-1 dims ignored).
  bool contiguous() const;
};

// One argument of an op as the schema names it. Tensors refer to values by index; other
// arguments keep their literal, which is enough to print the op and to run it again.
struct Arg {
  enum class Kind : uint8_t {
    kTensor,      // tensors[0]
    kTensorList,  // tensors, -1 for a None inside an optional-tensor list
    kNone,
    kBool,          // ints[0]
    kInt,           // ints[0]
    kIntList,       // ints
    kFloat,         // floats[0]
    kFloatList,     // floats
    kBoolList,      // ints
    kString,        // text
    kScalarType,    // ints[0], a DType
    kLayout,        // text: the torch.export schema's Layout number ("7" is strided)
    kDevice,        // text: "cpu", "cuda:0"
    kMemoryFormat,  // text: the torch.export schema's MemoryFormat number ("1" is contiguous)
    kComplex        // floats[0] + floats[1] i: a complex scalar
  };
  Name name;
  Kind kind = Kind::kNone;
  std::vector<int> tensors;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  Name text;

  static Arg tensor(std::string name, int value);
};

// What the op's schema and tags say about it; filled by the loader from libtorch's registry.
struct OpTraits {
  bool pointwise = false;         // at::Tag::pointwise
  bool reduction = false;         // at::Tag::reduction
  bool view = false;              // output aliases an input without writing it
  bool inplace = false;           // writes one of its inputs (Tensor(a!) without out=)
  bool out_variant = false;       // writes into out= arguments
  std::vector<int> mutated_args;  // indices into Op::args written by the op
};

// The user's code that produced the op. The ops of one line share its texts.
struct SourceLoc {
  SharedString file;
  int line = 0;
  SharedString code;  // the source line itself where the file carries it
};

// One aten op call.
struct Op {
  Name name;      // "aten::add"
  Name overload;  // "Tensor"; empty for the default overload
  std::vector<Arg> args;
  std::vector<int> outputs;  // value indices; -1 for an output that is not a tensor
  OpTraits traits;
  SourceLoc loc;
  // Shared by the ops of one module, as their source line's texts are.
  SharedString module;       // module path, "layer1.0.conv1"; empty at the top level
  SharedString module_type;  // class of the innermost module, "torch.nn.modules.conv.Conv2d"
  // How many times the op runs with these shapes: a TorchScript loop whose shapes do not change
  // from trip to trip keeps its body's ops once, each standing for every trip. Passes count an
  // op's launches, traffic and time this many times.
  int64_t repeat = 1;

  std::string full_name() const;  // "aten::add.Tensor"
  // Tensor values this op reads, in argument order (a value may repeat).
  std::vector<int> tensor_inputs() const;
  // Calls f(value) for each of tensor_inputs() in turn, without making the list.
  template <typename F>
  void for_each_tensor_input(F&& f) const {
    for (const Arg& a : args)
      if (a.kind == Arg::Kind::kTensor || a.kind == Arg::Kind::kTensorList)
        for (int v : a.tensors)
          if (v >= 0) f(v);
  }
};

// What the model file was and which assumptions shaped the graph.
struct ModelInfo {
  std::string path;
  std::string format;                     // "pt2" or "torchscript"
  std::string producer_version;           // torch version or schema version recorded in the file
  std::vector<std::string> notes;         // e.g. symbolic sizes and the values they were given
  std::string device;                     // where the user's inputs live in the file; stands for the target GPU
  std::string saved_device;               // TorchScript: where the archive's tensors were saved ("cpu", "cuda:0")
  std::vector<std::string> dims_applied;  // the --dim names (as given) that named a symbol of the model
};

// The most runs one op may stand for (a loop's trips, nested loops multiplied): past it, counts
// of launches leave 32-bit integers.
constexpr int64_t kMaxRepeat = 10'000'000;

// A whole model: values and ops in execution order.
struct Graph {
  ModelInfo info;
  std::vector<Value> values;
  std::vector<Op> ops;
  std::vector<int> inputs;   // user inputs, in call order
  std::vector<int> outputs;  // graph outputs (-1 for a non-tensor output)

  int add_value(Value v);
  // Checks the invariants every pass relies on; returns a description of the first broken one.
  std::optional<std::string> check() const;
};

// Marks every view of a value that requires grad as requiring grad too, in op order: autograd's
// view metadata asks its base, in no_grad mode as well (self.weight.t() keeps the weight's
// flag). Other ops' outputs never require grad: the model runs under no_grad.
void propagate_requires_grad_to_views(Graph& g);

}  // namespace kc
