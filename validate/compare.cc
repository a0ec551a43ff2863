#include "validate/compare.h"

#include "analyzer/error.h"

namespace kc::validate {
namespace {

std::optional<double> relative_error(int predicted, int measured) {
  if (measured == 0) return predicted == 0 ? std::optional<double>(0.0) : std::nullopt;
  return static_cast<double>(predicted - measured) / measured;
}

}  // namespace

Comparison compare(const std::vector<Launch>& predicted, const Measurement& measured) {
  check(predicted.size() == measured.ops.size(), "internal: " + std::to_string(predicted.size()) + " predictions for " +
                                                     std::to_string(measured.ops.size()) + " measured ops");
  Comparison c;
  Summary& s = c.summary;
  s.ops = static_cast<int>(predicted.size());
  for (size_t i = 0; i < predicted.size(); ++i) {
    const Launch& p = predicted[i];
    const MeasuredWork& m = measured.ops[i];
    const bool match = p.known && p.kernels == m.kernels && p.memcpy == m.memcpy && p.memset == m.memset;
    c.match.push_back(match);
    s.matched += match;
    if (p.known) {
      s.predicted.kernels += p.kernels;
      s.predicted.memcpy += p.memcpy;
      s.predicted.memset += p.memset;
    } else {
      ++s.unknown_predictions;
    }
    s.measured.kernels += m.kernels;
    s.measured.memcpy += m.memcpy;
    s.measured.memset += m.memset;
  }
  s.unattributed = {measured.unattributed.kernels, measured.unattributed.memcpy, measured.unattributed.memset};
  s.measured.kernels += s.unattributed.kernels;
  s.measured.memcpy += s.unattributed.memcpy;
  s.measured.memset += s.unattributed.memset;
  s.match_rate = s.ops == 0 ? 1.0 : static_cast<double>(s.matched) / s.ops;
  s.kernels_error = relative_error(s.predicted.kernels, s.measured.kernels);
  s.memcpy_error = relative_error(s.predicted.memcpy, s.measured.memcpy);
  s.memset_error = relative_error(s.predicted.memset, s.measured.memset);
  return c;
}

}  // namespace kc::validate
