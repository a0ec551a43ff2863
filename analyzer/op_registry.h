// What libtorch's operator registry knows about an op: its schema, tags and aliasing.
#pragma once

#include <string>
#include <vector>

#include "analyzer/graph.h"

namespace c10 {
struct FunctionSchema;
}

namespace kc {

struct SchemaArg {
  std::string name;
  std::string type;  // as the schema prints it: "Tensor", "int[]", "Scalar?", ...
  bool keyword_only = false;
  bool has_default = false;
};

// The registered op with its traits. Throws Error when libtorch has no such op.
struct OpSchema {
  std::string name;
  std::string overload;
  std::vector<SchemaArg> args;
  std::vector<std::string> returns;  // return types
  OpTraits traits;
};

// Looks the op up in libtorch's dispatcher ("aten::add", "Tensor"; "" or "default" for the
// default overload). Results are cached per name; the cache is per process and thread-safe.
// "2.11.0": the LibTorch this binary links.
std::string libtorch_version();

const OpSchema& lookup_op(const std::string& name, const std::string& overload);

// Describes an op from its schema alone, for TorchScript-only operators (aten::Int.Tensor)
// that the dispatcher does not hold: aliasing from the schema, no tags.
OpSchema describe_schema(const c10::FunctionSchema& schema);

}  // namespace kc
