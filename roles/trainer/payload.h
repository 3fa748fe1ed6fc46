#pragma once
// The terminating-state part of a DATA payload (roles/protocol/messages.h) from a batch's
// tensors. (The trajectory part is core::pack_trajectories, runtime/gfn/trajectory_ops.h:
// the one packer into the one layout, runtime/buffer/packed_trajectories.h.)
// Pure function; thread-safe.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace gfn::roles {

/// Appends a batch's terminating states (int64 [B, ndim], any integer dtype) and log
/// rewards (float32 [B], any floating dtype) to the DATA payload's row-major `states` and
/// `log_rewards`. CPU tensors; O(B ndim).
void append_terminating_states(const at::Tensor& terminating_states, const at::Tensor& log_rewards,
                               std::vector<std::int64_t>& states, std::vector<float>& rewards);

}  // namespace gfn::roles
