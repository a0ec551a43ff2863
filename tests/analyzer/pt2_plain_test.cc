#include "analyzer/pt2_plain.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/json_cursor.h"

namespace {

// Whether nlohmann::json's parser takes the text.
bool nlohmann_accepts(const std::string& text) {
  return nlohmann::json::accept(text);
}

bool cursor_accepts(const std::string& text) {
  kc::JsonCursor in(text, 0);
  return in.skip() && in.done();
}

const char kNode[] =
    R"({"target": "torch.ops.aten.add.Tensor", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},)"
    R"( {"name": "other", "arg": {"as_tensor": {"name": "y"}}, "kind": 1}, {"name": "alpha", "arg": {"as_int": 2}, "kind": 2}],)"
    R"( "outputs": [{"as_tensor": {"name": "v0"}}], "metadata": {"stack_trace": "File \"m.py\", line 3\n    x + y",)"
    R"( "nn_module_stack": "L__self__,,m.M", "torch_fn": "add;f"}, "is_hop_single_tensor_return": null, "name": "v0"})";

const char kTensor[] =
    R"({"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 3}], "requires_grad": true,)"
    R"( "device": {"type": "cuda", "index": 0}, "strides": [{"as_int": 3}, {"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7})";

}  // namespace

TEST_CASE("json_cursor: takes exactly what nlohmann::json takes") {
  for (const std::string text : {"{}",
                                 "[]",
                                 " [1, -2, 3.5e2, true, false, null, \"a\\u00e9\\n\"] ",
                                 "{\"a\": {\"b\": [{}]}}",
                                 "[1,]",
                                 "{\"a\":}",
                                 "{\"a\" 1}",
                                 "[01]",
                                 "[1.]",
                                 "[-]",
                                 "[1e]",
                                 "\"\\x\"",
                                 "\"\\ud800\"",
                                 "\"\x01\"",
                                 "\"\xc3\"",
                                 "[tru]",
                                 "nul",
                                 "{\"a\": 1,}",
                                 "[1 2]",
                                 "{1: 2}",
                                 "[1]]",
                                 "[[1]",
                                 "",
                                 "  ",
                                 "[1e999]",
                                 "[\"\\uD834\\uDD1E\"]",
                                 "{\"a\": 1} x",
                                 "[18446744073709551616]",
                                 "[-9223372036854775809]"}) {
    INFO(text);
    CHECK(cursor_accepts(text) == nlohmann_accepts(text));
  }
}

TEST_CASE("json_cursor: a value nested past the limit is refused, counted from the document's root") {
  const std::string deep = std::string(10, '[') + std::string(10, ']');
  CHECK(kc::JsonCursor(deep, 0).skip());
  CHECK(kc::JsonCursor(deep, kc::kMaxJsonDepth - 10).skip());
  CHECK_FALSE(kc::JsonCursor(deep, kc::kMaxJsonDepth - 9).skip());
}

TEST_CASE("json_cursor: integers and numbers as nlohmann::json's get gives them") {
  for (const std::string text : {"0", "-5", "9223372036854775807", "18446744073709551615", "-9223372036854775808"}) {
    INFO(text);
    int64_t v = 0;
    REQUIRE(kc::JsonCursor(text, 0).integer(v));
    CHECK(v == nlohmann::json::parse(text).get<int64_t>());
  }
  int64_t v = 0;
  CHECK_FALSE(kc::JsonCursor("1.0", 0).integer(v));
  CHECK_FALSE(kc::JsonCursor("\"1\"", 0).integer(v));
  double d = 0;
  REQUIRE(kc::JsonCursor("-2.5e-3", 0).number(d));
  CHECK(d == nlohmann::json::parse("-2.5e-3").get<double>());
}

TEST_CASE("pt2_plain: a node of the common shape is read with its arguments, outputs and metadata") {
  kc::PlainNode n;
  REQUIRE(kc::read_plain_node(kNode, 4, n));
  const auto& s = n.strings;
  CHECK(s(n.target) == "torch.ops.aten.add.Tensor");
  REQUIRE(n.inputs.size() == 3);
  CHECK(s(n.inputs[0].name) == "self");
  CHECK(n.inputs[0].kind == kc::PlainArg::Kind::kTensor);
  CHECK(s(n.inputs[0].tensor) == "x");
  CHECK(s(n.inputs[1].tensor) == "y");
  CHECK(n.inputs[2].kind == kc::PlainArg::Kind::kInt);
  CHECK(n.inputs[2].integer == 2);
  REQUIRE(n.outputs.size() == 1);
  CHECK(s(n.outputs[0]) == "v0");
  REQUIRE(n.has_stack_trace);
  CHECK(s(n.stack_trace) == "File \"m.py\", line 3\n    x + y");  // escapes decoded
  REQUIRE(n.has_module_stack);
  CHECK(s(n.module_stack) == "L__self__,,m.M");
}

TEST_CASE("pt2_plain: a node of another shape, or not valid JSON, is left to the general reader") {
  kc::PlainNode n;
  const std::string node = kNode;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = node;
    REQUIRE(t.find(from) != std::string::npos);
    return t.replace(t.find(from), from.size(), to);
  };
  CHECK(kc::read_plain_node(with("\"kind\": 2}", "\"kind\": 2,}"), 4, n) == false);           // a trailing comma
  CHECK(kc::read_plain_node(with("\"name\": \"v0\"}", "\"name\": \"v0\"} "), 4, n) == true);  // whitespace after
  CHECK(kc::read_plain_node(with("\"name\": \"v0\"}", "\"name\": \"v0\"} x"), 4, n) == false);
  CHECK(kc::read_plain_node(with("{\"as_int\": 2}", "{\"as_sym_int\": {\"as_int\": 2}}"), 4, n) == false);
  CHECK(kc::read_plain_node(with("{\"as_int\": 2}", "{\"as_int\": 2, \"as_none\": null}"), 4, n) == false);
  CHECK(kc::read_plain_node(with("{\"as_int\": 2}", "{\"as_int\": 2.0}"), 4, n) == false);
  CHECK(kc::read_plain_node(with("\"is_hop", "\"target\": \"torch.ops.aten.sub.Tensor\", \"is_hop"), 4, n) == false);
  CHECK(kc::read_plain_node(with("[{\"as_tensor\": {\"name\": \"v0\"}}]", "[{\"as_none\": true}]"), 4, n) == false);
  CHECK(kc::read_plain_node(with("\"name\": \"self\"", "\"nam\\u0065\": \"self\""), 4, n) == true);  // keys decoded
  CHECK(kc::read_plain_node(with("line 3\\n", "line 3\\q"), 4, n) == false);                         // a bad escape
  CHECK(kc::read_plain_node(with("\"torch_fn\": \"add;f\"", "\"torch_fn\": [1, {\"a\": nul}]"), 4, n) == false);
  CHECK(kc::read_plain_node(with(", \"kind\": 1}", "}"), 4, n) == true);
  CHECK(kc::read_plain_node(with("\"arg\": {\"as_tensor\": {\"name\": \"x\"}}, ", ""), 4, n) == false);  // no arg
  // The general reader takes a repeated key's last value: such a node is its.
  CHECK(kc::read_plain_node(with("\"metadata\":", "\"metadata\": null, \"metadata\":"), 4, n) == false);
  // A stack trace that is no string is ignored, as the general reader ignores it.
  REQUIRE(kc::read_plain_node(with("\"File \\\"m.py\\\", line 3\\n    x + y\"", "7"), 4, n));
  CHECK_FALSE(n.has_stack_trace);
  CHECK(n.has_module_stack);
}

TEST_CASE("pt2_plain: a tensor record with plain sizes and strides is read; others are left to the general reader") {
  kc::PlainTensor t;
  REQUIRE(kc::read_plain_tensor(kTensor, 4, t));
  CHECK(t.dtype == 7);
  CHECK(t.sizes == std::vector<int64_t>{2, 3});
  CHECK(t.strides == std::vector<int64_t>{3, 1});
  CHECK(t.requires_grad);
  REQUIRE((t.has_device && t.has_device_type && t.has_device_index));
  CHECK(t.strings(t.device_type) == "cuda");
  CHECK(t.device_index == 0);
  const std::string tensor = kTensor;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = tensor;
    REQUIRE(s.find(from) != std::string::npos);
    return s.replace(s.find(from), from.size(), to);
  };
  CHECK_FALSE(kc::read_plain_tensor(with("{\"as_int\": 2}", "{\"as_expr\": {\"expr_str\": \"s0\"}}"), 4, t));
  CHECK_FALSE(kc::read_plain_tensor(with("\"dtype\": 7", "\"dtype\": 7, \"dtype\": 6"), 4, t));
  CHECK_FALSE(kc::read_plain_tensor(with("\"layout\": 7", "\"layout\": 7,"), 4, t));
  REQUIRE(kc::read_plain_tensor(with("{\"type\": \"cuda\", \"index\": 0}", "null"), 4, t));
  CHECK_FALSE(t.has_device);
  REQUIRE(kc::read_plain_tensor(with("\"index\": 0", "\"index\": null"), 4, t));
  CHECK((t.has_device && t.has_device_type && !t.has_device_index));
  REQUIRE(kc::read_plain_tensor(with("\"requires_grad\": true", "\"requires_grad\": 1"), 4, t));
  CHECK_FALSE(t.requires_grad);  // not a boolean: false, as the general reader has it
  CHECK(t.storage_offset == 0);
  REQUIRE(kc::read_plain_tensor(with("\"storage_offset\": {\"as_int\": 0}", "\"storage_offset\": {\"as_int\": 384}"), 4,
                                t));
  CHECK(t.storage_offset == 384);  // where a view (a slice, one of unbind's parts) starts
  REQUIRE(kc::read_plain_tensor(
      with("\"storage_offset\": {\"as_int\": 0}", "\"storage_offset\": {\"as_expr\": {\"expr_str\": \"s0\"}}"), 4, t));
  CHECK(t.storage_offset == 0);  // symbolic: 0, as the general reader has it
}
