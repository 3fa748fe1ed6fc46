// An environment plugin (runtime/gfn/env/plugin.h): torchgfn's SetAddition
// (GFNOrg/torchgfn src/gfn/gym/set_addition.py, class SetAddition), the append-only set MDP of
// Shen et al. 2023, Remark 8. Followed member by member; tests/examples/set_addition/ compares it
// with a transcription of that file.
//
// States: which of the N = n_items items a set holds, int64 [B, N] of 0/1 (torchgfn: float 0/1),
// s0 = the empty set. Forward action i < N adds item i, allowed when the set lacks it and holds
// fewer than M = max_items items; action N exits. Exit is allowed everywhere unless
// fixed_length, and with fixed_length only in sets of M or more items. Backward action i removes
// item i (allowed when the set holds it).
//
// Enumeration, as torchgfn: all_states is the whole cube {0,1}^N (2^N states, including the
// unreachable sets of more than M items, whose only action is exit), ordered by the binary
// number with item 0 as the most significant bit (torch.cartesian_prod's order, and
// get_states_indices); adding an item raises that number, so the order is topological. The
// terminating states are the sets of at most M items (exactly M with fixed_length), in the same
// order; unreachable sets have no terminating index (-1). Enumerated when N <= 16
// (kMaxEnumerableItems, 65,536 states); larger N trains without exact validation.
//
// Reward: torchgfn takes a callable and has no default; the choices are the functions its tests
// use, plus an offset R0: R(x) = R0 + |x| ("size", testing/test_environments.py's s.sum(-1)) or
// R0 + 1 ("ones"). R0 = 0 is torchgfn's function exactly; the default R0 = 1 keeps the empty
// set, which terminates unless fixed_length, at a finite log R. R is float32 like torchgfn's;
// log Z = log sum_x R(x) over the terminating states (summed in float64). No modes: torchgfn
// defines none.
//
// Preprocessors: "identity" (torchgfn's recommendation: the 0/1 vector), "khot" (each item
// one-hot over {0, 1}), "onehot" (of the state index; enumerable N only).
// Thread-safety: immutable after construction (environment.h). Cost: construction O(2^N N)
// when enumerated; every batched member O(B N).
#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "runtime/gfn/env/plugin.h"

namespace {

using gfn::core::Environment;

/// The reward function: R0 plus the number of items, or R0 plus one.
enum class SetReward { kSize, kOnes };
constexpr gfn::config::EnumName<SetReward> kSetRewardNames[] = {{SetReward::kSize, "size"},
                                                                {SetReward::kOnes, "ones"}};
constexpr const auto& enum_names(SetReward) { return kSetRewardNames; }

/// env.options of the plugin, with their defaults (torchgfn's where it has one).
struct SetAdditionOptions {
  int n_items = 5;            ///< N (torchgfn: required; 5 as in its enumeration tests)
  int max_items = 3;          ///< M (torchgfn: required; 3 as in its enumeration tests)
  bool fixed_length = false;  ///< torchgfn's default
  SetReward reward = SetReward::kSize;
  double R0 = 1.0;  ///< added to the reward; 0 = torchgfn's test functions
};

const gfn::config::Fields<SetAdditionOptions>& set_addition_fields() {
  using O = SetAdditionOptions;
  static const auto fields =
      gfn::config::Fields<O>()
          .add("n_items", &O::n_items, "Number of items N; a state is a subset of them.",
               gfn::config::in_range(1, 62))
          .add("max_items", &O::max_items,
               "Largest set M: no item can be added to a set of M items (M <= n_items).",
               gfn::config::at_least(1))
          .add("fixed_length", &O::fixed_length,
               "Exit only from sets of max_items items (torchgfn's fixed_length).")
          .add("reward", &O::reward,
               "R(x) = R0 + |x| (size: the number of items) or R0 + 1 (ones).",
               gfn::config::AsInvalid{})
          .add("R0", &O::R0, "Added to the reward (0: torchgfn's test rewards exactly).",
               gfn::config::non_negative());
  return fields;
}

class SetAddition final : public Environment {
 public:
  /// Largest n_items whose 2^n_items states are enumerated.
  static constexpr int kMaxEnumerableItems = 16;

  explicit SetAddition(const SetAdditionOptions& o)
      : n_(o.n_items), max_(o.max_items), fixed_(o.fixed_length), reward_(o.reward), r0_(o.R0) {
    if (n_ < 1 || n_ > 62) throw std::invalid_argument("env.options.n_items must be in [1, 62]");
    if (max_ < 1 || max_ > n_) {
      throw std::invalid_argument("env.options.max_items must be in [1, n_items = " +
                                  std::to_string(n_) + "], got " + std::to_string(max_));
    }
    if (!(r0_ >= 0.0)) throw std::invalid_argument("env.options.R0 must be >= 0");
    weights_ = at::pow(2, at::arange(n_ - 1, -1, -1, at::kLong));  // item 0: the top bit
    if (enumerable()) enumerate();
  }

  // Description.
  std::string name() const override { return "set_addition"; }
  std::int64_t state_dim() const override { return n_; }
  std::int64_t n_actions() const override { return n_ + 1; }  // add item i, exit
  bool every_state_terminates() const override { return !fixed_; }

  // Dynamics (torchgfn SetAdditionStates._compute_forward_masks / _compute_backward_masks,
  // step, backward_step).
  at::Tensor initial_states(std::int64_t n) const override { return at::zeros({n, n_}, at::kLong); }
  at::Tensor forward_masks(const at::Tensor& s) const override {
    const at::Tensor size = s.sum(1, /*keepdim=*/true);  // [B, 1]
    const at::Tensor add = s.eq(0) & size.lt(max_);
    const at::Tensor exit = fixed_ ? size.ge(max_) : at::ones({s.size(0), 1}, at::kBool);
    return at::cat({add, exit}, 1);
  }
  at::Tensor backward_masks(const at::Tensor& s) const override { return s.ne(0); }
  at::Tensor step_unchecked(const at::Tensor& s, const at::Tensor& a) const override {
    return s.clone().scatter_add_(1, a.view({-1, 1}), at::ones({s.size(0), 1}, at::kLong));
  }
  at::Tensor backward_step_unchecked(const at::Tensor& s, const at::Tensor& a) const override {
    return s.clone().scatter_add_(1, a.view({-1, 1}), at::full({s.size(0), 1}, -1, at::kLong));
  }
  void check_states(const at::Tensor& s, const char* who) const override {
    Environment::check_states(s, who);  // int64 [B, N]
    if (s.numel() > 0 && (s.min().item<std::int64_t>() < 0 || s.max().item<std::int64_t>() > 1)) {
      throw std::invalid_argument(std::string("set_addition::") + who +
                                  ": state entries must be 0 or 1");
    }
  }
  /// R(x) float32 [B] (torchgfn SetAddition.reward with the chosen reward_fn).
  at::Tensor reward(const at::Tensor& s) const override {
    check_states(s, "reward");
    if (reward_ == SetReward::kOnes) return at::full({s.size(0)}, 1.0 + r0_, at::kFloat);
    return s.sum(1).to(at::kFloat) + static_cast<float>(r0_);
  }
  at::Tensor log_reward(const at::Tensor& s) const override { return reward(s).log(); }

  // Network input.
  std::unique_ptr<gfn::core::Preprocessor> make_preprocessor(
      gfn::core::PreprocessorKind kind) const override {
    switch (kind) {
      case gfn::core::PreprocessorKind::kIdentity:
        return std::make_unique<gfn::core::IdentityPreprocessor>(n_);
      case gfn::core::PreprocessorKind::kKHot:
        return std::make_unique<gfn::core::KHotPreprocessor>(n_, 2);
      case gfn::core::PreprocessorKind::kOneHot:
        if (!enumerable()) break;
        return std::make_unique<gfn::core::OneHotPreprocessor>(*this);
    }
    throw std::invalid_argument(
        "env.preprocessor: set_addition supports \"identity\", \"khot\" and, with n_items <= " +
        std::to_string(kMaxEnumerableItems) + ", \"onehot\"");
  }
  /// Distinct rows through a 1-D unique of the state indices.
  gfn::core::UniqueStates unique(const at::Tensor& s) const override {
    const auto [values, inverse, counts] =
        at::_unique2(state_indices(s), /*sorted=*/true, /*return_inverse=*/true);
    return {states_from_indices(values), inverse};
  }

  // Enumeration (torchgfn all_states, get_states_indices, terminating_states,
  // get_terminating_states_indices, n_states, n_terminating_states).
  bool enumerable() const override { return n_ <= kMaxEnumerableItems; }
  std::int64_t n_states() const override { return std::int64_t{1} << n_; }
  const at::Tensor& all_states() const override { return enumerated(all_, "all_states"); }
  /// The binary number of the set, item 0 most significant; defined for every N.
  at::Tensor state_indices(const at::Tensor& s) const override { return (s * weights_).sum(1); }
  std::int64_t n_terminating_states() const override {
    return enumerated(terminating_, "n_terminating_states").size(0);
  }
  const at::Tensor& terminating_states() const override {
    return enumerated(terminating_, "terminating_states");
  }
  at::Tensor terminating_state_indices(const at::Tensor& s) const override {
    return enumerated(position_, "terminating_state_indices").index_select(0, state_indices(s));
  }
  const at::Tensor& true_distribution() const override {
    return enumerated(true_dist_, "true_distribution");
  }
  double log_partition() const override {
    enumerated(true_dist_, "log_partition");
    return log_z_;
  }

 private:
  /// int64 [B] of indices < 2^N -> int64 [B, N] of their bits.
  at::Tensor states_from_indices(const at::Tensor& idx) const {
    return idx.view({-1, 1}).div(weights_, "floor").remainder(2);
  }
  const at::Tensor& enumerated(const at::Tensor& t, const char* what) const {
    if (!enumerable()) not_enumerable(what);
    return t;
  }
  /// The cube in index order, the terminating sets among it, their positions, R / Z.
  void enumerate() {
    all_ = states_from_indices(at::arange(n_states(), at::kLong));
    const at::Tensor size = all_.sum(1);
    const at::Tensor terminating = fixed_ ? size.eq(max_) : size.le(max_);
    const at::Tensor rows = at::nonzero(terminating).view({-1});
    terminating_ = all_.index_select(0, rows);
    position_ = at::full({n_states()}, -1, at::kLong);
    position_.index_put_({rows}, at::arange(rows.size(0), at::kLong));
    const at::Tensor r = reward(terminating_).to(at::kDouble);
    const double z = r.sum().item<double>();
    log_z_ = std::log(z);
    true_dist_ = r / z;
  }

  std::int64_t n_, max_;
  bool fixed_;
  SetReward reward_;
  double r0_;
  at::Tensor weights_;  ///< int64 [N]: 2^(N-1-i)
  at::Tensor all_, terminating_, position_, true_dist_;
  double log_z_ = 0.0;
};

}  // namespace

// env.name: set_addition; its options come from env.options, checked by set_addition_fields().
GFN_ENVIRONMENT_PLUGIN(set_addition, SetAdditionOptions, set_addition_fields()) {
  return std::make_unique<SetAddition>(options);
}
