// Scaled dot-product attention on the H200 (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp
// picks cuDNN, flash, mem-efficient or the math fallback; attention.cu runs the fused ones).
#include <functional>
#include <numeric>

#include "analyzer/tensor_geometry.h"
#include "passes/sdpa_path.h"
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

const Value* sdpa_mask(const OpFacts& f) {
  return f.tensor_arg("attn_mask");
}
bool mask_is_bool(const OpFacts& f) {
  const Value* m = sdpa_mask(f);
  return m && m->dtype == DType::kBool;
}
// Keys (S): the mask's last dim, else the key's second-to-last.
int64_t sdpa_keys(const OpFacts& f) {
  const Value* k = f.input(1);
  return k && k->sizes.size() >= 2 ? k->sizes[k->sizes.size() - 2] : 0;
}
bool qk_rank4(const OpFacts& f) {
  const Value* q = f.input(0);
  const Value* k = f.input(1);
  return q && k && q->sizes.size() == 4 && k->sizes.size() == 4;
}

// The math fallback (_scaled_dot_product_attention_math: scale, matmul, softmax, matmul) runs when
// no fused kernel accepts the inputs (sdpa_runs_fused, shared with the layout pass): 4-D inputs
// fall back when the key's heads differ from the query's (no enable_gqa), a head dim is not
// unit-strided, or the mask's last dim is not (an expanded stride-0 bool mask, a transposed
// position bias: the fused kernels' mask alignment check).
bool sdpa_math(const OpFacts& f) {
  const Value* q = f.input(0);
  const Value* k = f.input(1);
  const Value* v = f.input(2);
  return q && k && v && !sdpa_runs_fused(*q, *k, *v, sdpa_mask(f));
}
bool sdpa_math_4d(const OpFacts& f) {
  return qk_rank4(f) && (fp32(f) || is_half(f.dtype)) && sdpa_math(f);
}
// Measured math path: f32 13 kernels with a float mask (scale q, scale k, bmm, mask add,
// softmax and its -inf guard, bmm, copies), + 3 for a bool mask's conversion to an additive
// float mask; bf16/fp16 + 5 (the math path upcasts q, k, v and the mask and casts the result back).
Counts sdpa_math_4d_counts(const OpFacts& f) {
  if (!sdpa_mask(f)) return {};
  const int base = 13 + (mask_is_bool(f) ? 3 : 0);
  return {base + (is_half(f.dtype) ? 5 : 0), 0, 0, 0};
}
bool sdpa_math_4d_masked(const OpFacts& f) {
  return sdpa_math_4d(f) && sdpa_mask(f);
}

// 5-D q/k/v: the fused kernels take 4-D only (check_tensor_shapes): math path, f32 11 kernels,
// bf16/fp16 16; + 1 when the query is not contiguous (matmul's reshape copies it).
bool sdpa_rank5(const OpFacts& f) {
  const Value* q = f.input(0);
  return q && q->sizes.size() == 5 && !sdpa_mask(f);
}
Counts sdpa_rank5_counts(const OpFacts& f) {
  const Value* q = f.input(0);
  const int copy = q->contiguous() ? 0 : 1;
  return {(is_half(f.dtype) ? 16 : 11) + copy, 0, 0, 0};
}

// Contiguous q/k/v of ranks 3 and 4 mixed (a [B, L, E] query against [B, H, S, E] keys): they never
// reach the fused kernels either (check_tensor_shapes), and the math path's two matmuls broadcast
// their batch dims.
bool sdpa_mixed_ranks(const Value& q, const Value& k, const Value& v) {
  auto ok = [](const Value& t) { return (t.sizes.size() == 3 || t.sizes.size() == 4) && t.contiguous(); };
  return ok(q) && ok(k) && ok(v) && !(q.sizes.size() == k.sizes.size() && k.sizes.size() == v.sizes.size());
}
// matmul expands an operand whose batch dims (all but the last two) are fewer or smaller than the
// broadcast batch and reshapes it to [batch, rows, cols]: a copy (the expanded dims have stride 0).
// q @ k^T broadcasts q's and k's batch; attn @ v broadcasts that with v's.
int sdpa_broadcast_copies(const Value& q, const Value& k, const Value& v) {
  auto batch = [](const std::vector<int64_t>& s) { return std::vector<int64_t>(s.begin(), s.end() - 2); };
  auto count = [](const std::vector<int64_t>& s) {
    return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<int64_t>());
  };
  const std::vector<int64_t> qk = broadcast_shape(batch(q.sizes), batch(k.sizes));
  const std::vector<int64_t> all = broadcast_shape(qk, batch(v.sizes));
  const int64_t nqk = count(qk), nall = count(all);
  return (count(batch(q.sizes)) != nqk) + (count(batch(k.sizes)) != nqk) + (nqk != nall) +
         (count(batch(v.sizes)) != nall);
}

// Without a mask: 4-D q/k/v the fused kernels decline (a head dim read across a transposed or
// channels-last activation), and 3-D q/k/v (or ranks 3 and 4 mixed), which never reach them
// (check_tensor_shapes wants 4-D). Both run the math path: scale q and k, bmm, softmax with its
// -inf guard (_safe_softmax), bmm.
bool sdpa_math_nomask(const OpFacts& f) {
  const Value* q = f.input(0);
  const Value* k = f.input(1);
  const Value* v = f.input(2);
  if (!q || !k || !v || sdpa_mask(f) || !(fp32(f) || is_half(f.dtype))) return false;
  if (q->sizes.size() == 3 && k->sizes.size() == 3 && v->sizes.size() == 3) return true;
  if (sdpa_mixed_ranks(*q, *k, *v)) return true;
  return qk_rank4(f) && sdpa_math(f);
}
// bf16/fp16 without a mask, head dim not a multiple of 8: flash attention on q, k and v padded
// to the next multiple (pad_last_dim: a fill and a copy each), the result a sliced view.
bool sdpa_flash_padded(const OpFacts& f) {
  const Value* q = f.input(0);
  const Value* v = f.input(2);
  return qk_rank4(f) && v && v->sizes.size() == 4 && is_half(f.dtype) && !sdpa_mask(f) && !sdpa_math(f) &&
         q->sizes[3] % 8 != 0 && q->sizes[3] == v->sizes[3] && q->sizes[3] <= 256;
}
// 3-D q/k/v with a float mask: the same path plus the mask's add.
bool sdpa_math_3d_float_mask(const OpFacts& f) {
  const Value* q = f.input(0);
  const Value* m = sdpa_mask(f);
  return q && q->sizes.size() == 3 && m && m->dtype != DType::kBool && (fp32(f) || is_half(f.dtype));
}
// cuDNN attention with dropout_p > 0 first unpacks the Philox seed and offset into device tensors
// (unpack_cudnn, a one-thread kernel); the mem-efficient kernel reads the state itself.
bool sdpa_dropout(const OpFacts& f) {
  const Arg* p = f.arg("dropout_p");
  return p && p->kind == Arg::Kind::kFloat && !p->floats.empty() && p->floats[0] > 0;
}
// Measured: f32 9 kernels, bf16 14 (the half-precision math path upcasts q, k and v and casts
// the result back); + 1 for the float mask's add.
// 4-D without a mask, + 1 copy per q, k or v whose [B, H] matmul cannot fold by a view
// (sdpa_math_batch_copied; sweep:sdpa_layout, q/k/v from a [B, L, H, E] layout: f32 12).
Counts sdpa_math_plain_counts(const OpFacts& f) {
  int copies = 0;
  const Value* q = f.input(0);
  const Value* k = f.input(1);
  const Value* v = f.input(2);
  if (!sdpa_mask(f) && q && k && v && sdpa_mixed_ranks(*q, *k, *v))
    copies = sdpa_broadcast_copies(*q, *k, *v);
  else if (!sdpa_mask(f) && q && k && v && q->sizes.size() == 4)
    copies = sdpa_math_batch_copied(*q, true) + sdpa_math_batch_copied(*k, true) + sdpa_math_batch_copied(*v, false);
  // is_causal on the math path builds its mask: ones + tril, converted to an additive float mask
  // (two fills and a where), then added to the scores: 6 kernels more (opinfo: 3-D causal, f32 15,
  // bf16 20).
  const int causal = f.bool_arg("is_causal", false) && !sdpa_mask(f) ? 6 : 0;
  // dropout_p > 0: the attention weights go through dropout, one fused kernel (opinfo: p = 0.5, +1).
  const int dropout = sdpa_dropout(f) ? 1 : 0;
  return {(is_half(f.dtype) ? 14 : 9) + (sdpa_mask(f) ? 1 : 0) + copies + causal + dropout, 0, 0, 0};
}

// Fused paths. cuDNN attention (bf16/fp16) zeroes a workspace (1 memset) except for decode
// (one query row, the sm80 kernel). A bool mask becomes an additive float mask first (3 kernels:
// two fills and a where). f32 runs mem-efficient (fmha_cutlassF), no memset; a mask whose last
// dim is not a multiple of 8 is padded (+2 kernels: fill, copy). bf16/fp16 with a float mask
// that is not 4-D: cuDNN declines, mem-efficient runs without a memset (+2 padding as in f32).
bool sdpa_fused(const OpFacts& f) {
  if (!qk_rank4(f) || sdpa_math_4d(f) || sdpa_math_nomask(f) || sdpa_flash_padded(f)) return false;
  // One query row with dropout in bf16/fp16: not measured.
  if (is_half(f.dtype) && sdpa_dropout(f) && f.input(0)->sizes[2] == 1) return false;
  return fp32(f) || is_half(f.dtype);
}
Counts sdpa_fused_counts(const OpFacts& f) {
  const Value* q = f.input(0);
  const Value* m = sdpa_mask(f);
  const bool bool_mask = mask_is_bool(f);
  int kernels = 1 + (bool_mask ? 3 : 0);
  const bool keys_unaligned = sdpa_keys(f) % 8 != 0;
  if (fp32(f)) return {kernels + (m && keys_unaligned ? 2 : 0), 0, 0, 0};
  if (m && !bool_mask && m->sizes.size() != 4) return {kernels + (keys_unaligned ? 2 : 0), 0, 0, 0};
  const bool decode = q->sizes[2] == 1;
  return {kernels + (sdpa_dropout(f) ? 1 : 0), 0, decode ? 0 : 1, 0};
}

// _efficient_attention_forward called directly: the kernel reads the bias (attn_bias_ptr) in place;
// unlike scaled_dot_product_attention's path, nothing pads it first, so an unaligned bias is an
// error in ATen, not a copy.
bool efficient_attention_in_place(const OpFacts& f) {
  const Value* bias = f.tensor_arg("bias");
  if (!bias) return true;
  const Value& b = *bias;
  return !b.sizes.empty() && b.strides.size() == b.sizes.size() && b.strides.back() == 1 && b.sizes.back() % 8 == 0;
}

// nn.MultiheadAttention's fast path (_native_multi_head_attention; native_multi_head_attention_cuda
// in attention.cu): self-attention (query, key and value one tensor) with no mask and no
// weights returned, whose heads a fused kernel takes (select_sdp_backend: flash, mem-efficient
// or cuDNN; the head size a multiple of 8, at most 256), runs linear(query, qkv) -> chunk and
// views -> scaled_dot_product_attention -> views -> linear(out_proj). Any other call takes the
// unfused path (transform_bias_rescale_qkv, bmm, masked softmax, bmm), not measured here.
bool mha_fused(const OpFacts& f) {
  const Arg* q = f.arg("query");
  const Arg* k = f.arg("key");
  const Arg* v = f.arg("value");
  const Value* query = f.input(0);
  const int64_t heads = f.int_arg("num_head", 0), dim = f.int_arg("embed_dim", 0);
  if (!q || !k || !v || q->tensors.empty() || k->tensors.empty() || v->tensors.empty() || !query) return false;
  const bool self = q->tensors[0] == k->tensors[0] && k->tensors[0] == v->tensors[0];
  const bool masked = f.has_tensor_arg("mask");
  if (!self || masked || f.bool_arg("need_weights", true) || query->sizes.size() != 3 || heads <= 0) return false;
  const int64_t head_dim = dim / heads;
  return dim % heads == 0 && head_dim % 8 == 0 && head_dim <= 256 && (fp32(f) || is_half(f.dtype));
}
// The two projections are a GEMM each with the bias in the epilogue, counted as linear's are
// (a split-K shape adds its kernels and memset); attention is sdpa.fused's one kernel, with
// cuDNN's zeroed workspace (1 memset) in bf16/fp16 unless there is one query row.
Counts mha_fused_counts(const OpFacts& f) {
  const std::vector<int64_t>& q = f.input(0)->sizes;  // [B, L, E]
  const bool decode = q[1] == 1;
  const int64_t rows = q[0] * q[1], e = q[2];
  Counts c = linear_launches(*f.target, rows, e, 3 * e, f.dtype);
  c += linear_launches(*f.target, rows, e, e, f.dtype);
  c.kernels += 1;
  c.memset += is_half(f.dtype) && !decode ? 1 : 0;
  return c;
}

}  // namespace

void add_attention_rules(std::vector<LaunchRule>& r) {
  const auto sdpa = ops({"aten::scaled_dot_product_attention"});
  r.push_back(
      rule("sdpa.math.5d")
          .ops(sdpa)
          .when("5-D q/k/v, no mask: the math fallback, f32 11 kernels, bf16/fp16 16, + 1 for a non-contiguous query",
                sdpa_rank5)
          .compute(sdpa_rank5_counts)
          .evidence("broad:nest, broad:twins, broad:hiera")
          .why("The fused attention kernels take 4-D tensors only, so this call runs the math path: scale, matmul, "
               "softmax and matmul as separate kernels."));
  r.push_back(rule("sdpa.math.mask")
                  .ops(sdpa)
                  .when("4-D with a mask, key heads != query heads or a mask whose last dim is not unit-strided "
                        "(expanded stride-0 bool mask, transposed position bias): the math fallback, f32 13 kernels "
                        "with a float mask, 16 with a bool mask; bf16/fp16 + 5",
                        sdpa_math_4d_masked)
                  .compute(sdpa_math_4d_counts)
                  .evidence("sweep:sdpa (expanded bool masks), broad:camembert, broad:xlm-roberta, broad:distilbert, "
                            "broad:falcon, broad:t5 (transposed position bias)")
                  .why("The fused kernels cannot read this mask (a broadcast stride-0 mask or a different head count), "
                       "so attention runs the math path: the mask is converted, then scale, matmul, softmax and matmul "
                       "run as separate kernels."));
  r.push_back(
      rule("sdpa.math.layout")
          .ops(sdpa)
          .when("no mask, with 4-D q/k/v whose last dim is not unit-strided (or, f32, a head dim not a multiple of 4); "
                "or 3-D q/k/v (no mask, or a float mask), or contiguous ranks 3 and 4 mixed (no mask): the math "
                "fallback, f32 9 kernels, bf16/fp16 14, + 1 for the mask's add, + 1 per 4-D operand whose batch and "
                "head dims do not fold into one by a view, + 1 per matmul operand whose batch the other's broadcast "
                "expands, + 6 for "
                "is_causal (the mask built: ones, tril, two fills and a where; then its add), + 1 for dropout",
                [](const OpFacts& f) { return sdpa_math_nomask(f) || sdpa_math_3d_float_mask(f); })
          .compute(sdpa_math_plain_counts)
          .evidence(
              "fresh:lowformer, fresh:iformer (last-dim stride 49/196: f32 9, bf16 14), sweep:sdpa_layout (f32 "
              "head dims 30 and 37: 9, or 12 from a [B, L, H, E] layout), fresh:vision-transformer-sam (3-D with "
              "a float mask: f32 10, bf16 15), opinfo: scaled_dot_product_attention 3-D causal (f32 15, bf16 20; "
              "with dropout_p 0.5: 16, 21); a 3-D query against 4-D keys (OpInfo samples 15 and up, not measured): the "
              "same path, matmul copying the expanded query")
          .why("The fused attention kernels need 4-D tensors whose head dimension is contiguous and aligned; this "
               "call's are not, so attention runs the math path: scaling, two matrix multiplies and a softmax as "
               "separate kernels (in half precision with conversions to float and back)."));
  r.push_back(rule("sdpa.flash.padded")
                  .ops(sdpa)
                  .when("bf16/fp16, 4-D, no mask, head dim not a multiple of 8 (at most 256): q, k and v padded (a "
                        "fill and a copy each) + flash attention = 7 kernels, no memset",
                        sdpa_flash_padded)
                  .counts({7, 0, 0, 0})
                  .evidence("broad:mobilevit (bf16, head dim 20: 7 kernels)")
                  .why("Flash attention reads head dimensions in multiples of 8, so q, k and v are first padded to the "
                       "next multiple (a fill and a copy each) and the result is a view of the unpadded part."));
  r.push_back(
      rule("sdpa.fused")
          .ops(sdpa)
          .when("4-D: bf16/fp16 cuDNN 1 kernel + 1 memset (none for one query row), + 1 (the Philox state "
                "unpacked) with dropout; f32 mem-efficient 1 kernel; + 3 for a bool mask; + 2 padding when a float "
                "mask in f32 (or a non-4-D float mask in "
                "bf16, which cuDNN declines: no memset) has keys not a multiple of 8",
                sdpa_fused)
          .compute(sdpa_fused_counts)
          .evidence("sweep:sdpa (none, causal, bool and float masks of every broadcast shape, S=77/197), "
                    "broad:vit, broad:twins, broad:crossvit, broad:bart, broad:gpt2, broad:maxxvit, broad:beit, "
                    "opinfo_heldout4: scaled_dot_product_attention causal with dropout_p 0.5 (bf16: "
                    "unpack_cudnn + cuDNN, 2 + 1 memset; f32: fmha_cutlassF alone)")
          .why("Attention runs as one fused kernel (cuDNN in bf16, with a zeroed workspace; the "
               "memory-efficient kernel in float32); a boolean mask is first converted to an additive float "
               "mask, and a float32 mask whose key length is not a multiple of 8 is padded first."));
  r.push_back(rule("efficient_attention")
                  .ops({"aten::_efficient_attention_forward"})
                  .when("no bias, or a bias read in place (last dim unit-strided, keys a multiple of 8): one "
                        "CUTLASS memory-efficient attention kernel (a dropout draws its mask inside it, from the "
                        "Philox state)",
                        efficient_attention_in_place)
                  .counts({1, 0, 0, 0})
                  .evidence("opinfo: _efficient_attention_forward (fmha_cutlassF, float32 and bfloat16, 6 of 6), "
                            "opinfo_heldout: with dropout_p 0.5 (the same one kernel); with a bias (OpInfo samples 15 "
                            "and up, not measured): the kernel sdpa.fused measured reading an aligned float mask")
                  .why("The memory-efficient attention op is one fused CUTLASS kernel over [batch, sequence, heads, "
                       "head dim] inputs, dropout included."));
  r.push_back(
      rule("mha.fused")
          .ops({"aten::_native_multi_head_attention"})
          .when("self-attention (query, key, value one tensor), no mask, need_weights=False, head size a multiple of 8 "
                "up to 256, f32/bf16/fp16: QKV GEMM, fused attention, output GEMM, each GEMM counted as linear's with "
                "its bias (split-K shapes add kernels and a memset), + 1 memset in bf16/fp16 (cuDNN's workspace; none "
                "for one query row)",
                mha_fused)
          .compute(mha_fused_counts)
          .evidence(
              "torchscript:vit_b_16 (fp32: 2 cuBLAS GEMMs + fmha_cutlassF; bf16: 2 nvjet GEMMs with bias + cuDNN flash "
              "attention + 1 memset), torchscript_rest:vit_b_32 (f32 output projection split-K: 5 kernels, 1 memset)")
          .why("nn.MultiheadAttention's fast path: the query, key and value projections run as one matrix multiply "
               "with its bias, attention as one fused kernel (cuDNN in bf16, with a zeroed workspace; the "
               "memory-efficient kernel in float32), and the output projection as one more matrix multiply."));
}

}  // namespace kc::torch2_11
