#include "passes/torch2_11/cudnn_heuristics.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "analyzer/error.h"
#include "analyzer/tensor_geometry.h"

#if KC_HAVE_CUDNN_HEADERS
#include <cudnn_graph.h>
#include <dlfcn.h>
#endif

namespace kc::torch2_11 {

#if !KC_HAVE_CUDNN_HEADERS

struct CudnnHeuristics::Api {};

namespace {
const std::string kStatus = "cuDNN heuristics: not built in (no cuDNN headers when kernelcount was built)";
}
const CudnnHeuristics* CudnnHeuristics::get(const std::string&) {
  return nullptr;
}
const std::string& CudnnHeuristics::status() {
  return kStatus;
}
size_t CudnnHeuristics::probe_version() {
  return 0;
}
size_t CudnnHeuristics::version() const {
  return 0;
}
std::optional<CudnnEngineChoice> CudnnHeuristics::choose(const CudnnConvQuery&) const {
  return std::nullopt;
}
std::string CudnnHeuristics::live_device_properties(int) const {
  throw Error("cuDNN heuristics are not built in");
}

#else

// The backend entry points, resolved from the loaded library.
struct CudnnHeuristics::Api {
  size_t (*get_version)() = nullptr;
  cudnnStatus_t (*create)(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t*) = nullptr;
  cudnnStatus_t (*destroy)(cudnnBackendDescriptor_t) = nullptr;
  cudnnStatus_t (*set)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t, int64_t,
                       const void*) = nullptr;
  cudnnStatus_t (*get)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t, int64_t,
                       int64_t*, void*) = nullptr;
  cudnnStatus_t (*finalize)(cudnnBackendDescriptor_t) = nullptr;
  cudnnBackendDescriptor_t device = nullptr;  // the device properties asked with, finalized
};

namespace {

using Api = CudnnHeuristics::Api;

// One backend descriptor, destroyed with its scope.
class Desc {
 public:
  Desc(const Api& api, cudnnBackendDescriptorType_t type) : api_(api) {
    if (api_.create(type, &d_) != CUDNN_STATUS_SUCCESS) throw Error("cuDNN: cannot create a descriptor");
  }
  ~Desc() {
    if (d_) api_.destroy(d_);
  }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  cudnnBackendDescriptor_t get() const { return d_; }
  void set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t n, const void* v) const {
    if (api_.set(d_, name, type, n, v) != CUDNN_STATUS_SUCCESS)
      throw Error("cuDNN: a convolution attribute is refused");
  }
  void set_ints(cudnnBackendAttributeName_t name, const std::vector<int64_t>& v) const {
    set(name, CUDNN_TYPE_INT64, static_cast<int64_t>(v.size()), v.data());
  }
  void set_desc(cudnnBackendAttributeName_t name, const Desc& other) const {
    cudnnBackendDescriptor_t d = other.get();
    set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d);
  }
  bool finalize() const { return api_.finalize(d_) == CUDNN_STATUS_SUCCESS; }

 private:
  const Api& api_;
  cudnnBackendDescriptor_t d_ = nullptr;
};

// n descriptors of one type, for the attributes whose values are arrays of descriptors the
// caller creates (cudnnBackendGetAttribute fills them).
struct Descs {
  Descs(const Api& api, cudnnBackendDescriptorType_t type, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      owned.push_back(std::make_unique<Desc>(api, type));
      raw.push_back(owned.back()->get());
    }
  }
  std::vector<std::unique_ptr<Desc> > owned;
  std::vector<cudnnBackendDescriptor_t> raw;
};

// Strides of a dense tensor, row-major or channels last; a size-1 dimension's stride as ATen's
// fixSizeOneDimStride sets it (cuDNN checks the invariant for dense tensors).
std::vector<int64_t> dense_strides(const std::vector<int64_t>& sizes, bool channels_last) {
  const size_t n = sizes.size();
  std::vector<int> order = channels_last_order(n);  // innermost first
  if (!channels_last)
    for (size_t i = 0; i < n; ++i) order[i] = static_cast<int>(n - 1 - i);
  std::vector<int64_t> strides(n, 1);
  int64_t z = 1;
  for (int d : order) {
    strides[d] = z;
    if (sizes[d] != 1 && __builtin_mul_overflow(z, sizes[d], &z))
      throw Error("cuDNN heuristics: a convolution tensor of more than 2^63 elements");
  }
  return strides;
}

cudnnDataType_t cudnn_dtype(DType t) {
  switch (t) {
    case DType::kFloat32:
      return CUDNN_DATA_FLOAT;
    case DType::kBFloat16:
      return CUDNN_DATA_BFLOAT16;
    case DType::kFloat16:
      return CUDNN_DATA_HALF;
    default:
      throw Error("cuDNN heuristics: a convolution in " + std::string(dtype_name(t)));
  }
}

std::unique_ptr<Desc> tensor(const Api& api, const std::vector<int64_t>& sizes, bool cl, int64_t id,
                             cudnnDataType_t dt) {
  auto t = std::make_unique<Desc>(api, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const int64_t alignment = 16;  // ATen's getAlignment of a fresh allocation
  t->set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
  t->set_ints(CUDNN_ATTR_TENSOR_DIMENSIONS, sizes);
  t->set_ints(CUDNN_ATTR_TENSOR_STRIDES, dense_strides(sizes, cl));
  t->set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &id);
  t->set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
  if (!t->finalize()) throw Error("cuDNN: a convolution tensor is refused");
  return t;
}

// The engine behind an engine configuration: its global index and whether it down-converts its
// inputs (ATen's filterEngineConfigs drops those).
struct EngineInfo {
  int64_t index = -1;
  bool down_converts = false;
};
EngineInfo engine_of(const Api& api, const Desc& config) {
  Desc engine(api, CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  cudnnBackendDescriptor_t e = engine.get();
  int64_t n = 0;
  if (api.get(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e) !=
      CUDNN_STATUS_SUCCESS)
    return {};
  EngineInfo info;
  api.get(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &info.index);
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  if (api.get(e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n,
              notes) == CUDNN_STATUS_SUCCESS)
    for (int64_t i = 0; i < n && i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; ++i)
      info.down_converts |= notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS;
  return info;
}

// The knob values of an engine configuration, in kCudnnKnobs order.
std::array<int64_t, kCudnnKnobs.size()> knobs_of(const Api& api, const Desc& config) {
  std::array<int64_t, kCudnnKnobs.size()> out;
  out.fill(-9);
  constexpr int kMaxChoices = CUDNN_KNOB_TYPE_COUNTS;
  Descs choices(api, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, kMaxChoices);
  std::vector<cudnnBackendDescriptor_t>& raw = choices.raw;
  int64_t n = 0;
  if (api.get(config.get(), CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, kMaxChoices, &n,
              raw.data()) != CUDNN_STATUS_SUCCESS)
    return out;
  for (int64_t i = 0; i < n && i < kMaxChoices; ++i) {
    cudnnBackendKnobType_t type;
    int64_t value = 0, m = 0;
    if (api.get(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &m, &type) != CUDNN_STATUS_SUCCESS ||
        api.get(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &m, &value) != CUDNN_STATUS_SUCCESS)
      continue;
    for (size_t k = 0; k < kCudnnKnobs.size(); ++k)
      if (kCudnnKnobs[k] == static_cast<int>(type)) out[k] = value;
  }
  return out;
}

// dlopen of name from each folder of dirs (':'-separated) in turn, then by the loader's search.
void* open_from(const std::string& dirs, const char* name, int flags, std::string& where) {
  std::stringstream ss(dirs);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    const std::string path = dir + "/" + name;
    if (void* h = dlopen(path.c_str(), flags)) {
      where = path;
      return h;
    }
  }
  if (void* h = dlopen(name, flags)) {
    where = name;
    return h;
  }
  return nullptr;
}

#ifndef KC_CUDNN_DIRS
#define KC_CUDNN_DIRS ""
#endif

struct Loaded {
  Api api;                          // without a device: each set of properties gets its own copy
  bool usable = false;              // the library loaded and is of the version the target runs
  const char* gpu = nullptr;        // KERNELCOUNT_CUDNN_GPU: api.device is that GPU's own
  std::map<std::string, Api> apis;  // by device properties
  std::map<std::string, std::unique_ptr<CudnnHeuristics> > heuristics;  // nullptr: refused
  std::string status;
};

// KERNELCOUNT_CUDNN: "off", or folders to look for cuDNN in before the build's own.
std::string cudnn_setting() {
  const char* env = std::getenv("KERNELCOUNT_CUDNN");
  return env ? env : "";
}
std::string cudnn_dirs() {
  return cudnn_setting() + ":" + KC_CUDNN_DIRS;
}

Loaded load() {
  Loaded l;
  if (cudnn_setting() == "off") {
    l.status = "cuDNN heuristics: off (KERNELCOUNT_CUDNN=off)";
    return l;
  }
  const std::string dirs = cudnn_dirs();
  std::string cublas_at, cudnn_at;
  // cuDNN's engines call into cuBLASLt and abort when it is missing: it must load first.
  if (!open_from(dirs, "libcublasLt.so.13", RTLD_LAZY | RTLD_GLOBAL, cublas_at)) {
    l.status = "cuDNN heuristics: unavailable (no libcublasLt.so.13)";
    return l;
  }
  void* h = open_from(dirs, "libcudnn.so.9", RTLD_LAZY | RTLD_LOCAL, cudnn_at);
  if (!h) {
    l.status = "cuDNN heuristics: unavailable (no libcudnn.so.9)";
    return l;
  }
  Api& a = l.api;
  a.get_version = reinterpret_cast<size_t (*)()>(dlsym(h, "cudnnGetVersion"));
  a.create = reinterpret_cast<decltype(a.create)>(dlsym(h, "cudnnBackendCreateDescriptor"));
  a.destroy = reinterpret_cast<decltype(a.destroy)>(dlsym(h, "cudnnBackendDestroyDescriptor"));
  a.set = reinterpret_cast<decltype(a.set)>(dlsym(h, "cudnnBackendSetAttribute"));
  a.get = reinterpret_cast<decltype(a.get)>(dlsym(h, "cudnnBackendGetAttribute"));
  a.finalize = reinterpret_cast<decltype(a.finalize)>(dlsym(h, "cudnnBackendFinalize"));
  if (!a.get_version || !a.create || !a.destroy || !a.set || !a.get || !a.finalize) {
    l.status = "cuDNN heuristics: unavailable (" + cudnn_at + " lacks the backend API)";
    return l;
  }
  const size_t version = a.get_version();
  // The heuristics are the version's own: another version may choose other engines.
  if (!CudnnHeuristics::supported_version(version)) {
    l.status = "cuDNN heuristics: unavailable (" + cudnn_at + " is cuDNN " + std::to_string(version) +
               ", the target runs 9.19)";
    return l;
  }
  // KERNELCOUNT_CUDNN_GPU=N (a GPU machine) asks as GPU N itself does, whatever the target,
  // which is how validate checks that a target's properties give the GPU's own answers.
  l.gpu = std::getenv("KERNELCOUNT_CUDNN_GPU");
  if (l.gpu) {
    const int32_t id = static_cast<int32_t>(std::strtol(l.gpu, nullptr, 10));
    bool described = a.create(CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR, &a.device) == CUDNN_STATUS_SUCCESS &&
                     a.set(a.device, CUDNN_ATTR_DEVICEPROP_DEVICE_ID, CUDNN_TYPE_INT32, 1, &id) == CUDNN_STATUS_SUCCESS;
    if (!described || a.finalize(a.device) != CUDNN_STATUS_SUCCESS) {
      if (a.device) a.destroy(a.device);
      a.device = nullptr;
      l.status = "cuDNN heuristics: unavailable (" + cudnn_at + " refuses GPU " + l.gpu + "'s own device properties)";
      return l;
    }
  }
  l.usable = true;
  l.status = "cuDNN heuristics: cuDNN " + std::to_string(version) + " (" + cudnn_at + "), " +
             (l.gpu ? std::string("GPU ") + l.gpu + "'s own device properties" : "the target's device properties");
  return l;
}

Loaded& loaded() {
  static Loaded l = load();
  return l;
}

}  // namespace

const CudnnHeuristics* CudnnHeuristics::get(const std::string& properties) {
  Loaded& l = loaded();
  if (!l.usable) return nullptr;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const std::string key = l.gpu ? std::string() : properties;
  auto [it, added] = l.heuristics.try_emplace(key);
  if (!added) return it->second.get();
  Api& a = l.apis.emplace(key, l.api).first->second;
  if (!l.gpu) {
    a.device = nullptr;
    const bool described = a.create(CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR, &a.device) == CUDNN_STATUS_SUCCESS &&
                           a.set(a.device, CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                                 static_cast<int64_t>(properties.size()), properties.data()) == CUDNN_STATUS_SUCCESS &&
                           a.finalize(a.device) == CUDNN_STATUS_SUCCESS;
    if (!described) {
      if (a.device) a.destroy(a.device);
      a.device = nullptr;
      return nullptr;  // cuDNN refuses these properties: asked as no device, it answers nothing
    }
  }
  it->second = std::make_unique<CudnnHeuristics>(&a);
  return it->second.get();
}

const std::string& CudnnHeuristics::status() {
  return loaded().status;
}

size_t CudnnHeuristics::probe_version() {
  if (cudnn_setting() == "off") return 0;
  // libcudnn.so.9 alone is a small front: its engines, sub-libraries and cuBLASLt load on the
  // first descriptor, so opening it to read the version costs next to nothing.
  std::string where;
  void* h = open_from(cudnn_dirs(), "libcudnn.so.9", RTLD_LAZY | RTLD_LOCAL, where);
  if (!h) return 0;
  auto get_version = reinterpret_cast<size_t (*)()>(dlsym(h, "cudnnGetVersion"));
  const size_t version = get_version ? get_version() : 0;
  dlclose(h);
  return version;
}

size_t CudnnHeuristics::version() const {
  return api_->get_version();
}

std::optional<CudnnEngineChoice> CudnnHeuristics::choose(const CudnnConvQuery& q) const {
  std::ostringstream key;
  key << static_cast<int>(q.dtype) << (q.backward_data ? "d" : "") << (q.channels_last ? 'c' : 'n');
  for (const auto* v : {&q.x, &q.w, &q.padding, &q.stride, &q.dilation}) {
    key << '|';
    for (int64_t d : *v) key << d << ',';
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, added] = answers_.try_emplace(key.str());
  if (added) {
    try {
      it->second = ask(q);
    } catch (const Error&) {
      it->second = std::nullopt;
    }
  }
  return it->second;
}

std::string CudnnHeuristics::live_device_properties(int device) const {
  const Api& api = *api_;
  Desc props(api, CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR);
  const int32_t id = device;
  props.set(CUDNN_ATTR_DEVICEPROP_DEVICE_ID, CUDNN_TYPE_INT32, 1, &id);
  check(props.finalize(), "cuDNN cannot read the properties of GPU " + std::to_string(device));
  int64_t n = 0;
  std::string json(1 << 16, '\0');
  check(api.get(props.get(), CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                static_cast<int64_t>(json.size()), &n, json.data()) == CUDNN_STATUS_SUCCESS,
        "cuDNN cannot serialize the properties of GPU " + std::to_string(device));
  json.resize(static_cast<size_t>(std::min<int64_t>(n, static_cast<int64_t>(json.size()))));
  while (!json.empty() && json.back() == '\0') json.pop_back();
  return json;
}

std::optional<CudnnEngineChoice> CudnnHeuristics::ask(const CudnnConvQuery& q) const {
  const Api& api = *api_;
  const size_t rank = q.x.size();
  const size_t nsp = rank - 2;
  check((rank == 4 || rank == 5) && q.w.size() == rank && q.padding.size() == nsp && q.stride.size() == nsp &&
            q.dilation.size() == nsp,
        "cuDNN heuristics: a convolution of the wrong rank");
  std::vector<int64_t> y = {q.x[0], q.w[0]};
  for (size_t d = 0; d < nsp; ++d) {
    // In 128 bits: the rules bound each value by 2^31, a query from elsewhere may not.
    const __int128 span = static_cast<__int128>(q.dilation[d]) * (q.w[2 + d] - 1) + 1;
    const __int128 out = (static_cast<__int128>(q.x[2 + d]) + 2 * static_cast<__int128>(q.padding[d]) - span) /
                             std::max<int64_t>(q.stride[d], 1) +
                         1;
    check(out >= 1 && out <= std::numeric_limits<int64_t>::max(), "cuDNN heuristics: no output pixel");
    y.push_back(static_cast<int64_t>(out));
  }
  const cudnnDataType_t dt = cudnn_dtype(q.dtype);
  auto x = tensor(api, q.x, q.channels_last, 'x', dt);
  auto out = tensor(api, y, q.channels_last, 'y', dt);
  auto w = tensor(api, q.w, q.channels_last, 'w', dt);

  Desc conv(api, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;  // float accumulation for every dtype (ATen)
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const int64_t dims = static_cast<int64_t>(nsp);
  conv.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
  conv.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  conv.set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims);
  conv.set_ints(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, q.stride);
  conv.set_ints(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, q.padding);
  conv.set_ints(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, q.padding);
  conv.set_ints(CUDNN_ATTR_CONVOLUTION_DILATIONS, q.dilation);
  check(conv.finalize(), "cuDNN heuristics: the convolution's arguments are refused");

  const float alpha = 1, beta = 0;
  Desc op(api, q.backward_data ? CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR
                               : CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
  if (q.backward_data) {
    op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, *x);
    op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, *w);
    op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, *out);
    op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, conv);
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
  } else {
    op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, *x);
    op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, *w);
    op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, *out);
    op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, conv);
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
  }
  check(op.finalize(), "cuDNN heuristics: the convolution is refused");

  Desc graph(api, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  graph.set_desc(CUDNN_ATTR_OPERATIONGRAPH_OPS, op);
  check(graph.finalize(), "cuDNN heuristics: the convolution's graph is refused");

  Desc heur(api, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  const cudnnBackendHeurMode_t heur_mode = CUDNN_HEUR_MODE_INSTANT;
  heur.set_desc(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
  heur.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &heur_mode);
  heur.set(CUDNN_ATTR_ENGINEHEUR_DEVICEPROP, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &api.device);
  CudnnEngineChoice choice;
  if (!heur.finalize()) return choice;
  int64_t count = 0;
  if (api.get(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr) !=
          CUDNN_STATUS_SUCCESS ||
      count <= 0)
    return choice;
  Descs configs(api, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, count);
  int64_t got = 0;
  if (api.get(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
              configs.raw.data()) != CUDNN_STATUS_SUCCESS)
    return choice;
  // ATen tries the configurations in the heuristic's order and runs the first whose plan builds.
  for (int64_t i = 0; i < got; ++i) {
    const EngineInfo info = engine_of(api, *configs.owned[i]);
    if (choice.engine >= 0) {
      choice.next_engine = info.index;
      break;
    }
    if (info.down_converts) continue;
    Desc plan(api, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    plan.set_desc(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, *configs.owned[i]);
    if (!plan.finalize()) continue;
    int64_t n = 0;
    api.get(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &choice.workspace);
    choice.engine = info.index;
    choice.knobs = knobs_of(api, *configs.owned[i]);
  }
  return choice;
}

#endif

}  // namespace kc::torch2_11
