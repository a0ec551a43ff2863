// The exercises as a student reads them: the list, one exercise, and the verdict on an answer.
#include <algorithm>
#include <sstream>

#include "cli/exercises.h"
#include "passes/target.h"

namespace kc {
namespace {

std::string plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

const LaunchRule* rule_of(const Target& target, const std::string& id) {
  for (const LaunchRule& r : target.rules)
    if (r.id == id) return &r;
  return nullptr;
}

}  // namespace

void render_exercise_list(std::ostream& out, const std::vector<Exercise>& all) {
  for (const Exercise& e : all) out << (e.number < 10 ? " " : "") << e.number << "  " << e.title << '\n';
  out << "\nkernelcount exercise show N   prints one; the answers were measured on an NVIDIA H200.\n";
}

void render_exercise(std::ostream& out, const Exercise& e) {
  out << "Exercise " << e.number << ": " << e.title << "\n\n";
  std::istringstream code(e.python);
  for (std::string l; std::getline(code, l);) out << (l.empty() ? "" : "    " + l) << '\n';
  out << '\n' << e.question << "\n\nHint: " << e.hint << "\n\n";
  out << "The model has " << plural(static_cast<int>(e.ops.size()), "op", "ops") << " (as torch.export records it):\n";
  for (const ExerciseOp& op : e.ops)
    out << "  " << op.index << "  " << op.op << (op.source.empty() ? "" : "  (" + op.source + ")") << '\n';
  out << "\nAnswer with: kernelcount exercise check " << e.number
      << " --kernels K --transfers T   (totals, or one count per op: --kernels 1,0,2)\n";
}

void render_verdicts(std::ostream& out, const Exercise& e, const std::vector<Verdict>& verdicts, const Target& target) {
  bool all = true;
  for (const Verdict& v : verdicts) {
    all &= v.correct;
    out << (v.correct ? "right " : "wrong ") << v.quantity << ": you said " << v.said;
    if (v.correct)
      out << ", and that is what "
          << (v.quantity == "transfers" || v.quantity == "host syncs" ? "kernelcount predicts" : "the H200 ran");
    else
      out << ", " << (v.said > v.right ? "too many" : "too few");
    out << '\n';
  }
  const std::string source = "(kernels, memcpy and memset measured on the H200 in " + e.measurement +
                             "; transfers and host syncs as kernelcount predicts them)\n";
  if (all) {
    out << "\nAll right. " << e.lesson << '\n' << source;
    return;
  }
  // A hint, not the answer key: the ops to look at and why such ops cost what they do, never
  // their counts or kernel names (which would give every op's answer away).
  out << "\nOps to look at again:\n";
  std::vector<int> shown;
  constexpr size_t kMostShown = 3;
  size_t more = 0;
  for (const Verdict& v : verdicts)
    for (int i : v.suspect_ops) {
      if (std::find(shown.begin(), shown.end(), i) != shown.end()) continue;
      shown.push_back(i);
      if (shown.size() > kMostShown) {
        ++more;
        continue;
      }
      const ExerciseOp& op = e.ops.at(i);
      out << "  op " << op.index << " " << op.op << (op.source.empty() ? "" : "  (" + op.source + ")") << '\n';
      if (op.measured_shape)
        out << "      cuDNN/cuBLAS chose its kernels for this exact shape (measured); the usual case:\n";
      if (const LaunchRule* r = rule_of(target, op.rule); r && !r->why.empty()) out << "      " << r->why << '\n';
    }
  if (more) out << "  (and " << plural(static_cast<int>(more), "other op", "other ops") << ")\n";
  if (shown.empty())
    out << "  (recount every op: each one that launches work reads its inputs and writes its outputs)\n";
  out << "\nTry again, or see every op explained: kernelcount explain " << e.model;
  for (const auto& a : e.model_args) out << ' ' << a;
  out << '\n' << source;
}

}  // namespace kc
