// kernelcount-cudnn-engines: cuDNN's engine choice for convolutions, asked without a GPU
// (passes/torch2_11/cudnn_heuristics.h), for generators/fit_conv.py, which learns what
// each choice launches from the measured convolutions. Reads JSON lines
// {"dtype", "x": sizes, "w": sizes, "cl": channels last, "pad", "stride", "dil"} (4-d or 5-d,
// one value per spatial dimension; "bwd": true asks for the data gradient, x then being the
// gradient computed: what a transposed convolution runs) and writes one line each:
// {"engine", "knobs": [kCudnnKnobs order], "workspace", "next_engine"} or {"error"}.
//   kernelcount-cudnn-engines < queries.jsonl > engines.jsonl
//   kernelcount-cudnn-engines --live-properties   (a GPU machine: GPU 0's properties as JSON)
// --target NAME asks with that target's device properties (default: the registry's first).
// With KERNELCOUNT_CUDNN_GPU=0 on a GPU machine the answers are cuDNN's for GPU 0 itself rather
// than for the target's device properties: validate/device_cudnn.sh compares the two.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/dtype.h"
#include "analyzer/error.h"
#include "passes/target.h"
#include "passes/torch2_11/cudnn_heuristics.h"

int main(int argc, char** argv) {
  using nlohmann::json;
  const kc::Target* target = &kc::default_target();
  bool live = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    try {
      if (arg == "--target" && i + 1 < argc)
        target = &kc::find_target(argv[++i]);
      else if (arg == "--live-properties")
        live = true;
      else
        throw kc::Error("unknown argument '" + arg + "'");
    } catch (const kc::Error& e) {
      std::cerr << "kernelcount-cudnn-engines: " << e.what() << "\n";
      return 2;
    }
  }
  const kc::torch2_11::CudnnHeuristics* heuristics =
      kc::torch2_11::CudnnHeuristics::get(target->device.cudnn_properties);
  std::cerr << kc::torch2_11::CudnnHeuristics::status() << "\n";
  if (!heuristics) return 2;
  if (live) {
    try {
      std::cout << heuristics->live_device_properties(0) << "\n";
      return 0;
    } catch (const kc::Error& e) {
      std::cerr << "kernelcount-cudnn-engines: " << e.what() << "\n";
      return 2;
    }
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    json out;
    try {
      const json q = json::parse(line);
      kc::torch2_11::CudnnConvQuery query;
      const auto dtype = kc::parse_dtype(q.at("dtype").get<std::string>());
      kc::check(dtype.has_value(), "unknown dtype");
      query.dtype = *dtype;
      query.x = q.at("x").get<std::vector<int64_t>>();
      query.w = q.at("w").get<std::vector<int64_t>>();
      query.channels_last = q.value("cl", false);
      query.padding = q.at("pad").get<std::vector<int64_t>>();
      query.stride = q.at("stride").get<std::vector<int64_t>>();
      query.dilation = q.at("dil").get<std::vector<int64_t>>();
      query.backward_data = q.value("bwd", false);
      const std::optional<kc::torch2_11::CudnnEngineChoice> c = heuristics->choose(query);
      kc::check(c.has_value(), "cuDNN refuses the convolution");
      out = {{"engine", c->engine}, {"knobs", c->knobs}, {"workspace", c->workspace}, {"next_engine", c->next_engine}};
    } catch (const std::exception& e) {
      out = {{"error", e.what()}};
    }
    std::cout << out.dump() << "\n";
  }
  return 0;
}
