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
    const Counts& m = measured.ops[i].counts;
    const bool match = p.known && p.counts.same_work(m);
    c.match.push_back(match);
    s.matched += match;
    if (p.known)
      s.predicted += p.counts;
    else
      ++s.unknown_predictions;
    s.measured += m;
  }
  if (s.ops > 0) s.match_rate = static_cast<double>(s.matched) / s.ops;
  s.unattributed = measured.unattributed.counts;
  s.measured += s.unattributed;
  s.kernels_error = relative_error(s.predicted.kernels, s.measured.kernels);
  s.memcpy_error = relative_error(s.predicted.memcpy, s.measured.memcpy);
  s.memset_error = relative_error(s.predicted.memset, s.measured.memset);
  return c;
}

}  // namespace kc::validate
