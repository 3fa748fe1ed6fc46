#pragma once
// The forward and backward policies of the polar Box (box_polar.h), following torchgfn's
// polar estimators and distributions (src/gfn/gym/helpers/box_polar_utils.py: BoxPFEstimator
// with DistributionWrapper = QuarterDisk at s0 and QuarterCircleWithExit elsewhere,
// BoxPBEstimator with QuarterCircle(northeastern=False), BoxPFMLP / BoxPBMLP's output
// layouts, BoxPBUniform). Mixtures are Beta mixtures on [0, 1] (runtime/gfn/distributions/
// beta_mixture.h) with weights log_softmax(logits / T) and concentrations
// min + (max - min) sigmoid(raw) (torchgfn's MLPs apply the sigmoid, its estimators the
// affine map). CLAMP below is float32's machine epsilon (torchgfn's CLAMP), theta an angle in
// quarter turns ([0, 1] = [0, pi / 2]), arc(s) = [theta_min(s), theta_max(s)] the angles whose
// step of length delta stays in the box.
//
// Forward (PF), n_outputs() = 1 + 3 K + 5 K0 columns: the network head's [exit logit, mixture
// logits (K), alpha_theta (K), beta_theta (K)], then the s0 parameters [mixture logits,
// alpha_theta, beta_theta, alpha_r, beta_r] (K0 each; torchgfn's PFs0, a learned vector that
// does not depend on the state: ContinuousModelOptions::pf_constant_outputs =
// constant_outputs()). From s0: a = delta r (cos, sin)(pi / 2 theta) with r and theta drawn
// independently from the two mixtures of shared weights (QuarterDisk), log-density
// log p_r(r) + log p_theta(theta) - log delta - log(pi / 2) - log(r delta) with r = |a| / delta
// clamped to [CLAMP, 1] and theta = atan2(a_y, a_x) / (pi / 2) to [CLAMP, 1 - CLAMP]; no exit.
// Elsewhere: exit with probability sigmoid(logit / T), forced when |1 - s| <= delta or some
// s_i >= 1 - env.epsilon (log-prob 0); otherwise theta = theta_min + (theta_max - theta_min) u,
// u from the mixture, a = delta (cos, sin)(pi / 2 theta) (QuarterCircle, northeastern),
// log-density log(1 - sigmoid(logit / T)) + log p(u) - log delta - log(pi / 2)
// - log max(theta_max - theta_min, CLAMP), u recovered from atan2 as torchgfn does.
// Backward (PB), n_outputs() = 3 K: [mixture logits, alpha, beta]. From |s| <= delta the
// action is back to source (a = s, log-prob 0 whatever the action, as torchgfn's Dirac);
// otherwise a point of the south-western arc as above (torchgfn's extra clamp of u to
// [1e-4, 1 - 1e-4] and of log p(u) to <= 100 included). skip_normalization (BoxPBUniform,
// torchgfn's uniform PB with K = 1 and outputs 1.0) takes the outputs as the concentrations
// themselves: a uniform angle on the arc.
//
// Where this differs from torchgfn, only on its own rounding cases: sampled coordinates are
// clamped into [0, 1 - s_i] forward (torchgfn clamps below 0 only, so s + a may pass 1 by an
// ulp, which check_states refuses) and into [0, s_i] backward (torchgfn replaces such a
// coordinate by s_i / 2, leaving the circle); log_prob is -inf outside the support (exit from
// s0, a move where exit is forced, a length off delta by more than 1e-5, an angle off the arc
// by more than 1e-5, a negative coordinate) where torchgfn clamps and returns a finite value.
// T divides the exit logit and the mixture logits (torchgfn's polar estimators have no
// temperature: T = 1 is torchgfn). tests/runtime/gfn/env/box_polar_policies_test.cc compares
// log_prob with torchgfn's to 1e-5 and the samplers' moments (torchgfn_box_polar.py).
//
// Thread-safety: immutable after construction. Errors: the constructors throw
// std::invalid_argument for n_components or n_components_s0 < 1 or an invalid concentration
// range; sample / log_prob throw it for outputs of the wrong shape or T <= 0.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "runtime/gfn/continuous/policy.h"
#include "runtime/gfn/distributions/beta_mixture.h"

namespace gfn::core {

class BoxPolar;

struct BoxPolarPolicyOptions {
  int n_components = 2;     ///< K: mixture components of the angle (train_box.py's 2)
  int n_components_s0 = 4;  ///< K0: components of the s0 distribution (PF only; 4)
  distributions::BetaMixtureRange concentration{0.1, 5.1};  ///< train_box.py's range
  bool skip_normalization = false;  ///< PB: outputs are the concentrations (BoxPBUniform)
};

/// What both policies share: delta and the environment's epsilon (copied) and the options.
class BoxPolarPolicy : public ContinuousPolicy {
 protected:
  BoxPolarPolicy(const BoxPolar& box, const BoxPolarPolicyOptions& options);
  double delta_;
  double epsilon_;
  BoxPolarPolicyOptions options_;
};

class BoxPolarForwardPolicy final : public BoxPolarPolicy {
 public:
  BoxPolarForwardPolicy(const BoxPolar& box, const BoxPolarPolicyOptions& options)
      : BoxPolarPolicy(box, options) {}
  std::int64_t n_outputs() const override {
    return 1 + 3 * options_.n_components + constant_outputs();
  }
  /// The trailing 5 K0 columns: the s0 distribution's parameters (torchgfn's PFs0).
  std::int64_t constant_outputs() const { return 5 * options_.n_components_s0; }
  ContinuousActions sample(const at::Tensor& states, const at::Tensor& outputs, double temperature,
                           at::Generator& generator) const override;
  at::Tensor log_prob(const at::Tensor& states, const at::Tensor& outputs,
                      const ContinuousActions& actions, double temperature) const override;
};

class BoxPolarBackwardPolicy final : public BoxPolarPolicy {
 public:
  BoxPolarBackwardPolicy(const BoxPolar& box, const BoxPolarPolicyOptions& options)
      : BoxPolarPolicy(box, options) {}
  std::int64_t n_outputs() const override { return 3 * options_.n_components; }
  /// is_exit is all false; rows with |s| <= delta (s0 included) get increments == states.
  ContinuousActions sample(const at::Tensor& states, const at::Tensor& outputs, double temperature,
                           at::Generator& generator) const override;
  /// actions.is_exit is ignored; -inf on s0 rows.
  at::Tensor log_prob(const at::Tensor& states, const at::Tensor& outputs,
                      const ContinuousActions& actions, double temperature) const override;
};

}  // namespace gfn::core
