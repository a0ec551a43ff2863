#include "validate/torch_types.h"

#include "analyzer/error.h"

namespace kc::validate {

c10::ScalarType to_scalar_type(DType t) {
  switch (t) {
    case DType::kBool:
      return c10::kBool;
    case DType::kUInt8:
      return c10::kByte;
    case DType::kInt8:
      return c10::kChar;
    case DType::kInt16:
      return c10::kShort;
    case DType::kUInt16:
      return c10::kUInt16;
    case DType::kInt32:
      return c10::kInt;
    case DType::kInt64:
      return c10::kLong;
    case DType::kFloat16:
      return c10::kHalf;
    case DType::kBFloat16:
      return c10::kBFloat16;
    case DType::kFloat32:
      return c10::kFloat;
    case DType::kFloat64:
      return c10::kDouble;
    case DType::kComplex32:
      return c10::kComplexHalf;
    case DType::kComplex64:
      return c10::kComplexFloat;
    case DType::kComplex128:
      return c10::kComplexDouble;
    case DType::kFloat8E4M3FN:
      return c10::kFloat8_e4m3fn;
    case DType::kFloat8E5M2:
      return c10::kFloat8_e5m2;
    case DType::kFloat8E4M3FNUZ:
      return c10::kFloat8_e4m3fnuz;
    case DType::kFloat8E5M2FNUZ:
      return c10::kFloat8_e5m2fnuz;
    case DType::kUnknown:
      break;
  }
  throw Error(std::string("dtype ") + dtype_name(t) + " has no libtorch equivalent");
}

namespace {

int export_enum(const std::string& text, const char* what) {
  check(!text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() < 4,
        std::string("unexpected ") + what + " value '" + text + "'");
  return std::stoi(text);
}

}  // namespace

// Values of torch/csrc/utils/generated_serialization_types.h (torch.export schema 8.x).
c10::Layout layout_from_export_enum(const std::string& text) {
  switch (export_enum(text, "layout")) {
    case 1:
      return c10::kSparse;
    case 2:
      return c10::kSparseCsr;
    case 3:
      return c10::kSparseCsc;
    case 4:
      return c10::kSparseBsr;
    case 5:
      return c10::kSparseBsc;
    case 6:
      return c10::kMkldnn;
    case 7:
      return c10::kStrided;
    default:
      throw Error("layout value " + text + " is not in the torch.export schema");
  }
}

c10::MemoryFormat memory_format_from_export_enum(const std::string& text) {
  switch (export_enum(text, "memory format")) {
    case 1:
      return c10::MemoryFormat::Contiguous;
    case 2:
      return c10::MemoryFormat::ChannelsLast;
    case 3:
      return c10::MemoryFormat::ChannelsLast3d;
    case 4:
      return c10::MemoryFormat::Preserve;
    default:
      throw Error("memory format value " + text + " is not in the torch.export schema");
  }
}

}  // namespace kc::validate
