// One function per target, each in its own file here; registry.cc lists them.
#pragma once

#include "passes/target.h"

namespace kc {

Target torch2_11_h200();
Target torch2_11_test();

}  // namespace kc
