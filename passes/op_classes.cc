#include "passes/op_classes.h"

#include <unordered_map>

#include "passes/counts.h"

namespace kc {
namespace {

using C = OpClass;

// Ops whose class libtorch's tags do not give, or give too coarsely.
const std::vector<std::pair<std::string, OpClass>> kTable = {
    {"aten::linear", C::kGemm},
    {"aten::addmm", C::kGemm},
    {"aten::mm", C::kGemm},
    {"aten::matmul", C::kGemm},
    {"aten::bmm", C::kGemm},
    {"aten::baddbmm", C::kGemm},
    {"aten::conv1d", C::kConv},
    {"aten::conv2d", C::kConv},
    {"aten::conv3d", C::kConv},
    {"aten::conv_transpose1d", C::kConv},
    {"aten::conv_transpose2d", C::kConv},
    {"aten::conv_transpose3d", C::kConv},
    {"aten::convolution", C::kConv},
    {"aten::_convolution_mode", C::kConv},
    {"aten::_convolution", C::kConv},
    {"aten::cudnn_convolution", C::kConv},
    {"aten::scaled_dot_product_attention", C::kAttention},
    {"aten::_efficient_attention_forward", C::kAttention},
    {"aten::nonzero_static", C::kIndex},
    {"aten::index_reduce", C::kIndex},
    {"aten::_unsafe_masked_index_put_accumulate", C::kIndex},
    {"aten::_unsafe_masked_index", C::kIndex},
    {"aten::isin", C::kReduction},
    {"aten::inner", C::kGemm},
    {"aten::msort", C::kIndex},
    {"aten::multinomial", C::kFactory},
    {"aten::sum", C::kReduction},
    {"aten::prod", C::kReduction},
    {"aten::gradient", C::kScan},
    {"aten::conj_physical", C::kPointwise},
    {"aten::segment_reduce", C::kReduction},
    {"aten::unique_consecutive", C::kIndex},
    {"aten::block_diag", C::kIndex},
    {"aten::cartesian_prod", C::kIndex},
    {"aten::max_pool2d_with_indices_backward", C::kPool},
    {"aten::_native_multi_head_attention", C::kAttention},
    {"aten::batch_norm", C::kNorm},
    {"aten::_native_batch_norm_legit_no_training", C::kNorm},
    {"aten::cudnn_batch_norm", C::kNorm},
    {"aten::_native_batch_norm_legit", C::kNorm},
    {"aten::_batch_norm_with_update", C::kNorm},
    {"aten::layer_norm", C::kNorm},
    {"aten::native_layer_norm", C::kNorm},
    {"aten::group_norm", C::kNorm},
    {"aten::native_group_norm", C::kNorm},
    {"aten::clone", C::kCopy},
    {"aten::lift_fresh_copy", C::kCopy},
    {"aten::contiguous", C::kCopy},
    {"aten::reshape", C::kCopy},
    {"aten::flatten", C::kCopy},
    {"aten::view_as", C::kCopy},
    {"aten::reshape_as", C::kCopy},
    {"aten::unflatten", C::kCopy},
    {"aten::to", C::kCopy},
    {"aten::_to_copy", C::kCopy},
    {"aten::type_as", C::kCopy},
    {"aten::cpu", C::kCopy},
    {"aten::softmax", C::kReduction},
    {"aten::_softmax", C::kReduction},
    {"aten::log_softmax", C::kReduction},
    {"aten::_log_softmax", C::kReduction},
    {"aten::cross_entropy_loss", C::kReduction},
    {"aten::cumsum", C::kScan},
    {"aten::diff", C::kScan},
    {"aten::index", C::kIndex},
    {"aten::embedding", C::kIndex},
    {"aten::index_select", C::kIndex},
    {"aten::gather", C::kIndex},
    {"aten::cat", C::kIndex},
    {"aten::concat", C::kIndex},
    {"aten::concatenate", C::kIndex},
    {"aten::stack", C::kIndex},
    {"aten::pad", C::kIndex},
    {"aten::constant_pad_nd", C::kIndex},
    {"aten::roll", C::kIndex},
    {"aten::topk", C::kIndex},
    {"aten::max_pool2d", C::kPool},
    {"aten::avg_pool2d", C::kPool},
    {"aten::adaptive_avg_pool2d", C::kPool},
    {"aten::upsample_nearest2d", C::kPool},
    // Elementwise ops libtorch does not tag pointwise.
    {"aten::hardswish", C::kPointwise},
    {"aten::hardswish_", C::kPointwise},
    {"aten::hardsigmoid", C::kPointwise},
    {"aten::hardsigmoid_", C::kPointwise},
    {"aten::__and__", C::kPointwise},
    {"aten::__or__", C::kPointwise},
    {"aten::__xor__", C::kPointwise},
    {"aten::floor_divide", C::kPointwise},
    {"aten::masked_fill", C::kPointwise},
    {"aten::dropout", C::kPointwise},
    {"aten::dropout_", C::kPointwise},
    {"aten::feature_dropout", C::kPointwise},
    {"aten::alpha_dropout", C::kPointwise},
    {"aten::special_ndtr", C::kPointwise},
    {"aten::complex", C::kPointwise},
    {"aten::polar", C::kPointwise},
    {"aten::native_dropout", C::kPointwise},
    {"aten::fill_", C::kPointwise},
    {"aten::zero_", C::kPointwise},
    {"aten::empty", C::kFactory},
    {"aten::empty_like", C::kFactory},
    {"aten::empty_strided", C::kFactory},
    {"aten::new_empty", C::kFactory},
    {"aten::zeros", C::kFactory},
    {"aten::ones", C::kFactory},
    {"aten::full", C::kFactory},
    {"aten::zeros_like", C::kFactory},
    {"aten::ones_like", C::kFactory},
    {"aten::full_like", C::kFactory},
    {"aten::new_zeros", C::kFactory},
    {"aten::new_ones", C::kFactory},
    {"aten::new_full", C::kFactory},
    {"aten::scalar_tensor", C::kFactory},
    {"aten::arange", C::kFactory},
    {"aten::randn", C::kFactory},
    {"aten::item", C::kHostRead},
    {"aten::_local_scalar_dense", C::kHostRead},
    {"aten::is_nonzero", C::kHostRead},
    {"aten::divide", C::kPointwise},  // aliases libtorch does not tag
    {"aten::subtract", C::kPointwise},
    {"aten::true_divide", C::kPointwise},
    {"aten::rsub", C::kPointwise},
    {"aten::broadcast_tensors", C::kView},
    {"aten::atleast_1d", C::kView},
    {"aten::atleast_2d", C::kView},
    {"aten::atleast_3d", C::kView},
    {"aten::unsafe_chunk", C::kView},
    {"aten::unsafe_split", C::kView},
    {"aten::mvlgamma", C::kPointwise},
    {"aten::ldexp", C::kPointwise},
    {"aten::float_power", C::kPointwise},
    {"aten::_reshape_copy", C::kCopy},  // a view, then its clone
    {"aten::alias_copy", C::kCopy},
    {"aten::as_strided_copy", C::kCopy},
    {"aten::diagonal_copy", C::kCopy},
    {"aten::expand_copy", C::kCopy},
    {"aten::narrow_copy", C::kCopy},
    {"aten::permute_copy", C::kCopy},
    {"aten::select_copy", C::kCopy},
    {"aten::slice_copy", C::kCopy},
    {"aten::split_copy", C::kCopy},
    {"aten::split_with_sizes_copy", C::kCopy},
    {"aten::squeeze_copy", C::kCopy},
    {"aten::t_copy", C::kCopy},
    {"aten::transpose_copy", C::kCopy},
    {"aten::unbind_copy", C::kCopy},
    {"aten::unfold_copy", C::kCopy},
    {"aten::unsqueeze_copy", C::kCopy},
    {"aten::view_copy", C::kCopy},
    {"aten::binary_cross_entropy", C::kReduction},  // losses: elementwise, then a reduction
    {"aten::binary_cross_entropy_with_logits", C::kReduction},
    {"aten::cosine_embedding_loss", C::kReduction},
    {"aten::hinge_embedding_loss", C::kReduction},
    {"aten::huber_loss", C::kReduction},
    {"aten::kl_div", C::kReduction},
    {"aten::l1_loss", C::kReduction},
    {"aten::margin_ranking_loss", C::kReduction},
    {"aten::mse_loss", C::kReduction},
    {"aten::multi_margin_loss", C::kReduction},
    {"aten::multilabel_margin_loss", C::kReduction},
    {"aten::nll_loss", C::kReduction},
    {"aten::nll_loss_nd", C::kReduction},
    {"aten::nll_loss2d", C::kReduction},
    {"aten::poisson_nll_loss", C::kReduction},
    {"aten::smooth_l1_loss", C::kReduction},
    {"aten::soft_margin_loss", C::kReduction},
    {"aten::triplet_margin_loss", C::kReduction},
    {"aten::empty_permuted", C::kFactory},
    {"aten::new_empty_strided", C::kFactory},
    {"aten::resize_", C::kMetadata},
    {"aten::resize_as_", C::kMetadata},
    {"aten::feature_alpha_dropout", C::kPointwise},
    {"aten::unsafe_split_with_sizes", C::kView},  // `if tensor:` (cond's and while_loop's predicates)
    {"aten::Int", C::kHostRead},
    {"aten::Float", C::kHostRead},
    {"aten::Bool", C::kHostRead},
    {"aten::ScalarImplicit", C::kHostRead},
    {"aten::detach", C::kView},
    {"aten::alias", C::kView},
    {"aten::lift_fresh", C::kView},
    {"aten::size", C::kMetadata},
    {"aten::sym_size", C::kMetadata},
    {"aten::_shape_as_tensor", C::kMetadata},
    {"aten::dim", C::kMetadata},
    {"aten::numel", C::kMetadata},
    {"aten::stride", C::kMetadata},
    {"aten::sym_numel", C::kMetadata},
    {"aten::sym_stride", C::kMetadata},
    {"aten::is_contiguous", C::kMetadata},
    {"aten::_assert_tensor_metadata", C::kMetadata},
    // GEMM family (passes/torch2_11/gemm.cc).
    {"aten::einsum", C::kGemm},
    {"aten::tensordot", C::kGemm},
    {"aten::_grouped_mm", C::kGemm},
    {"transformers::grouped_mm_fallback", C::kGemm},  // a custom op: one cuBLAS mm per expert
    {"aten::meshgrid", C::kView},
    // norm family (passes/torch2_11/norm.cc)
    {"aten::instance_norm", C::kNorm},
    {"aten::rms_norm", C::kNorm},
    {"aten::native_batch_norm", C::kNorm},
    // convolutions family (passes/torch2_11/conv.cc): 1-d and 3-d pools.
    {"aten::max_pool3d", C::kPool},
    {"aten::avg_pool3d", C::kPool},
    {"aten::adaptive_avg_pool3d", C::kPool},
    {"aten::avg_pool1d", C::kPool},
    {"aten::adaptive_avg_pool1d", C::kPool},
    // Misc family (passes/torch2_11/rnn.cc and the remaining ops): recurrent layers are a
    // GEMM per step and layer.
    {"aten::lstm", C::kGemm},
    {"aten::gru", C::kGemm},
    {"aten::rnn_tanh", C::kGemm},
    {"aten::rnn_relu", C::kGemm},
    {"aten::copy_", C::kCopy},
    {"aten::repeat", C::kCopy},
    {"aten::repeat_interleave", C::kCopy},
    {"aten::detach_", C::kView},
    {"aten::where", C::kPointwise},
    {"aten::leaky_relu", C::kPointwise},
    {"aten::rrelu", C::kPointwise},
    {"aten::leaky_relu_", C::kPointwise},
    {"aten::multiply", C::kPointwise},
    {"aten::pow", C::kPointwise},
    {"aten::_weight_norm", C::kNorm},
    {"aten::im2col", C::kIndex},
    {"aten::col2im", C::kIndex},
    {"aten::grid_sampler", C::kIndex},
    {"aten::grid_sampler_2d", C::kIndex},
    {"aten::upsample_nearest1d", C::kPool},
    {"aten::upsample_nearest3d", C::kPool},
    {"aten::_upsample_nearest_exact2d", C::kPool},
    {"aten::upsample_linear1d", C::kPool},
    {"aten::upsample_bilinear2d", C::kPool},
    {"aten::upsample_bicubic2d", C::kPool},
    {"aten::upsample_trilinear3d", C::kPool},
    {"aten::cumprod", C::kScan},
    {"aten::cummax", C::kScan},
    {"aten::logcumsumexp", C::kScan},
    // Selections, scatters and data-dependent sizes (passes/torch2_11/selection.cc).
    {"aten::sort", C::kIndex},
    // torchvision's detection ops (no LibTorch schema; loaded from their recorded arguments)
    {"torchvision::nms", C::kIndex},
    {"torchvision::roi_align", C::kPool},
    {"torchvision::roi_pool", C::kPool},
    {"torchvision::ps_roi_align", C::kPool},
    {"torchvision::ps_roi_pool", C::kPool},
    {"torchvision::_cuda_version", C::kMetadata},
    {"aten::argsort", C::kIndex},
    {"aten::kthvalue", C::kReduction},
    {"aten::median", C::kReduction},
    {"aten::mode", C::kReduction},
    {"aten::nonzero", C::kIndex},
    {"aten::to_sparse", C::kIndex},
    {"aten::combinations", C::kIndex},
    {"aten::masked_select", C::kIndex},
    {"aten::_unique2", C::kIndex},
    {"aten::unique_dim", C::kIndex},
    {"aten::_unique", C::kIndex},
    {"aten::bincount", C::kReduction},
    {"aten::histc", C::kReduction},
    {"aten::searchsorted", C::kIndex},
    {"aten::bucketize", C::kIndex},
    {"aten::randperm", C::kFactory},
    {"aten::scatter", C::kIndex},
    {"aten::scatter_add", C::kIndex},
    {"aten::scatter_reduce", C::kIndex},
    {"aten::index_add", C::kIndex},
    {"aten::index_copy", C::kIndex},
    {"aten::index_fill", C::kIndex},
    {"aten::index_put", C::kIndex},
    {"aten::index_put_", C::kIndex},
    {"aten::scatter_", C::kIndex},
    {"aten::scatter_add_", C::kIndex},
    {"aten::index_add_", C::kIndex},
    {"aten::index_copy_", C::kIndex},
    {"aten::index_fill_", C::kIndex},
    {"aten::select_scatter", C::kIndex},
    {"aten::slice_scatter", C::kIndex},
    {"aten::masked_scatter", C::kIndex},
    {"aten::take_along_dim", C::kIndex},
    {"aten::one_hot", C::kIndex},
    {"aten::embedding_bag", C::kIndex},
    {"aten::_embedding_bag", C::kIndex},
    {"aten::embedding_renorm_", C::kIndex},
    // Composites and untagged elementwise ops (passes/torch2_11/composites.cc); an FFT is
    // classed with the scans: a pass over whole rows whose every output reads every input.
    {"aten::logsumexp", C::kReduction},
    {"aten::isinf", C::kPointwise},
    {"aten::isfinite", C::kPointwise},
    {"aten::count_nonzero", C::kReduction},
    {"aten::cosine_similarity", C::kReduction},
    {"aten::cdist", C::kGemm},
    {"aten::_cdist_forward", C::kGemm},
    {"aten::pdist", C::kReduction},
    {"aten::_pdist_forward", C::kReduction},
    {"aten::affine_grid_generator", C::kGemm},
    {"aten::bilinear", C::kGemm},
    {"aten::diag_embed", C::kCopy},
    {"aten::eye", C::kFactory},
    {"aten::outer", C::kPointwise},
    {"aten::kron", C::kPointwise},
    {"aten::glu", C::kPointwise},
    {"aten::log_sigmoid", C::kPointwise},
    {"aten::prelu", C::kPointwise},
    {"aten::flip", C::kCopy},
    {"aten::fliplr", C::kCopy},
    {"aten::flipud", C::kCopy},
    {"aten::tril", C::kCopy},
    {"aten::triu", C::kCopy},
    {"aten::pixel_shuffle", C::kCopy},
    {"aten::pixel_unshuffle", C::kCopy},
    {"aten::channel_shuffle", C::kCopy},
    {"aten::tile", C::kCopy},
    {"aten::linspace", C::kFactory},
    {"aten::rand_like", C::kFactory},
    {"aten::randn_like", C::kFactory},
    {"aten::bernoulli", C::kFactory},
    {"aten::max_pool1d", C::kPool},
    {"aten::max_pool2d_with_indices", C::kPool},
    {"aten::adaptive_max_pool2d", C::kPool},
    {"aten::_upsample_bilinear2d_aa", C::kPool},
    {"aten::_upsample_bicubic2d_aa", C::kPool},
    {"aten::fft_rfft", C::kScan},
    {"aten::fft_irfft", C::kScan},
    {"aten::fft_fft2", C::kScan},
    {"aten::fft_fft", C::kScan},
    {"aten::fft_ifft", C::kScan},
    {"aten::fft_ihfft", C::kScan},
    {"aten::fft_ifft2", C::kScan},
    {"aten::fft_rfft2", C::kScan},
    {"aten::fft_fftn", C::kScan},
    {"aten::fft_ifftn", C::kScan},
    {"aten::fft_rfftn", C::kScan},
    {"aten::fft_irfft2", C::kScan},
    {"aten::fft_irfftn", C::kScan},
    {"aten::fft_hfft", C::kScan},
    {"aten::fft_hfft2", C::kScan},
    {"aten::fft_hfftn", C::kScan},
    {"aten::fft_ihfft2", C::kScan},
    {"aten::fft_ihfftn", C::kScan},
    {"aten::linalg_solve_triangular", C::kGemm},
    {"aten::linalg_qr", C::kLinalg},
    {"aten::qr", C::kLinalg},
    {"aten::geqrf", C::kLinalg},
    {"aten::linalg_householder_product", C::kLinalg},
    {"aten::ormqr", C::kLinalg},
    {"aten::linalg_cholesky_ex", C::kLinalg},
    {"aten::linalg_cholesky", C::kLinalg},
    {"aten::cholesky", C::kLinalg},
    {"aten::cholesky_inverse", C::kLinalg},
    {"aten::cholesky_solve", C::kLinalg},
    {"aten::linalg_lu_factor_ex", C::kLinalg},
    {"aten::_lu_with_info", C::kLinalg},
    {"aten::linalg_lu_factor", C::kLinalg},
    {"aten::lu_unpack", C::kLinalg},
    {"aten::linalg_lu", C::kLinalg},
    {"aten::linalg_lu_solve", C::kLinalg},
    {"aten::lu_solve", C::kLinalg},
    {"aten::linalg_solve_ex", C::kLinalg},
    {"aten::linalg_solve", C::kLinalg},
    {"aten::linalg_tensorsolve", C::kLinalg},
    {"aten::linalg_inv_ex", C::kLinalg},
    {"aten::linalg_inv", C::kLinalg},
    {"aten::linalg_tensorinv", C::kLinalg},
    {"aten::linalg_det", C::kLinalg},
    {"aten::linalg_slogdet", C::kLinalg},
    {"aten::logdet", C::kLinalg},
    {"aten::triangular_solve", C::kLinalg},
    {"aten::linalg_svdvals", C::kLinalg},
    {"aten::linalg_svd", C::kLinalg},
    {"aten::svd", C::kLinalg},
    {"aten::linalg_cond", C::kLinalg},
    {"aten::linalg_pinv", C::kLinalg},
    {"aten::pinverse", C::kLinalg},
    {"aten::linalg_matrix_rank", C::kLinalg},
    {"aten::linalg_eigh", C::kLinalg},
    {"aten::linalg_eigvalsh", C::kLinalg},
    {"aten::linalg_eig", C::kLinalg},
    {"aten::linalg_eigvals", C::kLinalg},
    {"aten::linalg_ldl_factor", C::kLinalg},
    {"aten::linalg_ldl_factor_ex", C::kLinalg},
    {"aten::linalg_ldl_solve", C::kLinalg},
    {"aten::matrix_exp", C::kLinalg},
    {"aten::linalg_matrix_power", C::kGemm},
    {"aten::linalg_multi_dot", C::kGemm},
    {"aten::linalg_vecdot", C::kGemm},
    {"aten::linalg_matrix_norm", C::kReduction},
    {"aten::linalg_vander", C::kScan},
    {"aten::dot", C::kGemm},
    {"aten::vdot", C::kGemm},
    {"aten::mv", C::kGemm},
    {"aten::addmv", C::kGemm},
    {"aten::addbmm", C::kGemm},
    {"aten::gru_cell", C::kGemm},
    {"aten::lstm_cell", C::kGemm},
    {"aten::rnn_tanh_cell", C::kGemm},
    {"aten::abs", C::kPointwise},
    {"aten::linalg_cross", C::kPointwise},
    {"aten::cross", C::kPointwise},
    {"aten::linalg_norm", C::kReduction},
    {"aten::renorm", C::kReduction},
    {"aten::stft", C::kScan},
    {"aten::triu_indices", C::kFactory},
    {"aten::tril_indices", C::kFactory},
    {"aten::argwhere", C::kIndex},
    {"aten::nonzero_numpy", C::kIndex},
    {"aten::rand", C::kFactory},
    {"aten::cauchy_", C::kFactory},
    {"aten::exponential_", C::kFactory},
    {"aten::geometric_", C::kFactory},
    {"aten::log_normal_", C::kFactory},
    {"aten::normal_", C::kFactory},
    {"aten::uniform_", C::kFactory},
    {"aten::normal", C::kFactory},
    {"aten::randint", C::kFactory},
    {"aten::randint_like", C::kFactory},
    {"aten::logspace", C::kFactory},
    {"aten::fill", C::kFactory},
    {"aten::addr", C::kPointwise},
    {"aten::chalf", C::kCopy},
    {"aten::isreal", C::kPointwise},
    {"aten::special_polygamma", C::kPointwise},
    {"aten::cummin", C::kScan},
    {"aten::nanmedian", C::kReduction},
    {"aten::max_pool1d_with_indices", C::kPool},
    {"aten::max_pool3d_with_indices", C::kPool},
    {"aten::adaptive_max_pool1d", C::kPool},
    {"aten::adaptive_max_pool3d", C::kPool},
    {"aten::fractional_max_pool2d", C::kPool},
    {"aten::fractional_max_pool3d", C::kPool},
    {"aten::max_unpool2d", C::kPool},
    {"aten::max_unpool3d", C::kPool},
    {"aten::_upsample_nearest_exact1d", C::kPool},
    {"aten::_upsample_nearest_exact3d", C::kPool},
    {"aten::grid_sampler_3d", C::kIndex},
    {"aten::hstack", C::kIndex},
    {"aten::vstack", C::kIndex},
    {"aten::dstack", C::kIndex},
    {"aten::column_stack", C::kIndex},
    {"aten::row_stack", C::kIndex},
    {"aten::rot90", C::kCopy},
    {"aten::diag", C::kCopy},
    {"aten::diagflat", C::kCopy},
    {"aten::fft_fftshift", C::kIndex},
    {"aten::fft_ifftshift", C::kIndex},
    {"aten::take", C::kIndex},
    {"aten::put", C::kIndex},
    {"aten::dist", C::kReduction},
    {"aten::all", C::kReduction},
    {"aten::any", C::kReduction},
    {"aten::pairwise_distance", C::kReduction},
    {"aten::isclose", C::kPointwise},
    {"aten::nanmean", C::kReduction},
    {"aten::trapezoid", C::kReduction},
    {"aten::trapz", C::kReduction},
    {"aten::sum_to_size", C::kReduction},
    {"aten::trace", C::kReduction},
    {"aten::_safe_softmax", C::kReduction},
    {"aten::cumulative_trapezoid", C::kScan},
    {"aten::_softmax_backward_data", C::kReduction},
    {"aten::_chunk_cat", C::kIndex},
    {"aten::diagonal_scatter", C::kCopy},
    {"aten::as_strided_scatter", C::kCopy},
};

const std::unordered_map<std::string, OpClass>& index() {
  static const auto* m = [] {
    auto* out = new std::unordered_map<std::string, OpClass>();
    for (const auto& [name, cls] : kTable) out->emplace(name, cls);
    return out;
  }();
  return *m;
}

int64_t product(const std::vector<int64_t>& v, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < v.size() && i < to; ++i) n = mul_checked(n, v[i], "FLOPs");
  return n;
}
int64_t mul(std::initializer_list<int64_t> factors) {
  int64_t n = 1;
  for (int64_t f : factors) n = mul_checked(n, f, "FLOPs");
  return n;
}

}  // namespace

const char* op_class_name(OpClass c) {
  switch (c) {
    case C::kGemm:
      return "gemm";
    case C::kConv:
      return "conv";
    case C::kAttention:
      return "attention";
    case C::kNorm:
      return "norm";
    case C::kCopy:
      return "copy";
    case C::kPointwise:
      return "pointwise";
    case C::kReduction:
      return "reduction";
    case C::kScan:
      return "scan";
    case C::kIndex:
      return "index";
    case C::kPool:
      return "pool";
    case C::kFactory:
      return "factory";
    case C::kHostRead:
      return "host_read";
    case C::kView:
      return "view";
    case C::kMetadata:
      return "metadata";
    case C::kLinalg:
      return "linalg";
    case C::kOther:
      return "other";
  }
  return "other";
}

OpClass op_class(const Op& op) {
  auto it = index().find(op.name);
  if (it != index().end()) return it->second;
  if (op.traits.view) return C::kView;
  if (op.traits.pointwise) return C::kPointwise;
  if (op.traits.reduction) return C::kReduction;
  return C::kOther;
}

const std::vector<std::pair<std::string, OpClass>>& op_class_table() {
  return kTable;
}

bool batch_norm_inference(const Op& op) {
  if (op.name == "aten::_native_batch_norm_legit_no_training") return true;
  if (op.name != "aten::batch_norm" && op.name != "aten::cudnn_batch_norm") return false;
  for (const Arg& a : op.args)
    if (a.name == "training") return a.kind == Arg::Kind::kBool && a.ints[0] == 0;
  return false;
}

bool on_matrix_units(OpClass c) {
  return c == C::kGemm || c == C::kConv || c == C::kAttention;
}

int64_t op_flops(const Graph& g, const Op& op) {
  const std::vector<int> ins = op.tensor_inputs();
  auto in = [&](size_t i) -> const Value* { return i < ins.size() ? &g.values[ins[i]] : nullptr; };
  const Value* out = nullptr;
  for (int v : op.outputs)
    if (v >= 0) {
      out = &g.values[v];
      break;
    }
  if (!out) return 0;
  switch (op_class(op)) {
    case C::kGemm: {
      // K is the contracted dim of the left operand (addmm/baddbmm: after the added tensor).
      const bool added = op.name == "aten::addmm" || op.name == "aten::baddbmm" || op.name == "aten::addmv";
      const Value* left = in(added ? 1 : 0);
      if (!left || left->sizes.empty()) break;
      return mul({2, out->numel(), left->sizes.back()});
    }
    case C::kConv: {
      // Each output element is a dot product over Cin/groups * kernel elements; a transposed
      // convolution scatters each input element over Cout/groups * kernel outputs instead.
      const Value* x = in(0);
      const Value* w = in(1);
      if (!x || !w || w->sizes.size() < 3) break;
      bool transposed = op.name.find("conv_transpose") != std::string::npos;
      for (const Arg& a : op.args)
        if (a.name == "transposed" && a.kind == Arg::Kind::kBool) transposed = a.ints[0] != 0;
      return mul({2, transposed ? x->numel() : out->numel(), product(w->sizes, 1, SIZE_MAX)});
    }
    case C::kAttention: {
      const Value* q = in(0);
      const Value* k = in(1);
      if (!q || !k || q->sizes.size() < 2 || k->sizes.size() < 2) break;
      const auto& qs = q->sizes;
      // _efficient_attention_forward takes [B, L, heads, D]; the others [..., L, D].
      const bool bmhk = op.name == "aten::_efficient_attention_forward" && qs.size() == 4 && k->sizes.size() == 4;
      const int64_t l = bmhk ? qs[1] : qs[qs.size() - 2], d = qs.back();
      const int64_t s = bmhk ? k->sizes[1] : k->sizes[k->sizes.size() - 2];
      const int64_t batch = bmhk ? mul({qs[0], qs[2]}) : product(qs, 0, qs.size() - 2);
      const int64_t attention = mul({4, batch, l, s, d});
      if (op.name != "aten::_native_multi_head_attention") return attention;
      // [B, T, D] in, heads summed into D; + the query and output projections (T x D x D each)
      // and the key and value ones (S x D x D each).
      const int64_t b = product(qs, 0, qs.size() - 2);
      return add_checked(add_checked(attention, mul({4, b, l, d, d}), "FLOPs"), mul({4, b, s, d, d}), "FLOPs");
    }
    default:
      break;
  }
  return out->numel();
}

}  // namespace kc
