#include "validate/script_runner.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/grad_mode.h>
#include <torch/csrc/jit/codegen/fuser/interface.h>
#include <torch/csrc/jit/passes/tensorexpr_fuser.h>
#include <torch/csrc/jit/python/update_graph_executor_opt.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include <atomic>
#include <thread>

#include "analyzer/error.h"
#include "validate/cupti_recorder.h"
#include "validate/graph_runner.h"
#include "validate/measurement.h"

namespace kc::validate {
namespace {

// RecordFunction callbacks are plain function pointers, so the trace they write lives here.
// Only the thread that runs forward() is traced, and only during a tagged run.
struct Trace {
  std::atomic<bool> active{false};
  std::thread::id thread;
  std::vector<std::string>* names = nullptr;
  bool failed = false;  // a push or pop was refused by CUPTI
};
Trace g_trace;
thread_local int t_depth = 0;
thread_local bool t_pushed = false;

std::unique_ptr<at::ObserverContext> on_enter(const at::RecordFunction& fn) {
  if (!g_trace.active || std::this_thread::get_id() != g_trace.thread) return nullptr;
  if (t_depth++ > 0) return nullptr;  // nested inside another aten op: its work is that op's
  std::string name = fn.name();
  if (auto op = fn.operator_name(); op && !op->overload_name.empty()) name = op->name + "." + op->overload_name;
  g_trace.names->push_back(name);
  try {
    CuptiRecorder::push(g_trace.names->size());
    t_pushed = true;
  } catch (...) {
    g_trace.failed = true;
  }
  return nullptr;
}

void on_exit(const at::RecordFunction&, at::ObserverContext*) {
  if (std::this_thread::get_id() != g_trace.thread || t_depth == 0) return;
  if (--t_depth > 0 || !t_pushed) return;
  t_pushed = false;
  try {
    CuptiRecorder::pop();
  } catch (...) {
    g_trace.failed = true;
  }
}

}  // namespace

ScriptRunner::ScriptRunner(const Graph& g, c10::Device device) : g_(g) {
  // Eager behaviour: no graph optimizations, no fusion groups.
  torch::jit::setGraphExecutorOptimize(false);
  torch::jit::overrideCanFuseOnCPU(false);
  torch::jit::overrideCanFuseOnGPU(false);
  torch::jit::setTensorExprFuserEnabled(false);
  try {
    // As a user's torch.jit.load leaves it: a model saved on a GPU keeps each tensor where it
    // was saved (its literal constants on the host); one saved on the host moves there whole.
    const bool saved_on_gpu = g.info.saved_device.rfind("cuda", 0) == 0;
    module_ = saved_on_gpu ? torch::jit::load(g.info.path) : torch::jit::load(g.info.path, device);
  } catch (const c10::Error& e) {
    throw Error("cannot load TorchScript model onto the GPU: " +
                std::string(e.what_without_backtrace()).substr(0, 300));
  }
  module_.eval();
  for (int v : g.inputs) inputs_.push_back(random_tensor(g.values[v], device));
  callback_ = at::addGlobalCallback(
      at::RecordFunctionCallback(on_enter, on_exit).scopes({at::RecordScope::FUNCTION}).needsInputs(false));
}

ScriptRunner::~ScriptRunner() {
  at::removeCallback(callback_);
}

void ScriptRunner::run(bool tag) {
  at::NoGradGuard no_grad;
  if (tag) {
    runtime_ops_.clear();
    g_trace.names = &runtime_ops_;
    g_trace.thread = std::this_thread::get_id();
    g_trace.failed = false;
    g_trace.active = true;
  }
  try {
    module_.forward(inputs_);
  } catch (const c10::Error& e) {
    g_trace.active = false;
    throw Error("forward() failed on the GPU: " + std::string(e.what_without_backtrace()).substr(0, 300));
  }
  if (!tag) return;
  g_trace.active = false;
  check(!g_trace.failed, "CUPTI refused an external correlation id: the attribution would be wrong");
  std::vector<std::string> graph_ops;
  std::vector<bool> dispatched;
  for (const Op& op : g_.ops) {
    graph_ops.push_back(op.full_name());
    dispatched.push_back(c10::Dispatcher::singleton().findSchema({op.name, op.overload}).has_value());
  }
  op_of_id_ = align_by_name(runtime_ops_, graph_ops, dispatched);
}

std::vector<std::string> ScriptRunner::unmatched() const {
  std::vector<std::string> out;
  for (size_t k = 0; k < op_of_id_.size(); ++k)
    if (op_of_id_[k] < 0) out.push_back(runtime_ops_[k]);
  return out;
}

}  // namespace kc::validate
