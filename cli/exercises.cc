#include "cli/exercises.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analyzer/error.h"

namespace kc {
namespace fs = std::filesystem;

std::string find_exercises_dir(const std::string& option, const std::string& argv0) {
  std::vector<fs::path> candidates;
  if (!option.empty()) {
    check(fs::is_directory(option), "--exercises " + option + ": no such folder");
    return option;
  }
  if (const char* env = std::getenv("KERNELCOUNT_EXERCISES")) {
    check(fs::is_directory(env), std::string("KERNELCOUNT_EXERCISES=") + env + ": no such folder");
    return env;
  }
  std::error_code ec;
  fs::path self = fs::canonical("/proc/self/exe", ec);
  if (ec) self = fs::absolute(argv0);
  candidates.push_back(self.parent_path().parent_path() / "exercises");
  candidates.push_back(fs::current_path() / "exercises");
  for (const auto& c : candidates)
    if (fs::is_directory(c)) return c.string();
  throw Error(
      "no exercises folder found beside the binary or in the current folder (give --exercises DIR or set "
      "KERNELCOUNT_EXERCISES)");
}

std::vector<Exercise> load_exercises(const std::string& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<Exercise> out;
  for (const auto& path : files) {
    std::ifstream f(path);
    try {
      const auto j = nlohmann::json::parse(f);
      Exercise e;
      e.number = j.at("number");
      e.slug = j.at("slug");
      e.title = j.at("title");
      e.question = j.at("question");
      e.hint = j.at("hint");
      e.python = j.at("python");
      e.model = j.at("model");
      e.model_args = j.value("model_args", std::vector<std::string>{});
      e.measurement = j.at("measurement");
      e.lesson = j.value("lesson", "");
      const auto& a = j.at("answer");
      e.kernels = a.at("kernels");
      e.memcpy = a.at("memcpy");
      e.memset = a.at("memset");
      e.host_syncs = a.at("host_syncs");
      e.transfers = a.at("transfers");
      for (const auto& o : a.at("ops")) {
        ExerciseOp op;
        op.index = o.at("index");
        op.op = o.at("op");
        op.source = o.value("source", "");
        op.rule = o.value("rule", "");
        op.kernels = o.at("kernels");
        op.memcpy = o.at("memcpy");
        op.memset = o.at("memset");
        op.transfers = o.at("transfers");
        op.kernel_names = o.value("kernel_names", std::vector<std::string>{});
        op.measured_shape = o.value("measured_shape", false);
        e.ops.push_back(op);
      }
      out.push_back(std::move(e));
    } catch (const nlohmann::json::exception& ex) {
      throw Error(path.string() + ": not an exercise file: " + ex.what());
    }
  }
  check(!out.empty(), "no exercises in " + dir);
  std::sort(out.begin(), out.end(), [](const Exercise& a, const Exercise& b) { return a.number < b.number; });
  return out;
}

const Exercise& find_exercise(const std::vector<Exercise>& all, int n) {
  for (const Exercise& e : all)
    if (e.number == n) return e;
  throw Error("no exercise " + std::to_string(n) + " (there are " + std::to_string(all.front().number) + " to " +
              std::to_string(all.back().number) + ")");
}

namespace {

// Totals: suspects are the ops where the usual guess goes wrong in the direction of the error
// (too many: ops that launch or move less than one counts; too few: more). Per op: the ops
// that differ.
Verdict compare(const Exercise& e, const std::string& quantity, const std::vector<int>& said,
                int (*of)(const ExerciseOp&), bool (*suspect)(const ExerciseOp&, bool too_many)) {
  Verdict v;
  v.quantity = quantity;
  for (const ExerciseOp& op : e.ops) v.right += of(op);
  // With one op, a total is that op's count: answer it op by op.
  if (said.size() == 1 && e.ops.size() != 1) {
    v.said = said[0];
    v.correct = v.said == v.right;
    if (!v.correct)
      for (const ExerciseOp& op : e.ops)
        if (suspect(op, v.said > v.right)) v.suspect_ops.push_back(op.index);
    return v;
  }
  check(said.size() == e.ops.size(), "--" + quantity + ": give a total or one count per op (" +
                                         std::to_string(e.ops.size()) + " ops; see `exercise show " +
                                         std::to_string(e.number) + "`)");
  for (size_t i = 0; i < said.size(); ++i) {
    v.said += said[i];
    if (said[i] != of(e.ops[i])) v.suspect_ops.push_back(e.ops[i].index);
  }
  v.correct = v.suspect_ops.empty();
  return v;
}

}  // namespace

std::vector<Verdict> check_answer(const Exercise& e, const Answer& a) {
  std::vector<Verdict> out;
  // Too many kernels: views and copies that launch none; too few: ops of several kernels.
  out.push_back(compare(
      e, "kernels", a.kernels, [](const ExerciseOp& o) { return o.kernels; },
      [](const ExerciseOp& o, bool too_many) { return too_many ? o.kernels == 0 : o.kernels > 1; }));
  // Too many transfers: views, or a multi-kernel op's scratch arrays, which are not counted;
  // too few: the weights, biases and statistics an op reads besides its input.
  out.push_back(compare(
      e, "transfers", a.transfers, [](const ExerciseOp& o) { return o.transfers; },
      [](const ExerciseOp& o, bool too_many) {
        return too_many ? o.transfers == 0 || o.kernels > 1 : o.transfers > 2;
      }));
  // Memcpys and memsets are answered as totals; the suspects are the ops that issue them.
  auto total = [&](const char* quantity, int said, int right, int (*of)(const ExerciseOp&)) {
    Verdict v;
    v.quantity = quantity;
    v.said = said;
    v.right = right;
    v.correct = said == right;
    if (!v.correct && of)
      for (const ExerciseOp& op : e.ops)
        if (of(op) > 0) v.suspect_ops.push_back(op.index);
    out.push_back(v);
  };
  if (a.memcpy) total("memcpy", *a.memcpy, e.memcpy, [](const ExerciseOp& o) { return o.memcpy; });
  if (a.memset) total("memset", *a.memset, e.memset, [](const ExerciseOp& o) { return o.memset; });
  if (a.host_syncs) total("host syncs", *a.host_syncs, e.host_syncs, nullptr);
  return out;
}

}  // namespace kc
