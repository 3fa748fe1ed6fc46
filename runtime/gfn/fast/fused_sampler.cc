#include "runtime/gfn/fast/fused_sampler.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <atomic>
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
// (sampler.h) computes them on their logits and masks, checked like at::multinomial: row range
// by row range as the policy hands them over (rows(), LogitsReady: on the policy's threads),
// the rest after the policy call (finish()). Without epsilon, the masking and the division by
// the temperature (elementwise IEEE operations, so the same values) are one loop here and only
// the softmax is ATen's, on the range's rows (ATen's softmax computes every row on its own: the
// same values whatever the ranges); with epsilon, action_probabilities itself on all rows.
class StepProbabilities {
 public:
  StepProbabilities(const RowDynamics& dynamics, std::int64_t d, std::int64_t n_actions,
                    const SamplerOptions& options)
      : dynamics_(dynamics), d_(d), n_actions_(n_actions), options_(options) {}

  /// Before the policy call: the step's distinct states (distinct.first() rows of run).
  void begin(const Running& run, const DistinctRows& distinct) {
    run_ = &run;
    distinct_ = &distinct;
    u_ = static_cast<std::int64_t>(distinct.first().size());
    done_ = 0;
    probs_ = at::empty({u_, n_actions_}, at::kFloat);
    masks_ = at::empty({u_, n_actions_}, at::kBool);
  }
  /// Rows r of the policy's logits. Thread-safe for disjoint ranges.
  void rows(RowRange r, const at::Tensor& logits) {
    if (options_.epsilon > 0.0 || !logits.is_contiguous()) return;  // finish() does them
    check_shape(logits);
    compute(r, logits);
    done_ += r.size();
  }
  /// After the policy call: the probabilities of every row.
  const at::Tensor& finish(const at::Tensor& logits) {
    check_shape(logits);
    if (options_.epsilon > 0.0) {
      write_masks(RowRange{0, u_});
      probs_ = action_probabilities(logits, masks_, options_).contiguous();
      check_probability_rows(probs_.data_ptr<float>(), u_, n_actions_);
    } else if (done_.load() != u_) {
      compute(RowRange{0, u_}, logits.contiguous());
    }
    return probs_;
  }

 private:
  void check_shape(const at::Tensor& logits) const {
    if (logits.dim() != 2 || logits.size(0) != u_ || logits.size(1) != n_actions_ ||
        logits.scalar_type() != at::kFloat) {
      throw std::invalid_argument("sample_trajectories: policy must return float32 [" +
                                  std::to_string(u_) + ", " + std::to_string(n_actions_) +
                                  "] logits");
    }
  }
  void write_masks(RowRange r) {
    bool* mask = masks_.data_ptr<bool>();
    for (std::int64_t k = r.begin; k < r.end; ++k) {
      dynamics_.forward_mask(&run_->states[distinct_->first()[k] * d_], mask + k * n_actions_);
    }
  }
  // Rows r of probs_ from rows r of the contiguous logits.
  void compute(RowRange r, const at::Tensor& logits) {
    write_masks(r);
    const std::int64_t a = n_actions_, begin = r.begin * a, end = r.end * a;
    const float* x = logits.data_ptr<float>();
    const bool* mask = masks_.data_ptr<bool>();
    at::Tensor scaled = at::empty({r.size(), a}, at::kFloat);
    float* y = scaled.data_ptr<float>() - begin;
    const auto temperature = static_cast<float>(options_.temperature);
    const bool divide = options_.temperature != 1.0;
    for (std::int64_t i = begin; i < end; ++i) {
      y[i] = !mask[i] ? -std::numeric_limits<float>::infinity()
             : divide ? x[i] / temperature
                      : x[i];
    }
    at::Tensor out = probs_.narrow(0, r.begin, r.size());
    at::_softmax_out(out, scaled, 1, /*half_to_float=*/false);
    check_probability_rows(out.data_ptr<float>(), r.size(), a);
  }

  const RowDynamics& dynamics_;
  std::int64_t d_, n_actions_;
  const SamplerOptions& options_;
  const Running* run_ = nullptr;
  const DistinctRows* distinct_ = nullptr;
  std::int64_t u_ = 0;
  std::atomic<std::int64_t> done_{0};
  at::Tensor probs_, masks_;
};

// One step of every running row: its action (the exponential race on its distinct state's
// probabilities p and its own draws q), the record, and its next state.
struct StepContext {
  const RowDynamics& dynamics;
  std::int64_t d, n_actions;
  bool record;
  bool distinct_rows;   // keep each record's distinct row (sample_trajectories_fused's argument)
  std::int64_t offset;  // rows of the earlier policy calls
};

// The Exp(1) draws of a step (ExponentialDraws::next), A per running row: the generator's
// words taken on the calling thread (prepare), each row's draws computed by whichever thread
// steps that row (row: ExponentialDraws::draw of its words, the same values). When the draws
// come from ATen's exponential_ (uses_aten), prepare takes them all.
class StepDraws {
 public:
  StepDraws(at::Generator& generator, std::int64_t n_actions)
      : draws_(generator), n_actions_(n_actions) {}

  /// Serial: the words (or draws) of `rows` running rows.
  void prepare(std::int64_t rows) {
    if (draws_.uses_aten()) {
      values_ = draws_.next(rows * n_actions_);
      words_ = nullptr;
    } else {
      words_ = draws_.next_words(rows * n_actions_);
    }
  }
  /// The A draws of running row i; buffer: A floats of the calling thread. Thread-safe.
  const float* row(std::int64_t i, float* buffer) const {
    if (words_ == nullptr) return values_ + i * n_actions_;
    const std::uint64_t* w = words_ + i * n_actions_;
    for (std::int64_t a = 0; a < n_actions_; ++a) buffer[a] = ExponentialDraws::draw(w[a]);
    return buffer;
  }

 private:
  ExponentialDraws draws_;
  std::int64_t n_actions_;
  const std::uint64_t* words_ = nullptr;
  const float* values_ = nullptr;
};

// What one range of running rows adds to a step: its rows still running and its records,
// joined in range order (so in running-row order, as one loop would append them).
struct StepPart {
  Running next;
  std::vector<std::int64_t> states, actions, ids, pb, distinct;
  void clear() {
    next.clear();
    for (auto* v : {&states, &actions, &ids, &pb, &distinct}) v->clear();
  }
};

// The step of running rows r into `part`; each row's length and terminating state go straight
// into rec (every row is its own trajectory: ranges write disjoint entries).
void advance_rows(const StepContext& c, const float* p, const StepDraws& draws,
                  const std::vector<std::int64_t>& inverse, const Running& run, RowRange r,
                  StepPart& part, Recorded& rec) {
  const std::int64_t exit = c.n_actions - 1, d = c.d;
  std::vector<float> buffer(static_cast<std::size_t>(c.n_actions));
  part.clear();
  for (std::int64_t i = r.begin; i < r.end; ++i) {
    const float* q = draws.row(i, buffer.data());
    const std::int64_t action = race_winner(p + inverse[i] * c.n_actions, q, c.n_actions);
    const std::int64_t id = run.ids[i];
    const std::int64_t* state = &run.states[i * d];
    ++rec.lengths[id];
    if (c.record) {
      part.states.insert(part.states.end(), state, state + d);
      part.actions.push_back(action);
      part.ids.push_back(id);
      if (run.led[i] >= 0) part.pb.push_back(run.led[i]);
      if (c.distinct_rows) part.distinct.push_back(c.offset + inverse[i]);
    }
    if (action == exit) {
      std::copy_n(state, d, &rec.terminal[id * d]);
      continue;
    }
    Running& next = part.next;
    next.ids.push_back(id);
    next.led.push_back(action);
    next.states.insert(next.states.end(), state, state + d);
    c.dynamics.step(&next.states[next.states.size() - static_cast<std::size_t>(d)], action);
  }
}

template <class T>
void append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// The parts in order: the next running rows into run, the records into rec and distinct. One
// part's running rows are swapped in, not copied (its buffers then keep run's capacity).
void join(std::vector<StepPart>& parts, Running& run, Recorded& rec,
          std::vector<std::int64_t>* distinct) {
  run.clear();
  if (parts.size() == 1) std::swap(run, parts[0].next);
  for (const StepPart& part : parts) {
    if (parts.size() > 1) {
      append(run.ids, part.next.ids);
      append(run.led, part.next.led);
      append(run.states, part.next.states);
    }
    append(rec.states, part.states);
    append(rec.actions, part.actions);
    append(rec.ids, part.ids);
    append(rec.pb, part.pb);
    if (distinct != nullptr) append(*distinct, part.distinct);
  }
}

// Fewest running rows a thread steps (row_split.h): a row costs ~0.2 us (A draws' logs, the
// race, the record), a hand-over to a spinning thread a few us.
constexpr std::int64_t kMinRowsPerThread = 64;

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
  Running run;
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
  StepContext step{dynamics, d, n_actions, options.record_transitions, distinct_rows != nullptr, 0};
  DistinctRows distinct;
  StepProbabilities probabilities(dynamics, d, n_actions, options);
  StepDraws draws(generator, n_actions);
  std::vector<StepPart> parts;
  while (run.rows() > 0) {
    const at::Tensor states = distinct.build(dynamics, run, d);
    probabilities.begin(run, distinct);
    const at::Tensor& probs =
        probabilities.finish(policy(states, [&](RowRange rows, const at::Tensor& logits) {
          probabilities.rows(rows, logits);
        }));
    draws.prepare(run.rows());
    const auto ranges = row_ranges(run.rows(), threads, kMinRowsPerThread);
    parts.resize(ranges.size());
    run_row_parts(ranges, [&](std::size_t k, RowRange r) {
      advance_rows(step, probs.data_ptr<float>(), draws, distinct.inverse(), run, r, parts[k], rec);
    });
    join(parts, run, rec, distinct_rows);
    step.offset += states.size(0);
  }
  return finish(env, rec, n, d, options.record_transitions);
}

}  // namespace gfn::core
