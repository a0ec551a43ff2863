// Reads the user's source location and module path out of torch.export node metadata.
#pragma once

#include <string>
#include <utility>

#include "analyzer/graph.h"

namespace kc {

// True for files inside PyTorch itself: under the torch package root ("/site-packages/torch/...",
// "torch/nn/..."), never merely because "/torch/" occurs in the path ("/opt/torch/app.py").
bool is_torch_file(const std::string& file);

// The innermost frame of a Python stack trace ("File "x.py", line 6, in forward\n    code")
// that is not inside torch itself; the outermost frame when every frame is torch's.
SourceLoc user_frame(const std::string& stack_trace);
// The innermost frame outside torch of a stack that torch.jit.trace recorded as a source
// range ("torch/nn/modules/linear.py(134): forward\nmodels.py(38): forward\n..."), the
// outermost when every frame is torch's; an empty SourceLoc when the text is not such a stack.
// Traces carry no source text: code stays empty.
SourceLoc traced_user_frame(const std::string& text);
// Module path and class of the innermost module in nn_module_stack
// ("L__self__,,M;L__self__fc,fc,torch.nn.Linear" gives {"fc", "torch.nn.Linear"}).
std::pair<std::string, std::string> innermost_module(const std::string& nn_module_stack);

}  // namespace kc
