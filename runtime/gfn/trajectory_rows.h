#pragma once
// The rows of a batch of trajectories in the step-major layout (trajectories.h): which
// trajectory each row belongs to, how long each trajectory is, and the log reward of its
// terminating state. It is all the balance losses (losses.h: TB, log-partition variance,
// DB, modified DB, SubTB) read of a batch, so discrete Trajectories (trajectories.h) and
// ContinuousTrajectories (continuous/trajectories.h) derive from it and share one
// implementation of each loss.
//
// Layout, with B trajectories and N rows in total (N = sum of lengths): rows [0, B) are
// step 0 (s0) of trajectories 0..B-1, then the step-1 rows of the trajectories still running,
// and so on; the last row of a trajectory is the state it exits from.

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace gfn::core {

struct TrajectoryRows {
  std::int64_t n_trajectories = 0;  ///< B
  at::Tensor traj_index;            ///< int64 [N]: trajectory of each row, in [0, B)
  at::Tensor lengths;               ///< int64 [B]: actions per trajectory, exit included (>= 1)
  at::Tensor log_rewards;           ///< float32 [B]: log R(terminating state)

  /// N, from traj_index (0 when undefined).
  std::int64_t n_rows() const { return traj_index.defined() ? traj_index.size(0) : 0; }
};

}  // namespace gfn::core
