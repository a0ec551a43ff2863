#include "analyzer/torchscript_loader.h"

#include <caffe2/serialize/inline_container.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <tuple>
#include <vector>

#include "analyzer/error.h"
#include "analyzer/torchscript_archive.h"

using Catch::Matchers::Contains;

namespace {
const std::string kModels = KC_TEST_MODELS;

// The TorchScript loader linked in, as kernelcount-validate has it.
kc::LoadOptions linked() {
  kc::LoadOptions o;
  o.torchscript = kc::load_torchscript_file;
  return o;
}

kc::LoadOptions with_input(const std::string& spec) {
  kc::LoadOptions o = linked();
  o.inputs.push_back(kc::parse_input_spec(spec));
  return o;
}

kc::LoadOptions with_inputs(const std::vector<std::string>& specs) {
  kc::LoadOptions o = linked();
  for (const auto& s : specs) o.inputs.push_back(kc::parse_input_spec(s));
  return o;
}

const kc::Op* first(const kc::Graph& g, const std::string& op) {
  for (const auto& o : g.ops)
    if (o.name == op) return &o;
  return nullptr;
}

int count(const kc::Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& o : g.ops) n += o.name == op;
  return n;
}
// Runs of the op: an op in a loop stands for the trips it repeats (Op::repeat).
int64_t runs(const kc::Graph& g, const std::string& op) {
  int64_t n = 0;
  for (const auto& o : g.ops) n += o.name == op ? o.repeat : 0;
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

TEST_CASE("torchscript: loops run every trip and known branches are taken") {
  // forward: x.size(0) // 4 multiplies, three Linear layers, relu when the last dim > 32.
  kc::Graph b8 = kc::load_model(kModels + "/scripted_control_flow.pt", with_input("8x64:float32"));
  kc::Graph b16 = kc::load_model(kModels + "/scripted_control_flow.pt", with_input("16x64:float32"));
  CHECK(runs(b8, "aten::mul") == 2);
  CHECK(runs(b16, "aten::mul") == 4);
  CHECK(count(b16, "aten::mul") == 2);  // the second trip stands for the third and fourth
  CHECK(runs(b8, "aten::linear") == 3);
  CHECK(count(b8, "aten::relu") == 1);
  CHECK(count(b8, "aten::sigmoid") == 0);
  for (const auto& op : b8.ops) CHECK(op.loc.file == "tests/models/models.py");
}

TEST_CASE("torchscript: inputs are required and checked") {
  CHECK_THROWS_WITH(kc::load_model(kModels + "/traced_mlp.pt", linked()), Contains("--input"));
  kc::LoadOptions two = with_input("32x64");
  two.inputs.push_back(kc::parse_input_spec("32x64"));
  CHECK_THROWS_WITH(kc::load_model(kModels + "/traced_mlp.pt", two), Contains("takes 1 input"));
  CHECK_THROWS_WITH(kc::load_model(kModels + "/traced_mlp.pt", with_input("32x65:float32")),
                    Contains("mat1 and mat2 shapes cannot be multiplied"));
}

TEST_CASE("input specs parse and reject nonsense") {
  auto s = kc::parse_input_spec("x=8x3x224x224:bf16");
  CHECK(s.name == "x");
  CHECK(s.sizes == std::vector<int64_t>{8, 3, 224, 224});
  CHECK(s.dtype == kc::DType::kBFloat16);
  CHECK_THROWS_AS(kc::parse_input_spec("8xx3"), kc::Error);
  CHECK_THROWS_WITH(kc::parse_input_spec("=32x64"), Contains("a name before '='"));
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

TEST_CASE("torchscript: a traced transformer block needs no Python meta function, and reads like its .pt2") {
  // LayerNorm (layer_norm -> native_layer_norm -> native_batch_norm on meta), Linear, SDPA, GELU.
  kc::Graph ts = kc::load_model(kModels + "/traced_transformer_block.pt", with_input("2x16x64:float32"));
  kc::Graph pt2 = kc::load_model(kModels + "/transformer_block.pt2", {});
  CHECK_FALSE(ts.check());
  for (const std::string op :
       {"aten::layer_norm", "aten::linear", "aten::scaled_dot_product_attention", "aten::gelu"}) {
    INFO(op);
    CHECK(count(ts, op) == count(pt2, op));
    // Same user lines, code, modules and classes, op by op.
    auto rows = [&](const kc::Graph& g) {
      std::vector<std::tuple<std::string, int, std::string, std::string, std::string>> r;
      for (const auto& o : g.ops)
        if (o.name == op) r.emplace_back(o.loc.file, o.loc.line, o.loc.code, o.module, o.module_type);
      return r;
    };
    CHECK(rows(ts) == rows(pt2));
  }
  // The attention output has the GPU's layout: the transpose/reshape after it is a view.
  const kc::Op* sdpa = first(ts, "aten::scaled_dot_product_attention");
  REQUIRE(sdpa);
  CHECK(ts.values[sdpa->outputs[0]].strides == std::vector<int64_t>{1024, 16, 64, 1});
  CHECK(ts.values[ts.outputs[0]].sizes == std::vector<int64_t>{2, 16, 64});
}

TEST_CASE("torchscript: a model saved on a GPU loads without one and is predicted for that GPU") {
  caffe2::serialize::PyTorchStreamReader cuda(kModels + "/traced_transformer_block_cuda.pt");
  caffe2::serialize::PyTorchStreamReader cpu(kModels + "/traced_transformer_block.pt");
  CHECK(kc::saved_device(cuda) == "cuda:0");
  CHECK(kc::saved_device(cpu) == "cpu");
  kc::Graph g = kc::load_model(kModels + "/traced_transformer_block_cuda.pt", with_input("2x16x64:float32"));
  CHECK_FALSE(g.check());
  REQUIRE(g.info.notes.size() == 1);
  CHECK_THAT(g.info.notes[0], Contains("saved on cuda:0"));
  CHECK(g.values[g.inputs[0]].device == "cuda:0");
  for (const auto& v : g.values)
    if (v.role == kc::ValueRole::kParameter || v.role == kc::ValueRole::kBuffer) CHECK(v.device == "cuda:0");
  // Same ops as the host-saved file.
  kc::Graph host = kc::load_model(kModels + "/traced_transformer_block.pt", with_input("2x16x64:float32"));
  CHECK(g.ops.size() == host.ops.size());
  CHECK(host.values[host.inputs[0]].device == "cuda");
}

TEST_CASE("torchscript: the weights' bytes are never read") {
  caffe2::serialize::PyTorchStreamReader archive(kModels + "/traced_mlp.pt");
  auto reader = kc::weight_skipping_reader(kModels + "/traced_mlp.pt");
  const size_t weight = archive.getRecordOffset("data/0"), bytes = archive.getRecordSize("data/0");
  std::vector<unsigned char> buf(bytes, 0xab);
  CHECK(reader->read(weight, buf.data(), bytes) == bytes);
  CHECK(buf == std::vector<unsigned char>(bytes, 0xab));  // left as it was
  CHECK(reader->read(0, buf.data(), 2) == 2);
  CHECK(buf[0] == 'P');  // everything else is the file
  CHECK(buf[1] == 'K');
}

TEST_CASE("torchscript: deflated weights are never inflated, and load as stored ones do") {
  caffe2::serialize::PyTorchStreamReader archive(kModels + "/traced_mlp_deflated.pt");
  auto reader = kc::weight_skipping_reader(kModels + "/traced_mlp_deflated.pt");
  // Served as a stored record of its full size (more than the file holds), whose one read
  // writes nothing.
  CHECK(reader->size() > archive.getRecordOffset("data/0") + archive.getRecordSize("data/0"));
  caffe2::serialize::PyTorchStreamReader served(reader);
  const size_t weight = served.getRecordOffset("data/0"), bytes = served.getRecordSize("data/0");
  CHECK(bytes == archive.getRecordSize("data/0"));
  std::vector<unsigned char> buf(bytes, 0xab);
  CHECK(reader->read(weight, buf.data(), bytes) == bytes);
  CHECK(buf == std::vector<unsigned char>(bytes, 0xab));
  // Code and pickles inflate as in the file.
  auto [code, size] = served.getRecord("data.pkl");
  auto [real, real_size] = archive.getRecord("data.pkl");
  REQUIRE(size == real_size);
  CHECK(std::memcmp(code.get(), real.get(), size) == 0);

  kc::Graph deflated = kc::load_model(kModels + "/traced_mlp_deflated.pt", with_input("32x64:float32"));
  kc::Graph stored = kc::load_model(kModels + "/traced_mlp.pt", with_input("32x64:float32"));
  REQUIRE(deflated.ops.size() == stored.ops.size());
  for (size_t i = 0; i < stored.ops.size(); ++i) CHECK(deflated.ops[i].name == stored.ops[i].name);
  CHECK(deflated.values.size() == stored.values.size());
}

TEST_CASE("torchscript: a deflated record claiming more than deflate can hold is refused before it is allocated") {
  CHECK_THROWS_WITH(kc::weight_skipping_reader(kModels + "/bad/lying_size.pt"),
                    Contains("claims 4000000000 bytes inflated from"));
  CHECK_THROWS_WITH(kc::load_model(kModels + "/bad/lying_size.pt", with_input("32x64:float32")),
                    Contains("more than deflate's 1032 to 1 allows"));
}

TEST_CASE("torchscript: a pickle string longer than its pickle is refused before libtorch allocates it") {
  caffe2::serialize::PyTorchStreamReader bad(kModels + "/bad/long_pickle_string.pt");
  CHECK_THROWS_WITH(kc::check_pickle_lengths(bad), Contains("pickle data.pkl holds a string of 2147483647 bytes"));
  // A memo index past the pickle's size: libtorch would grow its memo table to 2^31 entries.
  caffe2::serialize::PyTorchStreamReader memo(kModels + "/bad/long_memo_index.pt");
  CHECK_THROWS_WITH(kc::check_pickle_lengths(memo), Contains("stores memo entry 2147483647"));
  // A storage declared longer than its record: libtorch sizes it by the declaration.
  caffe2::serialize::PyTorchStreamReader storage(kModels + "/bad/long_storage.pt");
  CHECK_THROWS_WITH(kc::check_pickle_lengths(storage),
                    Contains("tensor record constants/0 holds 8 bytes, but constants.pkl declares 200 elements"));
  caffe2::serialize::PyTorchStreamReader good(kModels + "/traced_mlp.pt");
  CHECK_NOTHROW(kc::check_pickle_lengths(good));  // every pickle of a sound archive passes
}

TEST_CASE("torchscript: scripted control flow: if on the rank, a ModuleList loop, an early return") {
  kc::Graph b3 = kc::load_model(kModels + "/scripted_branches.pt", with_input("4x16x32"));
  CHECK_FALSE(b3.check());
  CHECK(count(b3, "aten::unsqueeze") == 0);
  CHECK(count(b3, "aten::linear") == 3);
  CHECK(count(b3, "aten::gelu") == 3);
  CHECK(count(b3, "aten::layer_norm") == 1);  // size(1) > 8: returns early
  CHECK(count(b3, "aten::mul") == 0);
  std::vector<std::string> modules;
  for (const auto& op : b3.ops)
    if (op.name == "aten::linear") modules.push_back(op.module);
  CHECK(modules == std::vector<std::string>{"layers.0", "layers.1", "layers.2"});
  CHECK(first(b3, "aten::layer_norm")->loc.code == "return self.norm(x)");

  kc::Graph b2 = kc::load_model(kModels + "/scripted_branches.pt", with_input("4x32"));
  CHECK(count(b2, "aten::unsqueeze") == 1);
  CHECK(count(b2, "aten::layer_norm") == 0);
  CHECK(count(b2, "aten::mul") == 1);
  CHECK(b2.values[b2.outputs[0]].sizes == std::vector<int64_t>{1, 4, 32});
}

TEST_CASE("torchscript: int64 tokens and a mask given by name, a dict and a tuple out") {
  kc::Graph g =
      kc::load_model(kModels + "/traced_tokens.pt", with_inputs({"attention_mask=2x8:int64", "input_ids=2x8:int64"}));
  CHECK_FALSE(g.check());
  REQUIRE(g.inputs.size() == 2);
  CHECK(g.values[g.inputs[0]].name == "input_ids");
  CHECK(g.values[g.inputs[0]].dtype == kc::DType::kInt64);
  const kc::Op* emb = first(g, "aten::embedding");
  REQUIRE(emb);
  CHECK(emb->module == "embed");
  CHECK(g.values[emb->outputs[0]].sizes == std::vector<int64_t>{2, 8, 32});
  // ({"logits": 2x8x100, "pooled": 2x32}, 2x32)
  REQUIRE(g.outputs.size() == 3);
  CHECK(g.values[g.outputs[0]].sizes == std::vector<int64_t>{2, 8, 100});
  CHECK(g.values[g.outputs[1]].sizes == std::vector<int64_t>{2, 32});
  CHECK_THROWS_WITH(kc::load_model(kModels + "/traced_tokens.pt", with_inputs({"ids=2x8:int64", "2x8:int64"})),
                    Contains("no input of that name"));
  CHECK_THROWS_WITH(kc::load_model(kModels + "/traced_tokens.pt", with_inputs({"input_ids=2x8:int64"})),
                    Contains("takes 2 input"));
}

TEST_CASE("torchscript: norms whose meta functions live in Python: batch_norm, group_norm, traced convolution") {
  kc::Graph g = kc::load_model(kModels + "/traced_conv_norms.pt", with_input("2x3x16x16"));
  CHECK_FALSE(g.check());
  for (const std::string op : {"aten::_convolution", "aten::batch_norm", "aten::group_norm"}) {
    const kc::Op* o = first(g, op);
    REQUIRE(o);
    CHECK(g.values[o->outputs[0]].sizes == std::vector<int64_t>{2, 16, 16, 16});
  }
  CHECK(g.values[g.outputs[0]].sizes == std::vector<int64_t>{2, 10});
}

TEST_CASE("torchscript: an op nothing can shape is named with the user's line") {
  CHECK_THROWS_WITH(kc::load_model(kModels + "/bad/no_shape_function.pt", with_input("100")),
                    Contains("aten::cummax at tests/models/models.py:170") &&
                        Contains("no meta kernel and no TorchScript shape function"));
}

TEST_CASE("torchscript: a GPU model that moves a result to the host makes shape-only host values") {
  kc::Graph gpu = kc::load_model(kModels + "/scripted_to_host_cuda.pt", with_input("4x16"));
  CHECK_FALSE(gpu.check());
  const kc::Op* to = first(gpu, "aten::to");
  REQUIRE(to);
  CHECK(gpu.values[to->tensor_inputs()[0]].device == "cuda:0");
  CHECK(gpu.values[to->outputs[0]].device == "cpu");  // a copy, not the input itself
  CHECK(to->outputs[0] != to->tensor_inputs()[0]);
  CHECK(gpu.values[first(gpu, "aten::zeros")->outputs[0]].device == "cpu");
  CHECK(gpu.values[first(gpu, "aten::sum")->outputs[0]].device == "cpu");
  CHECK(gpu.values[first(gpu, "aten::relu")->outputs[0]].device == "cuda:0");
  // Saved on the host, the same code runs wholly on the target GPU, as a host-exported .pt2.
  kc::Graph host = kc::load_model(kModels + "/scripted_to_host.pt", with_input("4x16"));
  for (const auto& op : host.ops)
    for (int v : op.outputs)
      if (v >= 0) CHECK(host.values[v].device == "cuda");
}

TEST_CASE("torchscript: anchors built on the host stay there until moved to the model's device") {
  kc::Graph g = kc::load_model(kModels + "/scripted_host_anchors_cuda.pt", with_input("6x8"));
  CHECK_FALSE(g.check());
  auto device_of = [&](const char* op, int output = 0) {
    const kc::Op* o = first(g, op);
    REQUIRE(o);
    return g.values[o->outputs[output]].device;
  };
  // arange without a device, a host scalar tensor beside it, a meshgrid and a stack: the host.
  for (const char* op : {"aten::arange", "aten::div", "aten::stack", "aten::reshape"}) CHECK(device_of(op) == "cpu");
  CHECK(device_of("aten::meshgrid", 0) == "cpu");
  CHECK(device_of("aten::meshgrid", 1) == "cpu");
  // .to(x.device): a new tensor on the GPU, not the host value itself.
  const kc::Op* to = first(g, "aten::to");
  REQUIRE(to);
  CHECK(g.values[to->tensor_inputs()[0]].device == "cpu");
  CHECK(g.values[to->outputs[0]].device == "cuda:0");
  CHECK(to->outputs[0] != to->tensor_inputs()[0]);
  CHECK(device_of("aten::repeat") == "cuda:0");
}

TEST_CASE("torchscript: each tensor constant's saved location is read from its storage") {
  auto locations = [](const std::string& file) {
    caffe2::serialize::PyTorchStreamReader archive(kModels + "/" + file);
    std::vector<std::string> out;
    for (const auto& [bytes, location] : kc::constant_storages(archive)) {
      CHECK_FALSE(bytes.empty());
      out.push_back(location);
    }
    return out;
  };
  // A trace made on the GPU keeps its literals on the host; a module whose constants were
  // made on the GPU saves them there.
  const auto trace = locations("traced_transformer_block_gpu_trace.pt");
  const auto cuda = locations("traced_transformer_block_cuda.pt");
  REQUIRE_FALSE(trace.empty());
  CHECK(trace.size() == cuda.size());
  for (const auto& l : trace) CHECK(l == "cpu");
  for (const auto& l : cuda) CHECK(l == "cuda:0");
}

TEST_CASE("torchscript: a factory without a device is shape-only, never allocated") {
  // torch.zeros(64, 4096, 1024): 1 GiB that this test would otherwise allocate.
  kc::Graph g = kc::load_model(kModels + "/scripted_factory.pt", with_input("64x4"));
  CHECK_FALSE(g.check());
  const kc::Op* zeros = first(g, "aten::zeros");
  REQUIRE(zeros);
  CHECK(g.values[zeros->outputs[0]].sizes == std::vector<int64_t>{64, 4096, 1024});
  CHECK(g.values[zeros->outputs[0]].device == "cuda");  // saved on the host: predicted for the GPU
}

TEST_CASE("torchscript: torchvision's ops load, their outputs shaped by their meta kernels") {
  kc::Graph g = kc::load_model(
      kModels + "/traced_detection_head.pt",
      with_inputs({"x=2x3x64x64:float32", "boxes=100x4:float32", "scores=100:float32", "rois=16x5:float32"}));
  CHECK_FALSE(g.check());
  const kc::Op* nms = first(g, "torchvision::nms");
  const kc::Op* roi = first(g, "torchvision::roi_align");
  REQUIRE(nms);
  REQUIRE(roi);
  CHECK(g.values[nms->outputs[0]].sizes == std::vector<int64_t>{100});  // every box kept: the upper bound
  CHECK(g.values[nms->outputs[0]].dtype == kc::DType::kInt64);
  CHECK(g.values[roi->outputs[0]].sizes == std::vector<int64_t>{16, 8, 7, 7});
  bool noted = false;
  for (const auto& n : g.info.notes) noted = noted || n.find("torchvision::nms keeps every box") != std::string::npos;
  CHECK(noted);
  // A model without them gets no such note.
  kc::Graph mlp = kc::load_model(kModels + "/traced_mlp.pt", with_input("32x64:float32"));
  for (const auto& n : mlp.info.notes) CHECK(n.find("torchvision") == std::string::npos);
}

TEST_CASE("torchscript: a trace that recorded an inference fast path says its .pt2 differs") {
  kc::Graph g = kc::load_model(kModels + "/traced_fast_path_attention.pt", with_input("2x16x64:float32"));
  CHECK(count(g, "aten::_native_multi_head_attention") == 1);
  bool noted = false;
  for (const auto& n : g.info.notes) noted = noted || n.find("inference fast path") != std::string::npos;
  CHECK(noted);
  kc::Graph mlp = kc::load_model(kModels + "/traced_mlp.pt", with_input("32x64:float32"));
  for (const auto& n : mlp.info.notes) CHECK(n.find("fast path") == std::string::npos);

  // A traced nn.TransformerEncoder records each layer whole: it loads (the layer keeps its
  // input's sizes), and no rule claims it, so it is reported unknown, never refused.
  kc::Graph enc = kc::load_model(kModels + "/traced_fast_path_encoder.pt", with_input("2x16x32:float32"));
  REQUIRE(count(enc, "aten::_transformer_encoder_layer_fwd") == 2);
  for (const auto& op : enc.ops)
    if (op.name == "aten::_transformer_encoder_layer_fwd")
      CHECK(enc.values[op.outputs[0]].sizes == std::vector<int64_t>{2, 16, 32});
}

TEST_CASE("torchscript: a loop whose trips repeat is its body times the trips left; others unroll to a bound") {
  // scripted_row_loop.pt: `for _ in range(x.size(0) // 4): x = x * 2`.
  auto muls = [](const kc::Graph& g) {
    std::vector<int64_t> out;
    for (const kc::Op& op : g.ops)
      if (op.name == "aten::mul") out.push_back(op.repeat);
    return out;
  };
  // Two trips: nothing is left to count.
  CHECK(muls(kc::load_model(kModels + "/scripted_row_loop.pt", with_input("8x16"))) == std::vector<int64_t>{1, 1});
  // Ten trips: the first, then the second standing for itself and the eight after it.
  kc::Graph ten = kc::load_model(kModels + "/scripted_row_loop.pt", with_input("40x16"));
  CHECK(muls(ten) == std::vector<int64_t>{1, 9});
  CHECK_THAT(ten.info.notes.back(), Contains("stand for several trips"));
  // A million trips load as two ops.
  CHECK(muls(kc::load_model(kModels + "/scripted_row_loop.pt", with_input("4000000x16"))) ==
        std::vector<int64_t>{1, 999999});
  // scripted_list_loop.pt appends each trip's result to a list: state the next trip changes,
  // so every trip runs, up to the bound on what is unrolled.
  kc::Graph five = kc::load_model(kModels + "/scripted_list_loop.pt", with_input("5x16"));
  CHECK(muls(five) == std::vector<int64_t>(5, 1));
  CHECK(first(five, "aten::append") == nullptr);  // a list builtin, not an op
  CHECK_THROWS_WITH(kc::load_model(kModels + "/scripted_list_loop.pt", with_input("4000000x16")),
                    Contains("more than 200000 ops for these inputs"));
}
