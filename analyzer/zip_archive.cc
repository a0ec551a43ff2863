#include "analyzer/zip_archive.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <vector>

#include "analyzer/error.h"

namespace kc {
namespace {

constexpr uint16_t kStored = 0, kDeflated = 8;
// caffe2/serialize/versions.h: kMinSupportedFileFormatVersion, kMaxSupportedFileFormatVersion.
constexpr uint64_t kMinVersion = 1, kMaxVersion = 10;

// The record's bytes inflated from a raw deflate stream (no zlib header, as zip stores it),
// which must come to exactly `size` bytes.
std::string inflate_record(const std::string& name, const std::string& packed, uint64_t size) {
  std::string out(size, '\0');
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw Error("zip record " + name + ": cannot start inflating it");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = static_cast<uInt>(packed.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_FINISH);
  const uint64_t produced = z.total_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END || produced != size)
    throw Error("zip record " + name + " is damaged (its deflate stream does not inflate to its recorded " +
                std::to_string(size) + " bytes)");
  return out;
}

}  // namespace

ZipArchive::ZipArchive(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error(path + ": cannot open file (" + std::strerror(errno) + ")");
  const off_t end = ::lseek(fd_, 0, SEEK_END);
  if (end < 0) {
    ::close(fd_);
    throw Error(path + ": cannot read file (" + std::strerror(errno) + ")");
  }
  size_ = static_cast<uint64_t>(end);
  try {
    auto dir = read_zip_directory(
        ByteSource{size_, [this](uint64_t pos, void* buf, size_t n) { return read_at(pos, buf, n); }});
    check(dir.has_value(), path + ": not a readable zip archive (truncated or damaged: no central directory)");
    dir_ = std::move(*dir);
    check(!dir_.records.empty(), path + ": not a readable zip archive (truncated or damaged: it holds no records)");
    check_deflated_sizes(dir_);
    const std::string& first = dir_.records.front().name;
    const size_t slash = first.find('/');
    check(slash != std::string::npos,
          path + ": a zip archive, but not a PyTorch model (record '" + first + "' is not in a top folder)");
    prefix_ = first.substr(0, slash + 1);
    for (size_t i = 0; i < dir_.records.size(); ++i) {
      const std::string& n = dir_.records[i].name;
      if (n.size() > prefix_.size() && n.compare(0, prefix_.size(), prefix_) == 0)
        by_name_.emplace(std::string_view(n).substr(prefix_.size()), i);  // the first of duplicates wins
    }
    const char* version_record = has_record(".data/version") ? ".data/version" : "version";
    check(has_record(version_record), path + ": a zip archive, but not a PyTorch model (it has no version record)");
    const std::string version = read_record(version_record, 64);
    size_t digits = version.find_first_not_of(" \t\n\r");
    const size_t start = digits == std::string::npos ? version.size() : digits;
    digits = start;
    while (digits < version.size() && std::isdigit(static_cast<unsigned char>(version[digits]))) ++digits;
    check(digits > start && digits - start < 19,
          path + ": a zip archive, but not a PyTorch model (its version record is not a number)");
    const uint64_t v = std::stoull(version.substr(start, digits - start));
    check(v >= kMinVersion && v <= kMaxVersion,
          path + ": archive format version " + std::to_string(v) + " is not one PyTorch 2.11 reads (1 to 10)");
  } catch (const Error& e) {
    ::close(fd_);
    const std::string what = e.what();
    // Errors from the directory's own checks name a record, not the file.
    throw Error(what.rfind(path + ":", 0) == 0 ? what : path + ": " + what);
  }
}

ZipArchive::~ZipArchive() {
  if (fd_ >= 0) ::close(fd_);
}

size_t ZipArchive::read_at(uint64_t pos, void* buf, size_t n) const {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_, static_cast<char*>(buf) + done, n - done, static_cast<off_t>(pos + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  return done;
}

bool ZipArchive::has_record(std::string_view name) const {
  return by_name_.count(name) != 0;
}

const ZipRecord& ZipArchive::find(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) throw Error("the archive has no record " + std::string(name));
  return dir_.records[it->second];
}

uint64_t ZipArchive::record_size(std::string_view name) const {
  return find(name).uncompressed;
}

uint64_t ZipArchive::data_offset(const ZipRecord& r, uint64_t max_bytes) const {
  const std::string& full = r.name;
  check(r.method == kStored || r.method == kDeflated, "zip record " + full + " uses compression method " +
                                                          std::to_string(r.method) +
                                                          " (PyTorch archives store or deflate)");
  check(r.uncompressed <= max_bytes, "zip record " + full + " is larger than the limit of " +
                                         (max_bytes >= (1u << 20) ? std::to_string(max_bytes >> 20) + " MiB"
                                                                  : std::to_string(max_bytes) + " bytes"));
  const std::optional<uint64_t> local =
      record_data_at(ByteSource{size_, [this](uint64_t pos, void* buf, size_t n) { return read_at(pos, buf, n); }}, r);
  check(local.has_value(), "zip record " + full + " is damaged (no local header where the directory says)");
  const uint64_t data_at = *local;
  const uint64_t stored = r.method == kStored ? r.uncompressed : r.compressed;
  check(r.method != kStored || r.compressed == r.uncompressed,
        "zip record " + full + " is damaged (stored, but its two sizes differ)");
  // Deflate adds 5 bytes per 64 KiB block at worst; more means a damaged size field.
  check(r.method == kStored || r.compressed <= r.uncompressed + r.uncompressed / 8192 + 1024,
        "zip record " + full + " is damaged (its compressed size exceeds what deflate can produce)");
  check(data_at <= size_ && stored <= size_ - data_at,
        "zip record " + full + " runs past the end of the file (truncated or damaged)");
  return data_at;
}

std::string ZipArchive::read_record(std::string_view name, uint64_t max_bytes) const {
  const ZipRecord& r = find(name);
  const uint64_t data_at = data_offset(r, max_bytes);
  std::string bytes(r.method == kStored ? r.uncompressed : r.compressed, '\0');
  check(read_at(data_at, bytes.data(), bytes.size()) == bytes.size(), "zip record " + r.name + " cannot be read");
  if (r.method == kDeflated) bytes = inflate_record(r.name, bytes, r.uncompressed);
  check_crc(r, bytes, [](size_t, size_t) {});
  return bytes;
}

RecordBytes ZipArchive::map_record(std::string_view name, uint64_t max_bytes, Crc crc) const {
  const ZipRecord& r = find(name);
  const uint64_t data_at = data_offset(r, max_bytes);
  RecordBytes out;
  if (r.method == kStored && r.uncompressed > 0) {
    const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t from = data_at / page * page;
    void* map = ::mmap(nullptr, data_at - from + r.uncompressed, PROT_READ, MAP_PRIVATE, fd_, static_cast<off_t>(from));
    if (map != MAP_FAILED) {
      out.map_ = map;
      out.map_size_ = data_at - from + r.uncompressed;
      out.skip_ = data_at - from;
      out.size_ = r.uncompressed;
      if (crc == Crc::kByReader) {
        out.crc_pending_ = true;
        out.name_ = r.name;
        out.expected_crc_ = r.crc32;
        return out;
      }
      // Read once, front to back: the kernel may read ahead and drop behind.
      ::madvise(map, out.map_size_, MADV_SEQUENTIAL);
      check_crc(r, out.view(), [&out](size_t begin, size_t end) { out.release(begin, end); });
      ::madvise(map, out.map_size_, MADV_NORMAL);
      return out;
    }
  }
  out.owned_ = read_record(name, max_bytes);  // deflated, empty, or a file that cannot be mapped
  return out;
}

void ZipArchive::check_crc(const ZipRecord& r, std::string_view bytes,
                           const std::function<void(size_t, size_t)>& passed) {
  uint32_t crc = 0;
  // In slices: zlib's length is 32 bits, and the pages of a slice are given back once read.
  constexpr size_t kSlice = 4u << 20;
  for (size_t at = 0; at < bytes.size();) {
    const size_t n = std::min(bytes.size() - at, kSlice);
    crc = static_cast<uint32_t>(::crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), static_cast<uInt>(n)));
    passed(at, at + n);
    at += n;
  }
  check(crc == r.crc32, "zip record " + r.name + " is damaged (its CRC-32 does not match)");
}

RecordBytes& RecordBytes::operator=(RecordBytes&& o) noexcept {
  if (this != &o) {
    if (map_) ::munmap(map_, map_size_);
    map_ = std::exchange(o.map_, nullptr);
    map_size_ = std::exchange(o.map_size_, 0);
    skip_ = std::exchange(o.skip_, 0);
    size_ = std::exchange(o.size_, 0);
    owned_ = std::move(o.owned_);
    crc_pending_ = std::exchange(o.crc_pending_, false);
    name_ = std::move(o.name_);
    expected_crc_ = o.expected_crc_;
    crc_ = o.crc_;
    crc_done_ = o.crc_done_;
  }
  return *this;
}

void RecordBytes::crc_through(size_t end) {
  if (!crc_pending_) return;
  const std::string_view bytes = view();
  end = std::min(end, bytes.size());
  // In slices: zlib's length is 32 bits.
  constexpr size_t kSlice = 1u << 30;
  while (crc_done_ < end) {
    const size_t n = std::min(end - crc_done_, kSlice);
    crc_ = static_cast<uint32_t>(
        ::crc32(crc_, reinterpret_cast<const Bytef*>(bytes.data() + crc_done_), static_cast<uInt>(n)));
    crc_done_ += n;
  }
}

void RecordBytes::check_crc() {
  if (!crc_pending_) return;
  crc_through(size_);
  crc_pending_ = false;
  check(crc_ == expected_crc_, "zip record " + name_ + " is damaged (its CRC-32 does not match)");
}

RecordBytes::~RecordBytes() {
  if (map_) ::munmap(map_, map_size_);
}

void RecordBytes::release(size_t begin, size_t end) const {
  if (!map_ || begin >= end) return;
  // Only whole pages: a page shared with bytes still to be read stays.
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t first = (skip_ + begin + page - 1) / page * page;
  const size_t last = std::min(skip_ + end, map_size_) / page * page;
  // A private mapping never written: dropped pages read back from the file, unchanged.
  if (first < last) ::madvise(static_cast<char*>(map_) + first, last - first, MADV_DONTNEED);
}

}  // namespace kc
