// The match order of PyTorch 2.11's rule families: every target of the release runs these rules,
// reading its own device and tables through the op's target.
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {

// Rules in match order: the first rule whose op list (or class) and condition fit the op
// decides. Families are disjoint in the ops they name, so only two places in the order
// matter: host-side work first, the rules by class last.
std::vector<LaunchRule> launch_rules() {
  std::vector<LaunchRule> r;
  r.push_back(rule("host")
                  .every_op()
                  .when("every tensor involved is on the CPU", on_host)
                  .counts({0, 0, 0, 0})
                  .evidence("by construction: no CUDA tensor is read or written")
                  .why("Every tensor it touches lives on the CPU, so nothing is launched on the GPU."));
  add_view_copies_rules(r);  // first: an empty result launches nothing, whatever the op
  add_copies_rules(r);
  add_gemm_rules(r);
  add_conv_rules(r);
  add_norm_rules(r);
  add_attention_rules(r);
  add_rnn_rules(r);
  add_indexing_rules(r);
  add_elementwise_rules(r);
  add_selection_rules(r);
  add_loss_rules(r);
  add_linalg_rules(r);  // before composites: solve_triangular below 64 rows
  add_fft_rules(r);
  add_composite_rules(r);
  add_rearrange_rules(r);
  add_numeric_composite_rules(r);
  add_torchvision_rules(r);
  add_generic_rules(r);
  return r;
}

}  // namespace kc::torch2_11
