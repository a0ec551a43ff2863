// The one map between the graph IR's literals and libtorch's types, used by the TorchScript
// loader (libtorch -> IR) and by kernelcount-validate (IR -> libtorch, to run ops for real).
#pragma once

#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/ScalarType.h>

#include <string>

#include "analyzer/dtype.h"

namespace kc {

// DType::kUnknown for scalar types the IR does not have (quantized, bits, ...).
DType dtype_of(c10::ScalarType t);
// Throws Error for dtypes libtorch has no equivalent of (kUnknown).
c10::ScalarType to_scalar_type(DType t);

// The IR keeps layouts and memory formats as the torch.export schema numbers them, as text
// ("7" is Strided), whichever loader made it (torch/csrc/utils/generated_serialization_types.h).
// The number of a libtorch layout / memory format; 0 (the schema's "unknown") for others.
int export_layout(c10::Layout l);
int export_memory_format(c10::MemoryFormat m);
// The reverse; throws Error for text that is not a number the schema has.
c10::Layout layout_from_export_enum(const std::string& text);
c10::MemoryFormat memory_format_from_export_enum(const std::string& text);

}  // namespace kc
