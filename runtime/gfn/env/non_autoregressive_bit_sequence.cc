#include "runtime/gfn/env/non_autoregressive_bit_sequence.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "runtime/gfn/env/bit_sequence_modes.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {
namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

constexpr std::int64_t kMaxKey = std::int64_t{1} << 62;

// torchgfn's modes for seq_size < 8 (no 8-bit block fits): one randint(0, 2) draw of
// [n_modes, seq_size] from a generator seeded with `seed`.
at::Tensor random_modes(std::int64_t seq_size, std::int64_t n_modes, std::uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  return at::randint(0, 2, {n_modes, seq_size}, gen, at::kLong);
}

// Rows of the digits of 0 .. count-1 in `base` (pow[p] = base^(L-1-p)), most significant
// first: int64 [count, L].
at::Tensor counting_rows(std::int64_t count, const at::Tensor& pow, std::int64_t base) {
  return at::arange(count, at::kLong).view({-1, 1}).div(pow, "floor").remainder(base);
}

}  // namespace

NonAutoregressiveBitSequence::NonAutoregressiveBitSequence(
    const NonAutoregressiveBitSequenceOptions& options)
    : k_(options.word_size),
      n_(options.seq_size),
      l_(0),
      v_(0),
      reward_exponent_(options.reward_exponent) {
  if (k_ < 1 || k_ > 16) bad("env.word_size must be in [1, 16], got " + std::to_string(k_));
  if (n_ < 1 || n_ % k_ != 0) {
    bad("env.seq_size must be a positive multiple of env.word_size (" + std::to_string(k_) +
        "), got " + std::to_string(n_));
  }
  if (n_ >= 8 && n_ % 8 != 0) {
    bad("env.seq_size must be below 8 or a multiple of 8 (the modes are 8-bit blocks), got " +
        std::to_string(n_));
  }
  if (options.n_modes < 1) bad("env.n_modes must be >= 1, got " + std::to_string(options.n_modes));
  if (!std::isfinite(reward_exponent_)) bad("env.reward_exponent must be finite");
  l_ = n_ / k_;
  v_ = std::int64_t{1} << k_;
  threshold_ = options.mode_threshold < 0 ? n_ / 4 : options.mode_threshold;
  modes_ = n_ % 8 == 0 ? block_modes(n_, options.n_modes, options.modes_seed)
                       : random_modes(n_, options.n_modes, options.modes_seed);
  word_values_ = at::arange(v_, at::kLong);
  // (V + 1)^(L-1-p) while (V + 1)^L stays below 2^62.
  std::vector<std::int64_t> pow(l_, 1);
  std::int64_t total = v_ + 1;  // (V + 1)^(L - p) for the p reached
  key_fits_ = true;
  for (std::int64_t p = l_ - 2; p >= 0 && key_fits_; --p) {
    pow[p] = total;
    key_fits_ = total <= (kMaxKey - 1) / (v_ + 1);
    total *= key_fits_ ? v_ + 1 : 1;
  }
  if (!key_fits_) return;
  state_pow_ = at::tensor(pow, at::kLong);
  rows_ = Rows(v_, std::move(pow));
  if (total <= kMaxEnumerableStates) enumerate(total);
}

void NonAutoregressiveBitSequence::enumerate(std::int64_t states) {
  all_states_ = counting_rows(states, state_pow_, v_ + 1) - 1;
  std::vector<std::int64_t> pow(l_, 1);
  for (std::int64_t p = l_ - 2; p >= 0; --p) pow[p] = pow[p + 1] * v_;
  term_pow_ = at::tensor(pow, at::kLong);
  terminating_states_ = counting_rows(pow[0] * v_, term_pow_, v_);
  const at::Tensor lr = log_reward(terminating_states_).to(at::kDouble);
  log_partition_ = lr.logsumexp(0).item<double>();
  true_dist_ = (lr - log_partition_).exp();
}

void NonAutoregressiveBitSequence::Rows::forward_mask(const std::int64_t* state, bool* mask) const {
  const auto l = static_cast<std::int64_t>(pow_.size());
  bool complete = true;
  for (std::int64_t p = 0; p < l; ++p) {
    const bool empty = state[p] == -1;
    std::fill_n(mask + p * v_, v_, empty);
    complete = complete && !empty;
  }
  mask[l * v_] = complete;
}

void NonAutoregressiveBitSequence::Rows::step(std::int64_t* state, std::int64_t action) const {
  state[action / v_] = action % v_;
}

std::int64_t NonAutoregressiveBitSequence::Rows::key(const std::int64_t* state) const {
  std::int64_t index = 0;
  for (std::size_t p = 0; p < pow_.size(); ++p) index += (state[p] + 1) * pow_[p];
  return index;
}

at::Tensor NonAutoregressiveBitSequence::initial_states(std::int64_t n) const {
  return at::full({n, l_}, -1, at::kLong);
}

at::Tensor NonAutoregressiveBitSequence::forward_masks(const at::Tensor& states) const {
  const std::int64_t b = states.size(0);
  const at::Tensor empty = states.eq(-1);
  return at::cat({empty.unsqueeze(2).expand({b, l_, v_}).reshape({b, l_ * v_}),
                  empty.any(1, /*keepdim=*/true).logical_not()},
                 1);
}

at::Tensor NonAutoregressiveBitSequence::backward_masks(const at::Tensor& states) const {
  return states.unsqueeze(2).eq(word_values_).reshape({states.size(0), l_ * v_});
}

at::Tensor NonAutoregressiveBitSequence::step_unchecked(const at::Tensor& states,
                                                        const at::Tensor& actions) const {
  const at::Tensor a = actions.view({-1, 1});
  return states.scatter(1, a.div(v_, "floor"), a.remainder(v_));
}

at::Tensor NonAutoregressiveBitSequence::backward_step_unchecked(const at::Tensor& states,
                                                                 const at::Tensor& actions) const {
  return states.scatter(1, actions.view({-1, 1}).div(v_, "floor"), -1);
}

void NonAutoregressiveBitSequence::check_states(const at::Tensor& states, const char* who) const {
  Environment::check_states(states, who);
  if (states.numel() == 0) return;
  if (states.min().item<std::int64_t>() < -1 || states.max().item<std::int64_t>() >= v_) {
    bad(std::string("non_autoregressive_bit_sequence::") + who + ": words must be in [-1, " +
        std::to_string(v_ - 1) + "]");
  }
}

at::Tensor NonAutoregressiveBitSequence::mode_distances(const at::Tensor& states) const {
  check_states(states, "mode_distances");
  if (states.numel() > 0 && states.eq(-1).any().item<bool>()) {
    bad("non_autoregressive_bit_sequence: incomplete sequences (an unfilled position) are not "
        "terminating states");
  }
  return hamming_to_modes(words_to_bits(states, k_), modes_);
}

at::Tensor NonAutoregressiveBitSequence::log_reward(const at::Tensor& states) const {
  const at::Tensor d = std::get<0>(mode_distances(states).min(1));
  // torchgfn: -reward_exponent * d.float() / seq_size, in float32.
  return d.to(at::kFloat).mul(-reward_exponent_).div(n_);
}

std::unique_ptr<Preprocessor> NonAutoregressiveBitSequence::make_preprocessor(
    PreprocessorKind kind) const {
  switch (kind) {
    case PreprocessorKind::kIdentity:
      return std::make_unique<IdentityPreprocessor>(l_);
    case PreprocessorKind::kKHot:
      return std::make_unique<KHotPreprocessor>(l_, v_ + 1, /*min_value=*/-1);
    case PreprocessorKind::kOneHot:
      if (!enumerable()) {
        bad("env.preprocessor: \"onehot\" needs an enumerable (small) "
            "non_autoregressive_bit_sequence");
      }
      return std::make_unique<OneHotPreprocessor>(*this);
  }
  bad("env.preprocessor: non_autoregressive_bit_sequence has no preprocessor " +
      std::to_string(static_cast<int>(kind)));
}

std::int64_t NonAutoregressiveBitSequence::n_states() const { return all_states().size(0); }

const at::Tensor& NonAutoregressiveBitSequence::all_states() const {
  if (!all_states_.defined()) not_enumerable("all_states");
  return all_states_;
}

at::Tensor NonAutoregressiveBitSequence::state_indices(const at::Tensor& states) const {
  if (!all_states_.defined()) not_enumerable("state_indices");
  return ((states + 1) * state_pow_).sum(1);
}

std::int64_t NonAutoregressiveBitSequence::n_terminating_states() const {
  return terminating_states().size(0);
}

const at::Tensor& NonAutoregressiveBitSequence::terminating_states() const {
  if (!terminating_states_.defined()) not_enumerable("terminating_states");
  return terminating_states_;
}

at::Tensor NonAutoregressiveBitSequence::terminating_state_indices(const at::Tensor& states) const {
  if (!term_pow_.defined()) not_enumerable("terminating_state_indices");
  return (states * term_pow_).sum(1);
}

const at::Tensor& NonAutoregressiveBitSequence::true_distribution() const {
  if (!true_dist_.defined()) not_enumerable("true_distribution");
  return true_dist_;
}

double NonAutoregressiveBitSequence::log_partition() const {
  if (!true_dist_.defined()) not_enumerable("log_partition");
  return log_partition_;
}

at::Tensor NonAutoregressiveBitSequence::is_mode(const at::Tensor& states) const {
  return mode_distances(states).le(threshold_).any(1);
}

std::optional<double> NonAutoregressiveBitSequence::mode_probability() const {
  if (threshold_ != 0 || !true_dist_.defined()) return std::nullopt;
  return std::exp(-log_partition_);
}

at::Tensor NonAutoregressiveBitSequence::mode_hits(const at::Tensor& states) const {
  return at::nonzero(mode_distances(states).le(threshold_)).select(1, 1).contiguous();
}

std::optional<at::Tensor> NonAutoregressiveBitSequence::test_set(std::int64_t per_mode,
                                                                 std::uint64_t seed) const {
  if (per_mode < 1) {
    bad("non_autoregressive_bit_sequence::test_set: per_mode must be >= 1, got " +
        std::to_string(per_mode));
  }
  return bits_to_words(flipped_modes(modes_, per_mode, seed), k_);
}

}  // namespace gfn::core

GFN_DEFINE_ENVIRONMENT(non_autoregressive_bit_sequence) {
  return std::make_unique<gfn::core::NonAutoregressiveBitSequence>(
      options.get<gfn::core::NonAutoregressiveBitSequenceOptions>());
}
