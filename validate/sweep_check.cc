// kernelcount-sweepcheck: the launch rules against the op shape sweeps. Reads sweep records
// (research/sweeps/sweep.py's JSON lines: op, input shapes, strides and dtypes, parameters,
// measured counts) on stdin, builds each configuration as a one-op graph, runs the launches
// pass with the rules alone (no measured table), and writes one JSON line per record:
//   {"id", "run", "family", "op", "params", "measured": [k, c, s], "predicted": [k, c, s] | null, "rule"}
// research/sweeps/check_rules.py aggregates them. Covers the families whose records name every
// argument the rules read: convolutions (conv, gconv, gconv_wide, conv_dense), 2-D GEMMs (linear,
// addmm), matmul (matmul_bcast) and attention without a mask (sdpa_layout).
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "analyzer/error.h"
#include "analyzer/graph.h"
#include "passes/launches.h"
#include "passes/target.h"

namespace {

using nlohmann::json;

kc::DType dtype_of(const std::string& s) {
  if (s == "float32") return kc::DType::kFloat32;
  if (s == "bfloat16") return kc::DType::kBFloat16;
  if (s == "float16") return kc::DType::kFloat16;
  return kc::DType::kUnknown;
}

// A sweep input `[shape, strides, dtype]` as a graph value; -1 for "None".
int add_tensor(kc::Graph& g, const json& t, kc::ValueRole role) {
  if (!t.is_array()) return -1;
  kc::Value v;
  v.sizes = t.at(0).get<std::vector<int64_t>>();
  v.strides = t.at(1).get<std::vector<int64_t>>();
  v.dtype = dtype_of(t.at(2).get<std::string>());
  v.role = role;
  const int id = g.add_value(v);
  if (role == kc::ValueRole::kInput) g.inputs.push_back(id);
  return id;
}

kc::Arg ints(const std::string& name, std::vector<int64_t> v, kc::Arg::Kind kind = kc::Arg::Kind::kIntList) {
  kc::Arg a;
  a.name = name;
  a.kind = kind;
  a.ints = std::move(v);
  return a;
}

// An int or int-list sweep parameter, one value per spatial dim.
std::vector<int64_t> per_dim(const json& p, const char* key, size_t dims, int64_t fallback) {
  if (!p.contains(key)) return std::vector<int64_t>(dims, fallback);
  const json& v = p.at(key);
  std::vector<int64_t> out = v.is_array() ? v.get<std::vector<int64_t>>() : std::vector<int64_t>{v.get<int64_t>()};
  if (out.size() == 1) out.assign(dims, out[0]);
  if (out.size() != dims) throw kc::Error(std::string("sweep record: ") + key + " has the wrong length");
  return out;
}

// The one-op graph of a record; nullopt for ops this tool does not build.
std::optional<kc::Graph> build(const json& rec) {
  const std::string op = rec.at("op").get<std::string>();
  const json& in = rec.at("inputs");
  const json& p = rec.at("params");
  kc::Graph g;
  kc::Op o;
  std::vector<int64_t> out_sizes;
  if (op.rfind("conv", 0) == 0) {
    const bool transposed = op.find("transpose") != std::string::npos;
    const int x = add_tensor(g, in.at(0), kc::ValueRole::kInput);
    const int w = add_tensor(g, in.at(1), kc::ValueRole::kParameter);
    const int b = in.size() > 2 ? add_tensor(g, in.at(2), kc::ValueRole::kParameter) : -1;
    const auto& xs = g.values[x].sizes;
    const auto& ws = g.values[w].sizes;
    const size_t dims = xs.size() - 2;
    const auto stride = per_dim(p, "stride", dims, 1);
    const auto pad = per_dim(p, "pad", dims, 0);
    const auto dil = per_dim(p, "dil", dims, 1);
    int64_t groups = p.contains("g") ? p.at("g").get<int64_t>() : 1;
    if (p.contains("groups") && p.at("groups").is_number_integer()) groups = p.at("groups").get<int64_t>();
    o.name = "aten::" + op;
    o.args = {kc::Arg::tensor("input", x), kc::Arg::tensor("weight", w)};
    if (b >= 0) o.args.push_back(kc::Arg::tensor("bias", b));
    o.args.push_back(ints("stride", stride));
    o.args.push_back(ints("padding", pad));
    o.args.push_back(ints("dilation", dil));
    o.args.push_back(ints("groups", {groups}, kc::Arg::Kind::kInt));
    out_sizes = {xs[0], transposed ? ws[1] * groups : ws[0]};
    for (size_t d = 0; d < dims; ++d) {
      const int64_t k = ws[2 + d];
      out_sizes.push_back(transposed ? (xs[2 + d] - 1) * stride[d] - 2 * pad[d] + dil[d] * (k - 1) + 1
                                     : (xs[2 + d] + 2 * pad[d] - dil[d] * (k - 1) - 1) / stride[d] + 1);
    }
  } else if (op == "linear") {
    const int x = add_tensor(g, in.at(0), kc::ValueRole::kInput);
    const int w = add_tensor(g, in.at(1), kc::ValueRole::kParameter);
    const int b = in.size() > 2 ? add_tensor(g, in.at(2), kc::ValueRole::kParameter) : -1;
    g.values[w].requires_grad = p.value("wgrad", false);
    o.name = "aten::linear";
    o.args = {kc::Arg::tensor("input", x), kc::Arg::tensor("weight", w)};
    if (b >= 0) o.args.push_back(kc::Arg::tensor("bias", b));
    out_sizes = g.values[x].sizes;
    out_sizes.back() = g.values[w].sizes[0];
  } else if (op == "addmm") {
    const int c = add_tensor(g, in.at(0), kc::ValueRole::kParameter);
    const int a = add_tensor(g, in.at(1), kc::ValueRole::kInput);
    const int b = add_tensor(g, in.at(2), kc::ValueRole::kParameter);
    o.name = "aten::addmm";
    o.args = {kc::Arg::tensor("self", c), kc::Arg::tensor("mat1", a), kc::Arg::tensor("mat2", b)};
    out_sizes = {g.values[a].sizes[0], g.values[b].sizes[1]};
  } else if (op == "matmul") {
    const int a = add_tensor(g, in.at(0), kc::ValueRole::kInput);
    const int b = add_tensor(g, in.at(1), kc::ValueRole::kInput);
    const auto& as = g.values[a].sizes;
    const auto& bs = g.values[b].sizes;
    if (as.size() < 2 || bs.size() < 2) return std::nullopt;
    // Batch dims broadcast (numpy rules), then [M, N].
    const size_t batch = std::max(as.size(), bs.size()) - 2;
    for (size_t i = 0; i < batch; ++i) {
      const size_t ia = i + as.size() - 2 - batch, ib = i + bs.size() - 2 - batch;
      const int64_t da = i + as.size() >= batch + 2 ? as[ia] : 1;
      const int64_t db = i + bs.size() >= batch + 2 ? bs[ib] : 1;
      out_sizes.push_back(std::max(da, db));
    }
    out_sizes.push_back(as[as.size() - 2]);
    out_sizes.push_back(bs.back());
    o.name = "aten::matmul";
    o.args = {kc::Arg::tensor("self", a), kc::Arg::tensor("other", b)};
  } else if (op == "matmul_wt") {
    // matmul(x, w.t()): the right operand a transposed view of a weight, which reports
    // requires_grad when the weight does.
    const int a = add_tensor(g, in.at(0), kc::ValueRole::kInput);
    const int w = add_tensor(g, in.at(1), kc::ValueRole::kParameter);
    if (g.values[a].sizes.size() < 3 || g.values[w].sizes.size() != 2) return std::nullopt;
    kc::Value wt = g.values[w];
    std::swap(wt.sizes[0], wt.sizes[1]);
    std::swap(wt.strides[0], wt.strides[1]);
    wt.role = kc::ValueRole::kIntermediate;
    wt.requires_grad = p.value("wgrad", false);
    const int b = g.add_value(wt);
    out_sizes = g.values[a].sizes;
    out_sizes.back() = wt.sizes[1];
    o.name = "aten::matmul";
    o.args = {kc::Arg::tensor("self", a), kc::Arg::tensor("other", b)};
  } else if (op == "pow_scalar") {
    const int x = add_tensor(g, in.at(0), kc::ValueRole::kInput);
    kc::Arg e;
    e.name = "exponent";
    e.kind = kc::Arg::Kind::kFloat;
    e.floats = {p.at("exp").get<double>()};
    o.name = "aten::pow";
    o.overload = "Tensor_Scalar";
    o.traits.pointwise = true;  // as libtorch tags it
    o.args = {kc::Arg::tensor("self", x), e};
    out_sizes = g.values[x].sizes;
  } else if (op == "scaled_dot_product_attention") {
    const int q = add_tensor(g, in.at(0), kc::ValueRole::kInput);
    const int k = add_tensor(g, in.at(1), kc::ValueRole::kInput);
    const int v = add_tensor(g, in.at(2), kc::ValueRole::kInput);
    if (in.size() > 3 && in.at(3).is_array()) return std::nullopt;  // masks: the sdpa family's records
    o.name = "aten::scaled_dot_product_attention";
    o.args = {kc::Arg::tensor("query", q), kc::Arg::tensor("key", k), kc::Arg::tensor("value", v)};
    out_sizes = g.values[q].sizes;
    out_sizes.back() = g.values[v].sizes.back();
  } else {
    return std::nullopt;
  }
  kc::Value out;
  out.sizes = out_sizes;
  out.strides.assign(out_sizes.size(), 1);
  for (size_t i = out_sizes.size(); i-- > 1;) out.strides[i - 1] = out.strides[i] * out_sizes[i];
  out.dtype = g.values[o.args[0].tensors[0]].dtype;
  // pow of an integer base to a fractional or float exponent: the default float dtype.
  if (op == "pow_scalar" && !kc::is_floating(out.dtype) && p.at("exp").is_number_float())
    out.dtype = kc::DType::kFloat32;
  out.producer = 0;
  const int out_id = g.add_value(out);
  o.outputs = {out_id};
  g.ops.push_back(o);
  g.outputs = {out_id};
  return g;
}

}  // namespace

int main() {
  const kc::Target& target = kc::default_target();
  std::string line;
  while (std::getline(std::cin, line)) {
    json rec;
    try {
      rec = json::parse(line);
    } catch (const json::exception&) {
      std::cerr << "kernelcount-sweepcheck: a line that is not JSON\n";
      return 2;
    }
    if (!rec.contains("op") || !rec.contains("kernels") || rec.contains("error")) continue;
    json row = {{"id", rec.value("id", -1)},
                {"run", rec.value("run", "")},
                {"family", rec.value("family", "")},
                {"op", rec.at("op")},
                {"params", rec.at("params")},
                {"measured", {rec.at("kernels"), rec.at("memcpy"), rec.at("memset")}},
                {"predicted", nullptr},
                {"rule", ""}};
    try {
      auto g = build(rec);
      if (!g) continue;
      const kc::Launch l = kc::run_launches(*g, target, {false, {}}).at(0);
      row["rule"] = l.rule;
      if (l.known) row["predicted"] = {l.counts.kernels, l.counts.memcpy, l.counts.memset};
    } catch (const std::exception& e) {
      row["rule"] = std::string("error: ") + e.what();
    }
    std::cout << row.dump() << '\n';
  }
  return 0;
}
