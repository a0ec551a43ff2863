// The one printer of values and arguments: op signatures (the measured table's keys), the
// report's tables and validate's op lists all describe a tensor or an argument through it.
#pragma once

#include <string>

#include "analyzer/graph.h"

namespace kc {

enum class Style : uint8_t {
  kKey,       // exact and compact: "float32[32,64]c" (c/n: contiguous or not); args "a=1,2"
  kReadable,  // "float32[32,64]", strides added where not row-major: "float32[64,32]{1,64}"
  kShort,     // for narrow table cells: "32x64:f32", "scalar:f32"
};

std::string describe_value(const Value& v, Style style);
// "name=value" for one argument of op in g.
std::string describe_arg(const Graph& g, const Arg& a, Style style);
// The op's signature: name, every tensor argument's dtype, shape and contiguity, and every
// other argument's value. Two ops with the same key launch the same work.
std::string launch_key(const Graph& g, const Op& op);

}  // namespace kc
