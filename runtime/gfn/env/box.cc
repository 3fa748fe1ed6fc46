#include "runtime/gfn/env/box.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gfn::core {
namespace {

void require_option(bool ok, const char* key, double value, const char* rule) {
  if (!ok) {
    std::ostringstream out;
    out << "env." << key << " must be " << rule << ", got " << value;
    throw std::invalid_argument(out.str());
  }
}

}  // namespace

BoxBase::BoxBase(const BoxOptions& options) : options_(options) {
  require_option(options.dim >= 1, "dim", options.dim, ">= 1");
  require_option(options.delta > 0 && options.delta <= 1, "delta", options.delta, "in (0, 1]");
  require_option(options.epsilon >= 0 && std::isfinite(options.epsilon), "epsilon", options.epsilon,
                 ">= 0");
  require_option(options.R0 > 0 && std::isfinite(options.R0), "R0", options.R0, "> 0");
  require_option(options.R1 >= 0 && std::isfinite(options.R1), "R1", options.R1, ">= 0");
  require_option(options.R2 >= 0 && std::isfinite(options.R2), "R2", options.R2, ">= 0");
}

at::Tensor BoxBase::initial_states(std::int64_t n) const {
  return at::zeros({n, options_.dim}, at::kFloat);
}

at::Tensor BoxBase::is_initial(const at::Tensor& states) const { return states.eq(0).all(1); }

at::Tensor Box::forward_valid(const at::Tensor& states, const at::Tensor& increments) const {
  const double eps = epsilon();
  // From s0: every coordinate in [0, 1] (BoxCartesian.is_action_valid's s0 rule).
  const at::Tensor from_s0 = increments.ge(0).all(1) & increments.le(1.0 + eps).all(1);
  // Elsewhere: at least delta per coordinate and not past 1.
  const at::Tensor other = increments.ge(-eps).all(1) & increments.ge(delta() - eps).all(1) &
                           (states + increments).le(1.0 + eps).all(1);
  return at::where(is_initial(states), from_s0, other);
}

at::Tensor Box::backward_valid(const at::Tensor& states, const at::Tensor& increments) const {
  const double eps = epsilon();
  const at::Tensor parents = states - increments;
  // Back to source: the parent is s0 (increment = state).
  const at::Tensor to_source = parents.abs().le(eps).all(1);
  // The inverse of a forward step from a state other than s0.
  const at::Tensor undo = increments.ge(delta() - eps).all(1) & parents.ge(-eps).all(1);
  return is_initial(states).logical_not() & (to_source | undo);
}

std::string Box::forward_rule() const {
  std::ostringstream out;
  out << "from s0 every coordinate of the increment in [0, 1]; elsewhere every coordinate >= "
         "delta = "
      << delta() << " and state + increment <= 1, up to epsilon = " << epsilon();
  return out.str();
}

std::string Box::backward_rule() const {
  std::ostringstream out;
  out << "not from s0; either back to source (increment = state) or the inverse of a forward "
         "step: every coordinate of the increment >= delta = "
      << delta() << " and of state - increment >= 0, up to epsilon = " << epsilon();
  return out.str();
}

at::Tensor BoxBase::can_exit(const at::Tensor& states) const {
  return is_initial(states).logical_not();
}

at::Tensor BoxBase::step_unchecked(const at::Tensor& states, const at::Tensor& increments) const {
  return states + increments;
}

at::Tensor BoxBase::backward_step_unchecked(const at::Tensor& states,
                                            const at::Tensor& increments) const {
  return states - increments;
}

at::Tensor BoxBase::reward_unchecked(const at::Tensor& states) const {
  const at::Tensor ax = (states - 0.5).abs();
  const at::Tensor outer = ax.gt(0.25).all(1).to(at::kFloat);
  const at::Tensor ring = (ax.gt(0.3) & ax.lt(0.4)).all(1).to(at::kFloat);
  // R0 + outer * R1 + ring * R2 in float32, in that order.
  return (outer * options_.R1 + options_.R0) + ring * options_.R2;
}

at::Tensor BoxBase::reward(const at::Tensor& states) const {
  check_states(states, (name() + "::reward").c_str());
  return reward_unchecked(states);
}

at::Tensor BoxBase::log_reward(const at::Tensor& states) const {
  check_states(states, (name() + "::log_reward").c_str());
  return reward_unchecked(states).log();
}

std::int64_t BoxBase::n_modes() const {
  if (options_.dim > 62 || (options_.R1 == 0 && options_.R2 == 0)) return 0;
  return std::int64_t{1} << options_.dim;
}

at::Tensor BoxBase::mode_hits(const at::Tensor& states) const {
  check_states(states, "box::mode_hits");
  if (n_modes() == 0) return at::empty({0}, at::kLong);
  const at::Tensor ax = (states - 0.5).abs();
  const at::Tensor in_mode =
      options_.R2 > 0 ? (ax.gt(0.3) & ax.lt(0.4)).all(1) : ax.gt(0.25).all(1);
  const at::Tensor bits = at::pow(2, at::arange(options_.dim, at::kLong));
  const at::Tensor ids = (states.gt(0.5).to(at::kLong) * bits).sum(1);
  return ids.masked_select(in_mode);
}

at::Tensor Box::policy_inputs(const at::Tensor& states) const { return states * 2.0 - 1.0; }

void BoxBase::check_states(const at::Tensor& states, const char* who) const {
  ContinuousEnvironment::check_states(states, who);
  const double eps = options_.epsilon;
  const at::Tensor outside = (states.lt(-eps) | states.gt(1.0 + eps)).any(1);
  if (outside.any().item<bool>()) {
    const std::int64_t row = at::nonzero(outside)[0][0].item<std::int64_t>();
    std::ostringstream out;
    out << who << ": row " << row << " " << row_string(states, row) << " is outside [0, 1]^"
        << options_.dim << " (epsilon = " << eps << ")";
    throw std::invalid_argument(out.str());
  }
}

double BoxBase::log_partition() const {
  const double d = options_.dim;
  return std::log(options_.R0 + std::pow(0.5, d) * options_.R1 + std::pow(0.2, d) * options_.R2);
}

at::Tensor BoxBase::log_density(const at::Tensor& states) const {
  return log_reward(states) - log_partition();
}

at::Tensor BoxBase::sample_target(std::int64_t n, at::Generator& generator) const {
  if (n < 0) throw std::invalid_argument(name() + "::sample_target: n must be >= 0");
  const double bound = options_.R0 + options_.R1 + options_.R2;  // max of R
  const std::int64_t batch = std::max<std::int64_t>(4 * n, 1024);
  at::Tensor out = at::empty({n, options_.dim}, at::kFloat);
  std::int64_t filled = 0;
  while (filled < n) {
    const at::Tensor x = at::rand({batch, options_.dim}, generator, at::kFloat);
    const at::Tensor u = at::rand({batch}, generator, at::kDouble);
    const at::Tensor keep = (u * bound).lt(reward_unchecked(x).to(at::kDouble));
    const at::Tensor accepted = x.index_select(0, at::nonzero(keep).squeeze(1));
    const std::int64_t take = std::min(accepted.size(0), n - filled);
    out.narrow(0, filled, take).copy_(accepted.narrow(0, 0, take));
    filled += take;
  }
  return out;
}

}  // namespace gfn::core
