// Graded "count the kernels" exercises: files under exercises/ (one JSON file each, made by
// exercises/make_exercises.py), and the comparison of a student's answer with the measured one.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace kc {

// One op of an exercise's model and what it costs: kernels, memcpy and memset as
// kernelcount-validate measured them on the GPU; transfers as kernelcount predicts them.
struct ExerciseOp {
  int index = 0;
  std::string op;      // "aten::add.Tensor"
  std::string source;  // "models.py:18"
  std::string rule;    // launch rule id, for its plain-language reason
  int kernels = 0, memcpy = 0, memset = 0, transfers = 0;
  std::vector<std::string> kernel_names;  // as the profiler named the measured kernels
  bool measured_shape = false;            // counted from the measured table of exact shapes, not a rule
};

struct Exercise {
  int number = 0;
  std::string slug, title, question, hint, python;
  std::string model;                    // relative to the repository root
  std::vector<std::string> model_args;  // e.g. --input for TorchScript
  std::string measurement;              // the validate result it was measured in: "data/results/models/add.json"
  int kernels = 0, memcpy = 0, memset = 0, host_syncs = 0, transfers = 0;
  std::vector<ExerciseOp> ops;  // every op of the model, in order
  std::string lesson;           // what the answer teaches, shown once answered
};

// The exercises folder: `option` when given, else $KERNELCOUNT_EXERCISES, else exercises/ beside
// the binary's folder (build/../exercises), else ./exercises. Throws Error when none exists.
std::string find_exercises_dir(const std::string& option, const std::string& argv0);
// Every exercise in dir, by number. Throws Error naming the file that does not parse.
std::vector<Exercise> load_exercises(const std::string& dir);
// The exercise numbered n; throws Error listing the range.
const Exercise& find_exercise(const std::vector<Exercise>& all, int n);

// A student's answer: totals, or one count per op of the model.
struct Answer {
  std::vector<int> kernels, transfers;  // one value: the total
  std::optional<int> memcpy, memset, host_syncs;
};

// One quantity checked: what was said, what is right, and the ops miscounted.
struct Verdict {
  std::string quantity;  // "kernels", "transfers", ...
  int said = 0, right = 0;
  bool correct = false;
  std::vector<int> suspect_ops;  // ops miscounted (per-op answers) or easy to miscount (totals)
};

// Compares each given quantity. For a wrong total, the suspects are the ops where a count
// usually goes wrong in that direction (too many kernels: ops that launch none; too few: ops of
// several kernels; memcpy and memset: the ops that issue them); per op, the ops that differ.
std::vector<Verdict> check_answer(const Exercise& e, const Answer& a);

struct Target;

// Rendering (cli/render_exercise.cc). Numbers and titles, one a line.
void render_exercise_list(std::ostream& out, const std::vector<Exercise>& all);
// The exercise: its Python source, question, hint and the model's ops.
void render_exercise(std::ostream& out, const Exercise& e);
// Right or wrong per quantity; when wrong, the ops to look at again with their rule's reason
// (from target) and the kernels the GPU ran; when right, the lesson.
void render_verdicts(std::ostream& out, const Exercise& e, const std::vector<Verdict>& verdicts, const Target& target);

}  // namespace kc
