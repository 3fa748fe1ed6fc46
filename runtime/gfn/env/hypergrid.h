#pragma once
// HyperGrid environment (Bengio et al. 2021; Malkin et al. 2022), following
// torchgfn's gfn.gym.HyperGrid (src/gfn/gym/hypergrid.py).
//
// States are int64 tensors [B, ndim] with coordinates in {0..height-1}; s0 = 0.
// Actions are int64 in {0..ndim}: action i < ndim increments coordinate i, action
// ndim ("exit") terminates the trajectory in the current state, so every state is
// also a terminating state. Backward actions i < ndim decrement coordinate i.
//
// Rewards are selected by HyperGridOptions::reward (HyperGridReward, named once in
// hypergrid_reward.h): torchgfn's "original", "cosine", "deceptive", "sparse",
// "bitwise_xor" and "multiplicative_coprime" (declared below; torchgfn's
// "conditional_multiscale" is not ported). Adding one is one enumerator and name in
// hypergrid_reward.h, one function here and one case in hypergrid.cc reward_function.
// Rewards are float32 like torchgfn's; a reward of 0 gives log R = -inf, so keep R0 > 0
// where a reward can be 0 otherwise.
//
// Enumeration (all_states, true_distribution, log_partition, modes) is computed once
// at construction when height^ndim <= kMaxEnumerableStates; for larger grids those
// functions throw std::domain_error.
//
// It implements the Environment interface (runtime/gfn/env/environment.h) and is
// registered as "hypergrid" (runtime/gfn/env/registry.h).
// Thread-safety: all member functions are const and safe to call concurrently.
// All tensors are CPU tensors.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/hypergrid_options.h"
#include "runtime/gfn/env/hypergrid_reward.h"
#include "runtime/gfn/env/row_dynamics.h"

namespace gfn::core {

class HyperGrid final : public Environment {
 public:
  /// Largest height^ndim for which the state space is enumerated at construction.
  static constexpr std::int64_t kMaxEnumerableStates = std::int64_t{1} << 22;

  /// Throws std::invalid_argument naming the field if ndim < 1, height < 2, the
  /// reward name is unknown, or height^ndim overflows int64.
  explicit HyperGrid(const HyperGridOptions& options);

  std::int64_t ndim() const { return ndim_; }
  std::int64_t height() const { return height_; }
  const HyperGridOptions& options() const { return options_; }

  // Environment (environment.h documents each member).
  std::string name() const override { return "hypergrid"; }
  std::int64_t state_dim() const override { return ndim_; }
  /// ndim + 1 forward actions (the last one is exit).
  std::int64_t n_actions() const override { return ndim_ + 1; }
  bool every_state_terminates() const override { return true; }

  /// n copies of s0: int64 [n, ndim] of zeros.
  at::Tensor initial_states(std::int64_t n) const override;
  /// Forward masks, bool [B, ndim+1]: increment i allowed iff states[:, i] < height-1;
  /// exit always allowed. `states` int64 [B, ndim].
  at::Tensor forward_masks(const at::Tensor& states) const override;
  /// Backward masks, bool [B, ndim]: decrement i allowed iff states[:, i] > 0.
  at::Tensor backward_masks(const at::Tensor& states) const override;
  /// int64 [B, ndim] + one-hot(actions int64 [B]) (caller guarantees masked, non-exit
  /// actions; Environment::step validates).
  at::Tensor step_unchecked(const at::Tensor& states, const at::Tensor& actions) const override;
  /// int64 [B, ndim] - one-hot(actions int64 [B]).
  at::Tensor backward_step_unchecked(const at::Tensor& states,
                                     const at::Tensor& actions) const override;
  /// Throws std::invalid_argument on a bad shape/dtype or an out-of-grid coordinate.
  void check_states(const at::Tensor& states, const char* who) const override;

  /// Reward R(x) of terminating states, float32 [B] (computed in float32 like torchgfn).
  /// Throws std::invalid_argument on a bad shape/dtype or out-of-grid coordinate.
  at::Tensor reward(const at::Tensor& states) const override;
  /// log R(x), float32 [B].
  at::Tensor log_reward(const at::Tensor& states) const override;

  /// "khot" | "onehot" (needs enumerable()) | "identity".
  std::unique_ptr<Preprocessor> make_preprocessor(PreprocessorKind kind) const override;

  /// Per-row masks and steps, and the state index as the key: Environment::unique then
  /// lists rows in index order by one sort.
  const RowDynamics* row_dynamics() const override { return &rows_; }

  /// Enumeration: every state is a terminating state, so the state order and the
  /// terminating order are both the row-major index order (a topological order).
  bool enumerable() const override { return n_states_ <= kMaxEnumerableStates; }
  /// height^ndim: the number of states, all of which are terminating states (defined
  /// even when !enumerable()).
  std::int64_t n_states() const override { return n_states_; }
  /// All states in index order, int64 [n_states, ndim]. Needs enumerable().
  const at::Tensor& all_states() const override;
  /// Row-major index of each state, int64 [B]: sum_j s_j * height^(ndim-1-j)
  /// (torchgfn HyperGrid.get_states_indices). Works without enumeration.
  at::Tensor state_indices(const at::Tensor& states) const override;
  std::int64_t n_terminating_states() const override { return n_states_; }
  const at::Tensor& terminating_states() const override { return all_states(); }
  at::Tensor terminating_state_indices(const at::Tensor& states) const override {
    return state_indices(states);
  }
  /// R(x)/Z over all states in index order, float64 [n_states]. Needs enumerable().
  const at::Tensor& true_distribution() const override;
  /// log Z = log sum_x R(x) (natural log, summed in float64). Needs enumerable().
  double log_partition() const override;

  /// Inverse of state_indices: int64 [B] -> int64 [B, ndim].
  at::Tensor states_from_indices(const at::Tensor& indices) const;

  /// Modes are the states with the maximal reward (for "original" with a non-empty
  /// band 0.3<ax<0.4: the 2^ndim states of reward R0+R1+R2). torchgfn uses per-reward
  /// thresholds instead; they agree for original, deceptive, sparse and the tiered
  /// rewards when the top tier is reachable. Known on an enumerable grid for every reward,
  /// and on a larger one for "original" (diagonal_modes); otherwise
  /// n_modes() is 0 and is_mode / mode_hits throw std::domain_error.
  at::Tensor is_mode(const at::Tensor& states) const override;  ///< bool [B]
  std::int64_t n_modes() const override;
  /// State indices of the modes among `states`.
  at::Tensor mode_hits(const at::Tensor& states) const override;
  const std::vector<std::int64_t>& mode_indices() const;  ///< sorted state indices
  /// max R / Z: from the enumeration, or for a larger "original" grid from
  /// original_log_partition; nullopt when the modes or Z are unknown.
  std::optional<double> mode_probability() const override;

 private:
  void require_enumerable(const char* what) const;

  /// The dynamics of one row: increment i allowed iff s_i < height - 1; key = state index.
  class Rows final : public RowDynamics {
   public:
    Rows(std::int64_t height, std::vector<std::int64_t> strides)
        : height_(height), strides_(std::move(strides)) {}
    void forward_mask(const std::int64_t* state, bool* mask) const override;
    void step(std::int64_t* state, std::int64_t action) const override { ++state[action]; }
    std::int64_t key(const std::int64_t* state) const override;

   private:
    std::int64_t height_;
    std::vector<std::int64_t> strides_;
  };

  HyperGridOptions options_;
  std::int64_t ndim_;
  std::int64_t height_;
  std::int64_t n_states_;
  at::Tensor strides_;  ///< int64 [ndim]: height^(ndim-1-j)
  Rows rows_;
  // Enumeration caches (empty when !enumerable()).
  at::Tensor all_states_;
  at::Tensor true_dist_;
  double log_partition_ = 0.0;
  float max_reward_ = 0.f;
  std::int64_t n_modes_ = 0;  ///< 0: no mode set known
  std::vector<std::int64_t> mode_indices_;
};

/// Reward of a batch of states: float32 [B] from int64 states [B, ndim].
using RewardFunction = at::Tensor (*)(const at::Tensor& states, std::int64_t height,
                                      const HyperGridOptions& options);

/// torchgfn OriginalReward: with ax = |s/(H-1) - 0.5| per coordinate (float32),
/// R0 + R1 * prod(0.25 < ax) + R2 * prod((0.3 < ax) & (ax < 0.4)).
at::Tensor original_reward(const at::Tensor& states, std::int64_t height,
                           const HyperGridOptions& options);

/// torchgfn CosineReward: with ax as above and pdf(v) = exp(-(5v)^2/2)/sqrt(2 pi),
/// R0 + R1 * prod((cos(50 ax) + 1) * pdf(ax)).
at::Tensor cosine_reward(const at::Tensor& states, std::int64_t height,
                         const HyperGridOptions& options);

/// torchgfn DeceptiveReward (Kim et al. 2025): R0 + R1 - R1 * prod(0.1 < ax)
/// + R2 * prod((0.3 < ax) & (ax < 0.4)): the centre cross keeps R1, the band adds R2.
at::Tensor deceptive_reward(const at::Tensor& states, std::int64_t height,
                            const HyperGridOptions& options);

/// torchgfn SparseReward (GAFN, Pan et al. 2022): 1 + 1e-12 at the targets (every
/// coordinate in {1, H-2}, at least one equal to H-2), 1e-12 elsewhere (R0..R2 unused).
at::Tensor sparse_reward(const at::Tensor& states, std::int64_t height,
                         const HyperGridOptions& options);

/// torchgfn BitwiseXORReward with its default kwargs except R0 (= options.R0):
/// R0 + sum_t w_t [tiers 0..t pass], w = (1, 10, 100); tier t passes when for every
/// bit-plane b in 0..{5,7,9}[t] the b-th bits of all coordinates have even parity.
at::Tensor bitwise_xor_reward(const at::Tensor& states, std::int64_t height,
                              const HyperGridOptions& options);

/// torchgfn MultiplicativeCoprimeReward with its default kwargs except R0: primes
/// {2,3,5}, exponent cap 2 per tier, w = (1, 10, 100): R0 + 111 when every coordinate
/// is non-zero and of the form 2^a 3^b 5^c with a, b, c <= 2, else R0.
at::Tensor multiplicative_coprime_reward(const at::Tensor& states, std::int64_t height,
                                         const HyperGridOptions& options);

/// The function of `reward`; throws std::invalid_argument for a value outside the table.
RewardFunction reward_function(HyperGridReward reward);

/// The modes of the "original" reward without enumerating the grid: R0 + R1 *
/// prod_d outer(x_d) + R2 * prod_d band(x_d) with R1, R2 >= 0 is at most the reward of a
/// diagonal state (v, ..., v) holding any of its coordinates, so the maximal reward is the
/// diagonal's maximum, and the modes are the states whose every coordinate is one of the
/// `per_coordinate` values v reaching it (per_coordinate^ndim states). Cost: one reward
/// evaluation of `height` diagonal states. nullopt for the other rewards (deceptive has a
/// negative term, the tiered ones are not products, and cosine's float32 products of nearly
/// equal factors break ties by rounding) and for negative R1 / R2. Checked against
/// enumeration in tests/runtime/gfn/hypergrid_test.cc.
struct DiagonalModes {
  float max_reward = 0.f;           ///< the maximal reward (float32, as reward() computes)
  std::int64_t per_coordinate = 0;  ///< coordinate values v whose diagonal state reaches it
};
std::optional<DiagonalModes> diagonal_modes(std::int64_t ndim, std::int64_t height,
                                            const HyperGridOptions& options);

/// log Z of the "original" reward without enumerating the grid: sum_x R0 + R1 prod_d outer(x_d)
/// + R2 prod_d band(x_d) = R0 H^D + R1 A^D + R2 B^D, where A and B count the coordinate values
/// inside the outer region and the band (one axis, the reward's own tests). In float64, so it
/// may differ from the enumeration's float32 rewards summed in float64 by rounding. nullopt
/// for the other rewards. Checked against enumeration in tests/runtime/gfn/hypergrid_test.cc.
std::optional<double> original_log_partition(std::int64_t ndim, std::int64_t height,
                                             const HyperGridOptions& options);

}  // namespace gfn::core
