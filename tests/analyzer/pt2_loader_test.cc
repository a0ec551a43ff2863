#include "analyzer/pt2_loader.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "analyzer/error.h"
#include "analyzer/load.h"
#include "analyzer/zip_archive.h"
#include "tests/analyzer/graph_fingerprint.h"

using Catch::Matchers::Contains;

namespace {
const std::string kModels = KC_TEST_MODELS;

nlohmann::json model_json(const std::string& file) {
  return nlohmann::json::parse(kc::ZipArchive(kModels + "/" + file).read_record("models/model.json", 1 << 30));
}
}  // namespace

TEST_CASE("pt2: add.pt2 is one aten::add over two inputs") {
  kc::Graph g = kc::load_model(kModels + "/add.pt2", {});
  REQUIRE(g.ops.size() == 1);
  CHECK(g.ops[0].full_name() == "aten::add.Tensor");
  CHECK(g.ops[0].traits.pointwise);
  CHECK(g.inputs.size() == 2);
  const kc::Value& out = g.values[g.ops[0].outputs[0]];
  CHECK(out.sizes == std::vector<int64_t>{256, 1024});
  CHECK(out.strides == std::vector<int64_t>{1024, 1});
  CHECK(out.dtype == kc::DType::kFloat32);
  CHECK(g.ops[0].loc.file == "tests/models/models.py");
  CHECK(g.ops[0].loc.line > 0);
}

TEST_CASE("pt2: weights, modules and views of the transformer block") {
  kc::Graph g = kc::load_model(kModels + "/transformer_block.pt2", {});
  CHECK_FALSE(g.check());
  int params = 0, views = 0;
  for (const auto& v : g.values) params += v.role == kc::ValueRole::kParameter;
  for (const auto& op : g.ops) views += op.traits.view;
  CHECK(params > 4);
  CHECK(views > 0);
  bool attention = false;
  for (const auto& op : g.ops) attention |= op.name == "aten::scaled_dot_product_attention";
  CHECK(attention);
  bool qkv = false;
  for (const auto& op : g.ops) qkv |= op.module == "qkv" && op.name == "aten::linear";
  CHECK(qkv);
}

TEST_CASE("pt2: symbolic sizes take their hint, or --dim") {
  kc::Graph hinted = kc::load_model(kModels + "/dynamic_batch.pt2", {});
  REQUIRE_FALSE(hinted.info.notes.empty());
  std::string sym = hinted.info.notes[0].substr(7, hinted.info.notes[0].find(' ', 7) - 7);
  kc::LoadOptions opt;
  opt.dims[sym] = 64;
  kc::Graph set = kc::load_model(kModels + "/dynamic_batch.pt2", opt);
  CHECK(set.values[set.inputs[0]].sizes[0] == 64);
  CHECK(hinted.values[hinted.inputs[0]].sizes[0] != 64);
  opt.dims = {{"no_such_symbol", 3}};
  CHECK_THROWS_WITH(kc::load_model(kModels + "/dynamic_batch.pt2", opt), Contains("no symbol of that name"));
}

TEST_CASE("pt2: a wrong-typed field names the node") {
  auto j = model_json("add.pt2");
  j["graph_module"]["graph"]["nodes"][0]["target"] = 7;
  CHECK_THROWS_WITH(kc::load_pt2_json(j.dump(), "x", {}), Contains("target") && Contains("expected a string"));
}

TEST_CASE("pt2: parameters keep the requires_grad they were exported with; nothing else requires grad") {
  auto j = model_json("mlp.pt2");
  kc::Graph g = kc::load_pt2_json(j.dump(), "x", {});
  int params = 0;
  for (const auto& v : g.values) {
    if (v.role == kc::ValueRole::kParameter) {
      ++params;
      CHECK(v.requires_grad);  // exported as nn.Parameters with requires_grad=True
    } else if (v.producer >= 0 || v.role == kc::ValueRole::kInput) {
      CHECK_FALSE(v.requires_grad);
    }
  }
  CHECK(params > 0);
  // A frozen model (requires_grad_(False) before export) records False.
  for (auto& [name, meta] : j["graph_module"]["graph"]["tensor_values"].items()) meta["requires_grad"] = false;
  kc::Graph frozen = kc::load_pt2_json(j.dump(), "x", {});
  for (const auto& v : frozen.values) CHECK_FALSE(v.requires_grad);
}

TEST_CASE("pt2: an op libtorch does not know loads from its recorded outputs, with a note") {
  auto j = model_json("add.pt2");
  j["graph_module"]["graph"]["nodes"][0]["target"] = "torch.ops.mylib.no_such_op.default";
  kc::Graph g = kc::load_pt2_json(j.dump(), "x", {});
  REQUIRE(g.ops.size() == 1);
  CHECK(g.ops[0].full_name() == "mylib::no_such_op");
  CHECK(g.ops[0].args.size() == 2);  // the node's own arguments, by name
  CHECK_FALSE(g.ops[0].traits.view);
  CHECK_FALSE(g.ops[0].traits.pointwise);
  REQUIRE(g.ops[0].outputs.size() == 1);
  CHECK(g.values[g.ops[0].outputs[0]].sizes == std::vector<int64_t>{256, 1024});
  REQUIRE_FALSE(g.info.notes.empty());
  CHECK_THAT(g.info.notes.back(), Contains("does not know") && Contains("mylib::no_such_op"));
  // An aten op this LibTorch lacks is another release's: refused by name.
  j["graph_module"]["graph"]["nodes"][0]["target"] = "torch.ops.aten.no_such_op.default";
  CHECK_THROWS_WITH(kc::load_pt2_json(j.dump(), "x", {}), Contains("unknown op aten::no_such_op"));
  // Known ops add no such note.
  kc::Graph known = kc::load_pt2_json(model_json("add.pt2").dump(), "x", {});
  for (const auto& n : known.info.notes) CHECK_THAT(n, !Contains("does not know"));
}

TEST_CASE("pt2: torchvision's ops load, and the rest of the model is counted") {
  kc::Graph g = kc::load_model(kModels + "/detection_head.pt2", {});
  std::vector<std::string> names;
  for (const auto& op : g.ops) names.push_back(op.full_name());
  CHECK(std::count(names.begin(), names.end(), "torchvision::nms") == 1);
  CHECK(std::count(names.begin(), names.end(), "torchvision::roi_align") == 1);
  CHECK(std::count(names.begin(), names.end(), "aten::conv2d") == 1);
}

TEST_CASE("pt2: nms keeps every box it is given, unless --dim says how many") {
  // torchvision's fake nms gives its kept count no upper bound: the export records [2, inf].
  auto kept_of = [](const kc::Graph& g) {
    for (const auto& op : g.ops)
      if (op.full_name() == "torchvision::nms") return g.values[op.outputs.at(0)].sizes.at(0);
    return int64_t{-1};
  };
  auto j = model_json("detection_head.pt2");
  kc::Graph g = kc::load_pt2_json(j.dump(), "x", {});
  CHECK(kept_of(g) == 100);  // the boxes it was given
  CHECK_THAT(g.info.notes.at(0), Contains("symbol u0 = 100") && Contains("nms keeps every box"));
  kc::LoadOptions opt;
  opt.dims["u0"] = 5;
  kc::Graph given = kc::load_pt2_json(j.dump(), "x", opt);
  CHECK(kept_of(given) == 5);
  CHECK_THAT(given.info.notes.at(0), Contains("symbol u0 = 5 (--dim)"));
  // A model with more data-dependent sizes than a few notes them once per way they were valued.
  for (int i = 1; i <= 9; ++i) j["range_constraints"]["u" + std::to_string(i)] = {{"min_val", 0}, {"max_val", 10}};
  kc::Graph many = kc::load_pt2_json(j.dump(), "x", {});
  CHECK(kept_of(many) == 100);
  std::vector<std::string> symbol_notes;
  for (const auto& n : many.info.notes)
    if (n.find("symbol") != std::string::npos) symbol_notes.push_back(n);
  REQUIRE(symbol_notes.size() == 2);
  CHECK_THAT(symbol_notes[0], Contains("1 symbol (u0)") && Contains("nms keeps every box"));
  CHECK_THAT(symbol_notes[1], Contains("9 symbols (u1, u2, u3, u4, ...)") && Contains("upper bound"));
}

TEST_CASE("pt2: selections of each value torch.unique found take an even share, not every element") {
  // batched_nms's per-class loop as draft_export unrolls it: for each of the K values of
  // unique(x), where(x == value). The K selections split x's 8 elements: 4 each.
  auto j = model_json("add.pt2");
  auto& g = j["graph_module"]["graph"];
  auto meta = [](int dtype, nlohmann::json size) {
    return nlohmann::json{{"dtype", dtype},
                          {"sizes", nlohmann::json::array({size})},
                          {"requires_grad", false},
                          {"device", {{"type", "cpu"}, {"index", nullptr}}},
                          {"strides", nlohmann::json::array({{{"as_int", 1}}})},
                          {"storage_offset", {{"as_int", 0}}},
                          {"layout", 7}};
  };
  auto sym = [](const char* u) { return nlohmann::json{{"as_expr", {{"expr_str", u}, {"hint", nullptr}}}}; };
  auto t = [](const char* n) { return nlohmann::json{{"as_tensor", {{"name", n}}}}; };
  auto in = [&](const char* arg, const char* n) { return nlohmann::json{{"name", arg}, {"arg", t(n)}, {"kind", 1}}; };
  const int kInt64 = 4, kBool = 12;
  g["tensor_values"] = {{"x", meta(kInt64, {{"as_int", 8}})},   {"vals", meta(kInt64, sym("u0"))},
                        {"inv", meta(kInt64, {{"as_int", 0}})}, {"cnt", meta(kInt64, {{"as_int", 0}})},
                        {"e0", meta(kInt64, {{"as_int", 1}})},  {"e1", meta(kInt64, {{"as_int", 1}})},
                        {"m0", meta(kBool, {{"as_int", 8}})},   {"m1", meta(kBool, {{"as_int", 8}})},
                        {"w0", meta(kInt64, sym("u1"))},        {"w1", meta(kInt64, sym("u2"))}};
  for (const char* e : {"e0", "e1"}) g["tensor_values"][e]["sizes"] = nlohmann::json::array();
  for (const char* e : {"e0", "e1"}) g["tensor_values"][e]["strides"] = nlohmann::json::array();
  auto node = [](const char* target, nlohmann::json inputs, nlohmann::json outputs) {
    return nlohmann::json{
        {"target", target}, {"inputs", inputs}, {"outputs", outputs}, {"metadata", nlohmann::json::object()}};
  };
  g["nodes"] = {
      node("torch.ops.aten._unique2.default", {in("self", "x")}, {t("vals"), t("inv"), t("cnt")}),
      node("torch.ops.aten.unbind.int", {in("self", "vals")}, {{{"as_tensors", {{{"name", "e0"}}, {{"name", "e1"}}}}}}),
      node("torch.ops.aten.eq.Tensor", {in("self", "x"), in("other", "e0")}, {t("m0")}),
      node("torch.ops.aten.where.default", {in("condition", "m0")}, {{{"as_tensors", {{{"name", "w0"}}}}}}),
      node("torch.ops.aten.eq.Tensor", {in("self", "x"), in("other", "e1")}, {t("m1")}),
      node("torch.ops.aten.where.default", {in("condition", "m1")}, {{{"as_tensors", {{{"name", "w1"}}}}}})};
  g["inputs"] = {t("x")};
  g["outputs"] = {t("w0"), t("w1")};
  j["graph_module"]["signature"] = {
      {"input_specs", {{{"user_input", {{"arg", t("x")}}}}}},
      {"output_specs", {{{"user_output", {{"arg", t("w0")}}}}, {{"user_output", {{"arg", t("w1")}}}}}}};
  j["range_constraints"] = {{"u0", {{"min_val", 2}, {"max_val", 2}}},
                            {"u1", {{"min_val", 0}, {"max_val", 8}}},
                            {"u2", {{"min_val", 0}, {"max_val", 8}}}};
  kc::Graph graph = kc::load_pt2_json(j.dump(), "x", {});
  std::vector<int64_t> kept;
  for (const auto& op : graph.ops)
    if (op.name == "aten::where") kept.push_back(graph.values[op.outputs.at(0)].sizes.at(0));
  CHECK(kept == std::vector<int64_t>{4, 4});
  bool noted = false;
  for (const auto& n : graph.info.notes) noted |= n.find("an even share") != std::string::npos;
  CHECK(noted);
  // Without the unique (a plain where of each mask), every element.
  g["nodes"] = {g["nodes"][3], g["nodes"][5]};
  g["inputs"] = {t("m0"), t("m1")};
  j["graph_module"]["signature"]["input_specs"] = {{{"user_input", {{"arg", t("m0")}}}},
                                                   {{"user_input", {{"arg", t("m1")}}}}};
  kc::Graph plain = kc::load_pt2_json(j.dump(), "x", {});
  kept.clear();
  for (const auto& op : plain.ops)
    if (op.name == "aten::where") kept.push_back(plain.values[op.outputs.at(0)].sizes.at(0));
  CHECK(kept == std::vector<int64_t>{8, 8});
}

TEST_CASE("pt2: a shape past 64 bits is an error, not a wrap-around") {
  auto j = model_json("add.pt2");
  auto& tv = j["graph_module"]["graph"]["tensor_values"];
  tv.begin().value()["sizes"] = {{{"as_int", 4294967296}}, {{"as_int", 4294967296}}, {{"as_int", 4}}};
  tv.begin().value()["strides"] = {{{"as_int", 1}}, {{"as_int", 1}}, {{"as_int", 1}}};
  CHECK_THROWS_WITH(kc::load_pt2_json(j.dump(), "x", {}), Contains("64 bits"));
}

TEST_CASE("pt2: a missing field is named") {
  auto j = model_json("add.pt2");
  j["graph_module"]["graph"]["tensor_values"].begin().value().erase("dtype");
  CHECK_THROWS_WITH(kc::load_pt2_json(j.dump(), "x", {}), Contains("missing field 'dtype'"));
  CHECK_THROWS_WITH(kc::load_pt2_json("{", "x", {}), Contains("not valid JSON"));
}

TEST_CASE("pt2: a text that is not valid JSON gets that error, wherever it lies") {
  // The reader parses each node and record as it comes to it: an error of its own in an early
  // node must not hide invalid JSON further on, nor may JSON it never reads go unchecked (a
  // module call graph's signature is four levels deep, where the outline leaves values as text).
  auto j = model_json("add.pt2");
  j["graph_module"]["module_call_graph"] = nlohmann::json::array({{{"fqn", ""}, {"signature", {{"note", 1}}}}});
  const std::string valid = j.dump();
  CHECK_NOTHROW(kc::load_pt2_json(valid, "x", {}));
  std::string unread = valid;
  REQUIRE(unread.find(R"("note")") != std::string::npos);
  unread.insert(unread.find(R"("note")"), "1, ");  // a key that is no string
  CHECK_THROWS_WITH(kc::load_pt2_json(unread, "x", {}), Contains("not valid JSON"));
  j["graph_module"]["graph"]["nodes"][0]["target"] = "torch.ops.aten.no_such_op.default";
  std::string refused = j.dump();
  CHECK_THROWS_WITH(kc::load_pt2_json(refused, "x", {}), Contains("unknown op aten::no_such_op"));
  refused.insert(refused.find(R"("note")"), "1, ");
  CHECK_THROWS_WITH(kc::load_pt2_json(refused, "x", {}), Contains("not valid JSON"));
}

TEST_CASE("pt2: non-finite floats, which the schema writes as strings, are read; other strings are not") {
  auto j = model_json("add.pt2");
  auto& inputs = j["graph_module"]["graph"]["nodes"][0]["inputs"];
  inputs.push_back({{"name", "alpha"}, {"arg", {{"as_float", "-Infinity"}}}, {"kind", 1}});
  kc::Graph g = kc::load_pt2_json(j.dump(), "x", {});
  const kc::Arg* alpha = nullptr;
  for (const kc::Arg& a : g.ops[0].args)
    if (a.name == "alpha") alpha = &a;
  REQUIRE(alpha);
  REQUIRE(alpha->floats.size() == 1);
  CHECK(std::isinf(alpha->floats[0]));
  CHECK(alpha->floats[0] < 0);
  inputs.back()["arg"] = {{"as_float", "-inf"}};
  CHECK_THROWS_WITH(kc::load_pt2_json(j.dump(), "x", {}), Contains("expected a number"));
}

TEST_CASE("pt2: a complex number argument is read as its two parts") {
  auto j = model_json("add.pt2");
  auto& inputs = j["graph_module"]["graph"]["nodes"][0]["inputs"];
  inputs.push_back({{"name", "alpha"}, {"arg", {{"as_complex", {{"real", 0.5}, {"imag", -2.0}}}}}, {"kind", 1}});
  kc::Graph g = kc::load_pt2_json(j.dump(), "x", {});
  const kc::Arg& alpha = g.ops[0].args.back();
  CHECK(alpha.kind == kc::Arg::Kind::kComplex);
  CHECK(alpha.floats == std::vector<double>{0.5, -2.0});
  inputs.back()["arg"] = {{"as_complex", {{"real", 0.5}}}};
  CHECK_THROWS_WITH(kc::load_pt2_json(j.dump(), "x", {}), Contains("imag"));
}

TEST_CASE("pt2: an autocast-disabled region is read in place; an enabled one is refused") {
  kc::Graph g = kc::load_model(kModels + "/autocast_off.pt2", {});
  CHECK_FALSE(g.check());
  std::vector<std::string> names;
  for (const auto& op : g.ops) names.push_back(op.name);
  // The region's casts and matmul stand between the linear and the softmax, which reads the
  // region's result.
  REQUIRE(names.size() >= 4);
  CHECK(names.front() == "aten::linear");
  CHECK(names.back() == "aten::softmax");
  CHECK(std::count(names.begin(), names.end(), "aten::matmul") == 1);
  const kc::Op& softmax = g.ops.back();
  const kc::Value& scores = g.values[softmax.tensor_inputs()[0]];
  REQUIRE(scores.producer >= 0);
  CHECK(g.ops[scores.producer].name == "aten::matmul");
  CHECK(scores.dtype == kc::DType::kFloat32);

  auto j = model_json("autocast_off.pt2");
  nlohmann::json* region = nullptr;
  for (auto& node : j["graph_module"]["graph"]["nodes"])
    if (node["target"] == "torch.ops.higher_order.wrap_with_autocast") region = &node;
  REQUIRE(region);
  (*region)["inputs"][2]["arg"] = {{"as_bool", true}};
  CHECK_THROWS_WITH(kc::load_pt2_json(j.dump(), "x", {}), Contains("autocast enabled"));
  (*region)["inputs"][2]["arg"] = {{"as_bool", false}};
  (*region)["target"] = "torch.ops.higher_order.flex_attention";
  CHECK_THROWS_WITH(kc::load_pt2_json(j.dump(), "x", {}),
                    Contains("higher-order op 'torch.ops.higher_order.flex_attention' is not supported"));
  (*region)["target"] = "torch.ops.higher_order.invoke_subgraph";  // with autocast's arguments
  CHECK_THROWS_WITH(kc::load_pt2_json(j.dump(), "x", {}), Contains("invoke_subgraph expected as"));
  (*region)["target"] = "torch.ops.higher_order.wrap_with_autocast";
  (*region)["inputs"].erase((*region)["inputs"].size() - 1);
  CHECK_THROWS_WITH(kc::load_pt2_json(j.dump(), "x", {}), Contains("does not take"));
}

namespace {
std::vector<std::string> op_names(const kc::Graph& g) {
  std::vector<std::string> names;
  for (const auto& op : g.ops) names.push_back(op.full_name());
  return names;
}
size_t count_of(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<size_t>(std::count(names.begin(), names.end(), name));
}
}  // namespace

TEST_CASE("pt2: invoke_subgraph runs its one exported subgraph at every call") {
  // invoke_subgraph.pt2: relu(x @ w) + 1, a nested_compile_region called twice.
  kc::Graph g = kc::load_model(kModels + "/invoke_subgraph.pt2", {});
  CHECK_FALSE(g.check());
  const auto names = op_names(g);
  CHECK(count_of(names, "aten::matmul") == 2);
  CHECK(count_of(names, "aten::relu") == 2);
  CHECK(count_of(names, "aten::add.Tensor") == 2);
  // The second call reads the first's result.
  const kc::Op& second = g.ops[3];
  REQUIRE(second.name == "aten::matmul");
  CHECK(g.values[second.tensor_inputs()[0]].producer == 2);
  for (const auto& op : g.ops) CHECK(op.loc.file == "tests/models/models.py");
}

TEST_CASE("pt2: control flow runs its subgraphs as eager does: cond, map, scan, while_loop") {
  // control_flow.pt2: y = cond(x.sum() > 0, (x*2).relu().sin(), x-1); map over xs [4, 16];
  // scan over xs with a carry; while_loop(i < 3) around tanh.
  kc::Graph g = kc::load_model(kModels + "/control_flow.pt2", {});
  CHECK_FALSE(g.check());
  const auto names = op_names(g);
  // cond: the predicate read on the host, then the larger branch only (relu and sin, not sub).
  // cond once; while_loop's first condition twice (`if not`, then `while`), once after its trip.
  CHECK(count_of(names, "aten::is_nonzero") == 4);
  CHECK(count_of(names, "aten::relu") == 1);
  CHECK(count_of(names, "aten::sub.Tensor") == 0);
  bool noted = false;
  for (const auto& n : g.info.notes)
    noted |= n.find("counted the true branch (3 nodes), not the false branch (1 node)") != std::string::npos;
  CHECK(noted);
  // map: unbind once, the body (add, sin) per row, one stack of the four results.
  CHECK(count_of(names, "aten::unbind.int") == 1);
  CHECK(count_of(names, "aten::stack") == 1);
  const kc::Op* stack = nullptr;
  for (const auto& op : g.ops)
    if (op.name == "aten::stack") stack = &op;
  REQUIRE(stack);
  CHECK(stack->args[0].tensors.size() == 4);
  CHECK(g.values[stack->outputs[0]].sizes == std::vector<int64_t>{4, 16});
  // scan: the body on a copy of the first slice, zeros + ones_like per output, then per trip
  // the body on a view of the slice and a scatter_ of its output.
  CHECK(count_of(names, "aten::select_copy.int") == 1);
  CHECK(count_of(names, "aten::select.int") == 4 + 2);  // and y[0], twice in the graph
  CHECK(count_of(names, "aten::scatter_.src") == 4);
  CHECK(count_of(names, "aten::zeros") == 1);
  CHECK(count_of(names, "aten::cos") == 5);  // 1 + 4 trips
  // while_loop: one trip counted, and said so.
  CHECK(count_of(names, "aten::tanh") == 1);
  noted = false;
  for (const auto& n : g.info.notes)
    noted |= n.find("while_loop runs as many trips as its data decides") != std::string::npos;
  CHECK(noted);
  // Every graph output is written by an op.
  for (int out : g.outputs) {
    REQUIRE(out >= 0);
    CHECK(g.values[out].producer >= 0);
  }
}

TEST_CASE("pt2: a cond whose predicate the export fixed takes that branch; a map too long to unroll is refused") {
  auto j = model_json("control_flow.pt2");
  nlohmann::json* cond = nullptr;
  nlohmann::json* map = nullptr;
  for (auto& node : j["graph_module"]["graph"]["nodes"]) {
    if (node["target"] == "torch.ops.higher_order.cond") cond = &node;
    if (node["target"] == "torch.ops.higher_order.map_impl") map = &node;
  }
  REQUIRE(cond);
  REQUIRE(map);
  (*cond)["inputs"][0]["arg"] = {{"as_bool", false}};
  kc::Graph g = kc::load_pt2_json(j.dump(), "x", {});
  const auto names = op_names(g);
  CHECK(count_of(names, "aten::sub.Tensor") == 1);
  CHECK(count_of(names, "aten::relu") == 0);
  CHECK(count_of(names, "aten::is_nonzero") == 3);  // only the while_loop's

  // A leading dimension of 10^9 rows would unroll past the bound: one line, no hang.
  const std::string xs = (*map)["inputs"][1]["arg"]["as_tensors"][0]["name"];
  j["graph_module"]["graph"]["tensor_values"][xs]["sizes"][0] = {{"as_int", 1000000000}};
  CHECK_THROWS_WITH(kc::load_pt2_json(j.dump(), "x", {}), Contains("more than kernelcount reads"));
}

TEST_CASE("pt2: records read straight from their text make the graph the general reader makes") {
  kc::LoadOptions general;
  general.plain_records = false;
  size_t models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kModels)) {
    if (entry.path().extension() != ".pt2") continue;
    INFO(entry.path().string());
    ++models;
    CHECK(kc::graph_fingerprint(kc::load_model(entry.path().string(), {})) ==
          kc::graph_fingerprint(kc::load_model(entry.path().string(), general)));
  }
  CHECK(models > 10);
}
