// Validation metrics: torchgfn's l1_dist over visited terminating states
// (visited_states.h), Spearman's rank correlation (rank_correlation.h), the importance-
// sampling estimate of log p_theta(x) (marginal_log_prob.h), and the TB paper's bit-sequence
// metric on the test set of BitSequence or of any environment offering one (test_set()).

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/gfn/env/bit_sequence.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/marginal_log_prob.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/rank_correlation.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/validation.h"
#include "runtime/gfn/visited_states.h"

namespace gfn::core {
namespace {

HyperGrid grid(int ndim, int height) {
  core::HyperGridOptions o;
  o.ndim = ndim;
  o.height = height;
  return HyperGrid(o);
}

core::BitSequenceOptions small_bits(int seq_size, int word_size, int n_modes) {
  core::BitSequenceOptions o;
  o.seq_size = seq_size;
  o.word_size = word_size;
  o.n_modes = n_modes;
  o.beta = 1.0;
  return o;
}

std::unique_ptr<GFlowNetModel> random_model(const Preprocessor& pre, const Environment& env,
                                            std::uint64_t seed, double sharpen = 1.0) {
  torch::manual_seed(seed);
  core::ModelOptions mo;
  mo.hidden_dim = 32;
  auto model = std::make_unique<GFlowNetModel>(pre.output_dim(), env.n_actions(), mo);
  torch::NoGradGuard ng;
  for (auto& p : model->parameters()) p.mul_(sharpen);
  return model;
}

// ---- Spearman ---------------------------------------------------------------------------

TEST(RankCorrelation, AverageRanksOfTies) {
  EXPECT_EQ(average_ranks({10, 20, 20, 30}), (std::vector<double>{1, 2.5, 2.5, 4}));
  EXPECT_EQ(average_ranks({3, 1, 2}), (std::vector<double>{3, 1, 2}));
  EXPECT_EQ(average_ranks({7, 7, 7}), (std::vector<double>{2, 2, 2}));
  EXPECT_EQ(average_ranks({5, -1, 5, -1, 0}), (std::vector<double>{4.5, 1.5, 4.5, 1.5, 3}));
  EXPECT_THROW(average_ranks({1, std::nan("")}), std::invalid_argument);
}

TEST(RankCorrelation, HandCheckedValues) {
  // Monotone but non-linear: +1 / -1.
  EXPECT_DOUBLE_EQ(spearman_correlation({1, 2, 3, 4, 5}, {1, 4, 9, 16, 25}), 1.0);
  EXPECT_DOUBLE_EQ(spearman_correlation({1, 2, 3, 4, 5}, {0, -1, -8, -27, -64}), -1.0);
  // No ties: rho = 1 - 6 sum d^2 / (n (n^2 - 1)) = 1 - 6 * 4 / 120 = 0.8.
  EXPECT_NEAR(spearman_correlation({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}), 0.8, 1e-12);
  // Ties (scipy.stats.spearmanr([1,2,3,4,5], [1,2,2,3,1]) = 0.158113883...): ranks of y are
  // {1.5, 3.5, 3.5, 5, 1.5}; sum dx dy = 1.5, sum dx^2 = 10, sum dy^2 = 9.
  EXPECT_NEAR(spearman_correlation({1, 2, 3, 4, 5}, {1, 2, 2, 3, 1}), 1.5 / std::sqrt(90.0), 1e-12);
  // Ties in both: x ranks {1.5, 1.5, 3, 4}, y ranks {1, 2.5, 2.5, 4}; dx = {-1,-1,0.5,1.5},
  // dy = {-1.5,0,0,1.5}: sxy = 1.5 + 2.25 = 3.75, sxx = 4.5, syy = 4.5 -> 0.8333...
  EXPECT_NEAR(spearman_correlation({0, 0, 1, 2}, {3, 5, 5, 9}), 3.75 / 4.5, 1e-12);
  // Invariant under monotone transforms (log p vs p).
  EXPECT_NEAR(spearman_correlation({0.1, 0.5, 0.2, 0.9}, {1, 3, 2, 2}),
              spearman_correlation({std::log(0.1), std::log(0.5), std::log(0.2), std::log(0.9)},
                                   {1, 3, 2, 2}),
              1e-12);
}

TEST(RankCorrelation, UndefinedAndBadInput) {
  EXPECT_TRUE(std::isnan(spearman_correlation({1, 2, 3}, {4, 4, 4})));
  EXPECT_THROW(spearman_correlation({1, 2}, {1, 2, 3}), std::invalid_argument);
  EXPECT_THROW(spearman_correlation({1}, {1}), std::invalid_argument);
  EXPECT_THROW(spearman_correlation({1, std::nan("")}, {1, 2}), std::invalid_argument);
}

// ---- visited terminating states (torchgfn's l1_dist) ------------------------------------

TEST(VisitedStates, WindowKeepsTheLastStates) {
  const HyperGrid env = grid(2, 3);
  const int64_t window = 50;
  VisitedTerminatingStates visited(env, window);
  EXPECT_EQ(visited.window(), window);
  EXPECT_THROW(visited.distribution(), std::logic_error);
  at::Generator gen = at::detail::createCPUGenerator(3);
  std::vector<at::Tensor> all;
  for (int64_t batch : {7, 0, 30, 1, 44, 13, 100}) {
    const at::Tensor idx = at::randint(0, env.n_terminating_states(), {batch}, gen, at::kLong);
    const at::Tensor xs = env.terminating_states().index_select(0, idx);
    visited.add(xs);
    all.push_back(xs);
    const at::Tensor seen = at::cat(all);
    const int64_t n = seen.size(0);
    EXPECT_EQ(visited.total_added(), n);
    EXPECT_EQ(visited.size(), std::min(n, window));
    if (n == 0) continue;
    // torchgfn: visited_terminating_states[-validation_samples:].
    const at::Tensor last = seen.narrow(0, std::max<int64_t>(0, n - window), visited.size());
    EXPECT_TRUE(at::allclose(visited.distribution(), empirical_distribution(env, last)))
        << "after " << n << " states";
  }
}

TEST(VisitedStates, RefusesBadInput) {
  const HyperGrid env = grid(2, 3);
  EXPECT_THROW(VisitedTerminatingStates(env, 0), std::invalid_argument);
  const BitSequence big(small_bits(120, 4, 60));  // 2^120 states: not enumerable
  EXPECT_THROW(VisitedTerminatingStates(big, 10), std::domain_error);
  VisitedTerminatingStates visited(env, 5);
  EXPECT_THROW(visited.add(at::zeros({2, 3}, at::kLong)), std::invalid_argument);  // width 3
}

TEST(VisitedStates, ValidateReportsTorchgfnL1Dist) {
  const HyperGrid env = grid(2, 4);
  auto pre = make_preprocessor(PreprocessorKind::kKHot, env);
  auto model = random_model(*pre, env, 5);
  at::Generator gen = at::detail::createCPUGenerator(11);
  const Trajectories t = sample_trajectories(env, model_policy(*model, *pre, env), 300, {}, gen);
  VisitedTerminatingStates visited(env, 200);
  visited.add(t.terminating_states);
  core::ValidationOptions opts;
  opts.n_samples = 1000;
  const ValidationResult with = validate(*model, *pre, env, opts, nullptr, gen, &visited);
  const at::Tensor last = t.terminating_states.narrow(0, 100, 200);
  const double expected =
      (empirical_distribution(env, last) - env.true_distribution()).abs().mean().item<double>();
  EXPECT_NEAR(with.l1_visited, expected, 1e-12);
  EXPECT_NEAR(mean_l1_distance(empirical_distribution(env, last), env.true_distribution()),
              expected, 1e-12);
  EXPECT_EQ(with.n_visited, 200);
  const ValidationResult without = validate(*model, *pre, env, opts, nullptr, gen);
  EXPECT_TRUE(std::isnan(without.l1_visited));
  EXPECT_TRUE(std::isnan(without.spearman_logp_logr));  // not a BitSequence
}

// ---- log p_theta(x) by importance sampling over backward trajectories -------------------

TEST(MarginalLogProb, MatchesExactDistributionOnHyperGrid) {
  // 2D h4: up to 20 trajectories per state, learned (random, non-uniform) PF and PB.
  const HyperGrid env = grid(2, 4);
  auto pre = make_preprocessor(PreprocessorKind::kKHot, env);
  auto model = random_model(*pre, env, 7, 2.0);
  const at::Tensor exact = exact_terminating_distribution(*model, *pre, env);
  at::Generator gen = at::detail::createCPUGenerator(21);
  // MC tolerance from the estimator itself: exp(estimate) is unbiased for p(x), so the
  // mean of R independent K-sample estimates must be within a few standard errors
  // (their spread / sqrt(R)) of the exact P(x) from the DP; states on an edge of the grid
  // have one trajectory (zero spread) and match up to float32 rounding.
  const int64_t reps = 30, k = 200;
  std::vector<at::Tensor> runs;
  for (int64_t r = 0; r < reps; ++r) {
    runs.push_back(
        estimate_log_marginal(*model, *pre, env, env.terminating_states(), k, gen).exp());
  }
  const at::Tensor p = at::stack(runs);  // [R, T]
  const at::Tensor mean = p.mean(0), se = p.std(0) / std::sqrt(static_cast<double>(reps));
  for (int64_t i = 0; i < exact.size(0); ++i) {
    EXPECT_NEAR(mean[i].item<double>(), exact[i].item<double>(),
                5 * se[i].item<double>() + 1e-6 * exact[i].item<double>())
        << "state " << i << " (se " << se[i].item<double>() << ")";
  }
  // In log space with many samples: close (the O(1/K) bias of the log is small).
  const at::Tensor est =
      estimate_log_marginal(*model, *pre, env, env.terminating_states(), 3000, gen, 12000);
  ASSERT_EQ(est.sizes(), exact.sizes());
  EXPECT_LT((est - exact.log()).abs().max().item<double>(), 0.1);
  // With one trajectory per state the estimate is noisy on a DAG: not exact.
  const at::Tensor one = estimate_log_marginal(*model, *pre, env, env.terminating_states(), 1, gen);
  EXPECT_GT((one - exact.log()).abs().max().item<double>(), 0.05);
}

TEST(MarginalLogProb, ExactWithOneTrajectoryOnATree) {
  // Append-only BitSequence: one trajectory per sequence, PB deterministic.
  const BitSequence env(small_bits(8, 2, 2));
  ASSERT_TRUE(env.enumerable());
  auto pre = env.make_preprocessor(PreprocessorKind::kKHot);
  auto model = random_model(*pre, env, 9, 2.0);
  const at::Tensor exact = exact_terminating_distribution(*model, *pre, env).log();
  at::Generator gen = at::detail::createCPUGenerator(1);
  const at::Tensor est =
      estimate_log_marginal(*model, *pre, env, env.terminating_states(), 1, gen, 64);
  EXPECT_LT((est - exact).abs().max().item<double>(), 1e-4);
  EXPECT_THROW(estimate_log_marginal(*model, *pre, env, env.terminating_states(), 0, gen),
               std::invalid_argument);
  EXPECT_THROW(estimate_log_marginal(*model, *pre, env, env.terminating_states(), 4, gen, 3),
               std::invalid_argument);
  EXPECT_THROW(estimate_log_marginal(*model, *pre, env, env.initial_states(1), 1, gen),
               std::invalid_argument);  // s0 is not a terminating state
}

// ---- BitSequence test set and the TB paper's Spearman metric ----------------------------

TEST(BitSequenceTestSet, ModesWithRandomFlips) {
  const BitSequence env(small_bits(120, 4, 60));
  const int64_t per_mode = 10;
  const at::Tensor test = env.make_test_set(per_mode, 0);
  ASSERT_EQ(test.sizes(), (at::IntArrayRef{60 * per_mode, 30}));
  env.check_states(test, "test");
  EXPECT_TRUE(at::equal(test, env.make_test_set(per_mode, 0)));
  EXPECT_FALSE(at::equal(test, env.make_test_set(per_mode, 1)));
  EXPECT_TRUE(at::equal(env.from_bits(env.to_bits(test)), test));
  // Row r comes from mode r / per_mode with f in [0, n) flips: its Hamming distance to
  // that mode is f, spread over the whole range.
  const at::Tensor source = at::arange(60 * per_mode, at::kLong).div(per_mode, "floor");
  const at::Tensor d = env.mode_distances(test).gather(1, source.view({-1, 1})).view(-1);
  EXPECT_LT(d.max().item<int64_t>(), 120);
  EXPECT_LT(d.min().item<int64_t>(), 15);
  EXPECT_GT(d.max().item<int64_t>(), 100);
  EXPECT_THROW(env.make_test_set(0, 0), std::invalid_argument);
  EXPECT_THROW(env.from_bits(at::full({1, 120}, 2, at::kLong)), std::invalid_argument);
  EXPECT_THROW(env.from_bits(at::zeros({1, 64}, at::kLong)), std::invalid_argument);
}

TEST(BitSequenceTestSet, ValidateReportsSpearmanOfExactLogP) {
  const BitSequence env(small_bits(16, 4, 4));
  auto pre = env.make_preprocessor(PreprocessorKind::kKHot);
  auto model = random_model(*pre, env, 13, 2.0);
  core::ValidationOptions opts;
  opts.n_samples = 100;
  opts.test_per_mode = 25;
  opts.logp_samples = 2;
  at::Generator gen = at::detail::createCPUGenerator(4);
  const ValidationResult r = validate(*model, *pre, env, opts, nullptr, gen);
  EXPECT_EQ(r.n_test, 100);
  ASSERT_FALSE(std::isnan(r.spearman_logp_logr));
  // A tree: the estimate is exact, so the metric equals Spearman of the exact log P.
  const at::Tensor test = env.make_test_set(25, 0);
  const at::Tensor log_p = exact_terminating_distribution(*model, *pre, env)
                               .log()
                               .index_select(0, env.terminating_state_indices(test))
                               .contiguous();
  const at::Tensor log_r = env.log_reward(test).to(at::kDouble).contiguous();
  const std::vector<double> p(log_p.data_ptr<double>(), log_p.data_ptr<double>() + 100);
  const std::vector<double> q(log_r.data_ptr<double>(), log_r.data_ptr<double>() + 100);
  EXPECT_NEAR(r.spearman_logp_logr, spearman_correlation(p, q), 1e-9);
  // The pairs it ranked (logp_logr.csv): the exact log P and log R of the test set.
  ASSERT_TRUE(r.test_log_p.defined());
  // float32 network outputs summed along each trajectory vs the exact distribution's log.
  EXPECT_LT((r.test_log_p - log_p).abs().max().item<double>(), 1e-4);
  EXPECT_TRUE(r.test_log_r.equal(log_r));
  // Disabled.
  opts.logp_samples = 0;
  const ValidationResult off = validate(*model, *pre, env, opts, nullptr, gen);
  EXPECT_TRUE(std::isnan(off.spearman_logp_logr));
  EXPECT_EQ(off.n_test, 0);
  EXPECT_FALSE(off.test_log_p.defined());
}

TEST(BitSequenceTestSet, SpearmanOnANonEnumerableSequence) {
  // The paper's size (n = 120, k = 4): exact metrics are NaN, Spearman is computed.
  const BitSequence env(small_bits(120, 4, 60));
  auto pre = env.make_preprocessor(PreprocessorKind::kKHot);
  auto model = random_model(*pre, env, 17);
  core::ValidationOptions opts;
  opts.test_per_mode = 2;
  opts.logp_samples = 1;
  at::Generator gen = at::detail::createCPUGenerator(5);
  const ValidationResult r = validate(*model, *pre, env, opts, nullptr, gen);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.n_test, 120);
  EXPECT_GE(r.spearman_logp_logr, -1.0);
  EXPECT_LE(r.spearman_logp_logr, 1.0);
}

// A chain 0 .. length-1 (forward action 0 steps right, 1 exits anywhere; R(x) = x + 1), not a
// BitSequence, offering a test set through the Environment capability: every position,
// `per_mode` times. It records the arguments validate() asked for.
class ChainWithTestSet final : public Environment {
 public:
  std::string name() const override { return "chain"; }
  std::int64_t state_dim() const override { return 1; }
  std::int64_t n_actions() const override { return 2; }
  bool every_state_terminates() const override { return true; }
  at::Tensor initial_states(std::int64_t n) const override { return at::zeros({n, 1}, at::kLong); }
  at::Tensor forward_masks(const at::Tensor& s) const override {
    return at::cat({s.lt(kLength - 1), at::ones({s.size(0), 1}, at::kBool)}, 1);
  }
  at::Tensor backward_masks(const at::Tensor& s) const override { return s.gt(0); }
  at::Tensor step_unchecked(const at::Tensor& s, const at::Tensor&) const override { return s + 1; }
  at::Tensor backward_step_unchecked(const at::Tensor& s, const at::Tensor&) const override {
    return s - 1;
  }
  at::Tensor log_reward(const at::Tensor& s) const override {
    return (s.view({-1}) + 1).to(at::kFloat).log();
  }
  std::unique_ptr<Preprocessor> make_preprocessor(PreprocessorKind) const override {
    return std::make_unique<KHotPreprocessor>(1, kLength);
  }
  std::optional<at::Tensor> test_set(std::int64_t per_mode, std::uint64_t seed) const override {
    asked.emplace_back(per_mode, seed);
    return at::arange(kLength, at::kLong).repeat({per_mode}).view({-1, 1});
  }

  static constexpr std::int64_t kLength = 6;
  mutable std::vector<std::pair<std::int64_t, std::uint64_t>> asked;
};

// validate() of a random model of `env` (its k-hot input; seed `seed`, also the generator's)
// asking for the Spearman metric: `test_per_mode` per mode, `logp_samples` backward
// trajectories per state (0: the metric off).
ValidationResult validate_spearman(const Environment& env, std::uint64_t seed, int test_per_mode,
                                   int logp_samples) {
  auto pre = env.make_preprocessor(PreprocessorKind::kKHot);
  auto model = random_model(*pre, env, seed);
  core::ValidationOptions opts;
  opts.n_samples = 10;
  opts.test_per_mode = test_per_mode;
  opts.logp_samples = logp_samples;
  at::Generator gen = at::detail::createCPUGenerator(seed);
  return validate(*model, *pre, env, opts, nullptr, gen);
}

TEST(EnvironmentTestSet, AnyEnvironmentWithATestSetGetsTheSpearmanMetric) {
  const ChainWithTestSet env;
  const ValidationResult r = validate_spearman(env, 21, 3, 2);
  ASSERT_EQ(env.asked.size(), 1u);
  EXPECT_EQ(env.asked[0], (std::pair<std::int64_t, std::uint64_t>{3, 0}));  // the fixed seed 0
  EXPECT_EQ(r.n_test, 3 * ChainWithTestSet::kLength);
  ASSERT_FALSE(std::isnan(r.spearman_logp_logr));
  ASSERT_TRUE(r.test_log_p.defined());
  // The pairs it ranked: the test set's log R, and the log p estimated for it.
  const at::Tensor test = *env.test_set(3, 0);
  EXPECT_TRUE(r.test_log_r.equal(env.log_reward(test).to(at::kDouble)));
  const at::Tensor p = r.test_log_p.contiguous(), q = r.test_log_r.contiguous();
  EXPECT_NEAR(r.spearman_logp_logr,
              spearman_correlation({p.data_ptr<double>(), p.data_ptr<double>() + r.n_test},
                                   {q.data_ptr<double>(), q.data_ptr<double>() + r.n_test}),
              1e-12);
  // Disabled: the capability is not asked for.
  const std::size_t asked = env.asked.size();
  const ValidationResult off = validate_spearman(env, 21, 3, 0);
  EXPECT_EQ(env.asked.size(), asked);
  EXPECT_EQ(off.n_test, 0);
  EXPECT_TRUE(std::isnan(off.spearman_logp_logr));
}

TEST(EnvironmentTestSet, WithoutATestSetNoSpearman) {
  const HyperGrid env = grid(2, 4);
  EXPECT_FALSE(env.test_set(3, 0).has_value());
  const ValidationResult r = validate_spearman(env, 22, 3, 2);
  EXPECT_EQ(r.n_test, 0);
  EXPECT_TRUE(std::isnan(r.spearman_logp_logr));
  EXPECT_FALSE(r.test_log_p.defined());
  EXPECT_FALSE(std::isnan(r.l1_exact));  // the exact metrics as before
}

// The trainer's validation log line (describe): NaN metrics are left out, defined ones kept.
TEST(ValidationDescribe, ShowsOnlyDefinedMetrics) {
  ValidationResult exact;
  exact.l1_exact = 0.5;
  exact.jsd = 0.25;
  exact.l1_sampled = 0.125;
  exact.n_samples = 1000;
  exact.log_z_error = 0.0625;
  exact.n_modes_found = 3;
  exact.n_modes_total = 4;
  exact.l1_visited = 0.106;
  exact.n_visited = 12928;
  EXPECT_EQ(describe(exact),
            "L1 exact 0.50000, L1 sampled (1000 samples) 0.12500, JSD 0.25000, |logZ error| "
            "0.0625, modes found 3/4, L1 visited (mean, last 12928) 0.106");

  const double nan = std::numeric_limits<double>::quiet_NaN();
  ValidationResult bits;  // a non-enumerable environment (BitSequence)
  bits.exact = false;
  bits.l1_exact = bits.jsd = bits.l1_sampled = bits.log_z_error = nan;
  bits.n_samples = 1000;
  bits.log_z = 2.5;
  bits.n_modes_found = 1;
  bits.n_modes_total = 60;
  bits.spearman_logp_logr = 0.75;
  bits.n_test = 120;
  const std::string line = describe(bits);
  EXPECT_EQ(line, "logZ 2.5000, modes found 1/60, Spearman(log p, log R) 0.7500 (120 test)");
  EXPECT_EQ(line.find("nan"), std::string::npos);
}

}  // namespace
}  // namespace gfn::core
