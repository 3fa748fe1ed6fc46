#pragma once
// Box: a continuous GFlowNet environment on [0, 1]^d (Lahlou et al. 2023, "A theory of
// continuous generative flow networks", arXiv:2301.12594, sec. 4.1), following torchgfn's
// BoxCartesian (src/gfn/gym/box_cartesian.py, rules) and BoxPolar (src/gfn/gym/box.py: s0,
// step, reward, log Z). Its PF and PB are in box_policies.h.
//
// States: float32 [B, d], s0 = the origin. Forward actions are Cartesian increments:
//  * from s0, any increment in [0, 1]^d (the first step reaches the whole box; exit from
//    s0 is not allowed);
//  * from any other state s, increments a with a_i >= delta and s_i + a_i <= 1 for every i,
//    or exit (allowed everywhere but s0).
// Backward increments from s != s0 undo a forward step: a = s ("back to source", the parent
// is s0), or a_i >= delta and s_i - a_i >= 0 for every i (the parent is another state). No
// backward action from s0. This is the exact inverse of the forward rule and the support of
// the backward policy (box_policies.h); torchgfn's BoxCartesian.is_action_valid keeps
// BoxPolar's backward rule instead ("a parent with every coordinate below delta must be
// s0", and no lower bound on a_i), which refuses undoing a valid step from a first state
// near the origin and which torchgfn checks only in debug mode. Every comparison allows
// env.epsilon and runs in float32, as torchgfn's (so that s + min(a, 1 - s) <= 1 holds
// exactly, box_policies.h).
//
// Reward: with a_i = |x_i - 0.5|,
//   R(x) = R0 + R1 * [every a_i > 0.25] + R2 * [every 0.3 < a_i < 0.4]
// (float32, torchgfn's BoxPolar.reward), so the corners' ring squares hold R0 + R1 + R2.
// log Z = log(R0 + 0.5^d R1 + 0.2^d R2) (the areas of the two regions; torchgfn's
// log_partition for d = 2). Exact samples of R / Z: rejection from the uniform
// distribution with the bound R0 + R1 + R2 (torchgfn's train_box.py uses R0 + max(R1, R2),
// which the ring squares exceed, so its "true" samples under-weight them).
//
// Modes: the 2^d corner regions of the top reward tier, where R = R0 + R1 + R2 (every
// 0.3 < a_i < 0.4; if R2 = 0, the outer corner squares, every a_i > 0.25, where R = R0 + R1;
// none if R1 = R2 = 0, or d > 62). A corner's id has bit i set when x_i > 0.5. torchgfn's
// train_box.py reports no mode count; these are the regions its reward (and the paper's
// figure 2) makes the modes.
//
// Policy inputs: 2 s - 1 in [-1, 1]^d (torchgfn's _BoxCartesianMLP.forward).
// The polar variant (torchgfn's BoxPolar dynamics, box_polar.h) shares s0, the domain, the
// reward and the target through BoxBase.
// Thread-safety: immutable after construction.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

#include "runtime/gfn/env/box_options.h"
#include "runtime/gfn/env/continuous_environment.h"

namespace gfn::core {

/// What the Cartesian Box and the polar Box (box_polar.h) share, torchgfn's BoxPolar s0,
/// reward, log_partition and the target of train_box.py: the options (validated here), the
/// domain [0, 1]^d, s0 = the origin, R, log Z and exact samples of R / Z (rejection, above).
/// The dynamics (validity, steps) are the derived classes'.
class BoxBase : public ContinuousEnvironment {
 public:
  const BoxOptions& options() const { return options_; }
  double delta() const { return options_.delta; }
  double epsilon() const { return options_.epsilon; }

  std::int64_t dim() const override { return options_.dim; }
  at::Tensor initial_states(std::int64_t n) const override;
  at::Tensor is_initial(const at::Tensor& states) const override;
  at::Tensor can_exit(const at::Tensor& states) const override;
  at::Tensor step_unchecked(const at::Tensor& states, const at::Tensor& increments) const override;
  at::Tensor backward_step_unchecked(const at::Tensor& states,
                                     const at::Tensor& increments) const override;
  at::Tensor log_reward(const at::Tensor& states) const override;
  at::Tensor reward(const at::Tensor& states) const override;
  std::int64_t n_modes() const override;
  /// The corner ids (above) of the rows in a top-tier region, int64 [K].
  at::Tensor mode_hits(const at::Tensor& states) const override;
  /// Also refuses coordinates outside [-epsilon, 1 + epsilon] (float32).
  void check_states(const at::Tensor& states, const char* who) const override;

  bool has_target() const override { return true; }
  double log_partition() const override;
  at::Tensor log_density(const at::Tensor& states) const override;
  /// Rejection sampling from uniform proposals (a batch of max(4 n, 1024) at a time).
  at::Tensor sample_target(std::int64_t n, at::Generator& generator) const override;

 protected:
  /// Throws std::invalid_argument naming the option unless dim >= 1, 0 < delta <= 1,
  /// epsilon >= 0, R0 > 0, R1 >= 0 and R2 >= 0 (all finite).
  explicit BoxBase(const BoxOptions& options);

 private:
  /// R(x) without validation, float32 [B].
  at::Tensor reward_unchecked(const at::Tensor& states) const;

  BoxOptions options_;
};

/// torchgfn's BoxCartesian dynamics on the shared Box (above).
class Box final : public BoxBase {
 public:
  /// Throws std::invalid_argument as BoxBase's constructor.
  explicit Box(const BoxOptions& options) : BoxBase(options) {}

  std::string name() const override { return "box"; }
  at::Tensor forward_valid(const at::Tensor& states, const at::Tensor& increments) const override;
  at::Tensor backward_valid(const at::Tensor& states, const at::Tensor& increments) const override;
  std::string forward_rule() const override;
  std::string backward_rule() const override;
  at::Tensor policy_inputs(const at::Tensor& states) const override;
};

}  // namespace gfn::core
