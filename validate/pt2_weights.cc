#include "validate/pt2_weights.h"

#include <ATen/ATen.h>
#include <caffe2/serialize/inline_container.h>

#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "analyzer/dtype.h"
#include "analyzer/error.h"
#include "analyzer/torch_types.h"

namespace kc::validate {
namespace {

using json = nlohmann::json;

std::string read_record(caffe2::serialize::PyTorchStreamReader& archive, const std::string& name) {
  try {
    auto [data, size] = archive.getRecord(name);
    return std::string(static_cast<const char*>(data.get()), size);
  } catch (const c10::Error& e) {
    throw Error("cannot read " + name + ": " + std::string(e.what_without_backtrace()).substr(0, 200));
  }
}

std::vector<int64_t> ints(const json& list, const std::string& where) {
  std::vector<int64_t> out;
  check(list.is_array(), where + ": expected a list");
  for (const json& e : list) {
    const json* v = e.is_object() && e.contains("as_int") ? &e["as_int"] : nullptr;
    check(v && v->is_number_integer(), where + ": only concrete sizes are supported");
    out.push_back(v->get<int64_t>());
  }
  return out;
}

// Reads data/<folder>/<config> and returns FQN -> tensor.
std::map<std::string, at::Tensor> read_payloads(caffe2::serialize::PyTorchStreamReader& archive,
                                                const std::string& folder, const std::string& config_name) {
  std::map<std::string, at::Tensor> out;
  const std::string config_path = folder + config_name;
  if (!archive.hasRecord(config_path)) return out;
  json config = json::parse(read_record(archive, config_path), nullptr, false);
  check(config.is_object() && config.contains("config") && config["config"].is_object(),
        config_path + ": expected {\"config\": {...}}");
  std::map<std::string, at::Tensor> files;  // path_name -> its bytes, shared by aliasing weights
  for (auto& [fqn, meta] : config["config"].items()) {
    const std::string where = config_path + " '" + fqn + "'";
    check(meta.is_object() && meta.contains("path_name") && meta.contains("tensor_meta"),
          where + ": expected path_name and tensor_meta");
    check(!meta.value("use_pickle", false), where + ": pickled weights are not supported; run without --weights");
    const std::string file = meta["path_name"].get<std::string>();
    const json& tm = meta["tensor_meta"];
    auto dtype = dtype_from_export_enum(tm.value("dtype", 0));
    check(dtype.has_value(), where + ": unknown dtype");
    std::vector<int64_t> sizes = ints(tm["sizes"], where + ".sizes");
    std::vector<int64_t> strides = ints(tm["strides"], where + ".strides");
    int64_t offset = 0;
    if (tm.contains("storage_offset") && tm["storage_offset"].is_object())
      offset = tm["storage_offset"].value("as_int", int64_t{0});
    const int64_t item = dtype_size(*dtype);
    if (!files.count(file)) {
      const std::string bytes = read_record(archive, folder + file);
      check(item > 0 && bytes.size() % item == 0, where + ": record size is not a multiple of the element size");
      at::Tensor flat =
          at::empty({static_cast<int64_t>(bytes.size()) / item}, at::TensorOptions().dtype(to_scalar_type(*dtype)));
      std::memcpy(flat.data_ptr(), bytes.data(), bytes.size());
      files[file] = flat;
    }
    at::Tensor flat = files[file];
    check(flat.scalar_type() == to_scalar_type(*dtype), where + ": shares a record with a tensor of another dtype");
    int64_t needed = offset + 1;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == 0) needed = 0;
      if (needed) needed += (sizes[d] - 1) * strides[d];
    }
    check(needed <= flat.numel(), where + ": sizes and strides reach past the stored bytes");
    out[fqn] = flat.as_strided(sizes, strides, offset);
  }
  return out;
}

}  // namespace

std::map<std::string, at::Tensor> load_pt2_weights(const std::string& path) {
  std::unique_ptr<caffe2::serialize::PyTorchStreamReader> archive;
  try {
    archive = std::make_unique<caffe2::serialize::PyTorchStreamReader>(path);
  } catch (const c10::Error& e) {
    throw Error(path + ": cannot open archive: " + std::string(e.what_without_backtrace()).substr(0, 200));
  }
  json model = json::parse(read_record(*archive, "models/model.json"), nullptr, false);
  check(model.is_object(), path + ": models/model.json is not valid JSON");
  auto weights = read_payloads(*archive, "data/weights/", "model_weights_config.json");
  auto constants = read_payloads(*archive, "data/constants/", "model_constants_config.json");

  // The signature says which graph input receives which state-dict entry.
  std::map<std::string, at::Tensor> out;
  const json* specs = nullptr;
  if (model.contains("graph_module") && model["graph_module"].contains("signature"))
    specs = &model["graph_module"]["signature"]["input_specs"];
  check(specs && specs->is_array(), path + ": model.json has no signature.input_specs");
  for (const json& spec : *specs) {
    if (!spec.is_object() || spec.empty()) continue;
    const auto first = spec.begin();
    const std::string kind = first.key();
    const json& body = first.value();
    const char* key = kind == "parameter"         ? "parameter_name"
                      : kind == "buffer"          ? "buffer_name"
                      : kind == "tensor_constant" ? "tensor_constant_name"
                                                  : nullptr;
    if (!key || !body.contains(key) || !body.contains("arg")) continue;
    const std::string fqn = body[key].get<std::string>();
    const json& arg = body["arg"];
    std::string name = arg.contains("name")        ? arg["name"].get<std::string>()
                       : arg.contains("as_tensor") ? arg["as_tensor"]["name"].get<std::string>()
                                                   : "";
    // Non-persistent buffers are stored with the constants.
    const auto& source = weights.count(fqn) ? weights : constants;
    auto it = source.find(fqn);
    check(it != source.end(), path + ": no stored tensor for " + kind + " '" + fqn +
                                  "' (an archive without weights? run without --weights)");
    out[name] = it->second;
  }
  return out;
}

}  // namespace kc::validate
