#include "analyzer/describe.h"

#include <sstream>

namespace kc {
namespace {

template <typename T, typename F>
std::string join(const std::vector<T>& xs, const char* sep, F fmt) {
  std::string out;
  for (size_t i = 0; i < xs.size(); ++i) out += (i ? sep : "") + fmt(xs[i]);
  return out;
}

std::string integer(int64_t v) {
  return std::to_string(v);
}

}  // namespace

std::string describe_value(const Value& v, Style style) {
  switch (style) {
    case Style::kKey:
      return std::string(dtype_name(v.dtype)) + "[" + join(v.sizes, ",", integer) + (v.contiguous() ? "]c" : "]n");
    case Style::kReadable: {
      std::string s = std::string(dtype_name(v.dtype)) + "[" + join(v.sizes, ",", integer) + "]";
      return v.contiguous() ? s : s + "{" + join(v.strides, ",", integer) + "}";
    }
    case Style::kShort:
      return (v.sizes.empty() ? std::string("scalar") : join(v.sizes, "x", integer)) + ":" + dtype_short_name(v.dtype);
  }
  return "";
}

std::string describe_arg(const Graph& g, const Arg& a, Style style) {
  using K = Arg::Kind;
  const bool key = style == Style::kKey;
  auto value = [&](int v) { return v < 0 ? std::string("None") : describe_value(g.values[v], style); };
  // Keys keep std::to_string's fixed digits so that the measured table's keys stay stable.
  auto number = [&](double d) {
    if (key) return std::to_string(d);
    std::ostringstream o;
    o << d;
    return o.str();
  };
  auto boolean = [&](int64_t b) { return key ? std::to_string(b) : std::string(b ? "True" : "False"); };
  auto list = [&](const std::string& body) { return key ? body : "[" + body + "]"; };
  std::string s = a.name + "=";
  switch (a.kind) {
    case K::kTensor:
      return s + value(a.tensors[0]);
    case K::kTensorList:
      return s + list(join(a.tensors, key ? ";" : ",", value));
    case K::kNone:
      return s + "None";
    case K::kBool:
      return s + boolean(a.ints[0]);
    case K::kInt:
      return s + std::to_string(a.ints[0]);
    case K::kIntList:
      return s + list(join(a.ints, ",", integer));
    case K::kFloat:
      return s + number(a.floats[0]);
    case K::kFloatList:
      return s + list(join(a.floats, ",", number));
    case K::kComplex:  // Python's complex(re, im)
      return s + "complex(" + number(a.floats[0]) + "," + number(a.floats[1]) + ")";
    case K::kBoolList:
      return s + list(join(a.ints, ",", boolean));
    case K::kScalarType:
      return s + dtype_name(static_cast<DType>(a.ints[0]));
    case K::kString:
    case K::kLayout:
    case K::kDevice:
    case K::kMemoryFormat:
      return s + a.text;
  }
  return s + "?";
}

std::string launch_key(const Graph& g, const Op& op) {
  std::string key = op.full_name();
  for (const Arg& a : op.args) key += "|" + describe_arg(g, a, Style::kKey);
  return key;
}

}  // namespace kc
