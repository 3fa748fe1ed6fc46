#include "runtime/gfn/continuous/trajectory_ops.h"

#include <ATen/ATen.h>

#include <stdexcept>

namespace gfn::core {

at::Tensor step_of_rows(const at::Tensor& lengths) {
  if (lengths.numel() == 0) return at::zeros({0}, at::kLong);
  const std::int64_t t_max = lengths.max().item<std::int64_t>();
  // Rows of step t: the trajectories longer than t.
  const at::Tensor counts =
      lengths.unsqueeze(0).gt(at::arange(t_max, at::kLong).unsqueeze(1)).sum(1);
  return at::repeat_interleave(at::arange(t_max, at::kLong), counts);
}

ContinuousTrajectories order_step_major(const at::Tensor& states, const at::Tensor& increments,
                                        const at::Tensor& is_exit, const at::Tensor& pb_rows,
                                        const at::Tensor& traj, const at::Tensor& step,
                                        std::int64_t n_trajectories) {
  const std::int64_t n = states.size(0);
  if (increments.size(0) != n || is_exit.size(0) != n || pb_rows.size(0) != n ||
      traj.size(0) != n || step.size(0) != n || n < n_trajectories) {
    throw std::invalid_argument(
        "order_step_major: rows of different counts, or fewer rows than "
        "trajectories");
  }
  // Keys are unique (one row per trajectory and step), so any sort gives the same order.
  const at::Tensor order = at::argsort(step * n_trajectories + traj);
  ContinuousTrajectories out;
  out.n_trajectories = n_trajectories;
  out.states = states.index_select(0, order);
  out.increments = increments.index_select(0, order);
  out.is_exit = is_exit.index_select(0, order);
  out.traj_index = traj.index_select(0, order);
  out.pb_increments = pb_rows.index_select(0, order.narrow(0, n_trajectories, n - n_trajectories));
  return out;
}

ContinuousTrajectories concat_continuous_trajectories(const ContinuousTrajectories& a,
                                                      const ContinuousTrajectories& b) {
  if (b.n_trajectories == 0) return a;
  if (a.n_trajectories == 0) return b;
  const std::int64_t ba = a.n_trajectories;
  const std::int64_t bb = b.n_trajectories;
  const std::int64_t d = a.states.size(1);
  if (b.states.size(1) != d) {
    throw std::invalid_argument("concat_continuous_trajectories: states of different widths");
  }
  // pb rows aligned with the rows: zeros for the step-0 rows, which have no PB term.
  const auto pb_rows = [d](const ContinuousTrajectories& t) {
    return at::cat({at::zeros({t.n_trajectories, d}, at::kFloat), t.pb_increments});
  };
  ContinuousTrajectories out =
      order_step_major(at::cat({a.states, b.states}), at::cat({a.increments, b.increments}),
                       at::cat({a.is_exit, b.is_exit}), at::cat({pb_rows(a), pb_rows(b)}),
                       at::cat({a.traj_index, b.traj_index + ba}),
                       at::cat({step_of_rows(a.lengths), step_of_rows(b.lengths)}), ba + bb);
  out.lengths = at::cat({a.lengths, b.lengths});
  out.log_rewards = at::cat({a.log_rewards, b.log_rewards});
  out.terminating_states = at::cat({a.terminating_states, b.terminating_states});
  return out;
}

}  // namespace gfn::core
