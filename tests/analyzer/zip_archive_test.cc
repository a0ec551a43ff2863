#include "analyzer/zip_archive.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>

#include "analyzer/error.h"
#include "analyzer/pt2_loader.h"

using Catch::Matchers::Contains;

namespace {
const std::string kModels = KC_TEST_MODELS;

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A copy of a test model with `edit` applied to its bytes, removed at the end of the test.
struct EditedCopy {
  std::string path;
  EditedCopy(const std::string& model, const std::function<void(std::string&)>& edit) {
    std::string bytes = file_bytes(kModels + "/" + model);
    edit(bytes);
    char name[] = "/tmp/kc-zip-test-XXXXXX";
    const int fd = ::mkstemp(name);
    REQUIRE(fd >= 0);
    ::close(fd);
    path = name;
    std::ofstream(path, std::ios::binary) << bytes;
  }
  ~EditedCopy() { std::remove(path.c_str()); }
};
}  // namespace

TEST_CASE("zip: a .pt2's records are named inside its top folder and read whole") {
  const kc::ZipArchive a(kModels + "/add.pt2");
  CHECK(a.has_record("models/model.json"));
  CHECK(a.has_record(".data/version"));
  CHECK_FALSE(a.has_record("add/models/model.json"));
  const std::string json = a.read_record("models/model.json", 1 << 20);
  CHECK(json.size() == a.record_size("models/model.json"));
  CHECK(json.front() == '{');
  CHECK_THROWS_WITH(a.read_record("models/model.json", 100), Contains("larger than the limit"));
  CHECK_THROWS_WITH(a.read_record("models/none.json", 100), Contains("no record models/none.json"));
}

TEST_CASE("zip: deflated records inflate to their recorded bytes") {
  const kc::ZipArchive a(kModels + "/traced_mlp_deflated.pt");
  const std::string pkl = a.read_record("data.pkl", 1 << 20);
  CHECK(pkl.size() == 631);
  CHECK(static_cast<unsigned char>(pkl[0]) == 0x80);  // a pickle's PROTO opcode
}

TEST_CASE("zip: damaged, truncated and foreign archives are one-line errors") {
  CHECK_THROWS_WITH(kc::ZipArchive(kModels + "/bad/truncated.pt2"), Contains("truncated or damaged"));
  CHECK_THROWS_WITH(kc::ZipArchive(kModels + "/bad/foreign.zip"), Contains("not a PyTorch model"));
  CHECK_THROWS_WITH(kc::ZipArchive(kModels + "/no_such_file.pt2"), Contains("cannot open file"));
  // One byte of model.json changed: its CRC no longer matches.
  EditedCopy flipped("add.pt2", [](std::string& b) {
    const size_t at = b.find("\"graph_module\"");
    REQUIRE(at != std::string::npos);
    b[at + 1] = 'G';
  });
  const kc::ZipArchive a(flipped.path);
  CHECK_THROWS_WITH(a.read_record("models/model.json", 1 << 20), Contains("CRC-32 does not match"));
}

TEST_CASE("zip: a mapped record has the bytes and the checks of a read one") {
  const kc::ZipArchive a(kModels + "/add.pt2");
  const kc::RecordBytes mapped = a.map_record("models/model.json", 1 << 20);
  CHECK(mapped.view() == a.read_record("models/model.json", 1 << 20));
  mapped.release(0, mapped.view().size());  // pages given back read back unchanged
  CHECK(mapped.view() == a.read_record("models/model.json", 1 << 20));
  CHECK_THROWS_WITH(a.map_record("models/model.json", 100), Contains("larger than the limit"));
  const kc::ZipArchive deflated(kModels + "/traced_mlp_deflated.pt");
  CHECK(deflated.map_record("data.pkl", 1 << 20).view() == deflated.read_record("data.pkl", 1 << 20));
  EditedCopy flipped("add.pt2", [](std::string& b) { b[b.find("\"graph_module\"") + 1] = 'G'; });
  CHECK_THROWS_WITH(kc::ZipArchive(flipped.path).map_record("models/model.json", 1 << 20),
                    Contains("CRC-32 does not match"));
}

TEST_CASE("zip: a record's CRC left to its reader is checked where the reader asks, once") {
  const kc::ZipArchive a(kModels + "/add.pt2");
  kc::RecordBytes good = a.map_record("models/model.json", 1 << 20, kc::ZipArchive::Crc::kByReader);
  CHECK(good.view() == a.read_record("models/model.json", 1 << 20));
  good.crc_through(good.view().size() / 3);  // the bytes added in stretches, then the rest
  good.crc_through(good.view().size() / 5);  // a stretch already added adds nothing
  CHECK_NOTHROW(good.check_crc());
  CHECK_NOTHROW(good.check_crc());
  EditedCopy flipped("add.pt2", [](std::string& b) { b[b.find("\"graph_module\"") + 1] = 'G'; });
  const kc::ZipArchive damaged(flipped.path);
  kc::RecordBytes bytes = damaged.map_record("models/model.json", 1 << 20, kc::ZipArchive::Crc::kByReader);
  CHECK_THROWS_WITH(bytes.check_crc(), Contains("CRC-32 does not match"));
}

TEST_CASE("zip: a damaged model.json gets the CRC's error, not what the damage makes of its JSON") {
  // A quote turned into a letter: the text is no longer JSON, and its CRC no longer matches.
  EditedCopy broken("add.pt2", [](std::string& b) { b[b.find("\"graph_module\"")] = 'x'; });
  const kc::ZipArchive a(broken.path);
  CHECK_THROWS_WITH(kc::load_pt2(a, broken.path, {}),
                    Contains("cannot read models/model.json") && Contains("CRC-32 does not match"));
  // Damage the JSON reader takes (a letter of a key): the CRC's error still, once the outline is read.
  EditedCopy renamed("add.pt2", [](std::string& b) { b[b.find("\"graph_module\"") + 1] = 'G'; });
  CHECK_THROWS_WITH(kc::load_pt2(kc::ZipArchive(renamed.path), renamed.path, {}), Contains("CRC-32 does not match"));
}
