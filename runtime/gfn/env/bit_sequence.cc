#include "runtime/gfn/env/bit_sequence.h"

#include <ATen/ATen.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "runtime/gfn/env/bit_sequence_modes.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {
namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

}  // namespace

BitSequence::BitSequence(const BitSequenceOptions& options)
    : k_(options.word_size), n_(options.seq_size), l_(0), beta_(options.beta) {
  if (k_ < 1 || k_ > 16) bad("env.word_size must be in [1, 16], got " + std::to_string(k_));
  if (n_ < 1 || n_ % k_ != 0) {
    bad("env.seq_size must be a positive multiple of env.word_size (" + std::to_string(k_) +
        "), got " + std::to_string(n_));
  }
  if (n_ % 8 != 0) {
    bad("env.seq_size must be a multiple of 8 (modes are made of 8-bit blocks), got " +
        std::to_string(n_));
  }
  if (options.n_modes < 1) bad("env.n_modes must be >= 1, got " + std::to_string(options.n_modes));
  if (!std::isfinite(beta_)) bad("env.beta must be finite");
  l_ = n_ / k_;
  threshold_ = options.mode_threshold < 0 ? n_ / 4 : options.mode_threshold;
  modes_ = block_modes(n_, options.n_modes, options.modes_seed);

  // Enumeration of small instances: sum_{l=0}^{L} base^l states.
  const std::int64_t base = std::int64_t{1} << k_;
  std::int64_t total = 0, layer = 1;
  std::vector<std::int64_t> offsets;
  for (std::int64_t l = 0; l <= l_; ++l) {
    offsets.push_back(total);
    total += layer;
    if (total > kMaxEnumerableStates) return;
    if (l < l_) layer *= base;
  }
  offsets.push_back(total);
  length_offset_ = at::tensor(offsets, at::kLong);
  std::vector<std::int64_t> pow(l_, 1);
  for (std::int64_t i = l_ - 2; i >= 0; --i) pow[i] = pow[i + 1] * base;
  word_pow_ = at::tensor(pow, at::kLong);
  std::vector<at::Tensor> layers;
  for (std::int64_t l = 0; l <= l_; ++l) {
    at::Tensor rows = at::full({offsets[l + 1] - offsets[l], l_}, -1, at::kLong);
    if (l > 0) {
      const at::Tensor v = at::arange(offsets[l + 1] - offsets[l], at::kLong).view({-1, 1});
      rows.narrow(1, 0, l).copy_(v.div(word_pow_.narrow(0, l_ - l, l), "floor").remainder(base));
    }
    layers.push_back(rows);
  }
  all_states_ = at::cat(layers);
  terminating_states_ = all_states_.narrow(0, offsets[l_], offsets[l_ + 1] - offsets[l_]);
  const at::Tensor lr = log_reward(terminating_states()).to(at::kDouble);
  log_partition_ = lr.logsumexp(0).item<double>();
  true_dist_ = (lr - log_partition_).exp();
}

at::Tensor BitSequence::lengths(const at::Tensor& states) const { return states.ge(0).sum(1); }

at::Tensor BitSequence::initial_states(std::int64_t n) const {
  return at::full({n, l_}, -1, at::kLong);
}

at::Tensor BitSequence::forward_masks(const at::Tensor& states) const {
  const at::Tensor done = states.select(1, l_ - 1).ge(0).view({-1, 1});  // last word set
  return at::cat({done.logical_not().expand({states.size(0), n_actions() - 1}), done}, 1);
}

at::Tensor BitSequence::backward_masks(const at::Tensor& states) const {
  const std::int64_t b = states.size(0);
  const at::Tensor len = lengths(states);
  const at::Tensor last = states.gather(1, (len - 1).clamp_min(0).view({-1, 1}));  // [B, 1]
  at::Tensor masks = at::zeros({b, n_actions() - 1}, at::kBool);
  return masks.scatter_(1, last.clamp_min(0), true).logical_and_(len.gt(0).view({-1, 1}));
}

at::Tensor BitSequence::step_unchecked(const at::Tensor& states, const at::Tensor& actions) const {
  return states.scatter(1, lengths(states).view({-1, 1}), actions.view({-1, 1}));
}

at::Tensor BitSequence::backward_step_unchecked(const at::Tensor& states, const at::Tensor&) const {
  return states.scatter(1, (lengths(states) - 1).clamp_min(0).view({-1, 1}), -1);
}

void BitSequence::check_states(const at::Tensor& states, const char* who) const {
  Environment::check_states(states, who);
  if (states.numel() == 0) return;
  const std::string where = std::string("bit_sequence::") + who;
  if (states.min().item<std::int64_t>() < -1 ||
      states.max().item<std::int64_t>() >= n_actions() - 1) {
    bad(where + ": words must be in [-1, " + std::to_string(n_actions() - 2) + "]");
  }
  // Filled words form a prefix: no set word after an empty one.
  if (l_ > 1 &&
      (states.narrow(1, 0, l_ - 1).lt(0) & states.narrow(1, 1, l_ - 1).ge(0)).any().item<bool>()) {
    bad(where + ": the filled words must form a prefix (append-only sequences)");
  }
}

at::Tensor BitSequence::to_bits(const at::Tensor& states) const {
  return words_to_bits(states, k_);
}

at::Tensor BitSequence::mode_distances(const at::Tensor& states) const {
  check_states(states, "mode_distances");
  if (states.numel() > 0 && states.lt(0).any().item<bool>()) {
    bad("bit_sequence: incomplete sequences (a -1 word) are not terminating states");
  }
  return hamming_to_modes(to_bits(states), modes_);
}

at::Tensor BitSequence::from_bits(const at::Tensor& bits) const {
  if (bits.dim() != 2 || bits.size(1) != n_ || bits.scalar_type() != at::kLong) {
    bad("bit_sequence::from_bits: bits must be int64 [B, " + std::to_string(n_) + "], got " +
        shape_string(bits));
  }
  if (bits.numel() > 0 && (bits.lt(0) | bits.gt(1)).any().item<bool>()) {
    bad("bit_sequence::from_bits: bits must be 0 or 1");
  }
  return bits_to_words(bits, k_);
}

at::Tensor BitSequence::make_test_set(std::int64_t per_mode, std::uint64_t seed) const {
  if (per_mode < 1) {
    bad("bit_sequence::make_test_set: per_mode must be >= 1, got " + std::to_string(per_mode));
  }
  return from_bits(flipped_modes(modes_, per_mode, seed));
}

at::Tensor BitSequence::log_reward(const at::Tensor& states) const {
  const at::Tensor d = std::get<0>(mode_distances(states).min(1));
  return d.to(at::kFloat) * static_cast<float>(-beta_);
}

std::unique_ptr<Preprocessor> BitSequence::make_preprocessor(PreprocessorKind kind) const {
  switch (kind) {
    case PreprocessorKind::kKHot:
      return std::make_unique<KHotPreprocessor>(l_, n_actions(), /*min_value=*/-1);
    case PreprocessorKind::kIdentity:
      return std::make_unique<IdentityPreprocessor>(l_);
    case PreprocessorKind::kOneHot:
      if (!enumerable()) {
        bad("env.preprocessor: \"onehot\" needs an enumerable (small) bit_sequence");
      }
      return std::make_unique<OneHotPreprocessor>(*this);
  }
  bad("env.preprocessor: bit_sequence has no preprocessor " +
      std::to_string(static_cast<int>(kind)));
}

std::int64_t BitSequence::n_states() const { return all_states().size(0); }

const at::Tensor& BitSequence::all_states() const {
  if (!all_states_.defined()) not_enumerable("all_states");
  return all_states_;
}

at::Tensor BitSequence::state_indices(const at::Tensor& states) const {
  if (!all_states_.defined()) not_enumerable("state_indices");
  const at::Tensor len = lengths(states);
  // Value of the filled prefix: sum_i w_i base^(L-1-i), then divided by base^(L-len).
  const at::Tensor full = (states.clamp_min(0) * word_pow_).sum(1);
  const at::Tensor scale =
      at::cat({word_pow_, at::ones({1}, at::kLong)}).index_select(0, len) * (std::int64_t{1} << k_);
  // base^(L-len) = word_pow_[len] * base for len < L (word_pow_[L-1] = 1), 1 for len = L.
  const at::Tensor div = at::where(len.lt(l_), scale, at::ones_like(len));
  return length_offset_.index_select(0, len) + full.div(div, "floor");
}

std::int64_t BitSequence::n_terminating_states() const { return terminating_states().size(0); }

const at::Tensor& BitSequence::terminating_states() const {
  if (!all_states_.defined()) not_enumerable("terminating_states");
  return terminating_states_;
}

at::Tensor BitSequence::terminating_state_indices(const at::Tensor& states) const {
  if (!all_states_.defined()) not_enumerable("terminating_state_indices");
  return (states * word_pow_).sum(1);
}

const at::Tensor& BitSequence::true_distribution() const {
  if (!true_dist_.defined()) not_enumerable("true_distribution");
  return true_dist_;
}

double BitSequence::log_partition() const {
  if (!true_dist_.defined()) not_enumerable("log_partition");
  return log_partition_;
}

at::Tensor BitSequence::is_mode(const at::Tensor& states) const {
  return mode_distances(states).le(threshold_).any(1);
}

at::Tensor BitSequence::mode_hits(const at::Tensor& states) const {
  return at::nonzero(mode_distances(states).le(threshold_)).select(1, 1).contiguous();
}

}  // namespace gfn::core

GFN_DEFINE_ENVIRONMENT(bit_sequence) {
  return std::make_unique<gfn::core::BitSequence>(options.get<gfn::core::BitSequenceOptions>());
}
