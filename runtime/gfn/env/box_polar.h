#pragma once
// The polar Box: torchgfn's BoxPolar dynamics (src/gfn/gym/box.py, is_action_valid; Lahlou et
// al. 2023, arXiv:2301.12594, sec. 4.1, the environment of tutorials/examples/train_box.py) on
// the shared Box of box.h (BoxBase: [0, 1]^2, s0 = the origin, the R0 / R1 / R2 reward, log Z,
// exact target samples). Its PF and PB are in box_polar_policies.h.
//
// States: float32 [B, 2] (dim must be 2, as torchgfn's). Forward actions are increments a
// with a_i >= 0:
//  * from s0, |a| <= delta (the first step lands in the quarter disk of radius delta; exit
//    from s0 is not allowed);
//  * from any other state s, |a| = delta (within 1e-5, torchgfn's tolerance) and
//    s_i + a_i <= 1, or exit (allowed everywhere but s0).
// Backward increments from s != s0 undo a forward step: if |s| <= delta, a = s (the parent is
// s0: a step of length delta from a state other than s0 cannot end that close to the origin);
// otherwise |a| = delta (within 1e-5), a_i >= 0 and s_i - a_i >= 0. No backward action from
// s0. This is the exact inverse of the forward rule and the support of the backward policy;
// torchgfn's is_action_valid checks no length backward and sends only |s| < delta to s0
// (the backward policy, QuarterCircle, uses <=). Comparisons other than the length allow
// env.epsilon and run in float32.
//
// Policy inputs: the states themselves (train_box.py's IdentityPreprocessor).
// Thread-safety: immutable after construction. Errors as ContinuousEnvironment's.

#include <ATen/core/Tensor.h>

#include <string>

#include "runtime/gfn/env/box.h"

namespace gfn::core {

class BoxPolar final : public BoxBase {
 public:
  /// Tolerance on the length of a step (torchgfn's BoxPolar.is_action_valid: 1e-5).
  static constexpr double kLengthTolerance = 1e-5;

  /// Throws std::invalid_argument as BoxBase's constructor, and unless options.dim == 2.
  explicit BoxPolar(const BoxOptions& options);

  std::string name() const override { return "box_polar"; }
  at::Tensor forward_valid(const at::Tensor& states, const at::Tensor& increments) const override;
  at::Tensor backward_valid(const at::Tensor& states, const at::Tensor& increments) const override;
  std::string forward_rule() const override;
  std::string backward_rule() const override;
};

}  // namespace gfn::core
