#pragma once
// Validation of a GFlowNet on an Environment, following torchgfn's validate()
// (gfn/utils/training.py) and get_exact_P_T (train_hypergrid.py). On an enumerable
// environment:
//  - the exact terminating-state distribution of the current PF by dynamic
//    programming over the DAG (Environment::state_graph, states in topological order):
//    u(s0) = 1, u(s') = sum_s u(s) PF(s'|s), P(x) = u(x) PF(exit|x);
//  - exact L1 = sum_x |P(x) - P_true(x)| and JSD(P, P_true) (natural log);
//  - sampled L1 = sum_x |empirical(x) - P_true(x)| over n fresh on-policy samples.
//    NOTE: a SUM over states (our definition), where torchgfn reports the mean;
//  - l1_visited: torchgfn's `l1_dist` exactly (gfn/utils/training.py validate with
//    visited_terminating_states, as train_hypergrid.py and the targets of
//    tutorials/examples/test_scripts.py use it): the MEAN over states of
//    |empirical(x) - P_true(x)|, the empirical distribution being that of the last
//    n_samples terminating states SAMPLED DURING TRAINING (VisitedTerminatingStates,
//    visited_states.h), not of fresh samples of the final policy;
//  - |logZ - log Z_true| and the number of distinct modes found (ModeTracker);
//  - for an environment with a test set (Environment::test_set; BitSequence's is
//    make_test_set): the TB paper's Spearman correlation between the learned
//    log p_theta(x) (importance-sampling estimate over backward trajectories,
//    marginal_log_prob.h) and log R(x) on that set.
// On a non-enumerable environment (BitSequence at realistic sizes) the modes found and the
// Spearman correlation are reported (the TB paper's metrics), the exact metrics are NaN.
// Everything runs without autograd. Distributions are float64 [n_terminating_states]
// in terminating-index order (HyperGrid: the state index). Functions needing
// enumeration throw std::domain_error on a non-enumerable environment. Not
// thread-safe (uses the model and the generator).

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "runtime/gfn/options.h"

namespace gfn::core {

class GFlowNetModel;
class Environment;
class Preprocessor;
class VisitedTerminatingStates;

/// Records the distinct modes hit by terminating states: a mode id per state that lies in a
/// mode, from a mode_hits function (Environment::mode_hits for a discrete environment,
/// ContinuousEnvironment::mode_hits for a continuous one). Not thread-safe.
class ModeTracker {
 public:
  /// int64 [K]: the mode ids hit by a batch of terminating states (one per hit).
  using ModeHits = std::function<at::Tensor(const at::Tensor& terminating_states)>;

  /// Throws std::domain_error if env defines no modes (n_modes() == 0). Keeps a
  /// reference to env.
  explicit ModeTracker(const Environment& env);
  /// `n_total` modes (> 0, else std::domain_error naming `what`), found by `hits`.
  ModeTracker(const std::string& what, std::int64_t n_total, ModeHits hits);
  /// Adds the modes hit by terminating states (int64 [B, state_dim] discrete, float32
  /// [B, d] continuous); returns how many are new.
  std::int64_t update(const at::Tensor& terminating_states);
  std::int64_t n_found() const { return static_cast<std::int64_t>(found_.size()); }
  std::int64_t n_total() const { return n_total_; }
  /// Ids of the modes found (mode_hits ids; HyperGrid: state indices), ascending.
  std::vector<std::int64_t> found() const { return {found_.begin(), found_.end()}; }
  /// Checkpoints: the mode ids `found` (as found() returned them) become the modes found
  /// (those found before are forgotten).
  void restore(const std::vector<std::int64_t>& found) { found_ = {found.begin(), found.end()}; }

 private:
  std::int64_t n_total_ = 0;
  ModeHits hits_;
  std::set<std::int64_t> found_;
};

/// PF probabilities of every state, float64 [n_states, n_actions] (masked softmax).
at::Tensor pf_probabilities(GFlowNetModel& model, const Preprocessor& preprocessor,
                            const Environment& env);

/// The DP above from a PF table float64 [n_states, n_actions]; returns float64
/// [n_terminating_states].
/// Throws std::invalid_argument on a wrong table shape.
at::Tensor terminating_distribution(const Environment& env, const at::Tensor& pf_probs);

/// terminating_distribution(env, pf_probabilities(model, preprocessor, env)).
at::Tensor exact_terminating_distribution(GFlowNetModel& model, const Preprocessor& preprocessor,
                                          const Environment& env);

/// Empirical distribution of terminating states int64 [n, state_dim], float64
/// [n_terminating_states].
at::Tensor empirical_distribution(const Environment& env, const at::Tensor& terminating_states);

/// sum_i |p_i - q_i| of two equally shaped distributions.
double l1_distance(const at::Tensor& p, const at::Tensor& q);
/// mean_i |p_i - q_i| (torchgfn's l1_dist). Throws std::invalid_argument on a shape
/// mismatch or empty tensors.
double mean_l1_distance(const at::Tensor& p, const at::Tensor& q);
/// Jensen-Shannon divergence (natural log; 0 <= JSD <= log 2).
double jensen_shannon_divergence(const at::Tensor& p, const at::Tensor& q);

/// n on-policy terminating states (temperature 1, epsilon 0), sampled in chunks of
/// at most `chunk` trajectories: int64 [n, state_dim]. The PF outputs of all states are
/// computed once and looked up during sampling: PF depends only on the state, so
/// this is the same distribution as running the network at every step, much faster.
at::Tensor sample_terminating_states(GFlowNetModel& model, const Preprocessor& preprocessor,
                                     const Environment& env, std::int64_t n,
                                     at::Generator& generator, std::int64_t chunk = 50000);

/// Spearman's rho between log p_theta(x) (estimate_log_marginal with k backward
/// trajectories per state, marginal_log_prob.h) and log R(x) over `test_states` (int64
/// [n >= 2, state_dim] valid terminating states). NaN if either is constant.
/// `log_p_out` / `log_r_out` (optional): the two float64 [n] vectors it ranks, for the
/// scatter plot of tools/gfn-plot (logp_logr.csv, runtime/output/logp_logr_csv.h).
double spearman_logp_logr(GFlowNetModel& model, const Preprocessor& preprocessor,
                          const Environment& env, const at::Tensor& test_states, std::int64_t k,
                          at::Generator& generator, at::Tensor* log_p_out = nullptr,
                          at::Tensor* log_r_out = nullptr);

struct ValidationResult {
  bool exact = true;      ///< false: not enumerable, the fields up to log_z_error are NaN
  double l1_exact = 0;    ///< sum_x |P - P_true|
  double jsd = 0;         ///< JSD(P, P_true), nats
  double l1_sampled = 0;  ///< sum_x |empirical - P_true|
  std::int64_t n_samples = 0;
  /// mean_x |visited(x) - P_true(x)| over the visited window (torchgfn's l1_dist); NaN
  /// without a VisitedTerminatingStates, on a non-enumerable environment or before any
  /// state was visited.
  double l1_visited = std::numeric_limits<double>::quiet_NaN();
  std::int64_t n_visited = 0;  ///< states in that window
  /// Spearman's rho of log p_theta(x) and log R(x) on the environment's test set
  /// (Environment::test_set: options.test_per_mode per mode; options.logp_samples backward
  /// trajectories per state); NaN for an environment without one or when disabled.
  double spearman_logp_logr = std::numeric_limits<double>::quiet_NaN();
  std::int64_t n_test = 0;  ///< test-set size
  /// The test set's log p_theta(x) and log R(x) behind spearman_logp_logr (float64 [n_test];
  /// undefined when it is NaN because not computed).
  at::Tensor test_log_p, test_log_r;
  /// Continuous environments with a 1-D target (ContinuousEnvironment::target_coordinates:
  /// Line's x): the Wasserstein-1 distance between the learned sampler's samples and as many
  /// exact samples of R / Z (wasserstein_1d, continuous/validation.h); NaN otherwise.
  double wasserstein = std::numeric_limits<double>::quiet_NaN();
  /// Continuous environments with a target: the validation's n_samples on-policy terminating
  /// states and as many exact samples of R / Z, in the target's coordinates
  /// (ContinuousEnvironment::target_coordinates), float32 [n_samples, k] each; undefined
  /// otherwise. Trainer rank 0 writes them to samples/validation_<iteration>.npy
  /// (runtime/output/validation_samples.h) for the 2-Wasserstein distance and the MMD of
  /// tools/gfn-sample-metrics and the plots of tools/gfn-plot.
  at::Tensor learned_points, target_points;
  /// Continuous environments with a target (continuous/log_z_bounds.h): the ELBO and the
  /// importance-weighted ELBO (log Z^RW) of the validation's forward trajectories, and the
  /// EUBO of backward trajectories from as many exact samples of R / Z; NaN otherwise
  /// (discrete environments). Their errors are log_z_true minus each (torchgfn's Δ_elbo,
  /// Δ_iw_elbo, Δ_eubo).
  double elbo = std::numeric_limits<double>::quiet_NaN();
  double iw_elbo = std::numeric_limits<double>::quiet_NaN();
  double eubo = std::numeric_limits<double>::quiet_NaN();
  double log_z = 0;                ///< learned logZ
  double log_z_true = 0;           ///< log of the partition function
  double log_z_error = 0;          ///< |log_z - log_z_true|
  std::int64_t n_modes_found = 0;  ///< from the tracker (0 without one)
  std::int64_t n_modes_total = 0;
  double seconds = 0;  ///< wall time of validate()
};

/// The metrics of `v` as one log line, each only where it is defined (not NaN), e.g.
/// "L1 exact 0.01234, L1 sampled (200000 samples) 0.01300, JSD 0.00012, |logZ error| 0.0031,
/// modes found 4/4, L1 visited (mean, last 12928) 0.106"; a non-enumerable environment
/// (BitSequence) shows its logZ, modes and Spearman(log p, log R) instead of NaN L1s.
/// Pure function; no unit suffix other than the sample counts.
std::string describe(const ValidationResult& v);

/// The distinct modes (Environment::mode_hits ids, ascending) hit by n >= 0 fresh on-policy
/// samples of the model's PF (epsilon 0, temperature 1), drawn in chunks of at most
/// `chunk` trajectories from `generator` (the issue-25 check that a run's discoveries are
/// learned, not only visited: validation.fresh_samples). Empty when env defines no modes.
/// Cost: n trajectories sampled without recording transitions.
std::vector<std::int64_t> sampled_modes(GFlowNetModel& model, const Preprocessor& preprocessor,
                                        const Environment& env, std::int64_t n,
                                        at::Generator& generator, std::int64_t chunk = 8192);

/// All metrics above; n_samples = options.n_samples (0 skips the sampled L1).
/// `modes` and `visited` may be null (then modes found = 0, l1_visited = NaN).
ValidationResult validate(GFlowNetModel& model, const Preprocessor& preprocessor,
                          const Environment& env, const ValidationOptions& options,
                          const ModeTracker* modes, at::Generator& generator,
                          const VisitedTerminatingStates* visited = nullptr);

}  // namespace gfn::core
