#include "analyzer/torchvision_ops.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kc {
namespace {

at::Tensor meta(std::vector<int64_t> sizes, const at::Tensor& like, c10::ScalarType dtype) {
  return at::empty(sizes, like.options().dtype(dtype).device(at::kMeta));
}

// nms keeps a number of boxes that depends on their values: every box kept is the upper bound,
// as for nonzero (shape_functions.cc), and what its launches do not depend on.
at::Tensor nms_meta(const at::Tensor& dets, const at::Tensor&, double) {
  return meta({dets.size(0)}, dets, at::kLong);
}
at::Tensor roi_align_meta(const at::Tensor& input, const at::Tensor& rois, double, int64_t ph, int64_t pw, int64_t,
                          bool) {
  return meta({rois.size(0), input.size(1), ph, pw}, input, input.scalar_type());
}
std::tuple<at::Tensor, at::Tensor> roi_pool_meta(const at::Tensor& input, const at::Tensor& rois, double, int64_t ph,
                                                 int64_t pw) {
  return {meta({rois.size(0), input.size(1), ph, pw}, input, input.scalar_type()),
          meta({rois.size(0), input.size(1), ph, pw}, input, at::kInt)};
}
// Position-sensitive pooling: each output channel reads its own group of ph * pw input channels.
std::tuple<at::Tensor, at::Tensor> ps_roi_meta(const at::Tensor& input, const at::Tensor& rois, int64_t ph,
                                               int64_t pw) {
  TORCH_CHECK(ph > 0 && pw > 0 && input.size(1) % (ph * pw) == 0,
              "input channels must be a multiple of pooled_height * pooled_width");
  const int64_t channels = input.size(1) / (ph * pw);
  return {meta({rois.size(0), channels, ph, pw}, input, input.scalar_type()),
          meta({rois.size(0), channels, ph, pw}, input, at::kInt)};
}
std::tuple<at::Tensor, at::Tensor> ps_roi_align_meta(const at::Tensor& input, const at::Tensor& rois, double,
                                                     int64_t ph, int64_t pw, int64_t) {
  return ps_roi_meta(input, rois, ph, pw);
}
std::tuple<at::Tensor, at::Tensor> ps_roi_pool_meta(const at::Tensor& input, const at::Tensor& rois, double, int64_t ph,
                                                    int64_t pw) {
  return ps_roi_meta(input, rois, ph, pw);
}
at::Tensor deform_conv2d_meta(const at::Tensor& input, const at::Tensor& weight, const at::Tensor&, const at::Tensor&,
                              const at::Tensor&, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
                              int64_t dil_h, int64_t dil_w, int64_t, int64_t, bool) {
  TORCH_CHECK(input.dim() == 4 && weight.dim() == 4, "deform_conv2d takes 4-d input and weight");
  TORCH_CHECK(stride_h > 0 && stride_w > 0 && dil_h > 0 && dil_w > 0,
              "deform_conv2d: strides and dilations must be positive");
  const int64_t h = (input.size(2) + 2 * pad_h - (dil_h * (weight.size(2) - 1) + 1)) / stride_h + 1;
  const int64_t w = (input.size(3) + 2 * pad_w - (dil_w * (weight.size(3) - 1) + 1)) / stride_w + 1;
  TORCH_CHECK(h > 0 && w > 0, "deform_conv2d: the output would be empty");
  return meta({input.size(0), weight.size(0), h, w}, input, input.scalar_type());
}
// The CUDA version torchvision was built with; -1 is what a build without CUDA answers.
int64_t cuda_version() {
  return -1;
}

struct Op {
  const char* name;
  const char* schema;
};
const Op kOps[] = {
    {"nms", "torchvision::nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor"},
    {"roi_align",
     "torchvision::roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt "
     "pooled_width, int sampling_ratio, bool aligned) -> Tensor"},
    {"roi_pool",
     "torchvision::roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt "
     "pooled_width) -> (Tensor, Tensor)"},
    {"ps_roi_align",
     "torchvision::ps_roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt "
     "pooled_width, int sampling_ratio) -> (Tensor, Tensor)"},
    {"ps_roi_pool",
     "torchvision::ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt "
     "pooled_width) -> (Tensor, Tensor)"},
    {"deform_conv2d",
     "torchvision::deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, SymInt "
     "stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, SymInt dilation_w, SymInt groups, "
     "SymInt offset_groups, bool use_mask) -> Tensor"},
    {"_cuda_version", "torchvision::_cuda_version() -> int"},
};

}  // namespace

bool run_torchvision_meta(const c10::FunctionSchema& schema, torch::jit::Stack& stack) {
  static const std::map<std::string, c10::KernelFunction> kernels = {
      {"torchvision::nms", c10::KernelFunction::makeFromUnboxedFunction(TORCH_FN(nms_meta))},
      {"torchvision::roi_align", c10::KernelFunction::makeFromUnboxedFunction(TORCH_FN(roi_align_meta))},
      {"torchvision::roi_pool", c10::KernelFunction::makeFromUnboxedFunction(TORCH_FN(roi_pool_meta))},
      {"torchvision::ps_roi_align", c10::KernelFunction::makeFromUnboxedFunction(TORCH_FN(ps_roi_align_meta))},
      {"torchvision::ps_roi_pool", c10::KernelFunction::makeFromUnboxedFunction(TORCH_FN(ps_roi_pool_meta))},
      {"torchvision::deform_conv2d", c10::KernelFunction::makeFromUnboxedFunction(TORCH_FN(deform_conv2d_meta))},
      {"torchvision::_cuda_version", c10::KernelFunction::makeFromUnboxedFunction(TORCH_FN(cuda_version))},
  };
  if (!schema.overload_name().empty()) return false;
  const auto it = kernels.find(schema.name());
  if (it == kernels.end()) return false;
  const auto op = c10::Dispatcher::singleton().findSchema({schema.name(), ""});
  if (!op) return false;
  it->second.callBoxed(*op, c10::DispatchKeySet(c10::DispatchKey::Meta), &stack);
  return true;
}

void register_torchvision_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Kept for the process's life: the registrations end with these objects.
    static auto* defs = new torch::Library(torch::Library::FRAGMENT, "torchvision", std::nullopt, __FILE__, __LINE__);
    static auto* metas =
        new torch::Library(torch::Library::IMPL, "torchvision", c10::DispatchKey::Meta, __FILE__, __LINE__);
    static auto* any = new torch::Library(torch::Library::IMPL, "torchvision",
                                          c10::DispatchKey::CompositeExplicitAutograd, __FILE__, __LINE__);
    if (c10::Dispatcher::singleton().findSchema({"torchvision::nms", ""})) return;  // torchvision is loaded
    for (const Op& op : kOps) defs->def(op.schema);
    metas->impl("nms", TORCH_FN(nms_meta));
    metas->impl("roi_align", TORCH_FN(roi_align_meta));
    metas->impl("roi_pool", TORCH_FN(roi_pool_meta));
    metas->impl("ps_roi_align", TORCH_FN(ps_roi_align_meta));
    metas->impl("ps_roi_pool", TORCH_FN(ps_roi_pool_meta));
    metas->impl("deform_conv2d", TORCH_FN(deform_conv2d_meta));
    any->impl("_cuda_version", TORCH_FN(cuda_version));
  });
}

}  // namespace kc
