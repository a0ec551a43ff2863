// Loader for torch.export archives (.pt2) written by PyTorch 2.9 to 2.11 (schema 8.x).
#pragma once

#include <string>

#include "analyzer/load.h"
#include "analyzer/zip_archive.h"

namespace kc {

// Builds the graph from models/model.json of an opened archive; reads no other record.
Graph load_pt2(const ZipArchive& archive, const std::string& path, const LoadOptions& options);
// Same, from the JSON text itself (tests, and archives read some other way).
Graph load_pt2_json(const std::string& json_text, const std::string& path, const LoadOptions& options);

}  // namespace kc
