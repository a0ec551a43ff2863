// Target torch2.11-test: the H200's rates and rules with one rule changed and no measured
// table. It exists so the test suite proves that a target owns its data: two targets' reports
// come out of one binary and differ exactly where their rules do.
#include "passes/targets/targets.h"

namespace kc {

Target torch2_11_test() {
  Target t = torch2_11_h200();
  t.name = "torch2.11-test";
  t.description = "test target: the H200's rules with fp32 inference batch norm as 2 kernels";
  t.test_only = true;
  for (LaunchRule& r : t.rules)
    if (r.id == "batch_norm.eval.fp32") {
      r.counts = {2, 0, 0, 0};
      r.compute = nullptr;
      r.evidence = "none: a test target";
    }
  t.measured.clear();
  t.measured_source = "none";
  return t;
}

}  // namespace kc
