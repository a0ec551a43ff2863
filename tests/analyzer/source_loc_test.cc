#include "analyzer/source_loc.h"

#include <catch2/catch.hpp>

TEST_CASE("source_loc: the innermost frame outside torch is the user's line") {
  std::string trace =
      "File \"model.py\", line 6, in forward\n    y = self.block(x)\n"
      "  File \"blocks.py\", line 20, in forward\n    return self.fc(x).relu()\n"
      "  File \"/usr/lib/python3/site-packages/torch/nn/modules/linear.py\", line 134, in forward\n"
      "    return F.linear(input, self.weight, self.bias)";
  kc::SourceLoc loc = kc::user_frame(trace);
  CHECK(loc.file == "blocks.py");
  CHECK(loc.line == 20);
  CHECK(loc.code == "return self.fc(x).relu()");
}

TEST_CASE("source_loc: an empty trace gives no location") { CHECK(kc::user_frame("").file.empty()); }

TEST_CASE("source_loc: the innermost module of nn_module_stack") {
  auto [path, type] = kc::innermost_module(
      "L__self__,,__main__.M;L__self___layers_0,layers.0,models.Block;L__self___layers_0_fc,layers.0.fc,"
      "torch.nn.modules.linear.Linear");
  CHECK(path == "layers.0.fc");
  CHECK(type == "torch.nn.modules.linear.Linear");
  CHECK(kc::innermost_module("L__self__,L['self'].layers[0],M").first == "layers.0");
}
