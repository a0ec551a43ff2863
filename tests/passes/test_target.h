// A target for the tests alone (test_target.cc): the default target with one rule changed.
#pragma once

#include "passes/target.h"

namespace kc::test {

// The default target with fp32 inference batch norm as 2 kernels and no measured table; built
// once, on first use.
const Target& torch2_11_test();

}  // namespace kc::test
