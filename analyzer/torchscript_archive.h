// What a TorchScript archive says before torch::jit::load runs: the device its tensors were
// saved on, and a reader that lets torch::jit::load skip the weights' bytes.
#pragma once

#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>

#include <memory>
#include <string>

namespace kc {

// The storage location recorded for the module's tensors in data.pkl ("cuda:0", "cpu"), or
// for its constants when it has no parameters; empty when it has neither. Reads only the
// pickles, never a tensor record.
std::string saved_device(caffe2::serialize::PyTorchStreamReader& archive);

// A file reader for torch::jit::load that leaves the destination of every read inside a
// parameter or buffer record (data/N), or a trace's example inputs (traced_inputs/N),
// unwritten: the module gets tensors of the right sizes whose bytes were never read nor
// touched (the allocator's untouched pages take no memory). Constants (constants/N) and everything else are
// read for real, because traced shape arithmetic needs the constants' values.
std::shared_ptr<caffe2::serialize::ReadAdapterInterface> weight_skipping_reader(
    const std::string& path, caffe2::serialize::PyTorchStreamReader& archive);

}  // namespace kc
