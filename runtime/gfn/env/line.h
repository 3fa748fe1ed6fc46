#pragma once
// Line: torchgfn's continuous Line (src/gfn/gym/line.py, tutorials/examples/train_line.py):
// a mixture of Gaussians on R sampled in a fixed number of Gaussian steps. Its PF and PB are
// in line_policies.h.
//
// States: float32 [B, 2] = (x, t), x the position and t the step counter; s0 = (init_value,
// 0). A forward action from t < n_steps is the increment (a, 1): x + a, t + 1, any real a;
// from t = n_steps the only action is exit (torchgfn's ScaledGaussianWithOptionalExit forces
// it there), so every trajectory has n_steps moves, then the exit, and the terminating states
// are the states with t = n_steps. A backward action from t >= 1 is the increment (a, 1) that
// a forward step took: x - a, t - 1; from t = 1 the parent is s0, so a must equal x -
// init_value (up to a float32 tolerance of 1e-5 (1 + |x| + |init_value|)), and the backward
// step sets x = init_value exactly. No backward action from s0.
//
// Reward: R(x) = sum_k w_k N(x; mu_k, sigma_k^2) (torchgfn: logsumexp of the components'
// Normal log_prob, every w_k = 1), log R computed in float64, returned as float32. log Z is
// computed by quadrature (quadrature_log_integral below) of R on [min mu - 12 max sigma, max mu
// + 12 max sigma] (the mass outside is below 1e-32 of Z); a mixture of Gaussians integrates
// to sum_k w_k, torchgfn's log_partition log K, which the tests compare. Exact samples of R / Z:
// a component drawn with probability w_k / sum w, then x ~ N(mu_k, sigma_k^2), t = n_steps.
// Validation compares the x column (target_coordinates) on the range [min mu - n_sd max sigma,
// max mu + n_sd max sigma] (train_line.py's render range).
//
// Modes: component k is hit by a terminating state with |x - mu_k| <= sigma_k (within one
// standard deviation; torchgfn's Line defines no modes). check_states also requires t to be
// an integer in [0, n_steps] (float32 holds it exactly). Policy inputs: the states themselves,
// as train_line.py's GaussianStepMLP reads [x, t].
//
// Thread-safety: immutable after construction. Errors: the constructor throws
// std::invalid_argument naming the env.* key for lists of different lengths, a sigma or weight
// <= 0, n_steps < 1, n_sd <= 0 or an init_value outside the range.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/gfn/env/continuous_environment.h"

namespace gfn::core {

struct LineEnvOptions;

struct LineOptions {
  std::vector<double> mus{2.0, 5.0};
  std::vector<double> sigmas{0.5, 0.5};
  std::vector<double> weights;  ///< empty: 1 each
  double init_value = 0.0;
  double n_sd = 4.5;
  int n_steps = 5;
};

class Line final : public ContinuousEnvironment {
 public:
  explicit Line(const LineOptions& options);

  const LineOptions& options() const { return options_; }
  int n_steps() const { return options_.n_steps; }
  double init_value() const { return options_.init_value; }

  std::string name() const override { return "line"; }
  std::int64_t dim() const override { return 2; }
  at::Tensor initial_states(std::int64_t n) const override;
  /// t == 0.
  at::Tensor is_initial(const at::Tensor& states) const override;
  at::Tensor forward_valid(const at::Tensor& states, const at::Tensor& increments) const override;
  at::Tensor backward_valid(const at::Tensor& states, const at::Tensor& increments) const override;
  std::string forward_rule() const override;
  std::string backward_rule() const override;
  /// t == n_steps.
  at::Tensor can_exit(const at::Tensor& states) const override;
  at::Tensor step_unchecked(const at::Tensor& states, const at::Tensor& increments) const override;
  at::Tensor backward_step_unchecked(const at::Tensor& states,
                                     const at::Tensor& increments) const override;
  at::Tensor log_reward(const at::Tensor& states) const override;
  void check_states(const at::Tensor& states, const char* who) const override;

  std::int64_t n_modes() const override { return static_cast<std::int64_t>(options_.mus.size()); }
  at::Tensor mode_hits(const at::Tensor& states) const override;

  bool has_target() const override { return true; }
  /// By quadrature, computed once by the constructor.
  double log_partition() const override { return log_z_; }
  at::Tensor log_density(const at::Tensor& states) const override;
  at::Tensor sample_target(std::int64_t n, at::Generator& generator) const override;
  /// The x column, float32 [B, 1].
  at::Tensor target_coordinates(const at::Tensor& states) const override;
  /// (x, n_steps) of x float32 [G, 1].
  at::Tensor target_states(const at::Tensor& coordinates) const override;
  std::pair<double, double> target_range() const override { return range_; }

  /// log R(x) in float64 of positions x float64 [n], without validation.
  at::Tensor log_reward_of_positions(const at::Tensor& x) const;

 private:
  LineOptions options_;
  std::pair<double, double> range_;
  double log_z_ = 0.0;
};

/// log of the integral of exp(log_f) over [low, high] by the composite Simpson rule on
/// n_intervals (even, >= 2) intervals, in float64 and in log space (stable for tiny or huge
/// values): log_f maps points float64 [n] to float64 [n]. Throws std::invalid_argument for
/// low >= high or an odd or small n_intervals. Cost: one call of log_f on n_intervals + 1
/// points.
double quadrature_log_integral(const std::function<at::Tensor(const at::Tensor&)>& log_f,
                               double low, double high, std::int64_t n_intervals);

/// LineOptions from the env: keys (line_options.h): the lists parsed, weights "" as empty.
/// Throws std::invalid_argument naming the key for a list that does not parse.
LineOptions line_options(const LineEnvOptions& env);

}  // namespace gfn::core
