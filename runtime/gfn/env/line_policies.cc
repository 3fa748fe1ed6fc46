#include "runtime/gfn/env/line_policies.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "runtime/gfn/distributions/normal.h"
#include "runtime/gfn/env/line.h"

namespace gfn::core {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Increments (a, 1) of positions a float32 [B].
at::Tensor increments_of(const at::Tensor& a) { return at::stack({a, at::ones_like(a)}, 1); }

}  // namespace

LinePolicy::LinePolicy(const Line& line, const LinePolicyOptions& options)
    : n_steps_(line.n_steps()), init_value_(line.init_value()), options_(options) {
  if (!(options.std_min > 0) || !(options.std_min < options.std_max) ||
      !std::isfinite(options.std_max)) {
    throw std::invalid_argument("env.policy_std_max: need 0 < env.policy_std_min (" +
                                std::to_string(options.std_min) + ") < env.policy_std_max (" +
                                std::to_string(options.std_max) + "), both finite");
  }
}

std::pair<at::Tensor, at::Tensor> LinePolicy::normal_parameters(const at::Tensor& outputs,
                                                                double temperature,
                                                                const char* who) const {
  if (!outputs.defined() || outputs.dim() != 2 || outputs.size(1) != 2) {
    throw std::invalid_argument(std::string(who) + ": outputs must be [B, 2] (loc, raw scale)");
  }
  if (!(temperature >= 1.0) || !std::isfinite(temperature)) {
    throw std::invalid_argument(std::string(who) + ": temperature " + std::to_string(temperature) +
                                " < 1: Line's policies read T - 1 as the exploration added to "
                                "their scale (train.temperature, train.temperature_start >= 1)");
  }
  const at::Tensor loc = outputs.select(1, 0);
  const at::Tensor sigma =
      outputs.select(1, 1).sigmoid() * (options_.std_max - options_.std_min) + options_.std_min;
  return {loc, temperature == 1.0 ? sigma : sigma + (temperature - 1.0)};
}

ContinuousActions LineForwardPolicy::sample(const at::Tensor& states, const at::Tensor& outputs,
                                            double temperature, at::Generator& generator) const {
  const auto [loc, scale] = normal_parameters(outputs, temperature, "LineForwardPolicy::sample");
  const at::Tensor a =
      distributions::Normal(loc.contiguous(), scale.contiguous()).sample(generator);
  const at::Tensor is_exit = states.select(1, 1).eq(n_steps_);
  return {increments_of(a.masked_fill(is_exit, 0.0)), is_exit};
}

at::Tensor LineForwardPolicy::log_prob(const at::Tensor& states, const at::Tensor& outputs,
                                       const ContinuousActions& actions, double temperature) const {
  const auto [loc, scale] = normal_parameters(outputs, temperature, "LineForwardPolicy::log_prob");
  const at::Tensor at_end = states.select(1, 1).eq(n_steps_);
  const at::Tensor a = actions.increments.select(1, 0);
  const at::Tensor move_ok = actions.increments.select(1, 1).eq(1) & a.isfinite();
  // Evaluate the Normal where the action is a move of finite a only (finite gradients).
  const at::Tensor safe_a = at::where(move_ok, a, loc.detach());
  const at::Tensor lp = distributions::Normal(loc, scale).log_prob(safe_a);
  const at::Tensor zero = at::zeros_like(lp);
  const at::Tensor minus_inf = at::full_like(lp, -kInf);
  const at::Tensor move = at::where(at_end.logical_not() & move_ok, lp, minus_inf);
  return at::where(actions.is_exit, at::where(at_end, zero, minus_inf), move);
}

ContinuousActions LineBackwardPolicy::sample(const at::Tensor& states, const at::Tensor& outputs,
                                             double temperature, at::Generator& generator) const {
  const auto [loc, scale] = normal_parameters(outputs, temperature, "LineBackwardPolicy::sample");
  const at::Tensor a =
      distributions::Normal(loc.contiguous(), scale.contiguous()).sample(generator);
  const at::Tensor x = states.select(1, 0);
  const at::Tensor to_source = states.select(1, 1).eq(1);
  return {increments_of(at::where(to_source, x - init_value_, a)),
          at::zeros({states.size(0)}, at::kBool)};
}

at::Tensor LineBackwardPolicy::log_prob(const at::Tensor& states, const at::Tensor& outputs,
                                        const ContinuousActions& actions,
                                        double temperature) const {
  const auto [loc, scale] = normal_parameters(outputs, temperature, "LineBackwardPolicy::log_prob");
  const at::Tensor x = states.select(1, 0);
  const at::Tensor t = states.select(1, 1);
  const at::Tensor a = actions.increments.select(1, 0);
  const at::Tensor ok = actions.increments.select(1, 1).eq(1) & a.isfinite();
  const at::Tensor safe_a = at::where(ok, a, loc.detach());
  const at::Tensor lp = distributions::Normal(loc, scale).log_prob(safe_a);
  const at::Tensor minus_inf = at::full_like(lp, -kInf);
  // t = 1: the forced step back to s0 (line.h's tolerance on a = x - init_value).
  const at::Tensor tolerance = (x.abs() + (1.0 + std::abs(init_value_))) * 1e-5;
  const at::Tensor to_source = ok & (x - a - init_value_).abs().le(tolerance);
  const at::Tensor first = at::where(to_source, at::zeros_like(lp), minus_inf);
  return at::where(t.gt(1), at::where(ok, lp, minus_inf), at::where(t.eq(1), first, minus_inf));
}

}  // namespace gfn::core
