#include "runtime/gfn/env/hypergrid.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {
namespace {

// torchgfn compares with `0.25 + EPS` etc. (EPS = 1e-12) against float32 tensors;
// the scalar is rounded to float32 there, and the same happens here.
constexpr double kRewardEps = 1e-12;

// ax = |s / (H - 1) - 0.5| per coordinate, float32 [B, ndim].
at::Tensor centred_abs(const at::Tensor& states, std::int64_t height) {
  return (states.to(at::kFloat) / static_cast<double>(height - 1) - 0.5).abs();
}

// torchgfn's default tiers of the compositional rewards (tier_weights [1, 10, 100]).
constexpr double kTierWeights[] = {1.0, 10.0, 100.0};

}  // namespace

at::Tensor original_reward(const at::Tensor& states, std::int64_t height,
                           const HyperGridOptions& options) {
  const at::Tensor ax = centred_abs(states, height);
  const at::Tensor outer = (ax > 0.25 + kRewardEps).all(-1).to(at::kFloat);
  const at::Tensor band =
      ((ax > 0.3 + kRewardEps) & (ax < 0.4 - kRewardEps)).all(-1).to(at::kFloat);
  return options.R0 + outer * options.R1 + band * options.R2;
}

at::Tensor cosine_reward(const at::Tensor& states, std::int64_t height,
                         const HyperGridOptions& options) {
  const at::Tensor ax = centred_abs(states, height);
  const at::Tensor pdf = (ax * 5.0).pow(2).mul(-0.5).exp() * (1.0 / std::sqrt(2.0 * M_PI));
  return options.R0 + ((ax * 50.0).cos() + 1.0).mul(pdf).prod(-1) * options.R1;
}

at::Tensor deceptive_reward(const at::Tensor& states, std::int64_t height,
                            const HyperGridOptions& options) {
  const at::Tensor ax = centred_abs(states, height);
  const at::Tensor cancel_outer = (ax > 0.1 + kRewardEps).all(-1).to(at::kFloat) * options.R1;
  const at::Tensor band =
      ((ax > 0.3 + kRewardEps) & (ax < 0.4 - kRewardEps)).all(-1).to(at::kFloat) * options.R2;
  return (options.R0 + options.R1) - cancel_outer + band;
}

at::Tensor sparse_reward(const at::Tensor& states, std::int64_t height, const HyperGridOptions&) {
  // Targets: coordinates in {1, H-2} with at least one H-2 (torchgfn enumerates the
  // permutations of [1]*k + [H-2]*(ndim-k) for k < ndim; for H = 3 both values are 1).
  const at::Tensor in_set = (states.eq(1) | states.eq(height - 2)).all(-1);
  const at::Tensor has_high = states.eq(height - 2).any(-1);
  return (in_set & has_high).to(at::kFloat) + static_cast<float>(kRewardEps);
}

at::Tensor bitwise_xor_reward(const at::Tensor& states, std::int64_t,
                              const HyperGridOptions& options) {
  // torchgfn defaults: all dimensions constrained, tier t checks the bit-planes
  // 0..{5, 7, 9}[t]; a plane passes when its bits have even parity across dimensions.
  constexpr int kHighBit[] = {5, 7, 9};
  at::Tensor valid = at::ones({states.size(0)}, at::kBool);
  at::Tensor reward = at::full({states.size(0)}, options.R0, at::kFloat);
  for (int t = 0; t < 3; ++t) {
    for (int bit = 0; bit <= kHighBit[t]; ++bit) {
      valid = valid & states.bitwise_right_shift(bit).bitwise_and(1).sum(-1).remainder(2).eq(0);
    }
    reward = reward + valid.to(at::kFloat) * kTierWeights[t];
  }
  return reward;
}

at::Tensor multiplicative_coprime_reward(const at::Tensor& states, std::int64_t,
                                         const HyperGridOptions& options) {
  // torchgfn defaults: primes {2, 3, 5}, exponent cap 2 at every tier, all dimensions
  // active, no coprime pairs or lcm targets: a state passes when no coordinate is 0 and
  // every coordinate is 2^a 3^b 5^c with a, b, c <= 2.
  constexpr int kPrimes[] = {2, 3, 5};
  constexpr int kCap = 2;
  at::Tensor valid = states.ne(0).all(-1);
  at::Tensor reward = at::full({states.size(0)}, options.R0, at::kFloat);
  for (int t = 0; t < 3; ++t) {
    at::Tensor residue = states.clone();
    for (int p : kPrimes) {
      for (int c = 0; c < kCap; ++c) {
        residue = at::where(residue.remainder(p).eq(0), residue.div(p, "floor"), residue);
      }
    }
    valid = valid & (residue.eq(1) | states.eq(1)).all(-1);
    reward = reward + valid.to(at::kFloat) * kTierWeights[t];
  }
  return reward;
}

RewardFunction reward_function(HyperGridReward reward) {
  switch (reward) {
    case HyperGridReward::kOriginal:
      return &original_reward;
    case HyperGridReward::kCosine:
      return &cosine_reward;
    case HyperGridReward::kDeceptive:
      return &deceptive_reward;
    case HyperGridReward::kSparse:
      return &sparse_reward;
    case HyperGridReward::kBitwiseXor:
      return &bitwise_xor_reward;
    case HyperGridReward::kMultiplicativeCoprime:
      return &multiplicative_coprime_reward;
  }
  throw std::invalid_argument("env.reward: HyperGrid reward " +
                              std::to_string(static_cast<int>(reward)) +
                              " is outside runtime/gfn/env/hypergrid_reward.h's table");
}

void HyperGrid::Rows::forward_mask(const std::int64_t* state, bool* mask) const {
  const auto ndim = static_cast<std::int64_t>(strides_.size());
  for (std::int64_t j = 0; j < ndim; ++j) mask[j] = state[j] < height_ - 1;
  mask[ndim] = true;
}

std::int64_t HyperGrid::Rows::key(const std::int64_t* state) const {
  std::int64_t index = 0;
  for (std::size_t j = 0; j < strides_.size(); ++j) index += state[j] * strides_[j];
  return index;
}

HyperGrid::HyperGrid(const HyperGridOptions& options)
    : options_(options), ndim_(options.ndim), height_(options.height), rows_(height_, {}) {
  if (ndim_ < 1) throw std::invalid_argument("env.ndim must be >= 1, got " + std::to_string(ndim_));
  if (height_ < 2) {
    throw std::invalid_argument("env.height must be >= 2, got " + std::to_string(height_));
  }
  reward_function(options.reward);  // validates the value
  n_states_ = 1;
  std::vector<int64_t> strides(ndim_);
  for (int64_t j = ndim_ - 1; j >= 0; --j) {
    strides[j] = n_states_;
    if (n_states_ > std::numeric_limits<int64_t>::max() / height_) {
      throw std::invalid_argument("env: height^ndim = " + std::to_string(height_) + "^" +
                                  std::to_string(ndim_) + " overflows int64");
    }
    n_states_ *= height_;
  }
  strides_ = at::tensor(strides, at::kLong);
  rows_ = Rows(height_, strides);

  if (!enumerable()) {
    if (const auto modes = diagonal_modes(ndim_, height_, options_)) {
      max_reward_ = modes->max_reward;
      n_modes_ = 1;
      for (std::int64_t d = 0; d < ndim_; ++d) n_modes_ *= modes->per_coordinate;
    }
    return;
  }
  all_states_ = states_from_indices(at::arange(n_states_, at::kLong));
  const at::Tensor rewards = reward(all_states_);
  const at::Tensor rewards64 = rewards.to(at::kDouble);
  const double z = rewards64.sum().item<double>();
  log_partition_ = std::log(z);
  true_dist_ = rewards64 / z;
  max_reward_ = rewards.max().item<float>();
  const at::Tensor modes = at::nonzero(rewards >= max_reward_).flatten().contiguous();
  mode_indices_.assign(modes.data_ptr<int64_t>(), modes.data_ptr<int64_t>() + modes.numel());
  n_modes_ = static_cast<std::int64_t>(mode_indices_.size());
}

std::optional<double> original_log_partition(std::int64_t ndim, std::int64_t height,
                                             const HyperGridOptions& options) {
  if (options.reward != HyperGridReward::kOriginal) return std::nullopt;
  // One axis: the indicator of each term is its reward with that term's weight 1, others 0.
  const at::Tensor axis = at::arange(height, at::kLong).unsqueeze(1);
  HyperGridOptions outer = options, band = options;
  outer.R0 = band.R0 = 0.0;
  outer.R1 = 1.0;
  outer.R2 = 0.0;
  band.R1 = 0.0;
  band.R2 = 1.0;
  const double a = original_reward(axis, height, outer).sum().item<double>();
  const double b = original_reward(axis, height, band).sum().item<double>();
  const auto d = static_cast<double>(ndim);
  const double z = options.R0 * std::pow(static_cast<double>(height), d) +
                   options.R1 * std::pow(a, d) + options.R2 * std::pow(b, d);
  if (!(z > 0.0)) return std::nullopt;
  return std::log(z);
}

std::optional<double> HyperGrid::mode_probability() const {
  if (n_modes_ == 0) return std::nullopt;
  if (enumerable()) return std::exp(std::log(static_cast<double>(max_reward_)) - log_partition_);
  const auto log_z = original_log_partition(ndim_, height_, options_);
  if (!log_z) return std::nullopt;
  return std::exp(std::log(static_cast<double>(max_reward_)) - *log_z);
}

std::optional<DiagonalModes> diagonal_modes(std::int64_t ndim, std::int64_t height,
                                            const HyperGridOptions& options) {
  if (options.reward != HyperGridReward::kOriginal || options.R1 < 0 || options.R2 < 0)
    return std::nullopt;
  const at::Tensor diagonal =
      at::arange(height, at::kLong).unsqueeze(1).expand({height, ndim}).contiguous();
  const at::Tensor rewards = reward_function(options.reward)(diagonal, height, options);
  DiagonalModes modes;
  modes.max_reward = rewards.max().item<float>();
  modes.per_coordinate = (rewards >= modes.max_reward).sum().item<std::int64_t>();
  return modes;
}

void HyperGrid::check_states(const at::Tensor& states, const char* what) const {
  if (!states.defined() || states.dim() != 2 || states.size(1) != ndim_ ||
      states.scalar_type() != at::kLong) {
    throw std::invalid_argument(std::string("HyperGrid::") + what + ": states must be int64 [B, " +
                                std::to_string(ndim_) + "], got " +
                                (states.defined() ? shape_string(states) : "undefined"));
  }
  if (states.numel() > 0 &&
      (states.min().item<int64_t>() < 0 || states.max().item<int64_t>() >= height_)) {
    throw std::invalid_argument(std::string("HyperGrid::") + what +
                                ": state coordinates must be in [0, " +
                                std::to_string(height_ - 1) + "]");
  }
}

void HyperGrid::require_enumerable(const char* what) const {
  if (!enumerable()) {
    throw std::domain_error(std::string("HyperGrid::") + what + ": " + std::to_string(n_states_) +
                            " states exceed the enumeration limit " +
                            std::to_string(kMaxEnumerableStates));
  }
}

at::Tensor HyperGrid::initial_states(std::int64_t n) const {
  return at::zeros({n, ndim_}, at::kLong);
}

at::Tensor HyperGrid::forward_masks(const at::Tensor& states) const {
  at::Tensor masks = at::ones({states.size(0), ndim_ + 1}, at::kBool);
  masks.narrow(1, 0, ndim_).copy_(states < height_ - 1);
  return masks;
}

at::Tensor HyperGrid::backward_masks(const at::Tensor& states) const { return states > 0; }

at::Tensor HyperGrid::step_unchecked(const at::Tensor& states, const at::Tensor& actions) const {
  return states.scatter_add(1, actions.view({-1, 1}), at::ones({states.size(0), 1}, at::kLong));
}

at::Tensor HyperGrid::backward_step_unchecked(const at::Tensor& states,
                                              const at::Tensor& actions) const {
  return states.scatter_add(1, actions.view({-1, 1}), at::full({states.size(0), 1}, -1, at::kLong));
}

std::unique_ptr<Preprocessor> HyperGrid::make_preprocessor(PreprocessorKind kind) const {
  switch (kind) {
    case PreprocessorKind::kKHot:
      return std::make_unique<KHotPreprocessor>(ndim_, height_);
    case PreprocessorKind::kIdentity:
      return std::make_unique<IdentityPreprocessor>(ndim_);
    case PreprocessorKind::kOneHot:
      if (!enumerable()) {
        throw std::invalid_argument("env.preprocessor: \"onehot\" needs an enumerable grid, got " +
                                    std::to_string(n_states_) + " states");
      }
      return std::make_unique<OneHotPreprocessor>(*this);
  }
  throw std::invalid_argument("env.preprocessor: HyperGrid has no preprocessor " +
                              std::to_string(static_cast<int>(kind)));
}

at::Tensor HyperGrid::reward(const at::Tensor& states) const {
  check_states(states, "reward");
  return reward_function(options_.reward)(states, height_, options_);
}

at::Tensor HyperGrid::log_reward(const at::Tensor& states) const { return reward(states).log(); }

at::Tensor HyperGrid::state_indices(const at::Tensor& states) const {
  return (states * strides_).sum(1);
}

at::Tensor HyperGrid::states_from_indices(const at::Tensor& indices) const {
  return indices.view({-1, 1}).div(strides_, "floor").remainder(height_);
}

const at::Tensor& HyperGrid::all_states() const {
  require_enumerable("all_states");
  return all_states_;
}

const at::Tensor& HyperGrid::true_distribution() const {
  require_enumerable("true_distribution");
  return true_dist_;
}

double HyperGrid::log_partition() const {
  require_enumerable("log_partition");
  return log_partition_;
}

at::Tensor HyperGrid::is_mode(const at::Tensor& states) const {
  if (n_modes_ == 0) require_enumerable("is_mode");
  return reward(states) >= max_reward_;
}

std::int64_t HyperGrid::n_modes() const { return n_modes_; }

at::Tensor HyperGrid::mode_hits(const at::Tensor& states) const {
  return state_indices(states).masked_select(is_mode(states));
}

const std::vector<std::int64_t>& HyperGrid::mode_indices() const {
  require_enumerable("mode_indices");
  return mode_indices_;
}

}  // namespace gfn::core

GFN_DEFINE_ENVIRONMENT(hypergrid) {
  return std::make_unique<gfn::core::HyperGrid>(options.get<gfn::core::HyperGridOptions>());
}
