// Gathers, scatters and selections on the H200.
#include "passes/targets/h200/rules.h"

namespace kc::h200 {
namespace {

// index with several index tensors broadcasts and copies each before the gather.
Counts index_counts(const OpFacts& f) {
  const Arg* idx = f.arg("indices");
  int n = 0;
  if (idx)
    for (int v : idx->tensors) n += v >= 0;
  return {n > 1 ? 1 + n : 1, 0, 0, 0};
}

}  // namespace

void add_indexing_rules(std::vector<LaunchRule>& r) {
  // Gathers, copies and shape ops.
  r.push_back({"index", ops({"aten::index"}), {}, "one gather; with several index tensors, a copy of each first",
               nullptr, {}, index_counts, "truth:index_select, corpus:swin_t, corpus:gpt2, corpus:llama",
               "Advanced indexing is one gather kernel; with several index tensors each is copied (broadcast) first."});
  r.push_back({"gather", ops({"aten::embedding", "aten::index_select", "aten::gather"}), {}, "always",
               nullptr, {1, 0, 0, 0}, nullptr, "truth:embedding_*, truth:index_select",
               "A lookup (embedding, index_select, gather) is one gather kernel."});
  r.push_back({"masked_fill", ops({"aten::masked_fill"}), {}, "always", nullptr, {1, 1, 0, 0}, nullptr,
               "truth:masked_fill",
               "Out-of-place masked_fill first copies its input (a device-to-device memcpy), then fills the masked positions in place with one kernel."});
  r.push_back({"topk", ops({"aten::topk"}), {}, "always", nullptr, {2, 0, 0, 0}, nullptr, "truth:topk",
               "topk selects the k largest with one kernel, then sorts them with another."});
}

}  // namespace kc::h200
