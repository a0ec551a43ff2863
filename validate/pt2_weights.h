// The real parameters, buffers and tensor constants stored in a .pt2 archive. The analyzer
// never reads them; validate does when asked (--weights), since some ops' launches can depend
// on values (data-dependent shapes, sparsity).
#pragma once

#include <ATen/Tensor.h>

#include <map>
#include <string>

namespace kc::validate {

// Reads every raw (non-pickled) weight and constant of the archive, keyed by the name of the
// graph input that receives it ("p_fc1_weight", "b_bn_running_mean", "c_lifted_tensor_0"), as
// CPU tensors with the recorded sizes, strides and storage offset; tensors stored in one record
// share one storage, as they did when exported. Throws Error for pickled payloads and for
// records that do not match their metadata.
std::map<std::string, at::Tensor> load_pt2_weights(const std::string& path);

}  // namespace kc::validate
