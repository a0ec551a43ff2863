#include "analyzer/torchscript_loader.h"

#include <catch2/catch.hpp>

#include "analyzer/error.h"

using Catch::Matchers::Contains;

namespace {
const std::string kModels = KC_TEST_MODELS;

kc::LoadOptions with_input(const std::string& spec) {
  kc::LoadOptions o;
  o.inputs.push_back(kc::parse_input_spec(spec));
  return o;
}

int count(const kc::Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& o : g.ops) n += o.name == op;
  return n;
}
}  // namespace

TEST_CASE("torchscript: a traced MLP flows shapes from --input") {
  kc::Graph g = kc::load_model(kModels + "/traced_mlp.pt", with_input("32x64:float32"));
  CHECK_FALSE(g.check());
  CHECK(count(g, "aten::linear") == 2);
  const kc::Value& out = g.values[g.outputs[0]];
  CHECK(out.sizes == std::vector<int64_t>{32, 64});
  CHECK(out.dtype == kc::DType::kFloat32);
  // A different batch flows through the same graph.
  kc::Graph g8 = kc::load_model(kModels + "/traced_mlp.pt", with_input("8x64:float32"));
  CHECK(g8.values[g8.outputs[0]].sizes[0] == 8);
}

TEST_CASE("torchscript: loops unroll and known branches are taken") {
  // forward: x.size(0) // 4 multiplies, three Linear layers, relu when the last dim > 32.
  kc::Graph b8 = kc::load_model(kModels + "/scripted_control_flow.pt", with_input("8x64:float32"));
  kc::Graph b16 = kc::load_model(kModels + "/scripted_control_flow.pt", with_input("16x64:float32"));
  CHECK(count(b8, "aten::mul") == 2);
  CHECK(count(b16, "aten::mul") == 4);
  CHECK(count(b8, "aten::linear") == 3);
  CHECK(count(b8, "aten::relu") == 1);
  CHECK(count(b8, "aten::sigmoid") == 0);
  for (const auto& op : b8.ops) CHECK(op.loc.file == "tests/models/models.py");
}

TEST_CASE("torchscript: inputs are required and checked") {
  CHECK_THROWS_WITH(kc::load_model(kModels + "/traced_mlp.pt", {}), Contains("--input"));
  kc::LoadOptions two = with_input("32x64");
  two.inputs.push_back(kc::parse_input_spec("32x64"));
  CHECK_THROWS_WITH(kc::load_model(kModels + "/traced_mlp.pt", two), Contains("takes 1 input"));
  CHECK_THROWS_WITH(kc::load_model(kModels + "/traced_mlp.pt", with_input("32x65:float32")),
                    Contains("meta"));
}

TEST_CASE("input specs parse and reject nonsense") {
  auto s = kc::parse_input_spec("x=8x3x224x224:bf16");
  CHECK(s.name == "x");
  CHECK(s.sizes == std::vector<int64_t>{8, 3, 224, 224});
  CHECK(s.dtype == kc::DType::kBFloat16);
  CHECK_THROWS_AS(kc::parse_input_spec("8xx3"), kc::Error);
  CHECK_THROWS_AS(kc::parse_input_spec("8x3:float33"), kc::Error);
  CHECK_THROWS_WITH(kc::parse_input_spec("4294967296x4294967296x4"), Contains("overflows"));
}

TEST_CASE("torchscript: traced shape arithmetic on a tensor constant runs on the GPU") {
  // x.size(1) // 4 in a trace: NumToTensor (a CPU scalar) floor-divided by a tensor constant,
  // which moves to the GPU with the model; the second size stays on the host.
  kc::Graph g = kc::load_model(kModels + "/traced_shape_arith.pt", with_input("8x32:float32"));
  std::vector<std::string> int_inputs;
  for (const auto& op : g.ops) {
    if (op.name == "aten::floor_divide") CHECK(g.values[op.outputs[0]].device == "cuda");
    if (op.name == "aten::Int") int_inputs.push_back(g.values[op.tensor_inputs()[0]].device);
  }
  CHECK(int_inputs == std::vector<std::string>{"cuda", "cpu", "cpu"});
}
