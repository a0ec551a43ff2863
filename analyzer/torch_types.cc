#include "analyzer/torch_types.h"

#include <array>
#include <utility>

#include "analyzer/error.h"

namespace kc {
namespace {

// One table read both ways, so the two directions cannot drift apart.
constexpr std::array<std::pair<DType, c10::ScalarType>, 18> kScalarTypes{{
    {DType::kBool, c10::kBool},
    {DType::kUInt8, c10::kByte},
    {DType::kInt8, c10::kChar},
    {DType::kInt16, c10::kShort},
    {DType::kUInt16, c10::kUInt16},
    {DType::kInt32, c10::kInt},
    {DType::kInt64, c10::kLong},
    {DType::kFloat16, c10::kHalf},
    {DType::kBFloat16, c10::kBFloat16},
    {DType::kFloat32, c10::kFloat},
    {DType::kFloat64, c10::kDouble},
    {DType::kComplex32, c10::kComplexHalf},
    {DType::kComplex64, c10::kComplexFloat},
    {DType::kComplex128, c10::kComplexDouble},
    {DType::kFloat8E4M3FN, c10::kFloat8_e4m3fn},
    {DType::kFloat8E5M2, c10::kFloat8_e5m2},
    {DType::kFloat8E4M3FNUZ, c10::kFloat8_e4m3fnuz},
    {DType::kFloat8E5M2FNUZ, c10::kFloat8_e5m2fnuz},
}};

// torch.export schema numbers (generated_serialization_types.h, schema 8.x).
constexpr std::array<std::pair<int, c10::Layout>, 7> kLayouts{{
    {1, c10::kSparse},
    {2, c10::kSparseCsr},
    {3, c10::kSparseCsc},
    {4, c10::kSparseBsr},
    {5, c10::kSparseBsc},
    {6, c10::kMkldnn},
    {7, c10::kStrided},
}};
constexpr std::array<std::pair<int, c10::MemoryFormat>, 4> kMemoryFormats{{
    {1, c10::MemoryFormat::Contiguous},
    {2, c10::MemoryFormat::ChannelsLast},
    {3, c10::MemoryFormat::ChannelsLast3d},
    {4, c10::MemoryFormat::Preserve},
}};

int export_number(const std::string& text, const char* what) {
  check(!text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() < 4,
        std::string("unexpected ") + what + " value '" + text + "'");
  return std::stoi(text);
}

}  // namespace

DType dtype_of(c10::ScalarType t) {
  for (const auto& [d, s] : kScalarTypes)
    if (s == t) return d;
  return DType::kUnknown;
}

c10::ScalarType to_scalar_type(DType t) {
  for (const auto& [d, s] : kScalarTypes)
    if (d == t) return s;
  throw Error(std::string("dtype ") + dtype_name(t) + " has no libtorch equivalent");
}

int export_layout(c10::Layout l) {
  for (const auto& [n, v] : kLayouts)
    if (v == l) return n;
  return 0;
}

int export_memory_format(c10::MemoryFormat m) {
  for (const auto& [n, v] : kMemoryFormats)
    if (v == m) return n;
  return 0;
}

c10::Layout layout_from_export_enum(const std::string& text) {
  const int n = export_number(text, "layout");
  for (const auto& [k, v] : kLayouts)
    if (k == n) return v;
  throw Error("layout value " + text + " is not in the torch.export schema");
}

c10::MemoryFormat memory_format_from_export_enum(const std::string& text) {
  const int n = export_number(text, "memory format");
  for (const auto& [k, v] : kMemoryFormats)
    if (k == n) return v;
  throw Error("memory format value " + text + " is not in the torch.export schema");
}

}  // namespace kc
