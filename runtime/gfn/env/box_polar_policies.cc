#include "runtime/gfn/env/box_polar_policies.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "runtime/gfn/env/box_polar.h"

namespace gfn::core {
namespace {

using distributions::BetaMixture;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr double kClamp = std::numeric_limits<float>::epsilon();  // torchgfn's CLAMP
constexpr double kHalfPi = M_PI / 2.0;
// Off-support tolerance of log_prob: length and angle (in quarter turns).
constexpr double kTolerance = BoxPolar::kLengthTolerance;

void check_options(const BoxPolarPolicyOptions& o) {
  if (o.n_components < 1 || o.n_components_s0 < 1) {
    throw std::invalid_argument("polar box policy: n_components and n_components_s0 must be >= 1");
  }
  const auto& c = o.concentration;
  if (!(c.min_concentration > 0) || !(c.max_concentration >= c.min_concentration)) {
    throw std::invalid_argument(
        "polar box policy: need 0 < min_concentration <= max_concentration, got " +
        std::to_string(c.min_concentration) + " and " + std::to_string(c.max_concentration));
  }
}

void check_inputs(const at::Tensor& states, const at::Tensor& outputs, std::int64_t width,
                  double temperature, const char* who) {
  if (!states.defined() || states.dim() != 2 || states.size(1) != 2 || !outputs.defined() ||
      outputs.dim() != 2 || outputs.size(0) != states.size(0) || outputs.size(1) != width ||
      outputs.scalar_type() != at::kFloat) {
    throw std::invalid_argument(std::string(who) + ": need states [B, 2] and float32 outputs [B, " +
                                std::to_string(width) + "]");
  }
  if (!(temperature > 0)) {
    throw std::invalid_argument(std::string(who) + ": temperature must be > 0");
  }
}

// The Beta mixture of k components read at column `begin` of outputs: the logits there, the
// concentrations (raw unless skip_normalization) at blocks `concentrations` and
// `concentrations` + 1 of k columns after them (the s0 parameters hold the angle's at 1 and
// the radius's at 3).
BetaMixture mixture_at(const at::Tensor& outputs, std::int64_t begin, std::int64_t k,
                       const BoxPolarPolicyOptions& o, double temperature,
                       std::int64_t concentrations = 1) {
  auto block = [&](std::int64_t i) { return outputs.narrow(1, begin + i * k, k); };
  const at::Tensor alpha = block(concentrations), beta = block(concentrations + 1);
  if (o.skip_normalization) {
    return BetaMixture((block(0) / temperature).log_softmax(-1), alpha, beta);
  }
  return BetaMixture::from_raw(block(0), alpha, beta, o.concentration, temperature);
}

// The arc of angles (quarter turns) of the steps of length delta that stay in the box:
// north-east from s (forward, s + a <= 1) or south-west (backward, s - a >= 0), as torchgfn's
// QuarterCircle.get_min_and_max_angles.
struct Arc {
  at::Tensor min;  // float32 [B]
  at::Tensor max;  // float32 [B]
};

Arc arc_of(const at::Tensor& s, double delta, bool northeastern) {
  const at::Tensor x = s.select(1, 0), y = s.select(1, 1);
  const at::Tensor zero = at::zeros({}, at::kFloat), one = at::ones({}, at::kFloat);
  if (northeastern) {
    return {at::where(x.le(1.0 - delta), zero, at::acos((1.0 - x) / delta) * (1.0 / kHalfPi)),
            at::where(y.le(1.0 - delta), one, at::asin((1.0 - y) / delta) * (1.0 / kHalfPi))};
  }
  return {at::where(x.ge(delta), zero, at::acos(x / delta) * (1.0 / kHalfPi)),
          at::where(y.ge(delta), one, at::asin(y / delta) * (1.0 / kHalfPi))};
}

// delta (cos, sin)(pi / 2 theta): float32 [B, 2].
at::Tensor on_circle(const at::Tensor& theta, double delta) {
  const at::Tensor angle = theta * kHalfPi;
  return at::stack({angle.cos(), angle.sin()}, 1) * delta;
}

// QuarterCircle.log_prob of actions a float32 [B, 2] on `arc` (the shared part of both
// directions), with the position u on the arc clamped as torchgfn does; `valid` receives
// whether a is on the arc within kTolerance.
at::Tensor arc_log_prob(const BetaMixture& mixture, const at::Tensor& a, const Arc& arc,
                        double delta, bool southwestern, at::Tensor* valid) {
  const at::Tensor ac = a.clamp(0.0, delta);
  const at::Tensor theta = at::atan2(ac.select(1, 1), ac.select(1, 0)) / kHalfPi;
  const at::Tensor width = arc.max - arc.min;
  at::Tensor u = (theta - arc.min) / width.clamp(kClamp, 1.0 - kClamp);
  if (southwestern) u = u.clamp(1e-4, 1.0 - 1e-4);
  u = at::where(u.isnan(), at::full({}, 0.5, at::kFloat), u).clamp(kClamp, 1.0 - kClamp);
  at::Tensor lp = mixture.log_prob(u);
  if (southwestern) lp = lp.clamp_max(100.0);
  *valid = a.ge(-kTolerance).all(1) & (a.norm(2, 1) - delta).abs().le(kTolerance) &
           theta.ge(arc.min - kTolerance) & theta.le(arc.max + kTolerance);
  return lp - std::log(delta) - std::log(kHalfPi) - width.clamp_min(kClamp).log();
}

}  // namespace

BoxPolarPolicy::BoxPolarPolicy(const BoxPolar& box, const BoxPolarPolicyOptions& options)
    : delta_(box.delta()), epsilon_(box.epsilon()), options_(options) {
  check_options(options_);
}

namespace {

// Rows where PF must exit: |1 - s| <= delta or some s_i >= 1 - epsilon.
at::Tensor forced_exit(const at::Tensor& s, double delta, double epsilon) {
  return (1.0 - s).norm(2, 1).le(delta) | s.ge(1.0 - epsilon).any(1);
}

}  // namespace

ContinuousActions BoxPolarForwardPolicy::sample(const at::Tensor& states, const at::Tensor& outputs,
                                                double temperature,
                                                at::Generator& generator) const {
  at::NoGradGuard no_grad;
  check_inputs(states, outputs, n_outputs(), temperature, "BoxPolarForwardPolicy::sample");
  const std::int64_t k = options_.n_components, k0 = options_.n_components_s0;
  const at::Tensor is_s0 = states.eq(0).all(1);
  const at::Tensor logit = outputs.select(1, 0) / temperature;
  // Elsewhere: a point of the north-eastern arc, kept inside the box.
  const Arc arc = arc_of(states, delta_, /*northeastern=*/true);
  const at::Tensor u = mixture_at(outputs, 1, k, options_, temperature).sample(generator);
  const at::Tensor step =
      at::minimum(on_circle(arc.min + (arc.max - arc.min) * u, delta_), 1.0 - states)
          .clamp_min(0.0);
  // From s0: a point of the quarter disk (radius and angle drawn independently).
  const BetaMixture angle = mixture_at(outputs, 1 + 3 * k, k0, options_, temperature);
  const BetaMixture radius = mixture_at(outputs, 1 + 3 * k, k0, options_, temperature, 3);
  const at::Tensor r = radius.sample(generator);
  const at::Tensor first =
      (on_circle(angle.sample(generator), delta_) * r.unsqueeze(1)).clamp_min(0.0);
  const at::Tensor draw = at::rand({states.size(0)}, generator, at::kFloat);
  const at::Tensor is_exit =
      (draw.lt(logit.sigmoid()) | forced_exit(states, delta_, epsilon_)) & is_s0.logical_not();
  at::Tensor increments = at::where(is_s0.unsqueeze(1), first, step);
  increments.masked_fill_(is_exit.unsqueeze(1), 0.0);
  return {increments, is_exit};
}

at::Tensor BoxPolarForwardPolicy::log_prob(const at::Tensor& states, const at::Tensor& outputs,
                                           const ContinuousActions& actions,
                                           double temperature) const {
  check_inputs(states, outputs, n_outputs(), temperature, "BoxPolarForwardPolicy::log_prob");
  const std::int64_t k = options_.n_components, k0 = options_.n_components_s0;
  const at::Tensor is_s0 = states.eq(0).all(1);
  const at::Tensor& a = actions.increments;
  const at::Tensor logit = outputs.select(1, 0) / temperature;
  // Elsewhere (QuarterCircleWithExit).
  at::Tensor on_arc;
  const at::Tensor move =
      arc_log_prob(mixture_at(outputs, 1, k, options_, temperature), a,
                   arc_of(states, delta_, /*northeastern=*/true), delta_, false, &on_arc) +
      at::log_sigmoid(-logit);
  // From s0 (QuarterDisk), on a harmless point elsewhere (a step of length delta has r = 1,
  // where a Beta's log-density and its gradient are infinite).
  const BetaMixture angle = mixture_at(outputs, 1 + 3 * k, k0, options_, temperature);
  const BetaMixture radius = mixture_at(outputs, 1 + 3 * k, k0, options_, temperature, 3);
  const at::Tensor length = a.norm(2, 1);
  const at::Tensor disk = at::where(is_s0.unsqueeze(1), a, at::full({}, delta_ / 4, at::kFloat));
  const at::Tensor r = (disk.norm(2, 1) / delta_).clamp(kClamp, 1.0);
  const at::Tensor theta =
      (at::atan2(disk.select(1, 1), disk.select(1, 0)) / kHalfPi).clamp(kClamp, 1.0 - kClamp);
  const at::Tensor first = radius.log_prob(r) + angle.log_prob(theta) - std::log(delta_) -
                           std::log(kHalfPi) - (r * delta_).log();
  const at::Tensor in_disk = a.ge(-kTolerance).all(1) & length.le(delta_ + kTolerance);
  const at::Tensor forced = forced_exit(states, delta_, epsilon_);
  at::Tensor lp = at::where(is_s0, first, move);
  lp = at::where(actions.is_exit, at::log_sigmoid(logit), lp);
  lp = lp.masked_fill(forced & is_s0.logical_not(), 0.0);
  const at::Tensor moving = actions.is_exit.logical_not();
  const at::Tensor impossible = (is_s0 & (actions.is_exit | in_disk.logical_not())) |
                                (is_s0.logical_not() & moving & (forced | on_arc.logical_not()));
  return lp.masked_fill(impossible, kNegInf);
}

ContinuousActions BoxPolarBackwardPolicy::sample(const at::Tensor& states,
                                                 const at::Tensor& outputs, double temperature,
                                                 at::Generator& generator) const {
  at::NoGradGuard no_grad;
  check_inputs(states, outputs, n_outputs(), temperature, "BoxPolarBackwardPolicy::sample");
  const at::Tensor to_source = states.norm(2, 1).le(delta_);
  at::Tensor increments = states.clone();
  if (!to_source.all().item<bool>()) {
    const Arc arc = arc_of(states, delta_, /*northeastern=*/false);
    const at::Tensor u =
        mixture_at(outputs, 0, options_.n_components, options_, temperature).sample(generator);
    const at::Tensor step =
        at::minimum(on_circle(arc.min + (arc.max - arc.min) * u, delta_), states).clamp_min(0.0);
    increments = at::where(to_source.unsqueeze(1), increments, step);
  }
  return {increments, at::zeros({states.size(0)}, at::kBool)};
}

at::Tensor BoxPolarBackwardPolicy::log_prob(const at::Tensor& states, const at::Tensor& outputs,
                                            const ContinuousActions& actions,
                                            double temperature) const {
  check_inputs(states, outputs, n_outputs(), temperature, "BoxPolarBackwardPolicy::log_prob");
  const at::Tensor& a = actions.increments;
  const at::Tensor to_source = states.norm(2, 1).le(delta_);
  at::Tensor on_arc;
  const at::Tensor lp =
      arc_log_prob(mixture_at(outputs, 0, options_.n_components, options_, temperature), a,
                   arc_of(states, delta_, /*northeastern=*/false), delta_, true, &on_arc);
  const at::Tensor invalid =
      (to_source.logical_not() & (on_arc.logical_not() | (states - a).lt(-kTolerance).any(1))) |
      states.eq(0).all(1);
  return lp.masked_fill(to_source, 0.0).masked_fill(invalid, kNegInf);
}

}  // namespace gfn::core
