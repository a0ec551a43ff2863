// A PyTorch archive read the way PyTorch's own reader reads it (caffe2/serialize/inline_container.cc):
// a zip file whose records all sit in one top folder and are named without it, holding a
// format version from 1 to 10. Reads only the central directory up front and a record only when
// asked; stored and deflated records, their CRC checked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "analyzer/zip_directory.h"

namespace kc {

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
  // The directory as read, every record with its full name.
  const ZipDirectory& directory() const { return dir_; }

 private:
  const ZipRecord& find(std::string_view name) const;
  size_t read_at(uint64_t pos, void* buf, size_t n) const;

  int fd_ = -1;
  uint64_t size_ = 0;
  ZipDirectory dir_;
  std::string prefix_;  // the top folder and its slash
  std::unordered_map<std::string_view, size_t> by_name_;
};

}  // namespace kc
