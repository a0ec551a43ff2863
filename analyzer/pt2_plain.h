// The common shapes of a .pt2's node and tensor records, read straight from their text
// (JsonCursor) into small structures the reader builds its ops and tensors from, with no
// document in between. A record of another shape (an argument kind not listed here, a key
// given twice, a field of an unexpected type), or text that is not valid JSON, is refused
// (false): the reader then reads it the general way, which gives any error. What is refused
// costs a second read; what is read here must mean what the general reader makes of it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kc {

// Strings of a record: views of its text, or of the structure's own buffer where escapes were
// decoded.
class PlainStrings {
 public:
  struct Ref {
    const char* data = nullptr;  // into the text, or null for one in the buffer
    uint32_t offset = 0, size = 0;
  };
  void clear() { decoded_.clear(); }
  Ref keep(std::string_view s, bool in_text);
  std::string_view operator()(Ref r) const {
    return r.data ? std::string_view(r.data, r.size) : std::string_view(decoded_).substr(r.offset, r.size);
  }
  // Where the record's reader decodes an escaped string before keeping it.
  std::string* scratch() { return &scratch_; }

 private:
  std::string decoded_;
  std::string scratch_;
};

// An argument of a node, of the kinds read here.
struct PlainArg {
  enum class Kind : uint8_t { kTensor, kNone, kInt, kIntList, kFloat, kBool };
  PlainStrings::Ref name;  // the input's name
  Kind kind = Kind::kNone;
  PlainStrings::Ref tensor;               // kTensor: the tensor's name
  double number = 0;                      // kFloat
  int64_t integer = 0;                    // kInt, kBool (1 or 0)
  uint32_t ints_begin = 0, ints_end = 0;  // kIntList: a range of PlainNode::ints
};

// A node {"target": "torch.ops...", "inputs": [...], "outputs": [...], "metadata": {...}} whose
// inputs are named arguments of the kinds above and whose outputs are tensors
// ({"as_tensor": ...} or {"as_tensors": [...]}), each listed output a tensor.
struct PlainNode {
  PlainStrings strings;
  PlainStrings::Ref target;
  std::vector<PlainArg> inputs;
  std::vector<int64_t> ints;
  std::vector<PlainStrings::Ref> outputs;  // tensor names, in order
  bool has_stack_trace = false, has_module_stack = false;
  PlainStrings::Ref stack_trace, module_stack;
};
// Reads the node record `text`, which sits `depth` deep in model.json, into `out`.
bool read_plain_node(std::string_view text, size_t depth, PlainNode& out);

// A tensor record {"dtype": N, "sizes": [{"as_int": N}, ...], "strides": [...], "device":
// {"type": T, "index": N or null}, "requires_grad": B, "storage_offset": {"as_int": N}, ...}: sizes
// and strides plain integers.
struct PlainTensor {
  PlainStrings strings;
  int64_t dtype = 0;
  std::vector<int64_t> sizes, strides;
  bool has_device = false;  // "device" present and not null
  bool has_device_type = false, has_device_index = false;
  PlainStrings::Ref device_type;
  int64_t device_index = 0;
  bool requires_grad = false;
  int64_t storage_offset = 0;  // {"as_int": N}; 0 where absent or symbolic
};
// Reads the tensor record `text`, which sits `depth` deep in model.json, into `out`.
bool read_plain_tensor(std::string_view text, size_t depth, PlainTensor& out);

}  // namespace kc
