#pragma once
// The ContinuousEnvironment interface of the GFlowNet core: states and actions are real
// vectors instead of the int64 rows and action indices of Environment (environment.h). It
// follows torchgfn's Env with continuous States / Actions (src/gfn/env.py,
// src/gfn/gym/box.py):
//
//  * States are float32 tensors [B, dim()] (CPU). s0 = initial_states(1); is_initial(s) is
//    true for rows equal to s0.
//  * A forward action is an increment float32 [dim()] or the exit action, which ends the
//    trajectory in the current state x (its terminating state). ContinuousActions holds a
//    batch of both: the increments and an exit flag per row (torchgfn encodes exit as a row
//    of -inf; the increment of an exit row is ignored here). Exit is not a transition:
//    step() refuses it.
//  * A backward action is an increment that backward_step subtracts: backward_step(step(s, a),
//    a) == s up to rounding. Backward actions have no exit flag.
//  * Validity replaces the discrete masks: forward_valid / backward_valid say per row whether
//    an action is allowed (the environment's own tolerance included); step / backward_step
//    refuse a batch with an invalid row, naming the row and the rule it breaks.
//  * Rewards: log_reward(x) float32 [B] (natural log) of terminating states.
//  * policy_inputs(states): what the policy networks read (torchgfn's Box MLPs map [0, 1] to
//    [-1, 1]); the state-flow network reads the states themselves.
//
// Modes (optional): n_modes() > 0 when the environment defines modes, regions of its state
// space; mode_hits(x) lists the id in [0, n_modes()) of the mode each terminating state that
// lies in one hits (Box: the 2^d corner squares of the top reward tier, box.h). The learner
// counts the distinct ids its sampled terminating states hit (ModeTracker,
// runtime/gfn/validation.h), as discrete environments' Environment::mode_hits.
//
// Validation extras (optional): log_partition() = log Z, log_density(x) = log R(x) - log Z
// (the density of the target distribution w.r.t. Lebesgue measure on the state space) and
// sample_target(n, generator): exact samples of R / Z (validation's JSD,
// runtime/gfn/continuous/validation.h). has_target() tells whether they exist. Validation
// compares distributions on target_coordinates(x), the k columns of the terminating states
// where R / Z lives (default: all d; Line: x without its step counter), on a grid over
// target_range()^k (default [0.001, 1], train_box.py's); target_states maps grid points back
// to terminating states for log_density.
//
// Costs: every member works on a whole batch with O(B * dim) tensor operations. Errors:
// std::invalid_argument naming the caller ("<name>::<member>") for bad shapes, dtypes or
// values; std::domain_error from the optional members of an environment without them.
// Thread-safety: implementations are immutable after construction; const members may be
// called concurrently (sample_target locks the generator it is given, like ATen's draws).

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <utility>

namespace gfn::core {

/// A batch of forward actions: one increment per row and whether the row exits.
struct ContinuousActions {
  at::Tensor increments;  ///< float32 [B, dim]; ignored on exit rows
  at::Tensor is_exit;     ///< bool [B]
};

class ContinuousEnvironment {
 public:
  virtual ~ContinuousEnvironment() = default;

  // ---- description -----------------------------------------------------------------
  /// The environment's name ("box").
  virtual std::string name() const = 0;
  /// Width d of a state row (and of an increment).
  virtual std::int64_t dim() const = 0;

  // ---- dynamics (batched) -------------------------------------------------------------
  /// n copies of s0: float32 [n, dim].
  virtual at::Tensor initial_states(std::int64_t n) const = 0;
  /// bool [B]: the row equals s0. Default: every coordinate equals s0's.
  virtual at::Tensor is_initial(const at::Tensor& states) const;
  /// bool [B]: the rule of the environment allows `increments` float32 [B, dim] from
  /// `states` (non-exit actions).
  virtual at::Tensor forward_valid(const at::Tensor& states,
                                   const at::Tensor& increments) const = 0;
  /// bool [B]: the backward increments are allowed from `states`.
  virtual at::Tensor backward_valid(const at::Tensor& states,
                                    const at::Tensor& increments) const = 0;
  /// The rules of forward_valid / backward_valid in one sentence each, for error messages.
  virtual std::string forward_rule() const = 0;
  virtual std::string backward_rule() const = 0;
  /// bool [B]: the row may exit (be a terminating state).
  virtual at::Tensor can_exit(const at::Tensor& states) const = 0;
  /// Children: states + increments, without validation (the sampler's path).
  virtual at::Tensor step_unchecked(const at::Tensor& states,
                                    const at::Tensor& increments) const = 0;
  /// Parents: states - increments, without validation.
  virtual at::Tensor backward_step_unchecked(const at::Tensor& states,
                                             const at::Tensor& increments) const = 0;
  /// log R(x), float32 [B], of terminating states; validates them with check_states().
  virtual at::Tensor log_reward(const at::Tensor& states) const = 0;
  /// R(x), float32 [B]; default exp(log_reward).
  virtual at::Tensor reward(const at::Tensor& states) const;
  /// The policy networks' input for states: float32 [B, dim]; default the states.
  virtual at::Tensor policy_inputs(const at::Tensor& states) const { return states; }

  /// Throws std::invalid_argument naming `who` unless states is a float32 [B, dim] CPU
  /// tensor of finite values; an implementation adds its domain (Box: [0, 1]^d).
  virtual void check_states(const at::Tensor& states, const char* who) const;

  /// step_unchecked after validation: throws std::invalid_argument for bad shapes or
  /// dtypes, an exit row (exit is not a transition) or a row forward_valid refuses, naming
  /// the first such row, its state and its increment.
  at::Tensor step(const at::Tensor& states, const ContinuousActions& actions) const;
  /// backward_step_unchecked after the same validation against backward_valid().
  at::Tensor backward_step(const at::Tensor& states, const at::Tensor& increments) const;
  /// Throws std::invalid_argument, naming the first offending row, unless every row of
  /// `actions` is valid from `states`: exit rows where can_exit, other rows forward_valid.
  void check_forward_actions(const at::Tensor& states, const ContinuousActions& actions,
                             const char* who) const;

  // ---- modes (optional) -----------------------------------------------------------------
  /// Number of modes; 0 (the default) when the environment defines none.
  virtual std::int64_t n_modes() const { return 0; }
  /// int64 [K]: the mode id of every row of the terminating states float32 [B, dim] that
  /// lies in a mode (K <= B; duplicates possible), in row order. Default: none (int64 [0]).
  /// Validates the states with check_states().
  virtual at::Tensor mode_hits(const at::Tensor& states) const;

  // ---- the target distribution (optional, for validation) -----------------------------
  /// True if log_partition, log_density and sample_target work.
  virtual bool has_target() const { return false; }
  /// log Z = log of the integral of R over the state space.
  virtual double log_partition() const;
  /// log R(x) - log Z, float32 [B].
  virtual at::Tensor log_density(const at::Tensor& states) const;
  /// n exact samples of R / Z, float32 [n, dim], drawn with `generator`.
  virtual at::Tensor sample_target(std::int64_t n, at::Generator& generator) const;
  /// The coordinates validation compares: float32 [B, k] of terminating states [B, dim];
  /// default the states themselves (k = dim).
  virtual at::Tensor target_coordinates(const at::Tensor& states) const { return states; }
  /// The terminating states float32 [G, dim] of coordinates float32 [G, k] (the inverse of
  /// target_coordinates on terminating states); default the coordinates themselves.
  virtual at::Tensor target_states(const at::Tensor& coordinates) const { return coordinates; }
  /// [low, high]: every target coordinate's range for validation's grid; default
  /// {0.001, 1.0} (train_box.py's grid on the unit box).
  virtual std::pair<double, double> target_range() const { return {0.001, 1.0}; }

  // ---- the reward's gradient (optional, for local_search.mode langevin) ---------------
  /// True if log_reward_and_gradient works (diffusion: every target, by autograd).
  virtual bool has_reward_gradient() const { return false; }
  /// {log R, grad log R} at target coordinates x float32 [B, k] (target_coordinates' space,
  /// the states target_states(x)): float32 [B] and float32 [B, k], detached; one target
  /// evaluation per row. Default: throws std::logic_error naming the environment.
  virtual std::pair<at::Tensor, at::Tensor> log_reward_and_gradient(
      const at::Tensor& coordinates) const;
  /// Points at which the environment evaluated its target (log R, or its gradient as
  /// diffusion's langevin policy input; log R with its gradient at one point counts once)
  /// since construction; thread-safe. Default 0: the environment does not count.
  virtual std::int64_t target_evaluations() const { return 0; }

 protected:
  /// Throws std::domain_error "<name>::<what>: no target distribution".
  [[noreturn]] void no_target(const char* what) const;
};

/// "[0.5, 1.2]": row `row` of a 2-D tensor, for error messages.
std::string row_string(const at::Tensor& t, std::int64_t row);

}  // namespace gfn::core
