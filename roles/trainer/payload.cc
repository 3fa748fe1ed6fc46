#include "roles/trainer/payload.h"

#include <ATen/ATen.h>

#include <stdexcept>
#include <string>

namespace gfn::roles {

void append_terminating_states(const at::Tensor& terminating_states, const at::Tensor& log_rewards,
                               std::vector<std::int64_t>& states, std::vector<float>& rewards) {
  const auto s = terminating_states.contiguous().to(at::kLong);
  const auto r = log_rewards.contiguous().to(at::kFloat);
  states.insert(states.end(), s.data_ptr<std::int64_t>(), s.data_ptr<std::int64_t>() + s.numel());
  rewards.insert(rewards.end(), r.data_ptr<float>(), r.data_ptr<float>() + r.numel());
}

void append_trajectories(const core::Trajectories& trajs, std::vector<std::int32_t>& lengths,
                         std::vector<std::int64_t>& actions) {
  const std::int64_t b = trajs.n_trajectories;
  if (b == 0) return;
  const at::Tensor len = trajs.lengths.contiguous().to(at::kLong);
  const at::Tensor act = trajs.actions.contiguous().to(at::kLong);
  const at::Tensor idx = trajs.traj_index.contiguous().to(at::kLong);
  const std::int64_t* lp = len.data_ptr<std::int64_t>();
  const std::size_t base = actions.size();
  std::vector<std::size_t> next(static_cast<std::size_t>(b));
  std::size_t total = 0;
  for (std::int64_t i = 0; i < b; ++i) {
    next[static_cast<std::size_t>(i)] = base + total;
    total += static_cast<std::size_t>(lp[i]);
  }
  if (total != static_cast<std::size_t>(act.numel()) || idx.numel() != act.numel()) {
    throw std::invalid_argument("append_trajectories: lengths add up to " + std::to_string(total) +
                                " but the batch has " + std::to_string(act.numel()) +
                                " transitions");
  }
  for (std::int64_t i = 0; i < b; ++i) lengths.push_back(static_cast<std::int32_t>(lp[i]));
  actions.resize(base + total);
  const std::int64_t* ap = act.data_ptr<std::int64_t>();
  const std::int64_t* ip = idx.data_ptr<std::int64_t>();
  for (std::int64_t row = 0; row < act.numel(); ++row) {
    actions[next[static_cast<std::size_t>(ip[row])]++] = ap[row];
  }
}

}  // namespace gfn::roles
