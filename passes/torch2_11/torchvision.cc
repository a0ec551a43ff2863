// torchvision's detection ops on the H200 (torchvision 0.26's CUDA kernels: ops/cuda/nms_kernel.cu,
// roi_align_kernel.cu, roi_pool_kernel.cu, ps_roi_align_kernel.cu, ps_roi_pool_kernel.cu). LibTorch
// has no schema for them: the .pt2 loader reads them by their recorded arguments, so each rule
// checks the ranks it relies on itself, and an op it does not fit stays unknown. Evidence
// `sweep:torchvision_ops` is data/sweeps/torchvision_ops.jsonl.xz
// (research/sweeps/torchvision_ops.py, 433 configurations on the H200).
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

bool is_rank(const Value* v, size_t rank) {
  return v && v->sizes.size() == rank && v->strides.size() == rank;
}
// The dtypes the sweep measured. The CUDA kernels also dispatch float64, which no sweep ran, so
// it stays unknown; bfloat16 is refused on the GPU (NotImplementedError in the sweep).
bool dispatched(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16;
}

// nms(dets [N, 4], scores [N], iou_threshold).
bool nms_fits(const OpFacts& f) {
  const Value* dets = f.input(0);
  const Value* scores = f.input(1);
  return is_rank(dets, 2) && dets->sizes[1] == 4 && is_rank(scores, 1) && scores->sizes[0] == dets->sizes[0] &&
         dispatched(dets->dtype) && dispatched(scores->dtype);
}
// Scores sorted (aten::sort of N), boxes gathered in that order, the IoU mask kernel, then on the
// GPU: the mask initialised, kept boxes marked, counted (cub reduce, two passes above 4096), scanned
// and selected, the count read by the host (a device-to-host copy it waits for), and the kept
// indices gathered: 8 kernels up to 4096 boxes, 9 above, + the sort's.
Counts nms_counts(const OpFacts& f) {
  const int64_t n = f.input(0)->sizes[0];
  if (n == 0) return {};
  Counts c = sort_1d_launches(n, f.input(1)->dtype);
  c += Counts{n <= 4096 ? 8 : 9, 1, 0, 1};
  return c;
}

// roi_align / roi_pool / ps_roi_align / ps_roi_pool (input [N, C, H, W], rois [K, 5]).
bool roi_fits(const OpFacts& f) {
  const Value* input = f.input(0);
  const Value* rois = f.input(1);
  // rois.contiguous() would copy a strided box list: not measured, so such an op stays unknown.
  return is_rank(input, 4) && is_rank(rois, 2) && rois->sizes[1] == 5 && dispatched(input->dtype) &&
         (rois->contiguous() || rois->sizes[0] <= 1);
}
// zeros for the output (and for roi_pool's argmax or the ps_ ops' channel map), the input made
// contiguous (a copy when it is not, e.g. channels last), then the op's kernel; nothing at all
// when the output is empty.
Counts roi_counts(const OpFacts& f, int zeroed) {
  const Value* out = f.output(0);
  if (!out || out->numel() == 0) return {};
  return {zeroed + (f.input(0)->contiguous() ? 0 : 1) + 1, 0, 0, 0};
}
Counts roi_align_counts(const OpFacts& f) {
  return roi_counts(f, 1);
}
Counts roi_pool_counts(const OpFacts& f) {
  return roi_counts(f, 2);
}

}  // namespace

void add_torchvision_rules(std::vector<LaunchRule>& r) {
  r.push_back(
      rule("torchvision.nms")
          .ops({"torchvision::nms"})
          .when("float32/float16 boxes [N, 4] and scores [N]: the sort of N scores + 8 kernels (9 above 4096 boxes) + "
                "1 device-to-host copy the host waits for; nothing for N = 0",
                nms_fits)
          .compute(nms_counts)
          .evidence(
              "sweep:torchvision_ops (nms of 0 to 100,000 boxes, float32 and float16, contiguous and strided boxes)")
          .why("nms sorts the scores, gathers the boxes in that order, marks overlapping pairs in one kernel, then "
               "selects the kept boxes on the GPU; the host reads how many were kept, so it waits for the GPU."));
  r.push_back(rule("torchvision.roi_align")
                  .ops({"torchvision::roi_align"})
                  .when("float32/float16 input [N, C, H, W], contiguous rois [K, 5]: zeros for the output + 1 kernel, "
                        "+ 1 copy when the input is not contiguous (channels last); nothing for an empty output",
                        roi_fits)
                  .compute(roi_align_counts)
                  .evidence("sweep:torchvision_ops (roi_align of 0 to 5000 rois, 8 and 256 channels, 7x7 and 14x14 "
                            "bins, NCHW and channels last)")
                  .why("roi_align zeroes its output, makes the feature map contiguous if it is not, and samples every "
                       "bin of every box in one kernel."));
  r.push_back(
      rule("torchvision.roi_pool")
          .ops({"torchvision::roi_pool", "torchvision::ps_roi_align", "torchvision::ps_roi_pool"})
          .when("float32/float16 input [N, C, H, W], contiguous rois [K, 5]: zeros for the output and for the argmax "
                "or channel map + 1 kernel, + 1 copy when the input is not contiguous; nothing for an empty output",
                roi_fits)
          .compute(roi_pool_counts)
          .evidence("sweep:torchvision_ops (roi_pool, ps_roi_align, ps_roi_pool: 0 to 5000 rois, 7x7 and 14x14 bins, "
                    "NCHW and channels last)")
          .why("These pool each bin of each box in one kernel after zeroing two outputs: the pooled values and the "
               "index of the input each came from."));
  r.push_back(rule("torchvision.cuda_version")
                  .ops({"torchvision::_cuda_version"})
                  .when("always")
                  .counts({0, 0, 0, 0})
                  .evidence("sweep:torchvision_ops (_cuda_version: 0 launches)")
                  .why("It returns the CUDA version torchvision was built with: a host call that launches nothing."));
}

}  // namespace kc::torch2_11
