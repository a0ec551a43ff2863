// Scaled dot-product attention on the H200 (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp).
#include "passes/targets/h200/rules.h"

namespace kc::h200 {
namespace {

bool sdpa_plain(const OpFacts& f) { return !f.has_tensor_arg("attn_mask"); }
bool sdpa_masked_half(const OpFacts& f) { return !sdpa_plain(f) && is_half(f.dtype); }
bool sdpa_masked_fp32(const OpFacts& f) { return !sdpa_plain(f) && fp32(f); }
bool sdpa_plain_half(const OpFacts& f) { return sdpa_plain(f) && is_half(f.dtype); }
bool sdpa_plain_fp32(const OpFacts& f) { return sdpa_plain(f) && fp32(f); }

}  // namespace

void add_attention_rules(std::vector<LaunchRule>& r) {
  // Attention: bf16 goes to cuDNN's fused kernel (with a memset), fp32 to the efficient kernel.
  r.push_back({"sdpa.half", ops({"aten::scaled_dot_product_attention"}), {}, "bf16/fp16, no explicit mask",
               sdpa_plain_half, {1, 0, 1, 0}, nullptr, "truth:sdpa_bfloat16, truth:sdpa_causal_bfloat16",
               "Attention in bf16/fp16 without a mask runs cuDNN's fused flash-attention kernel, which zeroes a small buffer first (one memset)."});
  r.push_back({"sdpa.fp32", ops({"aten::scaled_dot_product_attention"}), {}, "float32, no explicit mask",
               sdpa_plain_fp32, {1, 0, 0, 0}, nullptr, "truth:sdpa_float32, truth:sdpa_causal_float32",
               "Attention in float32 runs the memory-efficient (cutlass) fused attention kernel: one kernel."});
  r.push_back({"sdpa.mask.half", ops({"aten::scaled_dot_product_attention"}), {}, "bf16/fp16 with an explicit mask",
               sdpa_masked_half, {4, 0, 1, 0}, nullptr, "corpus:bert, corpus:gpt2, corpus:llama",
               "Attention with an explicit mask cannot use the flash kernel: it prepares the mask (expand, copy) before the fused kernel, and zeroes a buffer."});
  r.push_back({"sdpa.mask.fp32", ops({"aten::scaled_dot_product_attention"}), {}, "float32 with an explicit mask",
               sdpa_masked_fp32, {4, 0, 0, 0}, nullptr, "corpus:bert, corpus:gpt2, corpus:llama",
               "Attention with an explicit mask prepares the mask (expand, copy) in extra kernels before the fused attention kernel."});
}

}  // namespace kc::h200
