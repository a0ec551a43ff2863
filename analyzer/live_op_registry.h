// What the LibTorch this binary links has registered, asked of its dispatcher: for the
// TorchScript loader (which also registers torchvision's ops) and for generating the operator
// table the rest of kernelcount reads (analyzer/op_registry.h).
#pragma once

#include <string>

#include "analyzer/op_registry.h"

namespace c10 {
struct FunctionSchema;
}

namespace kc {

// "2.11.0": the LibTorch this binary links.
std::string linked_libtorch_version();

// Looks the op up in the dispatcher as it is now (torchvision's ops once registered), with the
// same answers as lookup_op for the ops the table holds. Throws Error when there is no such op.
const OpSchema& lookup_live_op(const std::string& name, const std::string& overload);

// Describes an op from its schema alone, for TorchScript-only operators (aten::Int.Tensor)
// that the dispatcher does not hold: aliasing from the schema, no tags.
OpSchema describe_schema(const c10::FunctionSchema& schema);

// The operator table of every op the dispatcher holds now: a header naming the release, then
// schema_table_line() of each op, sorted.
std::string live_schema_table();

}  // namespace kc
