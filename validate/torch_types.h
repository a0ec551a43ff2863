// Conversions from the graph IR's literals to libtorch's types, for running ops for real.
#pragma once

#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/ScalarType.h>

#include <string>

#include "analyzer/dtype.h"

namespace kc::validate {

// Throws Error for dtypes libtorch has no equivalent of.
c10::ScalarType to_scalar_type(DType t);
// The IR keeps layouts and memory formats as the torch.export schema's enum values, as text
// ("7" is Strided); throws Error for values that enum does not have.
c10::Layout layout_from_export_enum(const std::string& text);
c10::MemoryFormat memory_format_from_export_enum(const std::string& text);

}  // namespace kc::validate
