#include "analyzer/pt2_plain.h"

#include "analyzer/json_cursor.h"

namespace kc {

PlainStrings::Ref PlainStrings::keep(std::string_view s, bool in_text) {
  if (in_text) return Ref{s.data(), 0, static_cast<uint32_t>(s.size())};
  Ref r{nullptr, static_cast<uint32_t>(decoded_.size()), static_cast<uint32_t>(s.size())};
  decoded_ += s;
  return r;
}

namespace {

// A string value, kept.
bool keep_string(JsonCursor& in, PlainStrings& strings, PlainStrings::Ref& out) {
  std::string_view s;
  if (!in.string(s)) return false;
  out = strings.keep(s, in.in_text(s));
  return true;
}

// A field read once: a key the record gives twice is refused, the general reader taking the
// last.
bool first_time(bool& seen) {
  if (seen) return false;
  seen = true;
  return true;
}

// A field read once whose value is kept only when it is a string: any other value is skipped,
// as the general reader ignores it.
bool optional_string(JsonCursor& in, bool& seen, bool& has, PlainStrings& strings, PlainStrings::Ref& out) {
  if (!first_time(seen)) return false;
  if (in.peek() != '"') return in.skip();
  has = true;
  return keep_string(in, strings, out);
}

// {"name": N, ...}: a tensor named by its "name".
bool tensor_name(JsonCursor& in, PlainStrings& strings, PlainStrings::Ref& name) {
  bool seen = false;
  return in.members([&](std::string_view key) {
    if (key != "name") return in.skip();
    return first_time(seen) && keep_string(in, strings, name);
  }) && seen;
}

// An argument {"<kind>": value}, of exactly one kind.
bool argument(JsonCursor& in, PlainNode& node, PlainArg& arg) {
  bool seen = false;
  return in.members([&](std::string_view kind) {
    if (!first_time(seen)) return false;
    using K = PlainArg::Kind;
    if (kind == "as_tensor") {
      arg.kind = K::kTensor;
      return tensor_name(in, node.strings, arg.tensor);
    }
    if (kind == "as_none") {
      arg.kind = K::kNone;
      return in.skip();
    }
    if (kind == "as_int") {
      arg.kind = K::kInt;
      return in.integer(arg.integer);
    }
    if (kind == "as_float") {
      arg.kind = K::kFloat;
      return in.number(arg.number);
    }
    if (kind == "as_bool") {
      arg.kind = K::kBool;
      bool b = false;
      if (!in.boolean(b)) return false;
      arg.integer = b ? 1 : 0;
      return true;
    }
    if (kind == "as_ints") {
      arg.kind = K::kIntList;
      arg.ints_begin = static_cast<uint32_t>(node.ints.size());
      const bool ok = in.elements([&] {
        int64_t v = 0;
        if (!in.integer(v)) return false;
        node.ints.push_back(v);
        return true;
      });
      arg.ints_end = static_cast<uint32_t>(node.ints.size());
      return ok;
    }
    return false;
  }) && seen;
}

// {"name": N, "arg": {...}, ...}
bool input(JsonCursor& in, PlainNode& node) {
  PlainArg& arg = node.inputs.emplace_back();
  bool has_name = false, has_arg = false;
  const bool read = in.members([&](std::string_view key) {
    if (key == "name") return first_time(has_name) && keep_string(in, node.strings, arg.name);
    if (key == "arg") return first_time(has_arg) && argument(in, node, arg);
    return in.skip();
  });
  return read && has_name && has_arg;
}

// {"as_tensor": {...}} or {"as_tensors": [{...}, ...]}
bool output(JsonCursor& in, PlainNode& node) {
  bool seen = false;
  return in.members([&](std::string_view kind) {
    if (!first_time(seen)) return false;
    if (kind == "as_tensor") return tensor_name(in, node.strings, node.outputs.emplace_back());
    if (kind == "as_tensors")
      return in.elements([&] { return tensor_name(in, node.strings, node.outputs.emplace_back()); });
    return false;
  }) && seen;
}

// The metadata's stack_trace and nn_module_stack where they are strings (others are ignored,
// as the general reader ignores them).
bool metadata(JsonCursor& in, PlainNode& node) {
  if (in.peek() != '{') return in.skip();
  bool trace = false, module = false;
  return in.members([&](std::string_view key) {
    if (key == "stack_trace") return optional_string(in, trace, node.has_stack_trace, node.strings, node.stack_trace);
    if (key == "nn_module_stack")
      return optional_string(in, module, node.has_module_stack, node.strings, node.module_stack);
    return in.skip();
  });
}

}  // namespace

bool read_plain_node(std::string_view text, size_t depth, PlainNode& out) {
  out.strings.clear();
  out.inputs.clear();
  out.ints.clear();
  out.outputs.clear();
  out.has_stack_trace = out.has_module_stack = false;
  JsonCursor in(text, depth, out.strings.scratch());
  bool target = false, inputs = false, outputs = false, meta = false;
  const bool read = in.members([&](std::string_view key) {
    if (key == "target") return first_time(target) && keep_string(in, out.strings, out.target);
    if (key == "inputs") return first_time(inputs) && in.elements([&] { return input(in, out); });
    if (key == "outputs") return first_time(outputs) && in.elements([&] { return output(in, out); });
    if (key == "metadata") return first_time(meta) && metadata(in, out);
    return in.skip();
  });
  return read && in.done() && target && inputs && outputs;
}

namespace {

// [{"as_int": N}, ...]
bool plain_ints(JsonCursor& in, std::vector<int64_t>& out) {
  return in.elements([&] {
    bool seen = false;
    return in.members([&](std::string_view key) {
      return key == "as_int" && first_time(seen) && in.integer(out.emplace_back());
    }) && seen;
  });
}

// {"type": T, "index": N, ...}: a type that is no string and an index that is no integer are
// left out, as the general reader leaves them.
bool device(JsonCursor& in, PlainTensor& out) {
  out.has_device = true;
  if (in.peek() != '{') return in.skip();
  bool type = false, index = false;
  return in.members([&](std::string_view key) {
    if (key == "type") return optional_string(in, type, out.has_device_type, out.strings, out.device_type);
    if (key == "index") {
      if (!first_time(index)) return false;
      const char c = in.peek();
      if (!(c == '-' || (c >= '0' && c <= '9'))) return in.skip();
      out.has_device_index = true;
      return in.integer(out.device_index);  // a float is refused: the general reader ignores it
    }
    return in.skip();
  });
}

}  // namespace

bool read_plain_tensor(std::string_view text, size_t depth, PlainTensor& out) {
  out.strings.clear();
  out.sizes.clear();
  out.strides.clear();
  out.has_device = out.has_device_type = out.has_device_index = false;
  out.requires_grad = false;
  out.storage_offset = 0;
  JsonCursor in(text, depth, out.strings.scratch());
  bool dtype = false, sizes = false, strides = false, dev = false, grad = false, offset = false;
  const bool read = in.members([&](std::string_view key) {
    if (key == "dtype") return first_time(dtype) && in.integer(out.dtype);
    if (key == "sizes") return first_time(sizes) && plain_ints(in, out.sizes);
    if (key == "strides") return first_time(strides) && plain_ints(in, out.strides);
    if (key == "device") {
      if (!first_time(dev)) return false;
      return in.peek() == 'n' ? in.null() : device(in, out);
    }
    if (key == "storage_offset") {
      if (!first_time(offset)) return false;
      if (in.peek() != '{') return in.skip();
      // A symbolic offset ({"as_expr": ...}) is left at 0, as the general reader leaves it.
      return in.members([&](std::string_view k) {
        if (k != "as_int") return in.skip();
        const char c = in.peek();
        return c == '-' || (c >= '0' && c <= '9') ? in.integer(out.storage_offset) : in.skip();
      });
    }
    if (key == "requires_grad") {
      if (!first_time(grad)) return false;
      const char c = in.peek();
      return c == 't' || c == 'f' ? in.boolean(out.requires_grad) : in.skip();
    }
    return in.skip();
  });
  return read && in.done() && dtype && sizes && strides;
}

}  // namespace kc
