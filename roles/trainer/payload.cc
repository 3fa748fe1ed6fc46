#include "roles/trainer/payload.h"

#include <ATen/ATen.h>

namespace gfn::roles {

void append_terminating_states(const at::Tensor& terminating_states, const at::Tensor& log_rewards,
                               std::vector<std::int64_t>& states, std::vector<float>& rewards) {
  const auto s = terminating_states.contiguous().to(at::kLong);
  const auto r = log_rewards.contiguous().to(at::kFloat);
  states.insert(states.end(), s.data_ptr<std::int64_t>(), s.data_ptr<std::int64_t>() + s.numel());
  rewards.insert(rewards.end(), r.data_ptr<float>(), r.data_ptr<float>() + r.numel());
}

}  // namespace gfn::roles
