#pragma once
// The terminating-state part of a DATA payload (roles/protocol/messages.h) from a batch's
// tensors, on two explicit paths: int64 rows for a discrete agent, float32 rows for a
// continuous one (Box), never one converted into the other. (The trajectory part is
// core::pack_trajectories, runtime/gfn/trajectory_ops.h: the one packer into the one
// layout, runtime/buffer/packed_trajectories.h.) Pure functions; thread-safe.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace gfn::roles {

/// Appends a discrete batch's terminating states (int64 [B, ndim], any integer dtype) and
/// log rewards (float32 [B], any floating dtype) to the DATA payload's row-major `states`
/// and `log_rewards`. Throws std::invalid_argument for states of a floating dtype (a
/// continuous agent's: append_float_terminating_states). CPU tensors; O(B ndim).
void append_terminating_states(const at::Tensor& terminating_states, const at::Tensor& log_rewards,
                               std::vector<std::int64_t>& states, std::vector<float>& rewards);

/// The same for a continuous batch: terminating states float32 [B, d] (exactly float32:
/// another dtype throws std::invalid_argument) into the payload's `float_states`.
void append_float_terminating_states(const at::Tensor& terminating_states,
                                     const at::Tensor& log_rewards, std::vector<float>& states,
                                     std::vector<float>& rewards);

}  // namespace gfn::roles
