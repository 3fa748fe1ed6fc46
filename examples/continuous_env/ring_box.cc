// A continuous environment plugin (runtime/gfn/env/plugin.h, GFN_CONTINUOUS_ENVIRONMENT_PLUGIN):
// "ring_box", Box's dynamics on [0, 1]^d (runtime/gfn/env/box.h: s0 the origin, increments of
// at least delta per coordinate after the first step, exit anywhere but s0) and Box's
// Beta-mixture policies (box_policies.h), with another reward: a ring of radius r around the
// centre of the box,
//   R(x) = R0 + exp(-(|x - c| - r)^2 / (2 sigma^2)),   c = (0.5, ..., 0.5).
// It defines no target distribution (no closed-form log Z), so validation reports the learned
// logZ only, and no modes. Thread-safety: immutable after construction (environment.h's rule).
#include <ATen/ATen.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "runtime/gfn/env/box.h"
#include "runtime/gfn/env/box_policies.h"
#include "runtime/gfn/env/plugin.h"

namespace {

using gfn::core::Box;
using gfn::core::ContinuousEnvironment;

/// env.options of the plugin, with their defaults.
struct RingBoxOptions {
  int ndim = 2;          ///< d
  double delta = 0.1;    ///< Box's smallest increment after the first step
  double R0 = 0.1;       ///< reward everywhere
  double radius = 0.3;   ///< r
  double sigma = 0.05;   ///< the ring's width
  int n_components = 3;  ///< Beta components per coordinate of PF and PB
};

const gfn::config::Fields<RingBoxOptions>& ring_box_fields() {
  using O = RingBoxOptions;
  static const auto fields =
      gfn::config::Fields<O>()
          .add("ndim", &O::ndim, "Dimension d of the box.", gfn::config::at_least(1))
          .add("delta", &O::delta, "Smallest increment per coordinate after the first step.")
          .add("R0", &O::R0, "Reward everywhere (> 0).")
          .add("radius", &O::radius, "Radius r of the ring around the box's centre.")
          .add("sigma", &O::sigma, "Width of the ring.")
          .add("n_components", &O::n_components, "Beta components per coordinate.",
               gfn::config::at_least(1));
  return fields;
}

/// Box's dynamics (delegated to a Box) with the ring reward.
class RingBox final : public ContinuousEnvironment {
 public:
  explicit RingBox(const RingBoxOptions& o) : box_(box_options(o)), options_(o) {
    if (!(o.sigma > 0) || !(o.radius >= 0)) {
      throw std::invalid_argument("env.options.sigma must be > 0 and env.options.radius >= 0");
    }
  }
  const Box& box() const { return box_; }

  std::string name() const override { return "ring_box"; }
  std::int64_t dim() const override { return box_.dim(); }
  at::Tensor initial_states(std::int64_t n) const override { return box_.initial_states(n); }
  at::Tensor is_initial(const at::Tensor& s) const override { return box_.is_initial(s); }
  at::Tensor forward_valid(const at::Tensor& s, const at::Tensor& a) const override {
    return box_.forward_valid(s, a);
  }
  at::Tensor backward_valid(const at::Tensor& s, const at::Tensor& a) const override {
    return box_.backward_valid(s, a);
  }
  std::string forward_rule() const override { return box_.forward_rule(); }
  std::string backward_rule() const override { return box_.backward_rule(); }
  at::Tensor can_exit(const at::Tensor& s) const override { return box_.can_exit(s); }
  at::Tensor step_unchecked(const at::Tensor& s, const at::Tensor& a) const override {
    return box_.step_unchecked(s, a);
  }
  at::Tensor backward_step_unchecked(const at::Tensor& s, const at::Tensor& a) const override {
    return box_.backward_step_unchecked(s, a);
  }
  at::Tensor policy_inputs(const at::Tensor& s) const override { return box_.policy_inputs(s); }
  void check_states(const at::Tensor& s, const char* who) const override {
    box_.check_states(s, who);
  }
  at::Tensor log_reward(const at::Tensor& states) const override {
    check_states(states, "ring_box::log_reward");
    const at::Tensor distance = (states - 0.5).pow(2).sum(1).sqrt();
    const at::Tensor ring =
        (-(distance - options_.radius).pow(2) / (2 * options_.sigma * options_.sigma)).exp();
    return (ring + options_.R0).log();
  }

 private:
  static gfn::core::BoxOptions box_options(const RingBoxOptions& o) {
    gfn::core::BoxOptions b;
    b.dim = o.ndim;
    b.delta = o.delta;
    b.R0 = o.R0;  // Box checks R0 > 0
    return b;
  }

  Box box_;
  RingBoxOptions options_;
};

}  // namespace

GFN_CONTINUOUS_ENVIRONMENT_PLUGIN(ring_box, RingBoxOptions, ring_box_fields()) {
  auto env = std::make_unique<RingBox>(options);
  gfn::core::BoxPolicyOptions policy;
  policy.n_components = options.n_components;
  gfn::core::ContinuousParts parts;
  parts.pf = std::make_unique<gfn::core::BoxForwardPolicy>(env->box(), policy);
  parts.pb = std::make_unique<gfn::core::BoxBackwardPolicy>(env->box(), policy);
  parts.fixed_pb_output = gfn::core::kFixedBackwardOutput;
  parts.env = std::move(env);
  return parts;
}
