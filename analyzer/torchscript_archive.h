// What a TorchScript archive says before torch::jit::load runs: the device its tensors were
// saved on, and a reader that lets torch::jit::load skip the weights' bytes.
#pragma once

#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>

#include <memory>
#include <string>
#include <unordered_map>

namespace c10 {
struct IValue;  // the full header's CHECK macros would clash with a test framework's
}

namespace kc {

// The storage location recorded for the module's tensors in data.pkl ("cuda:0", "cpu"), or
// for its constants when it has no parameters; empty when it has neither. Reads only the
// pickles, never a tensor record.
std::string saved_device(caffe2::serialize::PyTorchStreamReader& archive);

// Where the module's tensor constants (constants.pkl: torch.tensor(...) literals of a trace,
// CONSTANTS.cN in its code) were saved, when they all were saved in one place ("cpu",
// "cuda:0"); empty when there are none or they are split between devices.
std::string constants_device(caffe2::serialize::PyTorchStreamReader& archive);

// The storages of the module's tensor constants (constants/N records named by constants.pkl):
// each one's bytes and the location it was saved on. libtorch's load maps every tensor to one
// device, so a constant's own location is found by matching its storage's bytes.
std::vector<std::pair<std::string, std::string>> constant_storages(caffe2::serialize::PyTorchStreamReader& archive);

// Throws Error naming the first pickle of the archive (data.pkl, constants.pkl) in which a
// string or bytes length runs past the pickle's end, or a memo index exceeds the pickle's size:
// libtorch's unpickler allocates such a length, or a memo table that long, before it finds the
// pickle short, gigabytes for a damaged one. Also for a storage data.pkl or constants.pkl
// declares longer than its tensor record holds: libtorch sizes the storage by the declaration
// and fills it from the record. Walks the opcodes it knows up to the first it does not, never
// a tensor record.
void check_pickle_lengths(caffe2::serialize::PyTorchStreamReader& archive);

// Each code file's source-range table (its .debug_pkl), unpickled, by the code file's name
// ("code/__torch__/a.py"), for SourceLocator. Throws Error naming the first table that would be
// indexed out of bounds or read as the wrong types (libtorch checks neither: a damaged one
// crashed the process when a node's source was first asked for), or whose lengths fail
// check_pickle_lengths' test, which it applies to each table before unpickling it. It reads
// the archive only through getRecord, which PyTorchStreamReader serialises: it may run while
// another reader of the same file loads the module.
std::unordered_map<std::string, c10::IValue> read_debug_tables(caffe2::serialize::PyTorchStreamReader& archive);

// A file reader for torch::jit::load that never reads the bytes of a parameter or buffer
// record (data/N) or a trace's example inputs (traced_inputs/N), stored or deflated: the module
// gets tensors of the right sizes whose memory was never written (the allocator's untouched
// pages take none). A deflated record is declared stored in the directory it serves, so it is
// never inflated. Constants (constants/N), code and pickles are read for real: traced shape
// arithmetic needs the constants' values. Throws Error for a deflated weight record whose sizes
// no deflate stream can have (a lying size field), before anything is allocated for it.
std::shared_ptr<caffe2::serialize::ReadAdapterInterface> weight_skipping_reader(const std::string& path);

}  // namespace kc
