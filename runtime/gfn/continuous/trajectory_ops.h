#pragma once
// Operations on batches of ContinuousTrajectories (trajectories.h) that keep the step-major
// layout: the rows of step 0 (s0) of every trajectory first, then step 1, and so on, in
// trajectory order within a step.
//
// Errors: std::invalid_argument for inconsistent shapes. Cost: O(N log N) for N rows (one
// sort of the row keys) plus O(N * d) copies. Thread-safety: pure functions.

#include <ATen/core/Tensor.h>

#include "runtime/gfn/continuous/trajectories.h"

namespace gfn::core {

/// int64 [N]: the step of every row of a step-major batch with these lengths (int64 [B]):
/// 0 for the B rows of s0, 1 for the next sum(lengths > 1) rows, and so on.
at::Tensor step_of_rows(const at::Tensor& lengths);

/// The B_a + B_b trajectories of `a` then `b` (b's trajectory indices shifted by B_a) in
/// the step-major layout; log rewards and terminating states in trajectory order. Either may
/// be empty (B = 0) and is then the other one.
ContinuousTrajectories concat_continuous_trajectories(const ContinuousTrajectories& a,
                                                      const ContinuousTrajectories& b);

/// Rows given in any order, each with its trajectory `traj` (int64 [N], in [0, B)) and step
/// `step` (int64 [N]; every trajectory has exactly one row of each step 0..length - 1), put
/// into the step-major layout: states, increments and is_exit [N] rows, and `pb_rows` [N, d]
/// whose rows of step >= 1 become pb_increments (step-0 rows ignored). Sets traj_index and
/// n_trajectories = B; leaves lengths, log rewards and terminating states to the caller.
ContinuousTrajectories order_step_major(const at::Tensor& states, const at::Tensor& increments,
                                        const at::Tensor& is_exit, const at::Tensor& pb_rows,
                                        const at::Tensor& traj, const at::Tensor& step,
                                        std::int64_t n_trajectories);

}  // namespace gfn::core
