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

TEST_CASE("source_loc: an empty trace gives no location") {
  CHECK(kc::user_frame("").file.empty());
}

TEST_CASE("source_loc: the innermost module of nn_module_stack") {
  auto [path, type] = kc::innermost_module(
      "L__self__,,__main__.M;L__self___layers_0,layers.0,models.Block;L__self___layers_0_fc,layers.0.fc,"
      "torch.nn.modules.linear.Linear");
  CHECK(path == "layers.0.fc");
  CHECK(type == "torch.nn.modules.linear.Linear");
  CHECK(kc::innermost_module("L__self__,L['self'].layers[0],M").first == "layers.0");
}

TEST_CASE("source_loc: a file is torch's only under the torch package root") {
  CHECK(kc::is_torch_file("/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/linear.py"));
  CHECK(kc::is_torch_file("/usr/lib/python3/dist-packages/torch/nn/functional.py"));
  CHECK(kc::is_torch_file("torch/nn/modules/linear.py"));
  CHECK(kc::is_torch_file("site-packages/torch/nn/modules/linear.py"));
  CHECK_FALSE(kc::is_torch_file("site-packages/torchvision/models/resnet.py"));
  CHECK_FALSE(kc::is_torch_file("/srv/my-site-packages/torch/model.py"));
  CHECK_FALSE(kc::is_torch_file("/opt/torch/app/model.py"));
  CHECK_FALSE(kc::is_torch_file("/home/me/torch/models.py"));
  CHECK_FALSE(kc::is_torch_file("tests/models/models.py"));
  // The user's line wins over a frame in a folder that merely has "torch" in its path.
  std::string trace =
      "File \"/opt/torch/app/model.py\", line 9, in forward\n    return self.fc(x)\n"
      "  File \"/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/linear.py\", line 134, in forward\n"
      "    return F.linear(input, self.weight, self.bias)";
  CHECK(kc::user_frame(trace).file == "/opt/torch/app/model.py");
}

TEST_CASE("source_loc: a traced op's stack gives the user's innermost frame") {
  kc::SourceLoc loc = kc::traced_user_frame(
      "torch/nn/modules/linear.py(134): forward\ntorch/nn/modules/module.py(1769): _slow_forward\n"
      "/opt/torch/app/blocks.py(12): forward\ntests/models/models.py(70): forward\n"
      "torch/jit/_trace.py(1216): trace_module\n");
  CHECK(loc.file == "/opt/torch/app/blocks.py");
  CHECK(loc.line == 12);
  CHECK(loc.code.empty());
  // Source code (a scripted model's range) is not a stack.
  CHECK(kc::traced_user_frame("x = self.fc(x)\n").file.empty());
  CHECK(kc::traced_user_frame("return f(a, b)").file.empty());
  CHECK(kc::traced_user_frame("torch/nn/functional.py(2935): layer_norm\n").file == "torch/nn/functional.py");
}
