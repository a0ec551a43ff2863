// Target torch2.11-test: the default target's device, tables and rules with one rule changed and
// no measured table. It exists so the test suite proves that a target owns its data: two
// targets' reports come out of one program and differ exactly where their rules do. Linked into
// the tests alone; the product's targets are the registry's.
#include "tests/passes/test_target.h"

namespace kc::test {

const Target& torch2_11_test() {
  static const Target* t = [] {
    auto* t = new Target(default_target());
    t->name = "torch2.11-test";
    t->description = "test target: the default target's rules with fp32 inference batch norm as 2 kernels";
    for (LaunchRule& r : t->rules)
      if (r.id == "batch_norm.eval.fp32") {
        r.counts = {2, 0, 0, 0};
        r.compute = nullptr;
        r.evidence = "none: a test target";
      }
    t->measured.clear();
    t->measured_source = "none";
    t->index_measured();
    return t;
  }();
  return *t;
}

}  // namespace kc::test
