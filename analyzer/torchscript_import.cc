#include "analyzer/torchscript_import.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/frontend/source_range.h>
#include <torch/csrc/jit/operator_upgraders/upgraders_entry.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/csrc/jit/serialization/import_source.h>

#include <algorithm>
#include <string>
#include <vector>

namespace kc {
namespace {

namespace jit = torch::jit;
using caffe2::serialize::PyTorchStreamReader;

// Thrown from the unpickler's object loader to hand the archive to torch::jit::load.
struct NeedsSetState {};

// "__torch__.a.B" -> the code record "code/__torch__/a/B.py", or null when there is none: the
// archive path and the Source libtorch's own importer builds (without generated ranges).
std::shared_ptr<jit::Source> code_source(PyTorchStreamReader& reader, const std::string& qualifier) {
  std::string path = qualifier;
  std::replace(path.begin(), path.end(), '.', '/');
  path = "code/" + path + ".py";
  if (!reader.hasRecord(path)) return nullptr;
  auto [data, size] = reader.getRecord(path);
  return std::make_shared<jit::Source>(std::string_view(static_cast<const char*>(data.get()), size), path, 1);
}

jit::Module import_module(const std::shared_ptr<PyTorchStreamReader>& reader) {
  jit::populate_upgraders_graph_map();
  auto cu = std::make_shared<jit::CompilationUnit>();
  std::vector<c10::IValue> constants;
  jit::SourceImporter importer(
      cu, &constants, [&reader](const std::string& qualifier) { return code_source(*reader, qualifier); },
      reader->version());
  auto type_resolver = [&](const c10::QualifiedName& name) { return c10::StrongTypePtr(cu, importer.loadType(name)); };
  auto object_loader = [](const c10::StrongTypePtr& type, c10::IValue state) {
    auto cls = type.type_->expect<c10::ClassType>();
    if (cls->findMethod("__setstate__")) throw NeedsSetState{};
    auto dict = std::move(state).toGenericDict();
    const size_t n = cls->numAttributes();
    auto object = c10::ivalue::Object::create(type, n);
    for (size_t i = 0; i < n; ++i) object->setSlot(i, dict.at(cls->getAttributeName(i)));
    return object;
  };
  auto read = [&](const std::string& pickle) {
    return jit::readArchiveAndTensors(pickle, "", "", type_resolver, object_loader, c10::Device(c10::kCPU), *reader);
  };
  const c10::IValue table = read("constants");
  for (const c10::IValue& c : table.toTupleRef().elements()) constants.push_back(c);
  return jit::Module(read("data").toObject());
}

}  // namespace

jit::Module import_torchscript(std::shared_ptr<caffe2::serialize::ReadAdapterInterface> reader) {
  auto archive = std::make_shared<PyTorchStreamReader>(reader);
  // The pre-1.4 format (model.json): jit::load names it unsupported.
  if (archive->hasRecord("model.json")) return jit::load(reader, c10::Device(c10::kCPU), /*load_debug_files=*/false);
  try {
    return import_module(archive);
  } catch (const NeedsSetState&) {
    return jit::load(reader, c10::Device(c10::kCPU), /*load_debug_files=*/false);
  }
}

}  // namespace kc
