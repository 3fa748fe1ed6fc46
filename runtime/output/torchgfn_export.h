#pragma once
// Export of the trained estimators to PyTorch / torchgfn (`output.export`, README "Export
// to PyTorch"): our parameter names (runtime/gfn/estimators.h: "pf_trunk.*", "pf_head.*",
// "pb_trunk.*", "pb_head.*", "logF_trunk.*", "logF_head.*", "logZ") become those of
// torchgfn's TBGFlowNet / DBGFlowNet state dict over gfn.utils.modules.MLP estimators:
// "pf.module.trunk.<i>.weight", "pf.module.last_layer.bias", "pb.module...",
// "logF.module...", "logZ" (same Sequential indices: Linear layers at 0, 2, 4, ...).
// A tied trunk is written under every estimator that uses it, as torchgfn's state dict
// lists a shared trunk under each module. The file is a dict of tensors written by
// torch::pickle_save, which Python reads with torch.load.
// Pure functions except write_torch_dict (file I/O); thread-safe.

#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

namespace gfn::output {

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

/// torchgfn's name of one of our parameter names; "" when it has none (NoisyNet layers).
std::string torchgfn_name(const std::string& ours);

/// Our named parameters -> torchgfn state-dict entries (detached contiguous copies, float32
/// as trained), in our order, with tied trunks duplicated under "pb" / "logF". Throws
/// std::invalid_argument naming a parameter that has no torchgfn name (NoisyNet layers:
/// model.n_noisy_layers > 0 is not exported).
NamedTensors torchgfn_state_dict(const NamedTensors& ours);

/// Writes `entries` as one dict {name: tensor} with torch::pickle_save (Python:
/// torch.load(path) gives a dict). Throws std::runtime_error naming the path on failure.
void write_torch_dict(const std::string& path, const NamedTensors& entries);

}  // namespace gfn::output
