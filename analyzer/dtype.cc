#include "analyzer/dtype.h"

#include <array>

namespace kc {
namespace {

struct DTypeInfo {
  DType type;
  const char* name;
  const char* short_name;  // what tables print ("f32"); parsed back like the full name
  int size;
  int export_enum;  // -1 when the export schema has no value for it
};

constexpr std::array<DTypeInfo, 19> kTable{{
    {DType::kUnknown, "unknown", "unknown", 0, 0},
    {DType::kBool, "bool", "bool", 1, 12},
    {DType::kUInt8, "uint8", "u8", 1, 1},
    {DType::kInt8, "int8", "i8", 1, 2},
    {DType::kInt16, "int16", "i16", 2, 3},
    {DType::kUInt16, "uint16", "u16", 2, 28},
    {DType::kInt32, "int32", "i32", 4, 4},
    {DType::kInt64, "int64", "i64", 8, 5},
    {DType::kFloat16, "float16", "f16", 2, 6},
    {DType::kBFloat16, "bfloat16", "bf16", 2, 13},
    {DType::kFloat32, "float32", "f32", 4, 7},
    {DType::kFloat64, "float64", "f64", 8, 8},
    {DType::kComplex32, "complex32", "c32", 4, 9},
    {DType::kComplex64, "complex64", "c64", 8, 10},
    {DType::kComplex128, "complex128", "c128", 16, 11},
    {DType::kFloat8E4M3FN, "float8_e4m3fn", "f8e4m3fn", 1, 29},
    {DType::kFloat8E5M2, "float8_e5m2", "f8e5m2", 1, 30},
    {DType::kFloat8E4M3FNUZ, "float8_e4m3fnuz", "f8e4m3fnuz", 1, 31},
    {DType::kFloat8E5M2FNUZ, "float8_e5m2fnuz", "f8e5m2fnuz", 1, 32},
}};

// The table lists the dtypes in the enum's order: a dtype's entry is at its value (every
// tensor's bytes ask for its size).
constexpr bool in_enum_order() {
  for (size_t i = 0; i < kTable.size(); ++i)
    if (static_cast<size_t>(kTable[i].type) != i) return false;
  return true;
}
static_assert(in_enum_order(), "kTable lists the dtypes in DType's order");

const DTypeInfo& info(DType t) {
  const auto i = static_cast<size_t>(t);
  return i < kTable.size() ? kTable[i] : kTable[0];
}

}  // namespace

const char* dtype_name(DType t) {
  return info(t).name;
}
const char* dtype_short_name(DType t) {
  return info(t).short_name;
}
int dtype_size(DType t) {
  return info(t).size;
}

std::optional<DType> parse_dtype(const std::string& text) {
  // "torch.float32" as Python prints it.
  const std::string s = text.rfind("torch.", 0) == 0 ? text.substr(6) : text;
  for (const auto& i : kTable)
    if ((s == i.name || s == i.short_name) && i.type != DType::kUnknown) return i.type;
  struct Alias {
    const char* name;
    DType type;
  };
  static const Alias kAliases[] = {
      {"float", DType::kFloat32}, {"fp32", DType::kFloat32},  {"half", DType::kFloat16},
      {"fp16", DType::kFloat16},  {"bf16", DType::kBFloat16}, {"double", DType::kFloat64},
      {"long", DType::kInt64},    {"int", DType::kInt32},     {"byte", DType::kUInt8},
  };
  for (const auto& a : kAliases)
    if (s == a.name) return a.type;
  return std::nullopt;
}

std::optional<DType> dtype_from_export_enum(int64_t v) {
  for (const auto& i : kTable)
    if (i.export_enum == v && i.type != DType::kUnknown) return i.type;
  return std::nullopt;
}

bool is_floating(DType t) {
  switch (t) {
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E5M2:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2FNUZ:
      return true;
    default:
      return false;
  }
}

}  // namespace kc
