#include "cli/commands.h"

#include <CLI/CLI.hpp>
#include <sstream>

#include "analyzer/error.h"
#include "analyzer/load.h"
#include "cli/exercises.h"
#include "cli/render.h"
#include "passes/inductor.h"
#include "passes/pipeline.h"
#include "passes/target.h"

namespace kc {
namespace {

// Parses with CLI11; false after printing --help into out.
bool parse(CLI::App& app, int argc, char** argv, std::ostream& out) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return false;
  } catch (const CLI::ParseError& e) {
    throw Error(std::string(e.what()) + " (see " + app.get_name() + " --help)");
  }
  return true;
}

int run_explain(int argc, char** argv, std::ostream& out) {
  CLI::App app{
      "Explains, op by op in plain sentences, why each op costs what it costs: its kernels and\n"
      "why, the arrays that cross HBM, the rule and measurement behind it, the kernel names the\n"
      "GPU ran for such ops, and what fusion would save; then the whole model.",
      "kernelcount explain"};
  std::string model, line, target = default_target().name;
  std::optional<int> op, with;
  std::string fusion = "pointwise";
  std::vector<std::string> inputs, dims;
  app.add_option("model", model, "a .pt2 (torch.export) or TorchScript .pt file")->required();
  auto* op_opt = app.add_option("--op", op, "explain op N only")->type_name("N");
  app.add_option("--line", line, "explain the ops of one source line only")->type_name("FILE:LINE")->excludes(op_opt);
  app.add_option("--input", inputs, "TorchScript input shapes, as for kernelcount MODEL")->type_name("SPEC");
  app.add_option("--dim", dims, "value of a symbolic size of a .pt2: s0=64")->type_name("NAME=VALUE");
  app.add_option("--target", target, "what the prediction is for");
  app.add_option("--fusion", fusion,
                 "the fusion plan explained: pointwise (default: greedy pointwise chains) or inductor (the model "
                 "of what torch.compile's Inductor launches: Triton kernels, extern GEMMs and convolutions)")
      ->check(CLI::IsMember({"pointwise", "inductor"}));
  app.add_option("--with", with, "with --op N and --fusion inductor: why ops N and M do or do not share a kernel")
      ->type_name("M");
  if (!parse(app, argc, argv, out)) return 0;
  check(!with || (op && fusion == "inductor"), "--with needs --op N and --fusion inductor");
  ExplainSelection sel;
  sel.op = op;
  if (!line.empty()) {
    const size_t colon = line.rfind(':');
    check(colon != std::string::npos && colon + 1 < line.size(), "--line " + line + ": expected FILE:LINE");
    sel.line_file = line.substr(0, colon);
    try {
      sel.line = std::stoi(line.substr(colon + 1));
    } catch (const std::exception&) {
      throw Error("--line " + line + ": expected FILE:LINE");
    }
  }
  LoadOptions load;
  load.keep_until_exit = true;
  for (const auto& s : inputs) load.inputs.push_back(parse_input_spec(s));
  for (const auto& d : dims) {
    auto [name, value] = parse_dim_spec(d);
    load.dims[name] = value;
  }
  Graph g = load_model(model, load);
  Report r =
      analyze(g, find_target(target), {}, fusion == "inductor" ? FusionModel::kInductor : FusionModel::kPointwise);
  if (with) {
    check(*with >= 0 && *with < static_cast<int>(g.ops.size()) && *op >= 0 && *op < static_cast<int>(g.ops.size()),
          "--with " + std::to_string(*with) + ": no such op (the model has " + std::to_string(g.ops.size()) + " ops)");
    sel.with = with;
    sel.pair = inductor_fusion_verdict(g, r.launches, r.traffic, find_target(target), *op, *with);
  }
  render_explain(out, g, r, sel);
  return 0;
}

std::vector<int> parse_counts(const std::string& s, const char* what) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t pos = 0;
      out.push_back(std::stoi(item, &pos));
      check(pos == item.size() && out.back() >= 0, "");
    } catch (const std::exception&) {
      throw Error(std::string("--") + what + " " + s + ": expected a count or comma-separated counts per op");
    }
  }
  check(!out.empty(), std::string("--") + what + ": expected a count");
  return out;
}

int run_exercise(int argc, char** argv, std::ostream& out) {
  CLI::App app{
      "Graded \"count the kernels\" exercises. Each answer was measured on an NVIDIA H200 by\n"
      "kernelcount-validate (kernels, memcpy, memset) and the transfers are kernelcount's\n"
      "array-sized HBM reads plus writes.",
      "kernelcount exercise"};
  app.require_subcommand(1);
  std::string dir;
  app.add_option("--exercises", dir,
                 "the exercises folder (default: $KERNELCOUNT_EXERCISES, then exercises/ "
                 "beside the binary's folder, then ./exercises)")
      ->type_name("DIR");
  auto* list = app.add_subcommand("list", "list the exercises");
  auto* show = app.add_subcommand("show", "print exercise N: its Python source, the question and a hint");
  auto* chk = app.add_subcommand("check", "check your answer to exercise N");
  int n = 0;
  show->add_option("N", n, "exercise number")->required();
  chk->add_option("N", n, "exercise number")->required();
  std::string kernels, transfers;
  std::optional<int> memcpy, memset, syncs;
  chk->add_option("--kernels", kernels, "kernels: a total, or one count per op (1,0,2)")->required()->type_name("K");
  chk->add_option("--transfers", transfers, "array-sized HBM reads + writes: a total or one per op")
      ->required()
      ->type_name("T");
  chk->add_option("--memcpy", memcpy, "memcpy operations (total)")->type_name("N");
  chk->add_option("--memset", memset, "memset operations (total)")->type_name("N");
  chk->add_option("--syncs", syncs, "host synchronisations (total)")->type_name("N");
  for (auto* sub : {list, show, chk}) sub->add_option("--exercises", dir, "the exercises folder")->type_name("DIR");
  if (!parse(app, argc, argv, out)) return 0;
  const auto all = load_exercises(find_exercises_dir(dir, argc > 0 ? argv[0] : ""));
  if (list->parsed()) {
    render_exercise_list(out, all);
    return 0;
  }
  const Exercise& e = find_exercise(all, n);
  if (show->parsed()) {
    render_exercise(out, e);
    return 0;
  }
  Answer a{parse_counts(kernels, "kernels"), parse_counts(transfers, "transfers"), memcpy, memset, syncs};
  const auto verdicts = check_answer(e, a);
  render_verdicts(out, e, verdicts, default_target());
  for (const Verdict& v : verdicts)
    if (!v.correct) return 1;
  return 0;
}

}  // namespace

const std::vector<Command>& commands() {
  static const std::vector<Command> all = {
      {"explain", "why each op costs what it costs, in sentences", run_explain},
      {"exercise", "graded \"count the kernels\" exercises: list | show N | check N", run_exercise},
  };
  return all;
}

const Command* find_command(const std::string& name) {
  for (const Command& c : commands())
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace kc
