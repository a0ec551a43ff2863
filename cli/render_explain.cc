// `kernelcount explain`: the report in sentences, op by op, for someone learning why an op
// costs what it costs. Prints only what the report (its "explain" pass included) holds.
#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "analyzer/describe.h"
#include "analyzer/error.h"
#include "cli/render.h"
#include "cli/report_rows.h"
#include "cli/table.h"
#include "passes/hbm_traffic.h"

namespace kc {
namespace {

constexpr size_t kWidth = 100;
const std::string kIndent(11, ' ');

std::string plural(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// A labelled paragraph: "  label    text", wrapped at kWidth under the text's first column.
void para(std::ostream& os, const std::string& label, const std::string& text) {
  std::string line = "  " + label + std::string(kIndent.size() - 2 - std::min(label.size(), kIndent.size() - 3), ' ');
  size_t start = 0;
  bool first_word = true;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(start, end - start);
    if (!first_word && line.size() + 1 + word.size() > kWidth) {
      os << line << '\n';
      line = kIndent;
      first_word = true;
    }
    line += (first_word ? "" : " ") + word;
    first_word = false;
    start = end + 1;
  }
  os << line << '\n';
}

// "1 kernel + 1 memset + 1 host sync"
std::string launches_in_words(const Counts& c) {
  std::vector<std::string> parts;
  if (c.kernels) parts.push_back(plural(c.kernels, "kernel", "kernels"));
  if (c.memcpy) parts.push_back(plural(c.memcpy, "memcpy", "memcpys"));
  if (c.memset) parts.push_back(plural(c.memset, "memset", "memsets"));
  if (c.host_syncs) parts.push_back(plural(c.host_syncs, "host sync", "host syncs"));
  if (parts.empty()) return "nothing launched";
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : " + ") + p;
  return s;
}

// What reaches DRAM past the L2 when the op runs call after call (the "dram" pass), against its
// array-sized traffic.
std::string dram_in_words(const Report& r, const Traffic& t, const DramTraffic& d) {
  const Target& tg = *r.target;
  std::ostringstream usable;
  usable << static_cast<double>(tg.device.l2_bytes >> 20) * tg.l2_usable_fraction;
  const std::string sets =
      tg.l2_ways > 0 ? ", in sets of " + std::to_string(tg.l2_ways) + " lines that addresses hash to" : "";
  const std::string l2 = std::to_string(tg.device.l2_bytes >> 20) + " MiB L2 (of which the model lets data fill " +
                         usable.str() + " MiB" + sets + ")";
  if (d.bytes() == 0)
    return "none expected: what it reads is still in the " + l2 +
           " from the ops before it, and what it writes stays there for the ops after it.";
  const int64_t evicted = d.write_bytes - d.scattered_write_bytes;
  const std::string scattered =
      d.scattered_write_bytes > 0
          ? ", and " + format_bytes(d.scattered_write_bytes) +
                " written by cuDNN's float32 transforms, whose scattered 4-byte stores each write back a "
                "128-byte line"
          : "";
  return format_bytes(d.read_bytes) + " expected read from DRAM of its " + format_bytes(t.read_bytes) +
         " array-sized reads, " + (scattered.empty() ? "and " : "") + format_bytes(evicted) +
         " of earlier results written back to make room" + scattered + "; the rest stays in the " + l2 + ".";
}

std::string transfers_in_words(int transfers, int64_t bytes) {
  return plural(transfers, "array-sized HBM transfer", "array-sized HBM transfers") + " (" + format_bytes(bytes) + ")";
}

// "a,b,c" as "a, b, c", so that a long list wraps.
std::string listed(const std::string& commas) {
  std::string s;
  for (char c : commas) s += c == ',' ? std::string(", ") : std::string(1, c);
  return s;
}

std::string value_name(const Graph& g, int v) {
  return g.values[v].name.empty() ? "%" + std::to_string(v) : g.values[v].name;
}

void arrays(std::ostream& os, const Graph& g, const HbmArrays& e) {
  Table t({"", "", "", ">"});
  for (int v : e.reads)
    t.add({"read", value_name(g, v), describe_value(g.values[v], Style::kShort), format_bytes(g.values[v].bytes())});
  for (int v : e.writes)
    t.add({"write", value_name(g, v), describe_value(g.values[v], Style::kShort), format_bytes(g.values[v].bytes())});
  std::ostringstream rows;
  t.print(rows);
  std::string text = rows.str();
  text = text.substr(text.find('\n') + 1);  // no header
  bool first = true;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    os << (first ? "  HBM      " : kIndent) << text.substr(start, end - start) << '\n';
    first = false;
    start = end + 1;
  }
}

void explain_op(std::ostream& os, const Graph& g, const Report& r, int i) {
  const Op& op = g.ops[i];
  const Launch& l = r.launches[i];
  const OpExplanation& e = r.explain[i];
  const Traffic& t = r.traffic[i];
  std::string where = format_loc(op.loc);
  os << "op " << i << ": " << short_op(op) << (where.empty() ? "" : "  at " + where)
     << (op.loc.code.empty() ? "" : ": " + op.loc.code.str()) << '\n';
  if (!op.module.empty()) para(os, "module", op.module.str() + " (" + op.module_type.str() + ")");
  if (e.kind == OpExplanation::Kind::kUnknown) {
    para(os, "costs",
         "unknown: no launch rule of " + r.target->name + " covers " + op.full_name() +
             ", so its kernels are left out of the totals (never counted as 0).");
    if (t.transfers() > 0)
      para(os, "HBM", "still " + transfers_in_words(t.transfers(), t.bytes()) + ": the arrays it must touch.");
    return;
  }
  if (e.kind == OpExplanation::Kind::kFree) {
    para(os, "costs", "nothing: no kernel, no HBM transfer.");
  } else {
    const std::string bound = r.time[i].bound();
    const std::string set_by = bound == "launch" ? "launch overhead" : bound == "memory" ? "HBM bandwidth" : "compute";
    // A copy of a few bytes has no kernel to bound it: its floor rounds to nothing worth saying.
    const std::string floor =
        r.time[i].floor_s() < 1e-9 ? "" : "; time floor " + format_seconds(r.time[i].floor_s()) + ", set by " + set_by;
    para(os, "costs", launches_in_words(l.counts) + "; " + transfers_in_words(t.transfers(), t.bytes()) + floor);
    if (t.transfers() > 0 && r.target->device.l2_bytes > 0) para(os, "DRAM", dram_in_words(r, t, r.dram[i]));
  }
  // A measured op's count comes from its exact shape; the rule's reason is then the usual case.
  if (!e.why.empty()) para(os, e.measured ? "usually" : "why", std::string(e.why));
  if (!e.data_dependent.empty()) para(os, "values", "data-dependent: " + std::string(e.data_dependent));
  if (e.measured)
    para(os, "measured",
         "cuDNN and cuBLAS pick kernels for each exact shape by their own heuristics; this exact "
         "signature was measured on the " +
             r.target->gpu + " (in " + listed(std::string(e.measured_in)) + "): " + launches_in_words(l.counts) + ".");
  // The arrays the hbm pass counted for the op.
  if (const HbmArrays hbm = hbm_arrays(g, i, l); !hbm.reads.empty() || !hbm.writes.empty()) arrays(os, g, hbm);
  if (!e.kernel_names.empty()) {
    std::string names;
    for (std::string_view n : e.kernel_names) {
      if (!names.empty()) names += ", then ";
      names += n;
    }
    para(os, "GPU ran",
         names + " (what the " + r.target->gpu + " ran in " + std::to_string(e.names_seen) + " of " +
             std::to_string(e.names_of) + " measured " + e.rule + " ops of this dtype and launch count)");
  }
  if (!e.rule.empty())
    para(
        os, "rule",
        e.rule + (e.when.empty() ? "" : " (" + std::string(e.when) + ")") + "; measured in " + std::string(e.evidence));
  const int grp = r.fusion.group_of[i];
  if (r.fusion.variant == "inductor") {
    para(os, "inductor", r.fusion.lowering[i] + ".");
    if (grp >= 0 && r.fusion.groups[grp].ops.size() > 1) {
      std::string others;
      for (int m : r.fusion.groups[grp].ops)
        if (m != i) others += (others.empty() ? "" : ", ") + std::to_string(m) + " " + short_op(g.ops[m]);
      para(os, "compiled", "shares a compiled kernel with op " + others + " (group F" + std::to_string(grp) + ").");
    }
    for (const KernelIncrease& k : r.more_than_eager)
      if (k.group == grp)
        para(os, "more",
             "its compiled group F" + std::to_string(grp) + " launches " +
                 plural(k.compiled_kernels, "kernel", "kernels") + " where its ops launch " +
                 std::to_string(k.eager_kernels) + " eagerly: " + k.why + ".");
    return;
  }
  if (grp >= 0 && r.fusion.groups[grp].ops.size() > 1) {
    std::string others;
    for (int m : r.fusion.groups[grp].ops)
      if (m != i) others += (others.empty() ? "" : ", ") + std::to_string(m) + " " + short_op(g.ops[m]);
    para(os, "fusion", "fuses with op " + others + " into one kernel (group F" + std::to_string(grp) + ", below).");
  }
}

void explain_group(std::ostream& os, const Graph& g, const Report& r, int k) {
  const FusionGroup& grp = r.fusion.groups[k];
  std::string members;
  for (int i : grp.ops) members += (members.empty() ? "" : " + ") + short_op(g.ops[i]);
  os << "fusion group F" << k << ": " << members << '\n';
  para(os, "eager",
       plural(grp.eager_kernels, "kernel", "kernels") + " and " +
           transfers_in_words(grp.eager.transfers(), grp.eager.bytes()) +
           ": each op writes its result to HBM and the next op reads it back.");
  auto names = [&](const std::vector<int>& values) {  // "a, b and c"
    std::string s;
    for (size_t k = 0; k < values.size(); ++k)
      s += (k == 0 ? "" : k + 1 == values.size() ? " and " : ", ") + value_name(g, values[k]);
    return s.empty() ? std::string("nothing") : s;
  };
  std::vector<int> kept;  // results used only inside the group
  for (int i : grp.ops)
    for (int v : g.ops[i].outputs)
      if (v >= 0 && std::find(grp.fused_writes.begin(), grp.fused_writes.end(), v) == grp.fused_writes.end())
        kept.push_back(v);
  para(os, "fused",
       plural(grp.fused_kernels, "kernel", "kernels") + " and " +
           transfers_in_words(grp.fused.transfers(), grp.fused.bytes()) + ": it reads " + names(grp.fused_reads) +
           " once and writes " + names(grp.fused_writes) +
           (kept.empty() ? std::string(".")
                         : "; " + names(kept) + " never leave" + (kept.size() == 1 ? "s" : "") + " the chip."));
  para(os, "saves",
       plural(grp.eager_kernels - grp.fused_kernels, "kernel", "kernels") + ", " +
           plural(grp.eager.transfers() - grp.fused.transfers(), "transfer", "transfers") + ", " +
           format_bytes(grp.eager.bytes() - grp.fused.bytes()) + ". torch.compile does this fusion for you.");
  if (r.target->device.l2_bytes > 0) {
    int64_t dram = 0;
    for (int i : grp.ops) dram = add_checked(dram, r.dram[i].bytes(), "DRAM bytes");
    para(os, "DRAM",
         dram == 0 ? "the bytes saved are array-sized: eager, these arrays stay in the L2 between the ops, so "
                     "fusion saves the launches and the L2 traffic, not DRAM traffic."
                   : "the bytes saved are array-sized; eager, these ops are expected to move " + format_bytes(dram) +
                         " to and from DRAM past the L2: the part fusion can lower.");
  }
}

bool selected(const Op& op, int i, const ExplainSelection& s) {
  if (s.op) return *s.op == i;
  if (s.line_file.empty()) return true;
  const std::string& f = op.loc.file;
  auto ends_with = [](const std::string& a, const std::string& b) {
    return a.size() >= b.size() && a.compare(a.size() - b.size(), b.size(), b) == 0;
  };
  return op.loc.line == s.line && !f.empty() && (ends_with(f, s.line_file) || ends_with(s.line_file, f));
}

}  // namespace

void render_explain(std::ostream& os, const Graph& g, const Report& r, const ExplainSelection& s) {
  model_header(os, g, r);
  os << "\nOne eager op is one or more kernels; each kernel reads its inputs from HBM and writes its outputs back.\n";
  std::set<int> groups;
  int shown = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (!selected(g.ops[i], static_cast<int>(i), s)) continue;
    os << '\n';
    explain_op(os, g, r, static_cast<int>(i));
    ++shown;
    const int grp = r.fusion.group_of[i];
    if (grp >= 0 && r.fusion.groups[grp].ops.size() > 1) groups.insert(grp);
  }
  check(shown > 0 || g.ops.empty(),
        s.op ? "no op " + std::to_string(*s.op) + " (the model has " + std::to_string(g.ops.size()) + " ops)"
             : "no op comes from " + s.line_file + ":" + std::to_string(s.line));
  for (int k : groups) {
    os << '\n';
    explain_group(os, g, r, k);
  }
  if (s.with && s.op) {
    os << '\n';
    para(os, "together",
         "ops " + std::to_string(*s.op) + " and " + std::to_string(*s.with) + " " +
             (s.pair.fused ? "share a kernel" : "do not share a kernel") + " (rule " + s.pair.rule +
             "): " + s.pair.sentence);
  }
  const Totals& t = r.totals;
  os << "\nwhole model\n";
  para(os, "eager",
       plural(t.eager.kernels, "kernel", "kernels") + " and " +
           transfers_in_words(t.eager_hbm_transfers, t.eager_hbm_bytes) + ", time floor " +
           format_seconds(t.eager_time_floor_s) + ".");
  if (t.eager.memcpy || t.eager.memset || t.eager.host_syncs)
    para(os, "also", launches_in_words(Counts{0, t.eager.memcpy, t.eager.memset, t.eager.host_syncs}) + ".");
  if (r.fusion.variant == "inductor") {
    para(os, "fused",
         plural(t.pointwise_kernels, "kernel", "kernels") + " and " +
             transfers_in_words(t.pointwise_hbm_transfers, t.pointwise_hbm_bytes) +
             " once pointwise chains fuse (the greedy plan, kernelcount's default).");
    para(os, "compiled",
         plural(t.fused_kernels, "kernel", "kernels") + " and " +
             transfers_in_words(t.fused_hbm_transfers, t.fused_hbm_bytes) +
             " under torch.compile (Inductor, default mode), as this model of its scheduling predicts.");
    if (t.inductor_kernels_low != t.fused_kernels || t.inductor_kernels_high != t.fused_kernels)
      para(os, "timed",
           "a compile may launch " + std::to_string(t.inductor_kernels_low) + " to " +
               std::to_string(t.inductor_kernels_high) +
               " kernels: pad_mm pads or keeps an unaligned GEMM by timing both on the GPU, and compiles of "
               "the same program answer differently (the ops' notes say which GEMMs).");
    if (!r.more_than_eager.empty()) {
      int extra = 0;
      for (const KernelIncrease& k : r.more_than_eager) extra += k.compiled_kernels - k.eager_kernels;
      para(os, "more",
           plural(static_cast<int>(r.more_than_eager.size()), "compiled group launches", "compiled groups launch") +
               " more than their ops do eagerly (" + plural(extra, "kernel", "kernels") +
               " more in all): split reductions, operand copies, a cat's copies; `kernelcount MODEL --fusion "
               "inductor` lists them.");
    }
  } else if (t.fused_kernels < t.eager.kernels)
    para(os, "fused",
         plural(t.fused_kernels, "kernel", "kernels") + " and " +
             transfers_in_words(t.fused_hbm_transfers, t.fused_hbm_bytes) + ", time floor " +
             format_seconds(t.fused_time_floor_s) + ", once pointwise chains fuse.");
  else if (t.fused_kernels_reduction < t.eager.kernels)
    para(os, "fused", "the same once pointwise chains fuse: no two neighbouring pointwise ops.");
  else
    para(os, "fused", "the same: no two neighbouring ops can fuse.");
  if (t.fused_kernels_reduction < t.fused_kernels)
    para(os, "reduce",
         plural(t.fused_kernels_reduction, "kernel", "kernels") + " and " + format_bytes(t.fused_hbm_bytes_reduction) +
             " of HBM traffic once pointwise ops also fuse into the reductions beside them (a norm's or "
             "softmax's prologue or epilogue), as torch.compile does.");
  if (t.unknown_ops)
    para(os, "unknown",
         plural(t.unknown_ops, "op has", "ops have") + " no launch rule and " + (t.unknown_ops == 1 ? "is" : "are") +
             " left out of these figures.");
  para(os, "check",
       "torch.profiler lists each kernel, memcpy and memset by name (ProfilerActivity.CUDA); "
       "torch.compile does the fusing.");
}

}  // namespace kc
