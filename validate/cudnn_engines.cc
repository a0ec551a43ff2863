// kernelcount-cudnn-engines: cuDNN's engine choice for convolutions, asked without a GPU
// (passes/targets/h200/cudnn_heuristics.h), for generators/fit_conv.py, which learns what
// each choice launches from the measured convolutions. Reads JSON lines
// {"dtype", "x": sizes, "w": sizes, "cl": channels last, "pad", "stride", "dil"} (4-d or 5-d,
// one value per spatial dimension) and writes one line each:
// {"engine", "knobs": [kCudnnKnobs order], "workspace", "next_engine"} or {"error"}.
//   kernelcount-cudnn-engines < queries.jsonl > engines.jsonl
//   kernelcount-cudnn-engines --live-properties   (a GPU machine: GPU 0's properties as JSON)
// With KERNELCOUNT_CUDNN_GPU=0 on a GPU machine the answers are cuDNN's for GPU 0 itself rather
// than for the built-in H200 properties: validate/device_cudnn.sh compares the two.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/dtype.h"
#include "analyzer/error.h"
#include "passes/targets/h200/cudnn_heuristics.h"

int main(int argc, char** argv) {
  using nlohmann::json;
  const kc::h200::CudnnHeuristics* heuristics = kc::h200::CudnnHeuristics::get();
  std::cerr << kc::h200::CudnnHeuristics::status() << "\n";
  if (!heuristics) return 2;
  if (argc > 1 && std::string(argv[1]) == "--live-properties") {
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
      kc::h200::CudnnConvQuery query;
      const auto dtype = kc::parse_dtype(q.at("dtype").get<std::string>());
      kc::check(dtype.has_value(), "unknown dtype");
      query.dtype = *dtype;
      query.x = q.at("x").get<std::vector<int64_t>>();
      query.w = q.at("w").get<std::vector<int64_t>>();
      query.channels_last = q.value("cl", false);
      query.padding = q.at("pad").get<std::vector<int64_t>>();
      query.stride = q.at("stride").get<std::vector<int64_t>>();
      query.dilation = q.at("dil").get<std::vector<int64_t>>();
      const std::optional<kc::h200::CudnnEngineChoice> c = heuristics->choose(query);
      kc::check(c.has_value(), "cuDNN refuses the convolution");
      out = {{"engine", c->engine}, {"knobs", c->knobs}, {"workspace", c->workspace}, {"next_engine", c->next_engine}};
    } catch (const std::exception& e) {
      out = {{"error", e.what()}};
    }
    std::cout << out.dump() << "\n";
  }
  return 0;
}
