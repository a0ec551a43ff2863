// cuDNN's answers kept (passes/torch2_11/cudnn_answers.h, cudnn_table.h): the lines' form,
// the disk cache written and read back, damaged lines and unwritable folders tolerated, and the
// table answering without cuDNN. cuDNN itself is a counting stand-in here.
#include "passes/torch2_11/cudnn_answers.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "passes/target.h"
#include "passes/torch2_11/cudnn_table.h"

using kc::DType;
using kc::torch2_11::CudnnAnswer;
using kc::torch2_11::CudnnAnswerMap;
using kc::torch2_11::CudnnAnswers;
using kc::torch2_11::CudnnConvQuery;
using kc::torch2_11::CudnnEngineChoice;
using kc::torch2_11::CudnnSource;

namespace {

CudnnConvQuery query(int64_t channels, DType dt = DType::kFloat32) {
  CudnnConvQuery q;
  q.dtype = dt;
  q.x = {8, channels, 56, 56};
  q.w = {64, channels, 3, 3};
  q.padding = {1, 1};
  q.stride = {1, 1};
  q.dilation = {1, 1};
  return q;
}

CudnnEngineChoice choice(int64_t engine) {
  CudnnEngineChoice c;
  c.engine = engine;
  c.knobs.fill(-9);
  c.knobs[0] = 3;
  c.workspace = 4096;
  c.next_engine = 7;
  return c;
}

// A stand-in for cuDNN: counts its calls; refuses queries of more than 1000 channels, as cuDNN
// refuses problems it does not take; `loadable` false is a machine without cuDNN.
struct FakeCudnn {
  int calls = 0;
  bool loadable = true;
  kc::torch2_11::CudnnAsk ask() {
    return [this](const CudnnConvQuery& q) -> CudnnAnswer {
      ++calls;
      if (!loadable) return {};
      if (q.x[1] > 1000) return {std::nullopt, CudnnSource::kCudnn};
      return {choice(q.x[1]), CudnnSource::kCudnn};
    };
  }
};

// A fresh folder under the test's temporary folder, removed with its files at the end.
struct TempFolder {
  std::string path;
  TempFolder() {
    std::string tmpl = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/kc-answers-XXXXXX";
    path = mkdtemp(tmpl.data());
  }
  ~TempFolder() { std::system(("rm -rf '" + path + "'").c_str()); }
};

std::string read(const std::string& file) {
  std::ifstream in(file);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("cudnn answers: a data-gradient query has its own key, read back as written") {
  auto q = query(64);
  q.backward_data = true;
  const std::string key = kc::torch2_11::cudnn_query_key(q);
  CHECK(key == "f32 dn 8,64,56,56 64,64,3,3 1,1 1,1 1,1");
  CHECK(key != kc::torch2_11::cudnn_query_key(query(64)));
  std::string k;
  std::optional<CudnnEngineChoice> a;
  const std::string line = kc::torch2_11::cudnn_answer_line(key, choice(25));
  REQUIRE(kc::torch2_11::parse_cudnn_answer_line(std::string_view(line).substr(0, line.size() - 1), k, a));
  CHECK(k == key);
  REQUIRE(a.has_value());
  CHECK(a->engine == 25);
}

TEST_CASE("cudnn answers: a line reads back as written, a refusal included") {
  const std::string key = kc::torch2_11::cudnn_query_key(query(64, DType::kBFloat16));
  CHECK(key == "bf16 n 8,64,56,56 64,64,3,3 1,1 1,1 1,1");
  std::string k;
  std::optional<CudnnEngineChoice> a;
  const std::string line = kc::torch2_11::cudnn_answer_line(key, choice(38));
  REQUIRE(line.back() == '\n');
  REQUIRE(kc::torch2_11::parse_cudnn_answer_line(std::string_view(line).substr(0, line.size() - 1), k, a));
  CHECK(k == key);
  REQUIRE(a.has_value());
  CHECK(a->engine == 38);
  CHECK(a->knobs == choice(38).knobs);
  CHECK(a->workspace == 4096);
  CHECK(a->next_engine == 7);
  const std::string refused = kc::torch2_11::cudnn_answer_line(key, std::nullopt);
  REQUIRE(kc::torch2_11::parse_cudnn_answer_line(std::string_view(refused).substr(0, refused.size() - 1), k, a));
  CHECK_FALSE(a.has_value());
}

TEST_CASE("cudnn answers: damaged lines are skipped, the good ones kept") {
  const std::string good = kc::torch2_11::cudnn_answer_line(kc::torch2_11::cudnn_query_key(query(64)), choice(38));
  const std::string other = kc::torch2_11::cudnn_answer_line(kc::torch2_11::cudnn_query_key(query(32)), std::nullopt);
  const std::string text =
      "f32 n 8,64,56,56 64,64,3,3 1,1 1,1 1,1 38 4096 7 3,-9\n"  // too few knobs
      "garbage\n" +
      good + good.substr(0, 20) + other +       // a torn write glued to the next line
      other + good.substr(0, good.size() - 3);  // the last line still being written
  CudnnAnswerMap answers;
  CHECK(kc::torch2_11::read_cudnn_answer_lines(text, answers) == 4);
  CHECK(answers.size() == 2);
  CHECK(answers.count(kc::torch2_11::cudnn_query_key(query(64))) == 1);
  CHECK(answers.count(kc::torch2_11::cudnn_query_key(query(32))) == 1);
}

TEST_CASE("cudnn answers: a miss asks cuDNN once and is kept on disk for the next run") {
  TempFolder tmp;
  const std::string file = kc::torch2_11::cudnn_cache_file(tmp.path + "/new/folder", 91900, "0123456789abcdef");
  FakeCudnn first;
  {
    CudnnAnswers store({nullptr, file, first.ask(), ""});
    const CudnnAnswer a = store.choose(query(64));
    CHECK(a.source == CudnnSource::kCudnn);
    REQUIRE(a.choice.has_value());
    CHECK(a.choice->engine == 64);
    CHECK(store.choose(query(64)).source == CudnnSource::kCudnn);  // not asked again
    CHECK_FALSE(store.choose(query(2000)).choice.has_value());     // refused: kept too
    CHECK(first.calls == 2);
    CHECK(store.asked_cudnn());
  }
  const std::string kept = read(file);
  CHECK(std::count(kept.begin(), kept.end(), '\n') == 2);
  // A fresh store (the next run) answers both from the disk without asking cuDNN.
  FakeCudnn second;
  CudnnAnswers store({nullptr, file, second.ask(), ""});
  const CudnnAnswer a = store.choose(query(64));
  CHECK(a.source == CudnnSource::kCache);
  REQUIRE(a.choice.has_value());
  CHECK(a.choice->engine == 64);
  CHECK(a.choice->knobs == choice(64).knobs);
  const CudnnAnswer refused = store.choose(query(2000));
  CHECK(refused.source == CudnnSource::kCache);
  CHECK_FALSE(refused.choice.has_value());
  CHECK(second.calls == 0);
  CHECK_FALSE(store.asked_cudnn());
}

TEST_CASE("cudnn answers: a damaged line in the cache is asked again, the rest still answer") {
  TempFolder tmp;
  const std::string file = tmp.path + "/answers";
  std::ofstream(file) << "f32 n 8,64,56\n"
                      << kc::torch2_11::cudnn_answer_line(kc::torch2_11::cudnn_query_key(query(32)), choice(5));
  FakeCudnn cudnn;
  CudnnAnswers store({nullptr, file, cudnn.ask(), ""});
  CHECK(store.choose(query(32)).source == CudnnSource::kCache);
  CHECK(store.choose(query(64)).source == CudnnSource::kCudnn);
  CHECK(cudnn.calls == 1);
}

TEST_CASE("cudnn answers: an unwritable cache folder is no cache, not a failure") {
  TempFolder tmp;
  const std::string locked = tmp.path + "/locked";
  REQUIRE(mkdir(locked.c_str(), 0500) == 0);
  // A file where the folder should be fails for every user, root included.
  const std::string blocked = tmp.path + "/blocked";
  std::ofstream(blocked) << "not a folder\n";
  for (const std::string& file : {locked + "/sub/answers", blocked + "/answers", std::string("/proc/kc/answers")}) {
    INFO(file);
    FakeCudnn cudnn;
    CudnnAnswers store({nullptr, file, cudnn.ask(), ""});
    const CudnnAnswer a = store.choose(query(64));
    CHECK(a.source == CudnnSource::kCudnn);
    REQUIRE(a.choice.has_value());
    CHECK(store.choose(query(64)).source == CudnnSource::kCudnn);
    CHECK(cudnn.calls == 1);
  }
  chmod(locked.c_str(), 0700);
}

TEST_CASE("cudnn answers: the table answers without loading cuDNN, before the cache") {
  TempFolder tmp;
  const std::string file = tmp.path + "/answers";
  const std::string key = kc::torch2_11::cudnn_query_key(query(64));
  std::ofstream(file) << kc::torch2_11::cudnn_answer_line(key, choice(1));
  const CudnnAnswerMap table = {{key, choice(38)}, {kc::torch2_11::cudnn_query_key(query(2000)), std::nullopt}};
  FakeCudnn cudnn;
  const kc::torch2_11::CudnnAnswerMapTable lookup(table);
  CudnnAnswers store({&lookup, file, cudnn.ask(), ""});
  const CudnnAnswer a = store.choose(query(64));
  CHECK(a.source == CudnnSource::kTable);
  REQUIRE(a.choice.has_value());
  CHECK(a.choice->engine == 38);
  const CudnnAnswer refused = store.choose(query(2000));
  CHECK(refused.source == CudnnSource::kTable);
  CHECK_FALSE(refused.choice.has_value());
  CHECK(cudnn.calls == 0);
  CHECK_FALSE(store.asked_cudnn());
}

TEST_CASE("cudnn answers: without cuDNN, known shapes are answered and the rest are none") {
  TempFolder tmp;
  const std::string file = tmp.path + "/answers";
  std::ofstream(file) << kc::torch2_11::cudnn_answer_line(kc::torch2_11::cudnn_query_key(query(32)), choice(5));
  const CudnnAnswerMap table = {{kc::torch2_11::cudnn_query_key(query(64)), choice(38)}};
  FakeCudnn cudnn;
  cudnn.loadable = false;
  const kc::torch2_11::CudnnAnswerMapTable lookup(table);
  CudnnAnswers store({&lookup, file, cudnn.ask(), ""});
  CHECK(store.choose(query(64)).source == CudnnSource::kTable);
  CHECK(store.choose(query(32)).source == CudnnSource::kCache);
  const CudnnAnswer unknown = store.choose(query(16));
  CHECK(unknown.source == CudnnSource::kNone);
  CHECK_FALSE(unknown.choice.has_value());
  CHECK(store.choose(query(8)).source == CudnnSource::kNone);
  CHECK(cudnn.calls == 1);  // the failed load is not tried again
  CHECK(read(file).find("16,56,56") == std::string::npos);
  CHECK(store.status().find("known answers only") != std::string::npos);
}

TEST_CASE("cudnn answers: the status says cuDNN was not loaded while the table answered everything") {
  const CudnnAnswerMap table = {{kc::torch2_11::cudnn_query_key(query(64)), choice(38)}};
  FakeCudnn cudnn;
  const kc::torch2_11::CudnnAnswerMapTable lookup(table);
  CudnnAnswers store({&lookup, "", cudnn.ask(), "cuDNN 91900, built-in table"});
  CHECK(store.choose(query(64)).source == CudnnSource::kTable);
  const std::string status = store.status();
  CHECK(status.find("cuDNN 91900, built-in table") != std::string::npos);
  CHECK(status.find("cuDNN not loaded") != std::string::npos);
}

TEST_CASE("cudnn answers: the built-in table names its cuDNN and properties, and holds well-formed answers") {
  kc::torch2_11::CudnnTable t;
  CHECK_FALSE(kc::torch2_11::read_cudnn_table("f32 n 1 1 1 1 1 -\n", t));
  REQUIRE(kc::torch2_11::read_cudnn_table("# cuDNN 91900 properties 0123456789abcdef\nf32 n 1 1 1 1 1 -\n", t));
  CHECK(t.version == 91900);
  CHECK(t.properties_hash == "0123456789abcdef");
  CHECK(t.size() == 1);
  std::optional<kc::torch2_11::CudnnEngineChoice> answer = kc::torch2_11::CudnnEngineChoice{};
  CHECK(t.find("f32 n 1 1 1 1 1", answer));
  CHECK_FALSE(answer.has_value());
  CHECK_FALSE(t.find("f32 n 1 1 1 1", answer));  // a key that is a prefix of another is not it
  // Unsorted lines are looked up all the same, and a key's longer neighbour is not its line.
  REQUIRE(kc::torch2_11::read_cudnn_table(
      "# cuDNN 91900 properties 0123456789abcdef\nf32 n 1 1 1 1 12 -\nf32 n 1 1 1 1 1 -\nbf16 n 2 1 1 1 1 -\n", t));
  CHECK(t.size() == 3);
  CHECK(t.find("f32 n 1 1 1 1 12", answer));
  CHECK(t.find("bf16 n 2 1 1 1 1", answer));
  CHECK_FALSE(t.find("f32 n 1 1 1 1 2", answer));
  const kc::torch2_11::CudnnTable& built_in = kc::torch2_11::cudnn_table(kc::default_target().tables.cudnn_answers);
  CHECK(built_in.version == 91900);
  CHECK(built_in.properties_hash ==
        kc::torch2_11::device_properties_hash(kc::default_target().device.cudnn_properties));
}
