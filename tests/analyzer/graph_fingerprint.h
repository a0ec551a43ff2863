// A text that two graphs share exactly when a report could not tell them apart: every value's
// record and every op's name, arguments, outputs, source line, module and traits, the graph's
// inputs, outputs and notes. For tests (and the fuzz target) that compare two ways of loading
// one model.
#pragma once

#include <string>

#include "analyzer/describe.h"
#include "analyzer/graph.h"

namespace kc {

inline std::string graph_fingerprint(const Graph& g) {
  std::string out;
  auto ints = [&](const auto& list) {
    for (auto v : list) out += std::to_string(v) + ",";
    out += ";";
  };
  for (const Value& v : g.values) {
    out += v.name + " " + describe_value(v, Style::kReadable) + " " + v.device.str() + " ";
    out += std::to_string(static_cast<int>(v.role)) + " " + std::to_string(v.producer) + " " +
           std::to_string(v.requires_grad) + "\n";
  }
  for (const Op& op : g.ops) {
    out += op.full_name() + " " + launch_key(g, op) + " ";
    for (const Arg& a : op.args) {
      out += a.name + ":" + std::to_string(static_cast<int>(a.kind)) + ":";
      ints(a.tensors);
      ints(a.ints);
      for (double f : a.floats) out += std::to_string(f) + ",";
      out += a.text + " ";
    }
    ints(op.outputs);
    ints(op.traits.mutated_args);
    out += op.loc.file.str() + ":" + std::to_string(op.loc.line) + " " + op.loc.code.str() + " " + op.module.str() +
           " " + op.module_type.str() + "\n";
  }
  ints(g.inputs);
  ints(g.outputs);
  for (const std::string& note : g.info.notes) out += note + "\n";
  return out;
}

}  // namespace kc
