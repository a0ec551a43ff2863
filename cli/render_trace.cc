// --format trace: Chrome / Perfetto trace JSON (the Trace Event Format) of the predicted
// launches, back to back at their time floors: eager on one track, fused on another. Open it
// in ui.perfetto.dev or chrome://tracing beside a torch.profiler trace of the real run.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "analyzer/describe.h"
#include "cli/render.h"
#include "cli/table.h"

namespace kc {
namespace {

constexpr int kPid = 1;
constexpr int kEagerTid = 1;
constexpr int kFusedTid = 2;

nlohmann::json meta(const char* what, int tid, const std::string& name) {
  return {{"name", what}, {"ph", "M"}, {"pid", kPid}, {"tid", tid}, {"args", {{"name", name}}}};
}

struct Track {
  nlohmann::json& events;
  int tid;
  // The clock counts whole picoseconds, so that timestamps read 27.2, not the float sum
  // 27.200000000000003, and each event starts exactly where the last one ended.
  int64_t now_ps = 0;
  // One complete event ("ph": "X") starting where the last one ended.
  void add(const std::string& name, const char* cat, double dur_us, nlohmann::json args) {
    const int64_t dur_ps = std::llround(dur_us * 1e6);
    events.push_back({{"name", name},
                      {"cat", cat},
                      {"ph", "X"},
                      {"pid", kPid},
                      {"tid", tid},
                      {"ts", static_cast<double>(now_ps) / 1e6},
                      {"dur", static_cast<double>(dur_ps) / 1e6},
                      {"args", std::move(args)}});
    now_ps += dur_ps;
  }
};

nlohmann::json op_args(const Graph& g, const Report& r, int i) {
  const Op& op = g.ops[i];
  return {{"op", op.full_name()},         {"op_index", i},
          {"source", format_loc(op.loc)}, {"code", op.loc.code.str()},
          {"module", op.module.str()},    {"rule", r.launches[i].rule}};
}

// Microseconds to whole picoseconds, as the clock counts: 20.4, not 20.400000000000002.
double rounded_us(double us) {
  return static_cast<double>(std::llround(us * 1e6)) / 1e6;
}

// The eager launches of op i, sharing the op's floor equally: memsets first (a GEMM's zeroed
// workspace is cleared before the GEMM runs in it), then kernels, then memcpys (a copy of a
// result follows the kernel that makes it). The kernel name table lists kernels, memcpys, memsets.
void eager_launches(Track& t, const Graph& g, const Report& r, int i, const char* track_prefix) {
  const Counts& c = r.launches[i].counts;
  const int n = c.kernels + c.memcpy + c.memset;
  if (!r.launches[i].known) {
    // No rule says what it launches: one event of its floor, marked unknown, so the track's
    // time still adds up to the report's and the gap is visible where it happens.
    if (r.time[i].floor_s() <= 0) return;
    nlohmann::json args = op_args(g, r, i);
    args["floor_us"] = rounded_us(r.time[i].floor_s() * 1e6);
    t.add(std::string(track_prefix) + short_op(g.ops[i]) + " (unknown launches)", "unknown", r.time[i].floor_s() * 1e6,
          std::move(args));
    return;
  }
  if (n == 0) return;
  const auto& names = r.explain[i].kernel_names;
  const double dur = r.time[i].floor_s() * 1e6 / n;
  std::vector<int> order;
  for (int k = c.kernels + c.memcpy; k < n; ++k) order.push_back(k);
  for (int k = 0; k < c.kernels + c.memcpy; ++k) order.push_back(k);
  for (int launch = 0; launch < n; ++launch) {
    const int k = order[launch];
    const char* cat = k < c.kernels ? "kernel" : k < c.kernels + c.memcpy ? "memcpy" : "memset";
    std::string name = static_cast<int>(names.size()) == n ? std::string(names[k]) : short_op(g.ops[i]) + " " + cat;
    nlohmann::json args = op_args(g, r, i);
    args["floor_us"] = rounded_us(dur);
    args["op_floor_us"] = rounded_us(r.time[i].floor_s() * 1e6);
    args["op_hbm_bytes"] = r.traffic[i].bytes();
    args["launch"] = std::to_string(launch + 1) + " of " + std::to_string(n);
    t.add(std::string(track_prefix) + name, cat, dur, std::move(args));
  }
}

}  // namespace

void render_trace(std::ostream& os, const Graph& g, const Report& r, const RenderOptions&) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back(meta("process_name", 0, "kernelcount: " + g.info.path + " on " + r.target->gpu + " (predicted)"));
  events.push_back(meta("thread_name", kEagerTid, "eager PyTorch"));
  events.push_back(meta("thread_name", kFusedTid,
                        r.fusion.variant == "inductor" ? "torch.compile (Inductor model)" : "pointwise chains fused"));
  Track eager{events, kEagerTid};
  for (size_t i = 0; i < g.ops.size(); ++i) eager_launches(eager, g, r, static_cast<int>(i), "");
  Track fused{events, kFusedTid};
  for (size_t k = 0; k < r.fusion.groups.size(); ++k) {
    const FusionGroup& grp = r.fusion.groups[k];
    if (grp.ops.size() == 1) {
      eager_launches(fused, g, r, grp.ops.front(), "");
      continue;
    }
    std::string members, sources;
    nlohmann::json ops = nlohmann::json::array();
    for (int i : grp.ops) {
      members += (members.empty() ? "" : " + ") + short_op(g.ops[i]);
      ops.push_back(g.ops[i].full_name());
    }
    const Op& lead = g.ops[grp.ops.front()];
    for (int k2 = 0; k2 < grp.fused_kernels; ++k2)
      fused.add("fused F" + std::to_string(k) + ": " + members, "kernel", grp.floor_s * 1e6 / grp.fused_kernels,
                {{"group", "F" + std::to_string(k)},
                 {"ops", ops},
                 {"op_index", grp.ops.front()},
                 {"source", format_loc(lead.loc)},
                 {"code", lead.loc.code},
                 {"floor_us", rounded_us(grp.floor_s * 1e6)},
                 {"hbm_bytes", grp.fused.bytes()},
                 {"eager_kernels", grp.eager_kernels}});
  }
  const Totals& t = r.totals;
  nlohmann::json doc = {{"traceEvents", events},
                        {"displayTimeUnit", "ns"},
                        {"otherData",
                         {{"model", g.info.path},
                          {"target", r.target->name},
                          {"note", "predicted, not measured: each launch lasts its share of its op's time floor"},
                          {"eager_kernels", t.eager.kernels},
                          {"fused_kernels", t.fused_kernels},
                          {"memcpy", t.eager.memcpy},
                          {"memset", t.eager.memset},
                          {"eager_time_floor_us", rounded_us(t.eager_time_floor_s * 1e6)},
                          {"fused_time_floor_us", rounded_us(t.fused_time_floor_s * 1e6)}}}};
  os << doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace kc
