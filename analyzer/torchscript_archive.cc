#include "analyzer/torchscript_archive.h"

#include <caffe2/serialize/file_adapter.h>

#include <cstring>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kc {
namespace {

// Pickle opcodes (Python's Lib/pickletools.py) that push one value after a fixed-size
// argument, and that size: ints, floats, None, bools, empty containers.
int fixed_push_argument(unsigned char op) {
  switch (op) {
    case 'K':
      return 1;  // BININT1
    case 'M':
      return 2;  // BININT2
    case 'J':
      return 4;  // BININT
    case 'G':
      return 8;  // BINFLOAT
    case 'N':
    case 0x88:
    case 0x89:
    case ')':
    case ']':
    case '}':
      return 0;  // NONE, bools, empties
    default:
      return -1;
  }
}

// Opcodes that pop `pops` values and push `pushes` (REDUCE, BUILD, TUPLE1, ...).
struct StackEffect {
  unsigned char op;
  int pops, pushes;
};
constexpr StackEffect kStackEffects[] = {
    {0x85, 1, 1}, {0x86, 2, 1}, {0x87, 3, 1},  // TUPLE1..3
    {'R', 2, 1},  {0x81, 2, 1},                // REDUCE, NEWOBJ
    {'Q', 1, 1},                               // BINPERSID
    {'a', 2, 1},  {'s', 3, 1},  {'b', 2, 1},   // APPEND, SETITEM, BUILD
    {'0', 1, 0},                               // POP
};

// The storage locations named by persistent ids in a TorchScript pickle. TorchScript's
// pickler writes each storage as the tuple ('storage', <global>, key, location, numel)
// followed by BINPERSID; strings repeat through the memo. Only what is needed to see those
// tuples is modelled: each stack value is a string or "something else". Stops (returning
// what it found) at an opcode it does not know or at a truncated argument.
std::vector<std::string> storage_locations(const char* data, size_t size) {
  using Item = std::optional<std::string>;
  std::vector<Item> stack;
  std::vector<size_t> marks;
  std::unordered_map<uint64_t, Item> memo;
  std::vector<std::string> found;
  size_t pos = 0;
  // Reads an n-byte little-endian unsigned argument at pos and steps over it.
  auto arg = [&](size_t n, uint64_t* v) {
    if (pos + n > size) return false;
    *v = 0;
    std::memcpy(v, data + pos, n);
    pos += n;
    return true;
  };
  auto pop_to_mark = [&]() {
    size_t m = marks.empty() ? 0 : std::min(marks.back(), stack.size());
    if (!marks.empty()) marks.pop_back();
    std::vector<Item> items(stack.begin() + m, stack.end());
    stack.resize(m);
    return items;
  };
  while (pos < size) {
    const unsigned char op = data[pos++];
    uint64_t n = 0;
    if (int fixed = fixed_push_argument(op); fixed >= 0) {
      if (!arg(fixed, &n)) return found;
      stack.emplace_back();
      continue;
    }
    bool known = false;
    for (const StackEffect& e : kStackEffects) {
      if (e.op != op) continue;
      stack.resize(stack.size() > static_cast<size_t>(e.pops) ? stack.size() - e.pops : 0);
      stack.resize(stack.size() + e.pushes);
      known = true;
    }
    if (known) continue;
    switch (op) {
      case 0x80:  // PROTO
        if (!arg(1, &n)) return found;
        break;
      case 0x95:  // FRAME
        if (!arg(8, &n)) return found;
        break;
      case '.':  // STOP
        return found;
      case '(':  // MARK
        marks.push_back(stack.size());
        break;
      case 'X':     // BINUNICODE
      case 0x8c:    // SHORT_BINUNICODE
      case 0x8d: {  // BINUNICODE8
        if (!arg(op == 'X' ? 4 : op == 0x8c ? 1 : 8, &n) || pos + n > size) return found;
        stack.emplace_back(std::string(data + pos, n));
        pos += n;
        break;
      }
      case 'B':     // BINBYTES
      case 'C':     // SHORT_BINBYTES
      case 0x8e:    // BINBYTES8
      case 0x8a: {  // LONG1
        if (!arg(op == 'B' ? 4 : op == 0x8e ? 8 : 1, &n) || pos + n > size) return found;
        pos += n;
        stack.emplace_back();
        break;
      }
      case 'c':  // GLOBAL "module\nname\n"
        for (int line = 0; line < 2; ++line) {
          const void* nl = std::memchr(data + pos, '\n', size - pos);
          if (!nl) return found;
          pos = static_cast<const char*>(nl) - data + 1;
        }
        stack.emplace_back();
        break;
      case 'q':  // BINPUT
      case 'r':  // LONG_BINPUT
        if (!arg(op == 'q' ? 1 : 4, &n)) return found;
        if (!stack.empty()) memo[n] = stack.back();
        break;
      case 0x94:  // MEMOIZE
        if (!stack.empty()) memo[memo.size()] = stack.back();
        break;
      case 'h':  // BINGET
      case 'j':  // LONG_BINGET
        if (!arg(op == 'h' ? 1 : 4, &n)) return found;
        stack.push_back(memo[n]);
        break;
      case 't':    // TUPLE: the one that names a storage is what this walk is for
      case 'l':    // LIST
      case 'd': {  // DICT
        auto items = pop_to_mark();
        if (op == 't' && items.size() >= 4 && items[0] == std::string("storage") && items[3])
          found.push_back(*items[3]);
        stack.emplace_back();
        break;
      }
      case 'e':  // APPENDS
      case 'u':  // SETITEMS
        pop_to_mark();
        break;
      default:
        return found;
    }
  }
  return found;
}

std::vector<std::string> locations_in(caffe2::serialize::PyTorchStreamReader& archive, const std::string& record) {
  if (!archive.hasRecord(record)) return {};
  auto [data, size] = archive.getRecord(record);
  return storage_locations(static_cast<const char*>(data.get()), size);
}

class WeightSkippingReader : public caffe2::serialize::ReadAdapterInterface {
 public:
  WeightSkippingReader(const std::string& path, std::vector<std::pair<uint64_t, uint64_t>> skip)
      : file_(path), skip_(std::move(skip)) {}
  size_t size() const override { return file_.size(); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* what) const override {
    for (const auto& [begin, end] : skip_)
      if (pos >= begin && pos + n <= end) return n;
    return file_.read(pos, buf, n, what);
  }

 private:
  caffe2::serialize::FileAdapter file_;
  std::vector<std::pair<uint64_t, uint64_t>> skip_;  // [begin, end) byte ranges of weights
};

}  // namespace

std::string saved_device(caffe2::serialize::PyTorchStreamReader& archive) {
  for (const char* pickle : {"data.pkl", "constants.pkl"}) {
    auto locations = locations_in(archive, pickle);
    // A model split over devices reports the first GPU one: that is where it computes.
    for (const auto& l : locations)
      if (l != "cpu") return l;
    if (!locations.empty()) return locations.front();
  }
  return "";
}

namespace {

uint16_t le16(const unsigned char* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

// Whether the zip record whose data starts at `data_offset` is stored as it is (method 0).
// Only such a record's bytes are the tensor's bytes and may go unread; a deflated record must
// be read whole to be inflated. The local header sits just before the data: its signature, then
// 26 bytes, then the name and an extra field (alignment padding) of lengths it gives.
bool stored_as_is(caffe2::serialize::FileAdapter& file, uint64_t data_offset) {
  constexpr uint64_t kLookBack = 4096;
  const uint64_t begin = data_offset > kLookBack ? data_offset - kLookBack : 0;
  std::vector<unsigned char> buf(data_offset - begin);
  if (buf.size() < 30 || file.read(begin, buf.data(), buf.size(), "zip local header") != buf.size()) return false;
  for (size_t p = buf.size() - 30 + 1; p-- > 0;) {
    const unsigned char* h = buf.data() + p;
    if (h[0] != 'P' || h[1] != 'K' || h[2] != 3 || h[3] != 4) continue;
    if (p + 30 + le16(h + 26) + le16(h + 28) == buf.size()) return le16(h + 8) == 0;
  }
  return false;
}

}  // namespace

std::shared_ptr<caffe2::serialize::ReadAdapterInterface> weight_skipping_reader(
    const std::string& path, caffe2::serialize::PyTorchStreamReader& archive) {
  std::vector<std::pair<uint64_t, uint64_t>> skip;
  caffe2::serialize::FileAdapter file(path);
  for (const std::string& name : archive.getAllRecords()) {
    // Parameters and buffers, and the example inputs a trace keeps (activation-sized).
    if (name.rfind("data/", 0) != 0 && name.rfind("traced_inputs/", 0) != 0) continue;
    const uint64_t offset = archive.getRecordOffset(name);
    if (stored_as_is(file, offset)) skip.emplace_back(offset, offset + archive.getRecordSize(name));
  }
  return std::make_shared<WeightSkippingReader>(path, std::move(skip));
}

}  // namespace kc
