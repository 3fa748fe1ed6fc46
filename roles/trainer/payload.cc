#include "roles/trainer/payload.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <stdexcept>

namespace gfn::roles {
namespace {

void append_log_rewards(const at::Tensor& log_rewards, std::vector<float>& rewards) {
  const auto r = log_rewards.contiguous().to(at::kFloat);
  rewards.insert(rewards.end(), r.data_ptr<float>(), r.data_ptr<float>() + r.numel());
}

}  // namespace

void append_terminating_states(const at::Tensor& terminating_states, const at::Tensor& log_rewards,
                               std::vector<std::int64_t>& states, std::vector<float>& rewards) {
  if (at::isFloatingType(terminating_states.scalar_type())) {
    throw std::invalid_argument(
        fmt::format("DATA payload: int64 terminating states expected, got {} (a continuous "
                    "agent's: append_float_terminating_states)",
                    c10::toString(terminating_states.scalar_type())));
  }
  const auto s = terminating_states.contiguous().to(at::kLong);
  states.insert(states.end(), s.data_ptr<std::int64_t>(), s.data_ptr<std::int64_t>() + s.numel());
  append_log_rewards(log_rewards, rewards);
}

void append_float_terminating_states(const at::Tensor& terminating_states,
                                     const at::Tensor& log_rewards, std::vector<float>& states,
                                     std::vector<float>& rewards) {
  if (terminating_states.scalar_type() != at::kFloat) {
    throw std::invalid_argument(
        fmt::format("DATA payload: float32 terminating states expected, got {}",
                    c10::toString(terminating_states.scalar_type())));
  }
  const auto s = terminating_states.contiguous();
  states.insert(states.end(), s.data_ptr<float>(), s.data_ptr<float>() + s.numel());
  append_log_rewards(log_rewards, rewards);
}

}  // namespace gfn::roles
