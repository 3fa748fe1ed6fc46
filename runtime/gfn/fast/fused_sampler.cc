#include "runtime/gfn/fast/fused_sampler.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "runtime/gfn/categorical.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/row_dynamics.h"
#include "runtime/gfn/fast/plain_loops.h"
#include "runtime/gfn/fast/row_split.h"

namespace gfn::core {
namespace {

// The running trajectories, in increasing trajectory order (as sample_trajectories keeps
// them): trajectory ids, current states (d values per row) and the action that led into each
// state (-1 at s0).
struct Running {
  std::vector<std::int64_t> ids, states, led;
  std::int64_t rows() const { return static_cast<std::int64_t>(ids.size()); }
  void clear() {
    ids.clear();
    states.clear();
    led.clear();
  }
};

// The batch's Trajectories fields, as vectors until the end.
struct Recorded {
  std::vector<std::int64_t> states, actions, ids, pb, lengths, terminal;
};

// The distinct running states in increasing key order (Environment::unique's order) and the
// position of each running row among them. Buffers keep their capacity between steps.
class DistinctRows {
 public:
  /// int64 [U, d]: the distinct states; fills inverse() [m] and first() [U].
  at::Tensor build(const RowDynamics& dynamics, const Running& run, std::int64_t d) {
    const std::int64_t m = run.rows();
    inverse_.resize(static_cast<std::size_t>(m));
    group_rows(dynamics, run.states.data(), m, d, order_, first_, inverse_.data());
    const auto u = static_cast<std::int64_t>(first_.size());
    at::Tensor out = at::empty({u, d}, at::kLong);
    std::int64_t* o = out.data_ptr<std::int64_t>();
    for (std::int64_t k = 0; k < u; ++k) {
      std::copy_n(&run.states[first_[k] * d], d, o + k * d);
    }
    return out;
  }
  const std::vector<std::int64_t>& inverse() const { return inverse_; }
  const std::vector<std::int64_t>& first() const { return first_; }

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> order_;  // (key, running row)
  std::vector<std::int64_t> inverse_, first_;
};

// float32 [U, A] sampling probabilities of the distinct states, as action_probabilities
// (sampler.h) computes them on their logits and masks, checked like at::multinomial. Without
// epsilon, the masking and the division by the temperature (elementwise IEEE operations, so
// the same values) are one loop here and only the softmax is ATen's; with epsilon,
// action_probabilities itself.
at::Tensor distinct_probabilities(const at::Tensor& logits, const RowDynamics& dynamics,
                                  const Running& run, const DistinctRows& distinct, std::int64_t d,
                                  std::int64_t n_actions, const SamplerOptions& options) {
  const auto u = static_cast<std::int64_t>(distinct.first().size());
  if (logits.dim() != 2 || logits.size(0) != u || logits.size(1) != n_actions ||
      logits.scalar_type() != at::kFloat) {
    throw std::invalid_argument("sample_trajectories: policy must return float32 [" +
                                std::to_string(u) + ", " + std::to_string(n_actions) + "] logits");
  }
  at::Tensor masks = at::empty({u, n_actions}, at::kBool);
  bool* mask = masks.data_ptr<bool>();
  for (std::int64_t k = 0; k < u; ++k) {
    dynamics.forward_mask(&run.states[distinct.first()[k] * d], mask + k * n_actions);
  }
  at::Tensor probs;
  if (options.epsilon > 0.0) {
    probs = action_probabilities(logits, masks, options).contiguous();
  } else {
    const at::Tensor in = logits.contiguous();
    const float* x = in.data_ptr<float>();
    at::Tensor scaled = at::empty({u, n_actions}, at::kFloat);
    float* y = scaled.data_ptr<float>();
    const auto temperature = static_cast<float>(options.temperature);
    const bool divide = options.temperature != 1.0;
    for (std::int64_t i = 0; i < u * n_actions; ++i) {
      y[i] = !mask[i] ? -std::numeric_limits<float>::infinity()
             : divide ? x[i] / temperature
                      : x[i];
    }
    probs = scaled.softmax(1);
  }
  check_probability_rows(probs.data_ptr<float>(), u, n_actions);
  return probs;
}

// One step of every running row: its action (the exponential race on its distinct state's
// probabilities p and its own draws q), the record, and its next state in `next`.
struct StepContext {
  const RowDynamics& dynamics;
  std::int64_t d, n_actions;
  bool record;
  std::vector<std::int64_t>* distinct_rows;  // null: not wanted
  std::int64_t offset;                       // rows of the earlier policy calls
};

void advance(const StepContext& c, const float* p, const float* q,
             const std::vector<std::int64_t>& inverse, Running& run, Running& next, Recorded& rec) {
  const std::int64_t exit = c.n_actions - 1, d = c.d;
  next.clear();
  for (std::int64_t i = 0; i < run.rows(); ++i) {
    const std::int64_t action =
        race_winner(p + inverse[i] * c.n_actions, q + i * c.n_actions, c.n_actions);
    const std::int64_t id = run.ids[i];
    const std::int64_t* state = &run.states[i * d];
    ++rec.lengths[id];
    if (c.record) {
      rec.states.insert(rec.states.end(), state, state + d);
      rec.actions.push_back(action);
      rec.ids.push_back(id);
      if (run.led[i] >= 0) rec.pb.push_back(run.led[i]);
      if (c.distinct_rows != nullptr) c.distinct_rows->push_back(c.offset + inverse[i]);
    }
    if (action == exit) {
      std::copy_n(state, d, &rec.terminal[id * d]);
      continue;
    }
    next.ids.push_back(id);
    next.led.push_back(action);
    next.states.insert(next.states.end(), state, state + d);
    c.dynamics.step(&next.states[next.states.size() - static_cast<std::size_t>(d)], action);
  }
  std::swap(run, next);
}

// The Exp(1) draws of a step (ExponentialDraws::next), their logs split over `threads`
// threads when there are enough of them.
class StepDraws {
 public:
  StepDraws(at::Generator& generator, int threads) : draws_(generator), threads_(threads) {}

  const float* next(std::int64_t n) {
    const auto ranges = row_ranges(n, threads_, kMinDrawsPerThread);
    if (ranges.size() == 1 || draws_.uses_aten()) return draws_.next(n);
    const std::uint64_t* words = draws_.next_words(n);
    values_.resize(static_cast<std::size_t>(n));
    run_row_parts(ranges, [&](std::size_t, RowRange r) {
      for (std::int64_t i = r.begin; i < r.end; ++i) values_[i] = ExponentialDraws::draw(words[i]);
    });
    return values_.data();
  }

 private:
  // ~4 us of logs: fewer are not worth a hand-over.
  static constexpr std::int64_t kMinDrawsPerThread = 1024;
  ExponentialDraws draws_;
  int threads_;
  std::vector<float> values_;
};

Trajectories finish(const Environment& env, const Recorded& rec, std::int64_t n, std::int64_t d,
                    bool record) {
  Trajectories out;
  out.n_trajectories = n;
  out.lengths = long_tensor(rec.lengths);
  out.terminating_states = long_tensor(rec.terminal, d);
  if (record) {
    out.states = long_tensor(rec.states, d);
    out.actions = long_tensor(rec.actions);
    out.traj_index = long_tensor(rec.ids);
    out.pb_actions = long_tensor(rec.pb);
  }
  out.log_rewards = env.log_reward(out.terminating_states);
  return out;
}

}  // namespace

Trajectories sample_trajectories_fused(const Environment& env, const RowDynamics& dynamics,
                                       const DistinctPolicy& policy, std::int64_t n,
                                       const SamplerOptions& options, at::Generator& generator,
                                       std::vector<std::int64_t>* distinct_rows, int threads) {
  if (n < 0)
    throw std::invalid_argument("sample_trajectories: n must be >= 0, got " + std::to_string(n));
  check_sampler_options(options);
  if (threads < 1) {
    throw std::invalid_argument("sample_trajectories_fused: threads must be >= 1, got " +
                                std::to_string(threads));
  }
  if (distinct_rows != nullptr && !options.record_transitions) {
    throw std::invalid_argument(
        "sample_trajectories_fused: distinct rows need options.record_transitions = true");
  }
  at::NoGradGuard no_grad;
  const std::int64_t d = env.state_dim(), n_actions = env.n_actions();
  const at::Tensor s0 = env.initial_states(1).contiguous();
  Running run, next;
  for (std::int64_t i = 0; i < n; ++i) {
    run.ids.push_back(i);
    run.led.push_back(-1);
    run.states.insert(run.states.end(), s0.data_ptr<std::int64_t>(),
                      s0.data_ptr<std::int64_t>() + d);
  }
  Recorded rec;
  rec.lengths.assign(static_cast<std::size_t>(n), 0);
  rec.terminal.assign(static_cast<std::size_t>(n * d), 0);
  if (distinct_rows != nullptr) distinct_rows->clear();
  StepContext step{dynamics, d, n_actions, options.record_transitions, distinct_rows, 0};
  DistinctRows distinct;
  StepDraws draws(generator, threads);
  while (run.rows() > 0) {
    const at::Tensor states = distinct.build(dynamics, run, d);
    const at::Tensor probs =
        distinct_probabilities(policy(states), dynamics, run, distinct, d, n_actions, options);
    const float* q = draws.next(run.rows() * n_actions);
    advance(step, probs.data_ptr<float>(), q, distinct.inverse(), run, next, rec);
    step.offset += states.size(0);
  }
  return finish(env, rec, n, d, options.record_transitions);
}

}  // namespace gfn::core
