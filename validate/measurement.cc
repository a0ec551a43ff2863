#include "validate/measurement.h"

namespace kc::validate {

void MeasuredWork::add(const GpuActivity& a) {
  switch (a.kind) {
    case GpuActivity::Kind::kKernel:
      ++counts.kernels;
      kernel_names.push_back(a.name);
      break;
    case GpuActivity::Kind::kMemcpy:
      ++counts.memcpy;
      memcpy_kinds.push_back(a.name);
      break;
    case GpuActivity::Kind::kMemset:
      ++counts.memset;
      break;
  }
}

void attribute(const std::vector<GpuActivity>& activities, const std::vector<int>& op_of, Measurement& m) {
  for (const GpuActivity& a : activities) {
    int op = -1;
    if (a.external_id >= 1 && a.external_id <= op_of.size()) op = op_of[a.external_id - 1];
    if (op >= 0 && op < static_cast<int>(m.ops.size()))
      m.ops[op].add(a);
    else
      m.unattributed.add(a);
  }
}

std::vector<int> align_by_name(const std::vector<std::string>& runtime_ops, const std::vector<std::string>& graph_ops,
                               const std::vector<bool>& dispatched, int window) {
  std::vector<int> out(runtime_ops.size(), -1);
  size_t next = 0;  // first graph op not yet matched or skipped
  for (size_t r = 0; r < runtime_ops.size(); ++r) {
    for (size_t g = next; g < graph_ops.size() && g < next + static_cast<size_t>(window); ++g) {
      if (graph_ops[g] == runtime_ops[r]) {
        out[r] = static_cast<int>(g);
        next = g + 1;
        break;
      }
    }
  }
  // Runtime ops left unmatched between two matches go to the undispatched graph ops there.
  const int n_graph = static_cast<int>(graph_ops.size());
  int prev = -1;  // graph op of the last runtime op matched by name
  for (size_t r = 0; r < runtime_ops.size();) {
    if (out[r] >= 0) {
      prev = out[r++];
      continue;
    }
    size_t end = r;
    while (end < runtime_ops.size() && out[end] < 0) ++end;
    const int limit = end < runtime_ops.size() ? out[end] : n_graph;
    int g = prev + 1, last = -1;
    for (; r < end; ++r) {
      while (g < limit && (g >= static_cast<int>(dispatched.size()) || dispatched[g])) ++g;
      if (g < limit) last = g++;
      out[r] = last;
    }
  }
  return out;
}

namespace {

void erase_all(std::string& s, const std::string& what) {
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p)) s.erase(p, what.size());
}

}  // namespace

std::string short_kernel_name(const std::string& name, size_t max_len) {
  std::string s = name;
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  // Drop the parameter list: the parenthesised group that ends the name.
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        if (i > 0) s.erase(i);
        break;
      }
    }
  }
  for (const char* ns : {"(anonymous namespace)::", "at::native::", "at::cuda::", "at::", "c10::", "cutlass::"})
    erase_all(s, ns);
  if (s.size() > max_len && max_len > 3) s = s.substr(0, max_len - 3) + "...";
  return s;
}

}  // namespace kc::validate
