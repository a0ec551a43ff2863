// A launch rule written by naming its fields:
//   rule("gemm.grouped").ops({"aten::_grouped_mm"}).when("bf16", is_bf16).counts({2, 0, 0, 0})
//       .evidence("fresh:mixtral").why("...")
// The table takes it as a LaunchRule; that conversion throws std::logic_error naming the rule
// and what it lacks (an id, ops or a class or every_op(), words for its condition, counts or
// compute, evidence, why), so a rule missing a field fails every test that builds a target.
#pragma once

#include <string>
#include <vector>

#include "passes/launch_rules.h"

namespace kc {

class RuleBuilder {
 public:
  explicit RuleBuilder(std::string id);

  RuleBuilder& ops(std::vector<std::string> names);  // full op names ("aten::linear")
  RuleBuilder& cls(OpClass c);                       // every op of the class
  RuleBuilder& every_op();                           // every op, whatever its name or class
  // The condition in words (for --list-rules) and the test it stands for; words alone: always.
  RuleBuilder& when(std::string words, bool (*matches)(const OpFacts&) = nullptr);
  RuleBuilder& counts(Counts c);                       // the same launches for every op it fits
  RuleBuilder& compute(Counts (*fn)(const OpFacts&));  // launches that depend on the shapes
  RuleBuilder& reads_graph();                          // see LaunchRule::reads_graph
  RuleBuilder& evidence(std::string measurement);
  RuleBuilder& why(std::string words);
  // The part of the count the values decide and what the rule counts for it (see
  // LaunchRule::data_dependent); leave it out where the shapes decide everything.
  RuleBuilder& data_dependent(std::string words);

  // The rule, checked: throws std::logic_error "rule <id>: no <field>" when a field is missing,
  // or both counts and compute are given.
  operator LaunchRule() const;

 private:
  LaunchRule r_;
  bool any_op_ = false, has_counts_ = false;
};

inline RuleBuilder rule(std::string id) {
  return RuleBuilder(std::move(id));
}

}  // namespace kc
