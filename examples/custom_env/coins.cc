// An environment plugin (runtime/gfn/env/plugin.h): "coins", making change. A state counts
// the coins of each of K types (type i is worth i + 1), int64 [B, K], s0 = no coin. Forward
// action i adds a coin of type i if the total stays within the capacity C; the last action
// exits (every state terminates). Backward action i removes a coin of type i. Reward
// log R(x) = beta * total(x) / C: the modes are the exact change, total(x) = C, and several
// orders of the same coins lead to a state (a DAG, not a tree). Small enough to enumerate, so
// validation is exact (L1, JSD, |log Z error|).
#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/gfn/env/plugin.h"

namespace {

using gfn::core::Environment;

/// env.options of the plugin, with their defaults.
struct CoinsOptions {
  int coin_types = 3;  ///< K: coins worth 1 .. K
  int capacity = 12;   ///< C: the largest total
  double beta = 3.0;   ///< log R = beta * total / C
};

const gfn::config::Fields<CoinsOptions>& coins_fields() {
  using O = CoinsOptions;
  static const auto fields =
      gfn::config::Fields<O>()
          .add("coin_types", &O::coin_types, "Coin types K, worth 1 .. K.",
               gfn::config::at_least(1))
          .add("capacity", &O::capacity, "The largest total C.", gfn::config::at_least(1))
          .add("beta", &O::beta, "log R(x) = beta * total(x) / capacity.");
  return fields;
}

class Coins final : public Environment {
 public:
  explicit Coins(const CoinsOptions& o) : k_(o.coin_types), capacity_(o.capacity), beta_(o.beta) {
    values_ = at::arange(1, k_ + 1, at::kLong);
    enumerate();
    const at::Tensor lr = log_reward(all_).to(at::kDouble);
    log_z_ = lr.logsumexp(0).item<double>();
    true_dist_ = (lr - log_z_).exp();
  }

  // Description.
  std::string name() const override { return "coins"; }
  std::int64_t state_dim() const override { return k_; }
  std::int64_t n_actions() const override { return k_ + 1; }  // a coin of each type, exit
  bool every_state_terminates() const override { return true; }

  // Dynamics: whole batches, one call per step.
  at::Tensor initial_states(std::int64_t n) const override { return at::zeros({n, k_}, at::kLong); }
  at::Tensor forward_masks(const at::Tensor& s) const override {
    const at::Tensor room = (capacity_ - total(s)).unsqueeze(1);  // [B, 1]
    return at::cat({values_.unsqueeze(0).le(room), at::ones({s.size(0), 1}, at::kBool)}, 1);
  }
  at::Tensor backward_masks(const at::Tensor& s) const override { return s.gt(0); }
  at::Tensor step_unchecked(const at::Tensor& s, const at::Tensor& a) const override {
    return s.clone().scatter_add_(1, a.view({-1, 1}), at::ones({s.size(0), 1}, at::kLong));
  }
  at::Tensor backward_step_unchecked(const at::Tensor& s, const at::Tensor& a) const override {
    return s.clone().scatter_add_(1, a.view({-1, 1}), at::full({s.size(0), 1}, -1, at::kLong));
  }
  void check_states(const at::Tensor& s, const char* who) const override {
    Environment::check_states(s, who);  // int64 [B, K]
    if (s.numel() > 0 &&
        (s.min().item<std::int64_t>() < 0 || total(s).max().item<std::int64_t>() > capacity_)) {
      throw std::invalid_argument(std::string("coins::") + who +
                                  ": negative counts or a total above env.options.capacity");
    }
  }
  at::Tensor log_reward(const at::Tensor& s) const override {
    check_states(s, "log_reward");
    return (total(s).to(at::kDouble) * (beta_ / capacity_)).to(at::kFloat);  // float32 [B]
  }

  // Network input: each count one-hot (0 .. C), or the counts as floats.
  std::unique_ptr<gfn::core::Preprocessor> make_preprocessor(
      gfn::core::PreprocessorKind kind) const override {
    if (kind == gfn::core::PreprocessorKind::kKHot) {
      return std::make_unique<gfn::core::KHotPreprocessor>(k_, capacity_ + 1);
    }
    if (kind == gfn::core::PreprocessorKind::kIdentity) {
      return std::make_unique<gfn::core::IdentityPreprocessor>(k_);
    }
    throw std::invalid_argument("env.preprocessor: coins supports \"khot\" and \"identity\"");
  }

  // Enumeration, for exact validation: every state is terminating, same order.
  bool enumerable() const override { return true; }
  std::int64_t n_states() const override { return all_.size(0); }
  const at::Tensor& all_states() const override { return all_; }
  at::Tensor state_indices(const at::Tensor& s) const override {
    return index_of_.index_select(0, (s * strides_).sum(1));
  }
  std::int64_t n_terminating_states() const override { return n_states(); }
  const at::Tensor& terminating_states() const override { return all_; }
  at::Tensor terminating_state_indices(const at::Tensor& s) const override {
    return state_indices(s);
  }
  const at::Tensor& true_distribution() const override { return true_dist_; }
  double log_partition() const override { return log_z_; }

  // Modes: the exact change; each has the same reward, exp(beta).
  std::int64_t n_modes() const override { return n_modes_; }
  at::Tensor is_mode(const at::Tensor& s) const override { return total(s).eq(capacity_); }
  std::optional<double> mode_probability() const override { return std::exp(beta_ - log_z_); }
  at::Tensor mode_hits(const at::Tensor& s) const override {
    return state_indices(s).masked_select(is_mode(s));
  }

 private:
  /// int64 [B]: the value of each state's coins.
  at::Tensor total(const at::Tensor& s) const { return (s * values_).sum(1); }

  /// Every count vector within the capacity, ordered by number of coins (a parent has one
  /// coin fewer, so this order is topological), and a dense table from the mixed-radix key
  /// (count i < C / (i + 1) + 1) to the position.
  void enumerate() {
    std::vector<std::int64_t> radix(k_), stride(k_);
    std::int64_t keys = 1;
    for (int i = 0; i < k_; ++i) {
      radix[i] = capacity_ / (i + 1) + 1;
      stride[i] = keys;
      keys *= radix[i];
      if (keys > 10'000'000) throw std::invalid_argument("coins: too many states to enumerate");
    }
    std::vector<std::vector<std::int64_t>> states;
    std::vector<std::int64_t> counts(k_, 0);
    for (std::int64_t key = 0; key < keys; ++key) {
      std::int64_t value = 0;
      for (int i = 0; i < k_; ++i) {
        counts[i] = key / stride[i] % radix[i];
        value += counts[i] * (i + 1);
      }
      if (value <= capacity_) states.push_back(counts);
    }
    std::stable_sort(states.begin(), states.end(), [](const auto& a, const auto& b) {
      return std::accumulate(a.begin(), a.end(), 0L) < std::accumulate(b.begin(), b.end(), 0L);
    });
    all_ = at::empty({static_cast<std::int64_t>(states.size()), k_}, at::kLong);
    for (std::size_t r = 0; r < states.size(); ++r) {
      for (int i = 0; i < k_; ++i) all_[r][i] = states[r][i];
    }
    strides_ = at::tensor(stride, at::kLong);
    index_of_ = at::full({keys}, -1, at::kLong);
    index_of_.index_put_({(all_ * strides_).sum(1)}, at::arange(all_.size(0), at::kLong));
    n_modes_ = total(all_).eq(capacity_).sum().item<std::int64_t>();
  }

  std::int64_t k_, capacity_;
  double beta_;
  at::Tensor values_, all_, strides_, index_of_, true_dist_;
  std::int64_t n_modes_ = 0;
  double log_z_ = 0.0;
};

}  // namespace

// env.name: coins; its options come from env.options, checked by coins_fields().
GFN_ENVIRONMENT_PLUGIN(coins, CoinsOptions, coins_fields()) {
  return std::make_unique<Coins>(options);
}
