#include "cli/json_writer.h"

namespace kc {

void JsonWriter::flush() {
  os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
}

void JsonWriter::indent(size_t depth) {
  buf_.append(depth, ' ');
}

void JsonWriter::element() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (open_.empty()) return;
  // Brackets open lazily: an empty container prints as "[]" or "{}" on one line.
  Level& l = open_.back();
  buf_ += l.members++ == 0 ? "[\n" : ",\n";
  indent(open_.size());
}

void JsonWriter::key(std::string_view k) {
  Level& l = open_.back();
  buf_ += l.members++ == 0 ? "{\n" : ",\n";
  indent(open_.size());
  write_string(k);
  buf_ += ": ";
  after_key_ = true;
}

void JsonWriter::begin_object() {
  element();
  open_.push_back({true});
}

void JsonWriter::begin_array() {
  element();
  open_.push_back({false});
}

void JsonWriter::end_object() {
  const size_t members = open_.back().members;
  open_.pop_back();
  if (members == 0) {
    buf_ += "{}";
    return;
  }
  buf_ += '\n';
  indent(open_.size());
  buf_ += '}';
}

void JsonWriter::end_array() {
  const size_t members = open_.back().members;
  open_.pop_back();
  if (members == 0) {
    buf_ += "[]";
    return;
  }
  buf_ += '\n';
  indent(open_.size());
  buf_ += ']';
}

void JsonWriter::write_string(std::string_view s) {
  // Most strings need no escaping and no UTF-8 check: they go out as they are. The rest go
  // through nlohmann's serializer, which escapes them (and replaces invalid UTF-8).
  bool plain = true;
  for (char c : s) plain &= c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  if (!plain) {
    dump(nlohmann::ordered_json(std::string(s)));
    return;
  }
  buf_ += '"';
  buf_ += s;
  buf_ += '"';
  if (buf_.size() >= kFlushBytes) flush();
}

void JsonWriter::dump(const nlohmann::ordered_json& j) {
  // One serializer for the whole report: making one allocates and reads the locale.
  // Source text from a damaged archive may hold invalid UTF-8: it is written as U+FFFD.
  if (!serializer_)
    serializer_.emplace(nlohmann::detail::output_adapter<char>(buf_), ' ', nlohmann::json::error_handler_t::replace);
  serializer_->dump(j, true, false, 1, static_cast<unsigned int>(open_.size()));
  if (buf_.size() >= kFlushBytes) flush();
}

void JsonWriter::value(std::string_view s) {
  element();
  write_string(s);
}

void JsonWriter::value(bool b) {
  element();
  buf_ += b ? "true" : "false";
}

void JsonWriter::null() {
  element();
  buf_ += "null";
}

void JsonWriter::value(double d) {
  element();
  dump(nlohmann::ordered_json(d));
}

void JsonWriter::value(const nlohmann::ordered_json& j) {
  element();
  dump(j);
}

}  // namespace kc
