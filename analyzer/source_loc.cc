#include "analyzer/source_loc.h"

#include <vector>

namespace kc {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Splits at commas outside brackets, as torch's serializer does.
std::vector<std::string> split_fields(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

// "L['self'].layers[0].attn" -> "layers.0.attn"; plain dotted paths pass unchanged.
std::string clean_module_path(std::string p) {
  for (const std::string prefix : {"L['self'].", "L['self']"})
    if (p.rfind(prefix, 0) == 0) p = p.substr(prefix.size());
  std::string out;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '[') {
      if (!out.empty()) out += '.';
      continue;
    }
    if (p[i] == ']' || p[i] == '\'') continue;
    out += p[i];
  }
  return out;
}

}  // namespace

bool is_torch_file(const std::string& file) {
  // Inside the torch package root: an installed package (.../site-packages/torch/...), or a
  // path already made relative to the folder holding it (torch/nn/...). A "/torch/" elsewhere
  // in a path is just a folder name: environments live in places like /opt/torch/.venv.
  for (const std::string root : {"site-packages/torch/", "dist-packages/torch/"})
    for (size_t at = file.find(root); at != std::string::npos; at = file.find(root, at + 1))
      if (at == 0 || file[at - 1] == '/') return true;
  return file.rfind("torch/", 0) == 0 || file.find("<eval_with_key>") != std::string::npos;
}

SourceLoc user_frame(const std::string& trace) {
  std::vector<SourceLoc> frames;
  size_t pos = 0;
  while ((pos = trace.find("File \"", pos)) != std::string::npos) {
    size_t fstart = pos + 6, fend = trace.find('"', fstart);
    if (fend == std::string::npos) break;
    SourceLoc loc;
    loc.file = trace.substr(fstart, fend - fstart);
    size_t lpos = trace.find("line ", fend);
    size_t eol = trace.find('\n', fend);
    if (lpos != std::string::npos && (eol == std::string::npos || lpos < eol))
      loc.line = std::atoi(trace.c_str() + lpos + 5);
    if (eol != std::string::npos) {
      size_t next = trace.find('\n', eol + 1);
      std::string code = trace.substr(eol + 1, next == std::string::npos ? std::string::npos : next - eol - 1);
      if (code.find("File \"") == std::string::npos) loc.code = trim(code);
    }
    frames.push_back(std::move(loc));
    pos = fend;
  }
  for (size_t i = frames.size(); i-- > 0;)
    if (!is_torch_file(frames[i].file)) return frames[i];
  return frames.empty() ? SourceLoc{} : frames.front();
}

SourceLoc traced_user_frame(const std::string& text) {
  std::vector<SourceLoc> frames;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    if (line.empty()) continue;
    // "path(line): function"; anything else means the text is source code, not a stack.
    size_t close = line.rfind("): ");
    size_t open = close == std::string::npos ? std::string::npos : line.rfind('(', close);
    if (open == std::string::npos || open == 0 || close == open + 1) return {};
    std::string number = line.substr(open + 1, close - open - 1);
    if (number.find_first_not_of("0123456789") != std::string::npos || number.size() > 9) return {};
    frames.push_back(SourceLoc{line.substr(0, open), std::stoi(number), ""});
  }
  for (const SourceLoc& f : frames)
    if (!is_torch_file(f.file)) return f;
  return frames.empty() ? SourceLoc{} : frames.back();
}

std::pair<std::string, std::string> innermost_module(const std::string& stack) {
  std::string last;
  size_t start = 0;
  while (start <= stack.size()) {
    size_t end = stack.find(';', start);
    std::string item = stack.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!item.empty()) last = item;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  auto fields = split_fields(last);
  if (fields.size() != 3) return {"", ""};
  return {clean_module_path(fields[1]), fields[2]};
}

}  // namespace kc
