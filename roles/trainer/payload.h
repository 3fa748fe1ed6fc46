#pragma once
// The trajectory part of a full DATA payload (roles/protocol/messages.h) from a batch of
// Trajectories (runtime/gfn/trajectories.h): the forward action sequences of the
// trajectories, in trajectory order, concatenated, with their lengths. The inverse of
// what the Learner rebuilds with trajectories_from_actions (trajectory_ops.h).
// Pure function; thread-safe.

#include <cstdint>
#include <vector>

#include "runtime/gfn/trajectories.h"

namespace gfn::roles {

/// Appends a batch's terminating states (int64 [B, ndim], any integer dtype) and log
/// rewards (float32 [B], any floating dtype) to the DATA payload's row-major `states` and
/// `log_rewards`. CPU tensors; O(B ndim).
void append_terminating_states(const at::Tensor& terminating_states, const at::Tensor& log_rewards,
                               std::vector<std::int64_t>& states, std::vector<float>& rewards);

/// Appends the B trajectories of `trajs` (step-major layout) to `lengths` (int32, B
/// entries: actions per trajectory, exit included) and `actions` (int64, Σ lengths: each
/// trajectory's forward actions in step order, exit last). O(N) over the transitions; a
/// batch with B = 0 appends nothing. CPU tensors; throws std::invalid_argument if the
/// batch's lengths do not add up to its transitions.
void append_trajectories(const core::Trajectories& trajs, std::vector<std::int32_t>& lengths,
                         std::vector<std::int64_t>& actions);

}  // namespace gfn::roles
