// A PyTorch archive read the way PyTorch's own reader reads it (caffe2/serialize/inline_container.cc):
// a zip file whose records all sit in one top folder and are named without it, holding a
// format version from 1 to 10. Reads only the central directory up front and a record only when
// asked; stored and deflated records, their CRC checked.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "analyzer/zip_directory.h"

namespace kc {

// A record's bytes, held as cheaply as the archive allows: a stored record is a read-only
// mapping of the file, whose pages a reader can give back as it passes them; a deflated one
// (or one the system will not map) is read into memory.
class RecordBytes {
 public:
  RecordBytes() = default;
  RecordBytes(RecordBytes&& o) noexcept { *this = std::move(o); }
  RecordBytes& operator=(RecordBytes&& o) noexcept;
  ~RecordBytes();

  std::string_view view() const {
    return map_ ? std::string_view(static_cast<const char*>(map_) + skip_, size_) : owned_;
  }
  // Drops the whole pages of [begin, end) of view() from this process's memory; touched
  // again, they read back from the file. Does nothing for bytes held in memory.
  void release(size_t begin, size_t end) const;

  // For a record mapped with its CRC left to the reader (ZipArchive::map_record): adds the
  // bytes up to `end` to the CRC, while a reader that has just read them holds them in cache.
  // Does nothing for bytes already added, or when the CRC was checked as the record was read.
  void crc_through(size_t end);
  // Adds the rest and throws Error when the CRC-32 is not the record's; then does nothing.
  void check_crc();

 private:
  friend class ZipArchive;
  void* map_ = nullptr;
  size_t map_size_ = 0;  // the mapping, from a page boundary
  size_t skip_ = 0;      // where the record starts in the mapping
  size_t size_ = 0;
  std::string owned_;
  // The CRC left to the reader: the record's name and CRC, and the CRC of the bytes added.
  bool crc_pending_ = false;
  std::string name_;
  uint32_t expected_crc_ = 0, crc_ = 0;
  size_t crc_done_ = 0;
};

class ZipArchive {
 public:
  // Opens the file at path and reads its directory. Throws Error with one line for a file that
  // is not a zip archive, a damaged or truncated one, or a zip that is not a PyTorch archive.
  explicit ZipArchive(const std::string& path);
  ~ZipArchive();
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  // Whether the archive holds the record `name` ("models/model.json"), named inside the top folder.
  bool has_record(std::string_view name) const;
  // The record's size once read (inflated); throws Error when there is no such record.
  uint64_t record_size(std::string_view name) const;
  // The record's bytes. Throws Error when there is no such record, it is larger than max_bytes,
  // or its bytes are damaged (a deflate stream that does not inflate to the recorded size, a
  // CRC that does not match, a record running past the end of the file).
  std::string read_record(std::string_view name, uint64_t max_bytes) const;
  // The same bytes with the same checks, a stored record mapped rather than read: its pages are
  // given back as its CRC is checked, so that they cost memory only while a reader holds them.
  // With kByReader, a mapped record's CRC is left to the reader, who calls crc_through as it
  // passes the bytes and check_crc before it trusts them: the text is swept once, not twice.
  enum class Crc { kNow, kByReader };
  RecordBytes map_record(std::string_view name, uint64_t max_bytes, Crc crc = Crc::kNow) const;
  // The directory as read, every record with its full name.
  const ZipDirectory& directory() const { return dir_; }

 private:
  const ZipRecord& find(std::string_view name) const;
  // Where the record's bytes start in the file, after the checks every read makes.
  uint64_t data_offset(const ZipRecord& r, uint64_t max_bytes) const;
  size_t read_at(uint64_t pos, void* buf, size_t n) const;
  // Throws Error when the bytes' CRC-32 is not the record's; calls passed(begin, end) as it goes.
  static void check_crc(const ZipRecord& r, std::string_view bytes, const std::function<void(size_t, size_t)>& passed);

  int fd_ = -1;
  uint64_t size_ = 0;
  ZipDirectory dir_;
  std::string prefix_;  // the top folder and its slash
  std::unordered_map<std::string_view, size_t> by_name_;
};

}  // namespace kc
