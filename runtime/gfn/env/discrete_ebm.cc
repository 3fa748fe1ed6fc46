#include "runtime/gfn/env/discrete_ebm.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

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

// The ising_lattice side L with L * L == ndim; throws naming env.ndim otherwise.
std::int64_t square_side(std::int64_t ndim) {
  auto side = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(ndim))));
  while (side * side > ndim) --side;
  while ((side + 1) * (side + 1) <= ndim) ++side;
  if (side * side != ndim) {
    throw std::invalid_argument(
        "env.ndim must be a perfect square L * L (the sites of an L x L "
        "lattice) with env.energy = ising_lattice, got " +
        std::to_string(ndim));
  }
  return side;
}

// The pairs (k, m) with A_km = 1 of the L x L periodic lattice (discrete_ebm.h), k
// ascending and, for each k, its distinct neighbours ascending: int64 [P] twice.
std::pair<at::Tensor, at::Tensor> lattice_bonds(std::int64_t side) {
  std::vector<std::int64_t> from, to;
  for (std::int64_t k = 0; k < side * side; ++k) {
    const std::int64_t row = k / side, col = k % side;
    std::vector<std::int64_t> near = {
        row * side + (col + 1) % side, row * side + (col + side - 1) % side,
        ((row + 1) % side) * side + col, ((row + side - 1) % side) * side + col};
    std::sort(near.begin(), near.end());
    near.erase(std::unique(near.begin(), near.end()), near.end());
    for (const std::int64_t m : near) {
      from.push_back(k);
      to.push_back(m);
    }
  }
  return {at::tensor(from, at::kLong), at::tensor(to, at::kLong)};
}

}  // namespace

DiscreteEBM::DiscreteEBM(const DiscreteEbmOptions& options)
    : ndim_(options.ndim),
      alpha_(options.alpha),
      energy_(options.energy),
      coupling_(options.coupling) {
  if (ndim_ < 1) throw std::invalid_argument("env.ndim must be >= 1, got " + std::to_string(ndim_));
  if (!std::isfinite(alpha_)) throw std::invalid_argument("env.alpha must be finite");
  if (!std::isfinite(coupling_)) throw std::invalid_argument("env.coupling must be finite");
  if (energy_ == EbmEnergy::kIsingLattice) {
    side_ = square_side(ndim_);
    std::tie(bond_from_, bond_to_) = lattice_bonds(side_);
  } else if (energy_ != EbmEnergy::kOnes) {
    throw std::invalid_argument("env.energy: unknown energy " +
                                std::to_string(static_cast<int>(energy_)));
  }
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
    n_modes_ = (lr >= max_log_reward_).sum().item<std::int64_t>();
  } else if (const auto scale = static_cast<float>(alpha_ * coupling_);
             scale > 0 && std::isnormal(scale)) {
    // all-0 and all-1 (discrete_ebm.h), the same float computation as every log_reward (a
    // normal positive scale keeps distinct x^T A x apart).
    max_log_reward_ = log_reward(at::zeros({1, ndim_}, at::kLong)).item<float>();
    n_modes_ = 2;
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

at::Tensor DiscreteEBM::quadratic_form(const at::Tensor& states) const {
  const at::Tensor x = states * 2 - 1;
  if (energy_ == EbmEnergy::kOnes) {
    const at::Tensor sum = x.sum(1);  // x^T ones x = (sum x)^2
    return sum * sum;
  }
  return (x.index_select(1, bond_from_) * x.index_select(1, bond_to_)).sum(1);
}

at::Tensor DiscreteEBM::log_reward(const at::Tensor& states) const {
  check_states(states, "log_reward");
  if (states.numel() > 0 && states.eq(-1).any().item<bool>()) {
    throw std::invalid_argument(
        "discrete_ebm::log_reward: incomplete states (an entry is -1) are not terminating");
  }
  // -alpha E(x) = alpha x^T J x, J = coupling A; x^T A x is exact in int64 and in float32
  // (|x^T A x| <= 4 ndim for the lattice, ndim^2 < 2^24 for ones up to ndim 4096).
  return quadratic_form(states).to(at::kFloat) * static_cast<float>(alpha_ * coupling_);
}

at::Tensor DiscreteEBM::interaction_matrix() const {
  if (energy_ == EbmEnergy::kOnes) return at::full({ndim_, ndim_}, coupling_, at::kDouble);
  at::Tensor j = at::zeros({ndim_, ndim_}, at::kDouble);
  j.index_put_({bond_from_, bond_to_}, coupling_);
  return j;
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
  if (n_modes_ == 0) return Environment::is_mode(states);
  return log_reward(states) >= max_log_reward_;
}

at::Tensor DiscreteEBM::mode_hits(const at::Tensor& states) const {
  if (n_modes_ == 0) return Environment::mode_hits(states);
  const at::Tensor ids =
      pow2_.defined() ? terminating_state_indices(states) : states.select(1, 0).contiguous();
  return ids.masked_select(is_mode(states));
}

}  // namespace gfn::core

GFN_DEFINE_ENVIRONMENT(discrete_ebm) {
  return std::make_unique<gfn::core::DiscreteEBM>(options.get<gfn::core::DiscreteEbmOptions>());
}
