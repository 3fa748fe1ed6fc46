#include "runtime/gfn/env/box_policies.h"

#include <ATen/ATen.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "runtime/gfn/env/box.h"

namespace gfn::core {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

void check_options(const BoxPolicyOptions& o) {
  if (o.n_components < 1) {
    throw std::invalid_argument("box policy: n_components must be >= 1, got " +
                                std::to_string(o.n_components));
  }
  if (!(o.concentration.min_concentration > 0) ||
      !(o.concentration.max_concentration >= o.concentration.min_concentration)) {
    throw std::invalid_argument(
        "box policy: need 0 < min_concentration <= max_concentration, got " +
        std::to_string(o.concentration.min_concentration) + " and " +
        std::to_string(o.concentration.max_concentration));
  }
  if (!(o.numerical_epsilon > 0 && o.numerical_epsilon < 0.5)) {
    throw std::invalid_argument("box policy: numerical_epsilon must be in (0, 0.5), got " +
                                std::to_string(o.numerical_epsilon));
  }
}

// The first output column (exit or back-to-source logit) over T, and the Beta mixture of
// every coordinate ([B, d] batch) from the other 3 d K columns.
struct Parsed {
  at::Tensor logit;  // [B]
  distributions::BetaMixture mixture;
};

Parsed parse(const at::Tensor& states, const at::Tensor& outputs, std::int64_t d,
             const BoxPolicyOptions& o, double temperature, const char* who) {
  const std::int64_t k = o.n_components;
  if (!states.defined() || states.dim() != 2 || states.size(1) != d || !outputs.defined() ||
      outputs.dim() != 2 || outputs.size(0) != states.size(0) || outputs.size(1) != 1 + 3 * d * k ||
      outputs.scalar_type() != at::kFloat) {
    throw std::invalid_argument(std::string(who) + ": need states [B, " + std::to_string(d) +
                                "] and float32 outputs [B, " + std::to_string(1 + 3 * d * k) + "]");
  }
  if (!(temperature > 0)) {
    throw std::invalid_argument(std::string(who) + ": temperature must be > 0");
  }
  const std::int64_t b = outputs.size(0);
  auto block = [&](std::int64_t i) {
    return outputs.narrow(1, 1 + i * d * k, d * k).reshape({b, d, k});
  };
  return {outputs.select(1, 0) / temperature,
          distributions::BetaMixture::from_raw(block(0), block(1), block(2), o.concentration,
                                               temperature)};
}

at::Tensor scalar(double v) { return at::full({}, v, at::kFloat); }

}  // namespace

BoxPolicy::BoxPolicy(const Box& box, const BoxPolicyOptions& options)
    : dim_(box.dim()), delta_(box.delta()), options_(options) {
  check_options(options_);
}

namespace {

// The ranges of the forward increments: from s0 m = 0, w = 1; elsewhere m = delta,
// w = max(1 - s - delta, eps); and the rows at the boundary.
struct ForwardRange {
  at::Tensor is_s0;        // bool [B]
  at::Tensor min_incr;     // float32 [B, 1]
  at::Tensor max_range;    // float32 [B, d]
  at::Tensor at_boundary;  // bool [B]
};

ForwardRange forward_range(const at::Tensor& s, double delta, double eps) {
  ForwardRange r;
  r.is_s0 = s.eq(0).all(1);
  const at::Tensor s0_col = r.is_s0.unsqueeze(1);
  r.min_incr = at::where(s0_col, scalar(0.0), scalar(delta));
  r.max_range = at::where(s0_col, scalar(1.0), (1.0 - s) - delta).clamp_min(eps);
  r.at_boundary = s.ge(1.0 - delta - eps).any(1);
  return r;
}

}  // namespace

ContinuousActions BoxForwardPolicy::sample(const at::Tensor& states, const at::Tensor& outputs,
                                           double temperature, at::Generator& generator) const {
  at::NoGradGuard no_grad;
  const Parsed p = parse(states, outputs, dim_, options_, temperature, "BoxForwardPolicy::sample");
  const double eps = options_.numerical_epsilon;
  const ForwardRange range = forward_range(states, delta_, eps);
  const at::Tensor u = at::rand({states.size(0)}, generator, at::kFloat);
  const at::Tensor is_exit =
      (u.lt(p.logit.sigmoid()) | range.at_boundary) & range.is_s0.logical_not();
  const at::Tensor r = p.mixture.sample(generator).clamp(0.0, 1.0);
  const at::Tensor max_action = at::where(range.is_s0.unsqueeze(1), scalar(1.0), 1.0 - states);
  at::Tensor increments =
      at::minimum((range.min_incr + r * range.max_range).clamp_min(0.0), max_action);
  increments.masked_fill_(is_exit.unsqueeze(1), 0.0);
  return {increments, is_exit};
}

at::Tensor BoxForwardPolicy::log_prob(const at::Tensor& states, const at::Tensor& outputs,
                                      const ContinuousActions& actions, double temperature) const {
  const Parsed p =
      parse(states, outputs, dim_, options_, temperature, "BoxForwardPolicy::log_prob");
  const double eps = options_.numerical_epsilon;
  const ForwardRange range = forward_range(states, delta_, eps);
  const at::Tensor exit_col = actions.is_exit.unsqueeze(1);
  const at::Tensor safe =
      at::where(exit_col, range.min_incr + range.max_range * 0.5, actions.increments);
  const at::Tensor r_raw = (safe - range.min_incr) / range.max_range;
  const at::Tensor invalid =
      (r_raw.lt(-eps) | r_raw.gt(1.0 + eps)).any(1) & actions.is_exit.logical_not();
  const at::Tensor r = r_raw.clamp(eps, 1.0 - eps);
  const at::Tensor log_p_beta = p.mixture.log_prob(r).sum(1);
  const at::Tensor log_jacobian = -range.max_range.log().sum(1);
  const at::Tensor log_no_exit = at::log_sigmoid(-p.logit).masked_fill(range.is_s0, 0.0);
  at::Tensor lp = log_p_beta + log_jacobian + log_no_exit;
  lp = at::where(actions.is_exit, at::log_sigmoid(p.logit), lp);
  const at::Tensor impossible = (range.at_boundary & actions.is_exit.logical_not()) |
                                (range.is_s0 & actions.is_exit) | invalid;
  return lp.masked_fill(impossible, kNegInf);
}

ContinuousActions BoxBackwardPolicy::sample(const at::Tensor& states, const at::Tensor& outputs,
                                            double temperature, at::Generator& generator) const {
  at::NoGradGuard no_grad;
  const Parsed p = parse(states, outputs, dim_, options_, temperature, "BoxBackwardPolicy::sample");
  const double eps = options_.numerical_epsilon;
  const at::Tensor forced = states.le(delta_).any(1);
  at::Tensor is_bts = forced.clone();
  const at::Tensor can_choose = forced.logical_not();
  // Draws in torchgfn's order, each only when some row needs it.
  if (can_choose.any().item<bool>()) {
    const at::Tensor u = at::rand({states.size(0)}, generator, at::kFloat);
    is_bts = is_bts | (u.lt(p.logit.sigmoid()) & can_choose);
  }
  at::Tensor increments = states.clone();
  if (!is_bts.all().item<bool>()) {
    const at::Tensor r = p.mixture.sample(generator).clamp(0.0, 1.0);
    const at::Tensor max_range = (states - delta_).clamp_min(eps);
    const at::Tensor moves = at::minimum(r * max_range + delta_, states);
    increments = at::where(is_bts.unsqueeze(1), increments, moves);
  }
  return {increments, at::zeros({states.size(0)}, at::kBool)};
}

at::Tensor BoxBackwardPolicy::log_prob(const at::Tensor& states, const at::Tensor& outputs,
                                       const ContinuousActions& actions, double temperature) const {
  const Parsed p =
      parse(states, outputs, dim_, options_, temperature, "BoxBackwardPolicy::log_prob");
  const double eps = options_.numerical_epsilon;
  const at::Tensor& a = actions.increments;
  const at::Tensor forced = states.le(delta_).any(1);
  const at::Tensor max_range = (states - delta_).clamp_min(eps);
  const at::Tensor is_bts = (a - states).abs().lt(delta_ * 0.5).all(1);
  const at::Tensor safe = at::where(is_bts.unsqueeze(1), max_range * 0.5 + delta_, a);
  const at::Tensor r_raw = (safe - delta_) / max_range;
  const at::Tensor invalid = (r_raw.lt(-eps) | r_raw.gt(1.0 + eps)).any(1) & is_bts.logical_not();
  const at::Tensor r = r_raw.clamp(eps, 1.0 - eps);
  const at::Tensor log_p_beta =
      (p.mixture.log_prob(r) - max_range.log()).sum(1).nan_to_num(-1e6, 1e6, -1e6);
  const at::Tensor chosen =
      at::where(is_bts, at::log_sigmoid(p.logit), at::log_sigmoid(-p.logit) + log_p_beta);
  return chosen.masked_fill(forced, 0.0).masked_fill(invalid, kNegInf);
}

}  // namespace gfn::core
