#include "analyzer/load.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "analyzer/error.h"
#include "analyzer/placement.h"
#include "analyzer/pt2_loader.h"
#include "analyzer/torchscript_plugin.h"
#include "analyzer/zip_archive.h"

namespace kc {

InputSpec parse_input_spec(const std::string& text) {
  InputSpec spec;
  std::string rest = text;
  if (auto eq = rest.find('='); eq != std::string::npos) {
    // "=8x64" would otherwise be a positional spec that looks named.
    check(eq > 0, "--input " + text + ": expected NAME=SIZES with a name before '='");
    spec.name = rest.substr(0, eq);
    rest = rest.substr(eq + 1);
  }
  if (auto colon = rest.find(':'); colon != std::string::npos) {
    auto dt = parse_dtype(rest.substr(colon + 1));
    check(dt.has_value(), "--input " + text + ": unknown dtype '" + rest.substr(colon + 1) + "'");
    spec.dtype = *dt;
    rest = rest.substr(0, colon);
  }
  size_t start = 0;
  int64_t numel = 1;
  while (!rest.empty()) {
    size_t x = rest.find('x', start);
    std::string dim = rest.substr(start, x == std::string::npos ? std::string::npos : x - start);
    check(!dim.empty() && dim.find_first_not_of("0123456789") == std::string::npos && dim.size() <= 18,
          "--input " + text + ": expected sizes like 8x3x224x224[:float32]");
    int64_t d = std::stoll(dim);
    check(d == 0 || numel <= INT64_MAX / d, "--input " + text + ": the shape overflows 64 bits");
    numel *= d;
    spec.sizes.push_back(d);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  return spec;
}

std::pair<std::string, int64_t> parse_dim_spec(const std::string& text) {
  auto eq = text.find('=');
  check(eq != std::string::npos && eq > 0, "--dim " + text + ": expected NAME=VALUE");
  std::string v = text.substr(eq + 1);
  check(!v.empty() && v.size() < 19 && v.find_first_not_of("0123456789") == std::string::npos,
        "--dim " + text + ": the value must be a non-negative integer");
  return {text.substr(0, eq), std::stoll(v)};
}

void check_regular_file(const std::string& path, uint64_t max_bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error(path + ": cannot open file (" + std::strerror(errno) + ")");
  check(!S_ISDIR(st.st_mode), path + ": is a directory, not a file");
  check(S_ISREG(st.st_mode), path + ": not a regular file (a pipe or a device cannot be read as a model or report)");
  check(static_cast<uint64_t>(st.st_size) <= max_bytes,
        path + ": larger than the limit of " + std::to_string(max_bytes >> 20) + " MiB");
}

namespace {

// Messages of exceptions that are not ours may span lines; the user gets the first.
std::string first_line(const std::string& msg) {
  std::string line = msg.substr(0, msg.find('\n'));
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

// Every --input NAME= must name one of the model's inputs (positional ones name none).
void check_input_names(const Graph& g, const LoadOptions& options) {
  for (const InputSpec& spec : options.inputs) {
    if (spec.name.empty()) continue;
    bool found = false;
    std::string names;
    for (int v : g.inputs) {
      found |= g.values[v].name == spec.name;
      names += (names.empty() ? "" : ", ") + g.values[v].name;
    }
    check(found, "--input " + spec.name + "=...: the model has no input of that name (its inputs: " + names + ")");
  }
}

Graph load_torchscript_archive(const ZipArchive&, const std::string& path, const LoadOptions& options) {
  return (options.torchscript ? options.torchscript : load_torchscript_plugin)(path, options);
}

// One input format: how to recognise its archive, how to load it, which options it takes.
struct Loader {
  const char* name;  // "pt2", "torchscript": Graph::info.format
  bool (*sniff)(const ZipArchive&);
  Graph (*load)(const ZipArchive&, const std::string& path, const LoadOptions&);
  bool takes_dims;    // --dim: symbolic sizes recorded in the file
  bool takes_inputs;  // --input: shapes the file does not record
};

const Loader kLoaders[] = {
    {"pt2", [](const ZipArchive& a) { return a.has_record("models/model.json"); }, load_pt2, true, false},
    {"torchscript", [](const ZipArchive& a) { return a.has_record("data.pkl") && a.has_record("constants.pkl"); },
     load_torchscript_archive, false, true},
};

// Options a format cannot use are an error, not silently ignored.
void check_options(const Loader& l, const LoadOptions& options) {
  check(l.takes_dims || options.dims.empty(),
        std::string("--dim applies to .pt2 models; this is a ") + l.name + " model (give its shapes with --input)");
  check(l.takes_inputs || options.inputs.empty(),
        std::string("--input applies to TorchScript models; this ") + l.name +
            " model records its input shapes (give symbolic sizes with --dim)");
}

}  // namespace

Graph load_model(const std::string& path, const LoadOptions& options) {
  check_regular_file(path, kMaxModelFileBytes);
  {
    std::ifstream f(path, std::ios::binary);
    check(f.good(), path + ": cannot open file");
    char magic[4] = {};
    f.read(magic, 4);
    check(f.gcount() > 0, path + ": file is empty");
    check(f.gcount() == 4 && magic[0] == 'P' && magic[1] == 'K',
          path + ": not a model archive (expected a .pt2 or TorchScript zip file)");
  }
  const ZipArchive archive(path);
  for (const Loader& l : kLoaders) {
    if (!l.sniff(archive)) continue;
    try {
      LoadOptions applicable = options;
      if (options.only_applicable) {
        if (!l.takes_dims) applicable.dims.clear();
        if (!l.takes_inputs) applicable.inputs.clear();
      }
      check_options(l, applicable);
      Graph g = l.load(archive, path, applicable);
      check_input_names(g, applicable);
      assign_placement(g);
      return g;
    } catch (const Error& e) {
      const std::string what = e.what();
      // The TorchScript loader names the file itself.
      throw Error(what.rfind(path + ": ", 0) == 0 ? what : path + ": " + what);
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      throw Error(path + ": " + first_line(e.what()));
    }
  }
  throw Error(path + ": a PyTorch archive, but neither a torch.export .pt2 nor a TorchScript model");
}

}  // namespace kc
