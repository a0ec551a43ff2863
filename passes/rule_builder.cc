#include "passes/rule_builder.h"

#include <stdexcept>
#include <utility>

namespace kc {

RuleBuilder::RuleBuilder(std::string id) {
  r_.id = std::move(id);
}

RuleBuilder& RuleBuilder::ops(std::vector<std::string> names) {
  r_.ops = std::move(names);
  return *this;
}
RuleBuilder& RuleBuilder::cls(OpClass c) {
  r_.cls = c;
  return *this;
}
RuleBuilder& RuleBuilder::every_op() {
  any_op_ = true;
  return *this;
}
RuleBuilder& RuleBuilder::when(std::string words, bool (*matches)(const OpFacts&)) {
  r_.when = std::move(words);
  r_.matches = matches;
  return *this;
}
RuleBuilder& RuleBuilder::counts(Counts c) {
  r_.counts = c;
  has_counts_ = true;
  return *this;
}
RuleBuilder& RuleBuilder::compute(Counts (*fn)(const OpFacts&)) {
  r_.compute = fn;
  return *this;
}
RuleBuilder& RuleBuilder::reads_graph() {
  r_.reads_graph = true;
  return *this;
}
RuleBuilder& RuleBuilder::evidence(std::string measurement) {
  r_.evidence = std::move(measurement);
  return *this;
}
RuleBuilder& RuleBuilder::why(std::string words) {
  r_.why = std::move(words);
  return *this;
}
RuleBuilder& RuleBuilder::data_dependent(std::string words) {
  r_.data_dependent = std::move(words);
  return *this;
}

RuleBuilder::operator LaunchRule() const {
  const auto fail = [&](const char* what) { throw std::logic_error("rule " + r_.id + ": " + what); };
  if (r_.id.empty()) fail("no id");
  const int scopes = !r_.ops.empty() + r_.cls.has_value() + any_op_;
  if (scopes == 0) fail("no ops, class or every_op()");
  if (scopes > 1) fail("more than one of ops, class and every_op()");
  if (r_.when.empty()) fail("no words for its condition (when)");
  if (!has_counts_ && !r_.compute) fail("no counts or compute");
  if (has_counts_ && r_.compute) fail("both counts and compute");
  if (r_.evidence.empty()) fail("no evidence");
  if (r_.why.empty()) fail("no why");
  return r_;
}

}  // namespace kc
