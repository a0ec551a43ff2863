#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "analyzer/error.h"
#include "passes/inductor.h"
#include "passes/inductor_builder.h"

namespace kc {
namespace inductor {
namespace {

std::string n2s(int64_t x) {
  return std::to_string(x);
}

}  // namespace

// The checks run in the order the scheduler applies them to a candidate pair (fuse_nodes, then
// can_fuse and SIMDScheduling.can_fuse), on the final groups: the last round rejected the pair
// for the first check that fails now.
FusionVerdict Builder::verdict(const FusionPlan& plan, int a, int b) {
  auto name = [&](int i) { return "op " + std::to_string(i) + " " + g.ops[i].full_name(); };
  auto say = [](bool fused, const char* rule, std::string words) {
    return FusionVerdict{fused, rule, std::move(words)};
  };
  if (a == b) return say(true, "fused", "it is one op.");
  for (int i : {a, b})
    if (lower[i] == Lower::kFree)
      return say(false, "view",
                 name(i) +
                     " launches nothing under Inductor (a view or no-op: its readers index its input), so there is "
                     "no kernel to share.");
  const int ga = plan.group_of[a], gb = plan.group_of[b];
  for (int i : {a, b})
    if (plan.group_of[i] >= 0 && plan.groups[plan.group_of[i]].kind == "dead")
      return say(false, "dead-code", name(i) + " is read by nothing that launches: Inductor removes it as dead code.");
  if (ga == gb) {
    std::string words =
        "they share one compiled " + plan.groups[ga].kind + " kernel (group F" + std::to_string(ga) + ")";
    for (int i : {a, b})
      if (node_of[i] < 0) words += "; " + name(i) + " is inlined into the loop that reads it";
    return say(true, "fused", words + ".");
  }
  for (int i : {a, b}) {
    const std::string& kind = plan.groups[plan.group_of[i]].kind;
    if (kind == "extern" || kind == "fallback" || kind == "concat")
      return say(false,
                 kind == "extern"     ? "extern"
                 : kind == "fallback" ? "fallback"
                                      : "concat",
                 name(i) + " is not Triton code (" + why[i] + "): Inductor fuses only Triton loops.");
  }
  const int ra = find(roots_of_groups[ga]), rb = find(roots_of_groups[gb]);
  auto in_pair = [&](int x, int y) {
    const int fx = find(x), fy = find(y);
    return (fx == ra && fy == rb) || (fx == rb && fy == ra);
  };
  const bool candidate =
      std::any_of(candidates.begin(), candidates.end(), [&](const auto& p) { return in_pair(p.first, p.second); });
  if (!candidate) {
    // A producer and its reader are a candidate unless the reader reads through another order.
    for (int r : {ra, rb})
      for (int k : members[r])
        for (int d : deps[k])
          if (find(d) == (r == ra ? rb : ra) && triton(d))
            return say(false, "view-order",
                       "one kernel reads what the other writes through a view in another element order (a permute or "
                       "a slice): can_fuse_vertical needs each element read at the index it is written.");
    return say(false, "no-shared-buffer",
               "neither kernel reads what the other writes, and they read no buffer at the same index: the scheduler "
               "never scores the pair (score_fusion_memory 0).");
  }
  const Node& x = nodes[ra];
  const Node& y = nodes[rb];
  if (x.size + y.size > kMaxFusionSize)
    return say(false, "max-fusion-size",
               "together they would hold " + n2s(x.size + y.size) + " nodes, over Inductor's limit of " +
                   n2s(kMaxFusionSize) + " in one kernel (max_fusion_size).");
  if (split_node(ra) || split_node(rb))
    return say(false, "split-reduction",
               "one holds a reduction split into several kernels (partial results level by level, then theirs), "
               "which loop over other ranges than their neighbours'.");
  if (reads_stats(ra, rb) || reads_stats(rb, ra))
    return say(false, "stats-index",
               "one reads the statistics the other's reduction computes broadcast over the elements they summarize, "
               "not at the index they are written (fusable_read_and_write).");
  const int distance = std::max(std::abs(x.min_order - y.max_order), std::abs(y.min_order - x.max_order));
  if (distance > kMaxFusionDistance)
    return say(false, "too-far-apart",
               "their nodes are " + n2s(distance) + " apart in Inductor's order, over the " + n2s(kMaxFusionDistance) +
                   " of are_long_distant_nodes.");
  if (!compatible(x, y)) {
    if (x.repeat != y.repeat)
      return say(false, "loop-trips",
                 "they run " + n2s(x.repeat) + " and " + n2s(y.repeat) +
                     " times per call (a loop's trips): one kernel runs once per trip.");
    if (!x.red && !y.red)
      return say(false, "iteration-space",
                 "their loops run over " + n2s(x.n) + " and " + n2s(y.n) +
                     " elements: one kernel has one iteration "
                     "space.");
    if (x.red && y.red)
      return say(false, "reduction-size",
                 "they reduce " + n2s(x.n) + " rows of " + n2s(x.r) + " and " + n2s(y.n) + " rows of " + n2s(y.r) +
                     " elements: reductions of different sizes do not tile together.");
    const Node& red = x.red ? x : y;
    const Node& pw = x.red ? y : x;
    return say(false, "reduction-shape",
               "a loop over " + n2s(pw.n) + " elements and a reduction of " + n2s(red.n) + " rows of " + n2s(red.r) +
                   ": the loop must cover the reduction's input (" + n2s(red.n * red.r) + ") or its output (" +
                   n2s(red.n) + ").");
  }
  if (creates_cycle(ra, rb)) {
    int between = reaches(ra, rb, true);  // the third group on the path, either way
    if (between < 0) between = reaches(rb, ra, true);
    const std::string who =
        between >= 0 ? name(nodes[between].op) + " (group F" + std::to_string(plan.group_of[nodes[between].op]) + ")"
                     : std::string("a kernel of another group");
    return say(false, "cycle",
               who +
                   " runs between them (it reads what one computes, and the other reads what it computes): fusing "
                   "them would make a cycle (will_fusion_create_cycle).");
  }
  return say(false, "not-chosen",
             "every check of the scheduler allows the pair, but its rounds (at most 10) ended without fusing it.");
}

}  // namespace inductor

FusionVerdict inductor_fusion_verdict(const Graph& g, const std::vector<Launch>& launches,
                                      const std::vector<Traffic>& traffic, const Target& target, int a, int b) {
  const int n = static_cast<int>(g.ops.size());
  if (a < 0 || a >= n || b < 0 || b >= n)
    throw Error("ops " + std::to_string(a) + " and " + std::to_string(b) + ": the graph has ops 0 to " +
                std::to_string(n - 1));
  return inductor::with_lowered_graph(g, launches, traffic, target, [&](inductor::Builder& builder) {
    const FusionPlan plan = builder.run();
    return builder.verdict(plan, a, b);
  });
}

}  // namespace kc
