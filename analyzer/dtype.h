// Element types, independent of libtorch so that passes can use them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kc {

enum class DType : uint8_t {
  kUnknown,
  kBool,
  kUInt8,
  kInt8,
  kInt16,
  kUInt16,
  kInt32,
  kInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kComplex32,
  kComplex64,
  kComplex128,
  kFloat8E4M3FN,
  kFloat8E5M2,
  kFloat8E4M3FNUZ,
  kFloat8E5M2FNUZ,
};

// "float32", "bfloat16", ...: the names torch prints without the "torch." prefix.
const char* dtype_name(DType t);
// "f32", "bf16", "i64": the short names report tables print; parse_dtype reads them back.
const char* dtype_short_name(DType t);
// Bytes per element; 0 for kUnknown.
int dtype_size(DType t);
// Parses the names dtype_name and dtype_short_name print, with or without "torch.", plus
// common aliases ("float", "half", "long", "fp32"). Every option that takes a dtype uses it.
std::optional<DType> parse_dtype(const std::string& s);
// Maps the torch.export schema's ScalarType enum (torch/_export/serde/schema.py).
std::optional<DType> dtype_from_export_enum(int64_t v);
bool is_floating(DType t);

}  // namespace kc
