#include "cli/options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <tuple>

#include "analyzer/error.h"
#include "cli/commands.h"
#include "cli/formats.h"
#include "passes/target.h"

namespace kc {

int64_t parse_byte_count(const std::string& s, const std::string& flag) {
  const std::string what = (flag.empty() ? "" : flag + " ") + "'" + s + "'";
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(s, &pos);
  } catch (const std::exception&) {
    throw Error(what + " is not a byte count (examples: 5000000, 300MB, 1.5G, 64KiB)");
  }
  std::string unit = s.substr(pos);
  if (!unit.empty() && unit.back() == 'B') unit.pop_back();
  // Decimal units (k = 1000) and binary ones (Ki = 1024), as `ls -h` and IEC write them.
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1},        {"k", 1e3},     {"K", 1e3},     {"M", 1e6},     {"G", 1e9},     {"T", 1e12},
      {"Ki", 0x1p10}, {"KI", 0x1p10}, {"ki", 0x1p10}, {"Mi", 0x1p20}, {"Gi", 0x1p30}, {"Ti", 0x1p40}};
  double scale = 0;
  for (const auto& [name, factor] : kUnits)
    if (unit == name) scale = factor;
  if (scale == 0) throw Error(what + ": unknown unit '" + unit + "' (use k, M, G, T or Ki, Mi, Gi, Ti)");
  double bytes = v * scale;
  check(bytes >= 0 && bytes < 9.2e18 && std::isfinite(bytes), what + " is out of range");
  return static_cast<int64_t>(bytes);
}

namespace {

// A budget: a non-negative integer that fits 64 bits, or an Error naming the flag.
int64_t parse_count(const std::string& flag, const std::string& s) {
  check(!s.empty() && s.find_first_not_of("0123456789") == std::string::npos,
        flag + " " + s + ": expected a non-negative integer");
  const std::string digits = s.substr(std::min(s.find_first_not_of('0'), s.size() - 1));
  check(digits.size() < 19 || (digits.size() == 19 && digits <= "9223372036854775807"),
        flag + " " + s + ": out of range (at most 9223372036854775807)");
  return std::stoll(digits);
}

}  // namespace

std::optional<Options> parse_options(int argc, char** argv, const std::string& version_line) {
  Options o;
  CLI::App app{
      "kernelcount: counts the GPU kernels and HBM traffic of a PyTorch model without a GPU.\n"
      "Predicts, op by op, what eager PyTorch launches on the target GPU, and what\n"
      "pointwise fusion (as torch.compile does it) would save.",
      "kernelcount"};
  std::string command_help = "Commands (kernelcount COMMAND --help for more):\n";
  for (const Command& c : commands())
    command_help += "  " + std::string(c.name) + std::string(10 - std::string(c.name).size(), ' ') + c.help + "\n";
  app.footer(command_help +
             "\n"
             "Examples:\n"
             "  kernelcount model.pt2                          summary: totals, then the costliest lines,\n"
             "                                                 modules, op types and fusion wins\n"
             "  kernelcount model.pt2 --by op                  the full per-op table\n"
             "  kernelcount model.pt2 --by line --sort kernels --top 20   your costliest source lines\n"
             "  kernelcount model.pt2 --by module --depth 2    module tree, inclusive totals\n"
             "  kernelcount model.pt2 --dim x.0=64             set a symbolic size: dimension 0 of input x\n"
             "                                                 (or by its symbol, as notes list it: s77=64)\n"
             "  kernelcount model.pt --input 8x3x224x224:f32   TorchScript needs input shapes\n"
             "  kernelcount model.pt2 --format json -o out.json\n"
             "  kernelcount model.pt2 --max-kernels 400 --max-bytes 2G   fail (exit 1) over budget\n"
             "  kernelcount new.pt2 --baseline old.json --max-kernel-increase 0 --format markdown\n"
             "                                                 review a change (a pull-request comment)\n"
             "  kernelcount model.pt2 --format sarif -o kc.sarif   findings on your source lines\n"
             "  kernelcount --list-rules                       the launch rules and their evidence\n"
             "  kernelcount explain model.pt2 --op 3           why op 3 costs what it costs\n"
             "  kernelcount model.pt2 --format dot | dot -Tsvg > graph.svg   the op graph, fusion groups\n"
             "  kernelcount model.pt2 --format trace -o t.json predicted kernels for ui.perfetto.dev\n"
             "\nExit status: 0 ok, 1 a budget is exceeded (or a wrong exercise answer), 2 bad input or usage.");
  app.set_version_flag("--version", version_line);
  app.add_option("model", o.model, "a .pt2 (torch.export) or TorchScript .pt file");
  std::vector<std::string> inputs, dims;
  app.add_option("--input", inputs,
                 "TorchScript input, in forward() order or by name: 8x3x224x224:f32, x=4x16:bfloat16")
      ->type_name("SPEC");
  app.add_option("--dim", dims,
                 "value of a symbolic size of a .pt2, named by its symbol (s77=64) or as INPUT.DIM (x.0=64); "
                 "default: the export hint")
      ->type_name("NAME=VALUE");
  std::vector<std::string> format_names;
  std::string format_help;
  for (const Format& f : formats()) {
    format_names.push_back(f.name);
    format_help += (format_help.empty() ? "" : "; ") + std::string(f.name) + ": " + f.help;
  }
  app.add_option("--format", o.format, format_help)->check(CLI::IsMember(format_names));
  app.add_option("--by", o.by,
                 "summary (default): totals and the top lines, modules, op types and fusion wins; or one "
                 "full table by op, line, module (a tree), op-type or kernel (kernel names and their calls, as "
                 "torch.profiler's key_averages() tables them)")
      ->check(CLI::IsMember({"summary", "op", "line", "module", "op-type", "kernel"}));
  app.add_option("--top", o.top, "rows per table (summary default 10; full tables default all)")->type_name("N");
  app.add_option("--sort", o.sort,
                 "row order: kernels, bytes, ops, flops, time (the time floor) or order (execution order)")
      ->check(CLI::IsMember({"kernels", "bytes", "ops", "flops", "time", "order"}));
  app.add_option("--depth", o.depth,
                 "module tree depth: --by module (default all), the summary (default 1), the --baseline diff "
                 "(default 2)")
      ->type_name("N");
  app.add_option("--source-root", o.source_root,
                 "sarif and github formats: name source files under DIR relative to it, as code scanning "
                 "wants (default: the current directory)")
      ->type_name("DIR");
  app.add_flag("--legend", o.legend, "explain every column of the text report, one line each");
  app.add_option("--findings", o.findings,
                 "sarif and github formats with --baseline: findings on the changed source lines only (changed, "
                 "the default) or on every line (all)")
      ->check(CLI::IsMember({"changed", "all"}));
  app.add_option("--fusion", o.fusion,
                 "the plan in the fused columns: pointwise (default: greedy pointwise chains) or inductor (a model "
                 "of what torch.compile's Inductor launches: Triton kernels, extern GEMMs and convolutions)")
      ->check(CLI::IsMember({"pointwise", "inductor"}));
  std::string target_names;
  for (const Target& t : known_targets()) target_names += (target_names.empty() ? "" : ", ") + t.name;
  o.target = default_target().name;
  app.add_option("--target", o.target, "what the prediction is for: " + target_names + " (default: first)");
  app.add_option("-o,--output", o.output, "write the report to FILE instead of stdout")->type_name("FILE");
  app.add_flag("--list-rules", o.list_rules, "print the launch rules and the measurement behind each, then exit");
  bool no_measured = false;
  app.add_flag("--no-measured", no_measured, "predict from the launch rules alone, without the measured table");
  app.add_option("--exclude-measured", o.exclude_measured,
                 "ignore measured entries taken only from models named NAME* (to test the rules on held-out models)")
      ->type_name("NAME");
  std::string max_bytes;
  // Counts are taken as text and parsed here: CLI11 would accept what int64 cannot hold.
  std::vector<std::tuple<const char*, std::string, std::optional<int64_t>*>> counts = {
      {"--max-kernels", "", &o.max_kernels},
      {"--max-fused-kernels", "", &o.max_fused_kernels},
      {"--max-unknown", "", &o.max_unknown},
      {"--max-syncs", "", &o.max_host_syncs},
      {"--max-kernel-increase", "", &o.max_kernel_increase}};
  app.add_option("--max-kernels", std::get<1>(counts[0]), "budget: eager kernels")->type_name("N");
  app.add_option("--max-fused-kernels", std::get<1>(counts[1]), "budget: kernels after fusion")->type_name("N");
  app.add_option("--max-bytes", max_bytes, "budget: eager HBM bytes (300MB, 1.5G, 64KiB)")->type_name("BYTES");
  app.add_option("--max-unknown", std::get<1>(counts[2]), "budget: ops without a launch rule")->type_name("N");
  app.add_option("--max-syncs", std::get<1>(counts[3]), "budget: host synchronisations")->type_name("N");
  app.add_option("--baseline", o.baseline,
                 "compare with the model before a change: a model file or a --format json report")
      ->type_name("FILE");
  std::string max_bytes_increase;
  app.add_option("--max-kernel-increase", std::get<1>(counts[4]), "budget: eager kernels added since --baseline")
      ->type_name("N");
  app.add_option("--max-bytes-increase", max_bytes_increase, "budget: eager HBM bytes added since --baseline")
      ->type_name("BYTES");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return std::nullopt;
  } catch (const CLI::CallForVersion&) {
    std::cout << version_line << '\n';
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    throw Error(what.substr(0, what.find('\n')) + " (see --help)");
  }
  if (!o.list_rules) check(!o.model.empty(), "no model given (see --help)");
  for (auto& [flag, text, target] : counts)
    if (app.count(flag) > 0) *target = parse_count(flag, text);
  o.load.keep_until_exit = true;
  for (const auto& s : inputs) o.load.inputs.push_back(parse_input_spec(s));
  for (const auto& d : dims) {
    auto [name, value] = parse_dim_spec(d);
    o.load.dims[name] = value;  // the last --dim for a name wins
  }
  check(!o.top || *o.top >= 0, "--top must be 0 (all rows) or more");
  // An option the chosen format does not read is an error, never silently dropped.
  if (!o.list_rules) {
    const Format& f = find_format(o.format);
    for (const char* flag : {"--by", "--sort", "--top", "--depth"})
      check(f.tables || app.count(flag) == 0, std::string(flag) + " chooses tables of the text and markdown " +
                                                  "formats; --format " + o.format + " has none");
    check(f.legend || !o.legend,
          "--legend explains the columns of --format text (markdown always has them); --format " + o.format +
              " has no such columns");
    check(f.findings || app.count("--findings") == 0,
          "--findings chooses the lines of the sarif and github formats' findings, not --format " + o.format);
    check(o.by != "kernel" || o.format == "text", "--by kernel is a table of --format text");
  }
  check(!o.depth || *o.depth >= 0, "--depth must be 0 or more");
  if (app.count("--max-bytes") > 0) o.max_bytes = parse_byte_count(max_bytes, "--max-bytes");
  if (app.count("--max-bytes-increase") > 0)
    o.max_bytes_increase = parse_byte_count(max_bytes_increase, "--max-bytes-increase");
  check(!(o.max_kernel_increase || o.max_bytes_increase) || !o.baseline.empty(),
        "--max-kernel-increase and --max-bytes-increase need --baseline");
  o.use_measured = !no_measured;
  return o;
}

}  // namespace kc
