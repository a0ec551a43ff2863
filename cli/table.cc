#include "cli/table.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace kc {

Table::Table(std::vector<std::string> columns) {
  for (auto& c : columns) {
    bool right = !c.empty() && c[0] == '>';
    right_.push_back(right);
    header_.push_back(right ? c.substr(1) : c);
  }
}

void Table::add(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

void Table::print(std::ostream& os) const {
  std::vector<size_t> width(header_.size());
  for (size_t c = 0; c < header_.size(); ++c) {
    width[c] = header_[c].size();
    for (const auto& r : rows_) width[c] = std::max(width[c], r[c].size());
  }
  // Written piece by piece, never built as a line: a cell can hold megabytes (a fusion group
  // of 100,000 ops). Spaces are held back until something follows them, so that a line ends
  // without trailing spaces.
  size_t pending = 0;
  auto put = [&](std::string_view s) {
    const size_t last = s.find_last_not_of(' ');
    if (last == std::string_view::npos) {
      pending += s.size();
      return;
    }
    for (; pending > 0; --pending) os.put(' ');
    os.write(s.data(), static_cast<std::streamsize>(last + 1));
    pending = s.size() - last - 1;
  };
  auto spaces = [&](size_t n) { pending += n; };
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) {
      const size_t pad = width[c] - cells[c].size();
      if (right_[c]) spaces(pad);
      put(cells[c]);
      if (!right_[c] && c + 1 < cells.size()) spaces(pad);
      if (c + 1 < cells.size()) spaces(2);
    }
    pending = 0;
    os << '\n';
  };
  line(header_);
  for (const auto& r : rows_) line(r);
}

std::string markdown_escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (std::string("\\`*_[]<>|~").find(ch) != std::string::npos) out += '\\';
    out += ch;
  }
  return out;
}

void Table::print_markdown(std::ostream& os) const {
  auto line = [&](const std::vector<std::string>& cells) {
    os << '|';
    for (const auto& c : cells) {
      os << ' ' << markdown_escape(c) << " |";
    }
    os << '\n';
  };
  line(header_);
  os << '|';
  for (bool right : right_) os << (right ? " ---: |" : " --- |");
  os << '\n';
  for (const auto& r : rows_) line(r);
  os << '\n';
}

namespace {
// `v` in steps of 1000 up to the sixth unit, with three significant digits; `unscaled` below 1000.
std::string scaled(double v, const char* const (&units)[6], const std::string& unscaled) {
  int u = 0;
  while (v >= 1000 && u < 5) {
    v /= 1000;
    ++u;
  }
  if (u == 0) return unscaled;
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}
}  // namespace

std::string format_bytes(int64_t bytes) {
  static const char* const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  return scaled(static_cast<double>(bytes), units, std::to_string(bytes) + " B");
}

std::string format_flops(double flops) {
  static const char* const units[] = {"", "k", "M", "G", "T", "P"};
  char whole[32];
  std::snprintf(whole, sizeof whole, "%.0f", flops);
  return scaled(flops, units, whole);
}

std::string format_seconds(double s) {
  char buf[32];
  if (s < 1e-6)
    std::snprintf(buf, sizeof buf, "%.0f ns", s * 1e9);
  else if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else if (s < 1)
    std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

std::string format_loc(const SourceLoc& loc) {
  if (loc.file.empty()) return "";
  return loc.file.str() + ":" + std::to_string(loc.line);
}

std::string short_op(const Op& op) {
  std::string n = op.name.rfind("aten::", 0) == 0 ? op.name.substr(6) : op.name.str();
  return op.overload.empty() || op.overload == "default" ? n : n + "." + op.overload;
}

}  // namespace kc
