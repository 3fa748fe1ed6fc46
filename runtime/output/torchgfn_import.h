#pragma once
// The reverse of runtime/output/torchgfn_export.h (`model.init_from`, README "Export to
// PyTorch and torchgfn"): a dict of tensors written by Python's torch.save (e.g. torchgfn's
// `dict(gflownet.state_dict())`, or our own model_state_dict.pt) is read with torch::pickle_load
// and copied into a model's parameters, matched by name. Our model file model.pt
// (roles/trainer/final_model.h) uses our own parameter names; the same loader reads it.
// Every function is blocking file I/O or pure; not thread-safe with respect to the model
// being written (call before training starts).

#include <string>
#include <vector>

#include "runtime/output/torchgfn_export.h"

namespace gfn::output {

/// The names a file uses: torchgfn's state-dict names (torchgfn_name) or ours
/// (runtime/gfn/estimators.h: "pf_trunk.0.weight", ..., "logZ").
enum class Naming { kTorchgfn, kOurs };

/// Reads a dict {str: tensor} from `path` (Python torch.save of a plain dict, or
/// write_torch_dict). Throws std::runtime_error naming the path when it cannot be read or
/// is not a dict of tensors; LibTorch's unpickler cannot read a pickled OrderedDict (what
/// Python's state_dict() returns), and the message says to save dict(state_dict()).
NamedTensors read_torch_dict(const std::string& path);

/// Copies `file` (read from `path`) into `params` (a model's named parameters, written in
/// place under no-grad, cast to each parameter's dtype). Every parameter must be in the file
/// with the same shape, except "logZ", which may be absent (torchgfn's DBGFlowNet has none):
/// it keeps its value and is returned. A tied trunk listed under "pb" / "logF" beside PF's
/// (as torchgfn writes it, and export does) is accepted when equal to PF's. Throws
/// std::invalid_argument naming `path` and the tensor on a missing tensor, a shape mismatch, an
/// unexpected tensor, or a parameter without a torchgfn name (NoisyNet layers, kTorchgfn only).
/// Nothing is written unless the whole file matches. Cost: one copy of the parameters.
std::vector<std::string> load_state_dict(const NamedTensors& params, const NamedTensors& file,
                                         const std::string& path, Naming naming);

}  // namespace gfn::output
