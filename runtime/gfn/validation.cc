#include "runtime/gfn/validation.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/nn/module.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/marginal_log_prob.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/rank_correlation.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/visited_states.h"

namespace gfn::core {

ModeTracker::ModeTracker(const Environment& env)
    : ModeTracker("environment \"" + env.name() + "\"", env.n_modes(),
                  [&env](const at::Tensor& states) { return env.mode_hits(states); }) {}

ModeTracker::ModeTracker(const std::string& what, std::int64_t n_total, ModeHits hits)
    : n_total_(n_total), hits_(std::move(hits)) {
  if (n_total <= 0) throw std::domain_error("ModeTracker: " + what + " defines no modes");
}

std::int64_t ModeTracker::update(const at::Tensor& terminating_states) {
  const at::Tensor idx = hits_(terminating_states).contiguous();
  const std::size_t before = found_.size();
  const int64_t* p = idx.data_ptr<int64_t>();
  found_.insert(p, p + idx.numel());
  return static_cast<std::int64_t>(found_.size() - before);
}

at::Tensor pf_probabilities(GFlowNetModel& model, const Preprocessor& preprocessor,
                            const Environment& env) {
  at::NoGradGuard no_grad;
  const at::Tensor& states = env.all_states();
  return model.pf_logits(preprocessor(states))
      .to(at::kDouble)
      .masked_fill(env.forward_masks(states).logical_not(),
                   -std::numeric_limits<double>::infinity())
      .softmax(1);
}

at::Tensor terminating_distribution(const Environment& env, const at::Tensor& pf_probs) {
  const int64_t n = env.n_states();
  const int64_t a = env.n_actions();
  if (pf_probs.dim() != 2 || pf_probs.size(0) != n || pf_probs.size(1) != a) {
    throw std::invalid_argument("terminating_distribution: pf_probs must be [" + std::to_string(n) +
                                ", " + std::to_string(a) + "]");
  }
  const StateGraph& g = env.state_graph();
  const at::Tensor pf = pf_probs.to(at::kDouble).contiguous();
  const double* p = pf.data_ptr<double>();
  // States are in a topological order, so one pass pushing each state's flow to its
  // children is the whole DP: O(states + edges) scalar work (microseconds for 4D h8),
  // cheaper than any level-batched tensor code. A child receives its parents' terms in
  // increasing parent index.
  std::vector<double> u(n, 0.0);
  if (n > 0) u[0] = 1.0;
  at::Tensor out = at::zeros({env.n_terminating_states()}, at::kDouble);
  double* o = out.data_ptr<double>();
  const int64_t exit = env.exit_action();
  for (int64_t idx = 0; idx < n; ++idx) {
    const double flow = u[idx];
    for (int64_t e = g.edge_begin[idx]; e < g.edge_begin[idx + 1]; ++e) {
      u[g.edge_child[e]] += flow * p[idx * a + g.edge_action[e]];
    }
    if (g.terminal_index[idx] >= 0) o[g.terminal_index[idx]] = flow * p[idx * a + exit];
  }
  return out;
}

at::Tensor exact_terminating_distribution(GFlowNetModel& model, const Preprocessor& preprocessor,
                                          const Environment& env) {
  return terminating_distribution(env, pf_probabilities(model, preprocessor, env));
}

at::Tensor empirical_distribution(const Environment& env, const at::Tensor& terminating_states) {
  if (!env.enumerable()) {
    throw std::domain_error("empirical_distribution: environment not enumerable");
  }
  const int64_t n = terminating_states.size(0);
  if (n == 0) throw std::invalid_argument("empirical_distribution: no states");
  return at::bincount(env.terminating_state_indices(terminating_states), {},
                      env.n_terminating_states())
             .to(at::kDouble) /
         static_cast<double>(n);
}

double l1_distance(const at::Tensor& p, const at::Tensor& q) {
  if (!p.sizes().equals(q.sizes())) throw std::invalid_argument("l1_distance: shape mismatch");
  return (p.to(at::kDouble) - q.to(at::kDouble)).abs().sum().item<double>();
}

double mean_l1_distance(const at::Tensor& p, const at::Tensor& q) {
  if (!p.sizes().equals(q.sizes())) throw std::invalid_argument("mean_l1_distance: shape mismatch");
  if (p.numel() == 0) throw std::invalid_argument("mean_l1_distance: empty distributions");
  return l1_distance(p, q) / static_cast<double>(p.numel());
}

double spearman_logp_logr(GFlowNetModel& model, const Preprocessor& preprocessor,
                          const Environment& env, const at::Tensor& test_states, std::int64_t k,
                          at::Generator& generator, at::Tensor* log_p_out, at::Tensor* log_r_out) {
  const at::Tensor log_p =
      estimate_log_marginal(model, preprocessor, env, test_states, k, generator).contiguous();
  const at::Tensor log_r = env.log_reward(test_states).to(at::kDouble).contiguous();
  if (log_p_out) *log_p_out = log_p;
  if (log_r_out) *log_r_out = log_r;
  const auto n = static_cast<std::size_t>(log_p.numel());
  const double* p = log_p.data_ptr<double>();
  const double* r = log_r.data_ptr<double>();
  return spearman_correlation(std::vector<double>(p, p + n), std::vector<double>(r, r + n));
}

double jensen_shannon_divergence(const at::Tensor& p, const at::Tensor& q) {
  if (!p.sizes().equals(q.sizes())) {
    throw std::invalid_argument("jensen_shannon_divergence: shape mismatch");
  }
  const at::Tensor pp = p.to(at::kDouble), qq = q.to(at::kDouble);
  const at::Tensor m = 0.5 * (pp + qq);
  // x log(x/m) with 0 log 0 = 0 (m > 0 wherever x > 0).
  auto kl = [&](const at::Tensor& x) {
    return at::where(x > 0, x * (x / m).log(), at::zeros_like(x)).sum().item<double>();
  };
  return 0.5 * kl(pp) + 0.5 * kl(qq);
}

at::Tensor sample_terminating_states(GFlowNetModel& model, const Preprocessor& preprocessor,
                                     const Environment& env, std::int64_t n,
                                     at::Generator& generator, std::int64_t chunk) {
  if (n < 0 || chunk < 1) {
    throw std::invalid_argument("sample_terminating_states: need n >= 0 and chunk >= 1");
  }
  at::Tensor table;
  {
    at::NoGradGuard no_grad;
    table = model.pf_logits(preprocessor(env.all_states()));
  }
  const PolicyFunction policy = [&](const at::Tensor& states) {
    return table.index_select(0, env.state_indices(states));
  };
  SamplerOptions opts;
  opts.record_transitions = false;
  std::vector<at::Tensor> parts;
  for (std::int64_t done = 0; done < n; done += chunk) {
    parts.push_back(sample_trajectories(env, policy, std::min(chunk, n - done), opts, generator)
                        .terminating_states);
  }
  return parts.empty() ? at::empty({0, env.state_dim()}, at::kLong) : at::cat(parts);
}

std::vector<std::int64_t> sampled_modes(GFlowNetModel& model, const Preprocessor& preprocessor,
                                        const Environment& env, std::int64_t n,
                                        at::Generator& generator, std::int64_t chunk) {
  if (env.n_modes() == 0 || n <= 0) return {};
  at::NoGradGuard no_grad;
  SamplerOptions on_policy;
  on_policy.record_transitions = false;
  const PolicyFunction pf = model_policy(model, preprocessor, env);
  std::set<std::int64_t> found;
  for (std::int64_t done = 0; done < n;) {
    const std::int64_t k = std::min(chunk, n - done);
    const at::Tensor hits =
        env.mode_hits(sample_trajectories(env, pf, k, on_policy, generator).terminating_states)
            .contiguous();
    found.insert(hits.data_ptr<std::int64_t>(), hits.data_ptr<std::int64_t>() + hits.numel());
    done += k;
  }
  return {found.begin(), found.end()};
}

ValidationResult validate(GFlowNetModel& model, const Preprocessor& preprocessor,
                          const Environment& env, const ValidationOptions& options,
                          const ModeTracker* modes, at::Generator& generator,
                          const VisitedTerminatingStates* visited) {
  const auto start = std::chrono::steady_clock::now();
  at::NoGradGuard no_grad;
  ValidationResult r;
  r.log_z = model.log_z().item<double>();
  r.n_modes_total = env.n_modes();
  r.n_modes_found = modes ? modes->n_found() : 0;
  if (options.logp_samples > 0 && options.test_per_mode > 0) {
    // The TB paper's bit-sequence metric, for an environment with a test set; the set is
    // fixed (seed 0, torchgfn's create_test_set default), only the backward trajectories
    // are random.
    if (const std::optional<at::Tensor> test = env.test_set(options.test_per_mode, /*seed=*/0)) {
      r.n_test = test->size(0);
      if (r.n_test >= 2) {
        r.spearman_logp_logr =
            spearman_logp_logr(model, preprocessor, env, *test, options.logp_samples, generator,
                               &r.test_log_p, &r.test_log_r);
      }
    }
  }
  if (!env.enumerable()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.exact = false;
    r.l1_exact = r.jsd = r.l1_sampled = r.log_z_true = r.log_z_error = nan;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }
  const at::Tensor& truth = env.true_distribution();
  const at::Tensor p = exact_terminating_distribution(model, preprocessor, env);
  r.l1_exact = l1_distance(p, truth);
  r.jsd = jensen_shannon_divergence(p, truth);
  r.n_samples = options.n_samples;
  if (options.n_samples > 0) {
    const at::Tensor x =
        sample_terminating_states(model, preprocessor, env, options.n_samples, generator);
    r.l1_sampled = l1_distance(empirical_distribution(env, x), truth);
  }
  if (visited != nullptr && visited->size() > 0) {
    r.n_visited = visited->size();
    r.l1_visited = mean_l1_distance(visited->distribution(), truth);
  }
  r.log_z_true = env.log_partition();
  r.log_z_error = std::abs(r.log_z - r.log_z_true);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string describe(const ValidationResult& v) {
  std::vector<std::string> parts;
  if (!std::isnan(v.l1_exact)) parts.push_back(fmt::format("L1 exact {:.5f}", v.l1_exact));
  if (v.n_samples > 0 && !std::isnan(v.l1_sampled)) {
    parts.push_back(fmt::format("L1 sampled ({} samples) {:.5f}", v.n_samples, v.l1_sampled));
  }
  if (!std::isnan(v.jsd)) parts.push_back(fmt::format("JSD {:.5f}", v.jsd));
  if (!std::isnan(v.wasserstein)) parts.push_back(fmt::format("W1 {:.4f}", v.wasserstein));
  if (!std::isnan(v.elbo)) {
    parts.push_back(fmt::format("ELBO {:.4f}, IW ELBO {:.4f}", v.elbo, v.iw_elbo));
  }
  if (!std::isnan(v.eubo)) parts.push_back(fmt::format("EUBO {:.4f}", v.eubo));
  if (!std::isnan(v.log_z_error)) {
    parts.push_back(fmt::format("|logZ error| {:.4f}", v.log_z_error));
  } else {
    parts.push_back(fmt::format("logZ {:.4f}", v.log_z));
  }
  parts.push_back(fmt::format("modes found {}/{}", v.n_modes_found, v.n_modes_total));
  if (!std::isnan(v.l1_visited)) {
    parts.push_back(fmt::format("L1 visited (mean, last {}) {:.3g}", v.n_visited, v.l1_visited));
  }
  if (!std::isnan(v.spearman_logp_logr)) {
    parts.push_back(
        fmt::format("Spearman(log p, log R) {:.4f} ({} test)", v.spearman_logp_logr, v.n_test));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace gfn::core
