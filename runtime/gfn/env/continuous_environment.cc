#include "runtime/gfn/env/continuous_environment.h"

#include <ATen/ATen.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace gfn::core {
std::string row_string(const at::Tensor& t, std::int64_t row) {
  std::ostringstream out;
  out << "[";
  const at::Tensor r = t[row].to(at::kDouble).contiguous();
  for (std::int64_t j = 0; j < r.size(0); ++j) {
    out << (j ? ", " : "") << r.data_ptr<double>()[j];
  }
  out << "]";
  return out.str();
}

namespace {

std::string shape_text(const at::Tensor& t) {
  std::ostringstream out;
  out << t.sizes();
  return out.str();
}

}  // namespace

at::Tensor ContinuousEnvironment::is_initial(const at::Tensor& states) const {
  return states.eq(initial_states(1)).all(1);
}

at::Tensor ContinuousEnvironment::mode_hits(const at::Tensor& states) const {
  check_states(states, "mode_hits");
  return at::empty({0}, at::kLong);
}

at::Tensor ContinuousEnvironment::reward(const at::Tensor& states) const {
  return log_reward(states).exp();
}

void ContinuousEnvironment::check_states(const at::Tensor& states, const char* who) const {
  if (!states.defined() || states.scalar_type() != at::kFloat || states.dim() != 2 ||
      states.size(1) != dim() || !states.device().is_cpu()) {
    throw std::invalid_argument(
        std::string(who) + ": states must be float32 [B, " + std::to_string(dim()) +
        "] on the CPU, got " +
        (states.defined()
             ? std::string(c10::toString(states.scalar_type())) + " " + shape_text(states)
             : std::string("an undefined tensor")));
  }
  if (states.numel() > 0 && !states.isfinite().all().item<bool>()) {
    const std::int64_t row =
        at::nonzero(states.isfinite().all(1).logical_not())[0][0].item<std::int64_t>();
    throw std::invalid_argument(std::string(who) + ": row " + std::to_string(row) + " " +
                                row_string(states, row) + " is not finite");
  }
}

void ContinuousEnvironment::check_forward_actions(const at::Tensor& states,
                                                  const ContinuousActions& actions,
                                                  const char* who) const {
  check_states(states, who);
  const std::int64_t b = states.size(0);
  const at::Tensor& inc = actions.increments;
  if (!inc.defined() || inc.scalar_type() != at::kFloat || inc.dim() != 2 || inc.size(0) != b ||
      inc.size(1) != dim() || !actions.is_exit.defined() ||
      actions.is_exit.scalar_type() != at::kBool || actions.is_exit.dim() != 1 ||
      actions.is_exit.size(0) != b) {
    throw std::invalid_argument(std::string(who) + ": actions must be increments float32 [" +
                                std::to_string(b) + ", " + std::to_string(dim()) +
                                "] and is_exit bool [" + std::to_string(b) + "]");
  }
  const at::Tensor exit_bad = actions.is_exit & can_exit(states).logical_not();
  if (exit_bad.any().item<bool>()) {
    const std::int64_t row = at::nonzero(exit_bad)[0][0].item<std::int64_t>();
    throw std::invalid_argument(std::string(who) + ": row " + std::to_string(row) + ": state " +
                                row_string(states, row) + " cannot exit in " + name());
  }
  const at::Tensor finite = inc.isfinite().all(1);
  const at::Tensor move_bad = actions.is_exit.logical_not() &
                              (finite.logical_not() | forward_valid(states, inc).logical_not());
  if (move_bad.any().item<bool>()) {
    const std::int64_t row = at::nonzero(move_bad)[0][0].item<std::int64_t>();
    throw std::invalid_argument(std::string(who) + ": row " + std::to_string(row) + ": increment " +
                                row_string(inc, row) + " from state " + row_string(states, row) +
                                " is not a valid forward action of " + name() + " (" +
                                forward_rule() + ")");
  }
}

at::Tensor ContinuousEnvironment::step(const at::Tensor& states,
                                       const ContinuousActions& actions) const {
  const std::string who = name() + "::step";
  check_forward_actions(states, actions, who.c_str());
  if (actions.is_exit.any().item<bool>()) {
    const std::int64_t row = at::nonzero(actions.is_exit)[0][0].item<std::int64_t>();
    throw std::invalid_argument(who + ": row " + std::to_string(row) +
                                " is an exit action, which ends the trajectory and is not a "
                                "transition between states");
  }
  return step_unchecked(states, actions.increments);
}

at::Tensor ContinuousEnvironment::backward_step(const at::Tensor& states,
                                                const at::Tensor& increments) const {
  const std::string who = name() + "::backward_step";
  check_states(states, who.c_str());
  const std::int64_t b = states.size(0);
  if (!increments.defined() || increments.scalar_type() != at::kFloat || increments.dim() != 2 ||
      increments.size(0) != b || increments.size(1) != dim()) {
    throw std::invalid_argument(who + ": increments must be float32 [" + std::to_string(b) + ", " +
                                std::to_string(dim()) + "]");
  }
  const at::Tensor bad =
      increments.isfinite().all(1).logical_not() | backward_valid(states, increments).logical_not();
  if (bad.any().item<bool>()) {
    const std::int64_t row = at::nonzero(bad)[0][0].item<std::int64_t>();
    throw std::invalid_argument(who + ": row " + std::to_string(row) + ": increment " +
                                row_string(increments, row) + " from state " +
                                row_string(states, row) + " is not a valid backward action of " +
                                name() + " (" + backward_rule() + ")");
  }
  return backward_step_unchecked(states, increments);
}

double ContinuousEnvironment::log_partition() const { no_target("log_partition"); }

std::pair<at::Tensor, at::Tensor> ContinuousEnvironment::log_reward_and_gradient(
    const at::Tensor&) const {
  throw std::logic_error(name() +
                         "::log_reward_and_gradient: the environment's reward has no "
                         "gradient");
}

at::Tensor ContinuousEnvironment::log_density(const at::Tensor&) const { no_target("log_density"); }

at::Tensor ContinuousEnvironment::sample_target(std::int64_t, at::Generator&) const {
  no_target("sample_target");
}

void ContinuousEnvironment::no_target(const char* what) const {
  throw std::domain_error(name() + "::" + what + ": no target distribution");
}

}  // namespace gfn::core
