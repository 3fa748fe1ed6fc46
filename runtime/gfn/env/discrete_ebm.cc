#include "runtime/gfn/env/discrete_ebm.h"

#include <ATen/ATen.h>

#include <cmath>
#include <stdexcept>

#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {
namespace {

// Powers base^(ndim-1-j), j = 0..ndim-1, as int64 [ndim].
at::Tensor powers(std::int64_t base, std::int64_t ndim) {
  std::vector<std::int64_t> p(ndim, 1);
  for (std::int64_t j = ndim - 2; j >= 0; --j) p[j] = p[j + 1] * base;
  return at::tensor(p, at::kLong);
}

// Rows of digits of `indices` int64 [N] in `base`, most significant first, minus `shift`.
at::Tensor digits(const at::Tensor& indices, const at::Tensor& pow, std::int64_t base,
                  std::int64_t shift) {
  return indices.view({-1, 1}).div(pow, "floor").remainder(base) - shift;
}

}  // namespace

DiscreteEBM::DiscreteEBM(const DiscreteEbmOptions& options)
    : ndim_(options.ndim), alpha_(options.alpha) {
  if (ndim_ < 1) throw std::invalid_argument("env.ndim must be >= 1, got " + std::to_string(ndim_));
  if (!std::isfinite(alpha_)) throw std::invalid_argument("env.alpha must be finite");
  if (ndim_ <= 39) {
    pow3_ = powers(3, ndim_);
    const at::Tensor p = pow3_.contiguous();
    rows_ = Rows({p.data_ptr<std::int64_t>(), p.data_ptr<std::int64_t>() + ndim_});
  }
  if (ndim_ <= 62) pow2_ = powers(2, ndim_);
  if (ndim_ <= kMaxTerminatingDim) {
    const std::int64_t t = std::int64_t{1} << ndim_;
    terminating_states_ = digits(at::arange(t, at::kLong), pow2_, 2, 0);
    const at::Tensor lr = log_reward(terminating_states_);
    const at::Tensor lr64 = lr.to(at::kDouble);
    log_partition_ = lr64.logsumexp(0).item<double>();
    true_dist_ = (lr64 - log_partition_).exp();
    max_log_reward_ = lr.max().item<float>();
    const at::Tensor modes = at::nonzero(lr >= max_log_reward_).flatten().contiguous();
    mode_indices_.assign(modes.data_ptr<std::int64_t>(),
                         modes.data_ptr<std::int64_t>() + modes.numel());
  }
  std::int64_t s = 1;
  for (std::int64_t j = 0; j < ndim_ && s <= kMaxEnumerableStates; ++j) s *= 3;
  if (s <= kMaxEnumerableStates) all_states_ = digits(at::arange(s, at::kLong), pow3_, 3, 1);
}

void DiscreteEBM::Rows::forward_mask(const std::int64_t* state, bool* mask) const {
  const auto ndim = static_cast<std::int64_t>(pow3_.size());
  bool complete = true;
  for (std::int64_t j = 0; j < ndim; ++j) {
    const bool empty = state[j] == -1;
    mask[j] = mask[ndim + j] = empty;
    complete = complete && !empty;
  }
  mask[2 * ndim] = complete;
}

void DiscreteEBM::Rows::step(std::int64_t* state, std::int64_t action) const {
  const auto ndim = static_cast<std::int64_t>(pow3_.size());
  state[action % ndim] = action >= ndim ? 1 : 0;
}

std::int64_t DiscreteEBM::Rows::key(const std::int64_t* state) const {
  std::int64_t index = 0;
  for (std::size_t j = 0; j < pow3_.size(); ++j) index += (state[j] + 1) * pow3_[j];
  return index;
}

at::Tensor DiscreteEBM::initial_states(std::int64_t n) const {
  return at::full({n, ndim_}, -1, at::kLong);
}

at::Tensor DiscreteEBM::forward_masks(const at::Tensor& states) const {
  const at::Tensor empty = states.eq(-1);
  return at::cat({empty, empty, empty.any(1, /*keepdim=*/true).logical_not()}, 1);
}

at::Tensor DiscreteEBM::backward_masks(const at::Tensor& states) const {
  return at::cat({states.eq(0), states.eq(1)}, 1);
}

at::Tensor DiscreteEBM::step_unchecked(const at::Tensor& states, const at::Tensor& actions) const {
  const at::Tensor a = actions.view({-1, 1});
  return states.scatter(1, a.remainder(ndim_), a.ge(ndim_).to(at::kLong));
}

at::Tensor DiscreteEBM::backward_step_unchecked(const at::Tensor& states,
                                                const at::Tensor& actions) const {
  return states.scatter(1, actions.view({-1, 1}).remainder(ndim_), -1);
}

void DiscreteEBM::check_states(const at::Tensor& states, const char* who) const {
  Environment::check_states(states, who);
  if (states.numel() > 0 &&
      (states.min().item<std::int64_t>() < -1 || states.max().item<std::int64_t>() > 1)) {
    throw std::invalid_argument(std::string("discrete_ebm::") + who +
                                ": state entries must be in {-1, 0, 1}");
  }
}

at::Tensor DiscreteEBM::log_reward(const at::Tensor& states) const {
  check_states(states, "log_reward");
  if (states.numel() > 0 && states.eq(-1).any().item<bool>()) {
    throw std::invalid_argument(
        "discrete_ebm::log_reward: incomplete states (an entry is -1) are not terminating");
  }
  // x^T J x with J = ones is (sum x)^2; x = 2 s - 1.
  const at::Tensor sum = (states * 2 - 1).sum(1).to(at::kFloat);
  return sum * sum * static_cast<float>(alpha_);
}

std::unique_ptr<Preprocessor> DiscreteEBM::make_preprocessor(PreprocessorKind kind) const {
  switch (kind) {
    case PreprocessorKind::kIdentity:
      return std::make_unique<IdentityPreprocessor>(ndim_);
    case PreprocessorKind::kKHot:
      return std::make_unique<KHotPreprocessor>(ndim_, 3, /*min_value=*/-1);
    case PreprocessorKind::kOneHot:
      if (!enumerable()) {
        throw std::invalid_argument("env.preprocessor: \"onehot\" needs ndim <= 12, got ndim " +
                                    std::to_string(ndim_));
      }
      return std::make_unique<OneHotPreprocessor>(*this);
  }
  throw std::invalid_argument("env.preprocessor: discrete_ebm has no preprocessor " +
                              std::to_string(static_cast<int>(kind)));
}

std::int64_t DiscreteEBM::n_states() const { return all_states().size(0); }

const at::Tensor& DiscreteEBM::all_states() const {
  if (!all_states_.defined()) not_enumerable("all_states");
  return all_states_;
}

at::Tensor DiscreteEBM::state_indices(const at::Tensor& states) const {
  if (!pow3_.defined()) not_enumerable("state_indices");
  return ((states + 1) * pow3_).sum(1);
}

std::int64_t DiscreteEBM::n_terminating_states() const { return terminating_states().size(0); }

const at::Tensor& DiscreteEBM::terminating_states() const {
  if (!terminating_states_.defined()) not_enumerable("terminating_states");
  return terminating_states_;
}

at::Tensor DiscreteEBM::terminating_state_indices(const at::Tensor& states) const {
  if (!pow2_.defined()) not_enumerable("terminating_state_indices");
  return (states * pow2_).sum(1);
}

const at::Tensor& DiscreteEBM::true_distribution() const {
  if (!true_dist_.defined()) not_enumerable("true_distribution");
  return true_dist_;
}

double DiscreteEBM::log_partition() const {
  if (!true_dist_.defined()) not_enumerable("log_partition");
  return log_partition_;
}

at::Tensor DiscreteEBM::is_mode(const at::Tensor& states) const {
  if (mode_indices_.empty()) return Environment::is_mode(states);
  return log_reward(states) >= max_log_reward_;
}

at::Tensor DiscreteEBM::mode_hits(const at::Tensor& states) const {
  if (mode_indices_.empty()) return Environment::mode_hits(states);
  return terminating_state_indices(states).masked_select(is_mode(states));
}

}  // namespace gfn::core

GFN_DEFINE_ENVIRONMENT(discrete_ebm) {
  return std::make_unique<gfn::core::DiscreteEBM>(options.get<gfn::core::DiscreteEbmOptions>());
}
