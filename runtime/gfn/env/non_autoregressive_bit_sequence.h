#pragma once
// NonAutoregressiveBitSequence: bit sequences built word by word in any order, torchgfn's
// gfn.gym.NonAutoregressiveBitSequence (src/gfn/gym/bitSequenceNonAutoregressive.py; the GFNX
// formulation, which torchgfn's library benchmark runs as scenarios tb_bitseq_small and
// tb_bitseq_medium). Registered as "non_autoregressive_bit_sequence".
//
// A sequence of n = env.seq_size bits is L = n / k words of k = env.word_size bits, V = 2^k
// word values. States: int64 [B, L], each entry a word in [0, V) or -1 (unfilled); s0 is all
// -1; any subset of positions may be filled. Forward actions (L V + 1): action a < L V places
// word a % V at position a / V (allowed while that position is unfilled), the last action is
// exit (allowed only when every position is filled). Backward action a = p V + w clears
// position p and is allowed only if it holds w (it undoes forward action a). Every trajectory
// has L + 1 actions; the DAG is not a tree (L! orders reach each complete sequence).
//
// Mode set M (torchgfn _make_modes, seeded with env.modes_seed, torchgfn's `seed`): for n a
// multiple of 8, the TB paper's block modes (bit_sequence_modes.h block_modes, the same draws
// as torchgfn's); for n < 8, one at::randint(0, 2, {n_modes, n}) draw (duplicates possible, as
// in torchgfn). Other n are refused: torchgfn truncates the modes to 8 bits there and its
// reward then fails on the shape mismatch.
//
// Reward (torchgfn log_reward): with d(x) = min_{y in M} Hamming(bits(x), y) (bits of each
// word most significant first), log R(x) = -b d(x) / n in float32, b = env.reward_exponent.
//
// Modes found: a mode y is found when a sampled terminating state has Hamming(bits(x), y) <=
// env.mode_threshold bits (a negative threshold means n / 4). torchgfn counts no modes for this
// environment; the default 0 (the mode itself) is OUR choice: the benchmark's sequences have 8
// bits, where a uniformly random sequence is within n / 4 = 2 bits of a given mode with
// probability 37/256. is_mode(x): within the threshold of some mode; mode_hits lists each
// such mode; with threshold 0 every mode has R = 1, so mode_probability() = 1 / Z.
//
// Enumeration (exact validation) when (V + 1)^L <= kMaxEnumerableStates: all states in the
// base-(V + 1) order of s + 1, first position most significant (topological: an action raises a
// digit from 0); terminating states in the base-V order of s (torchgfn's cartesian_prod order
// of terminating_states). Counts: (V + 1)^L states, V^L = 2^n terminating states.
// Row dynamics (the fused sampler) when (V + 1)^L < 2^62: the key is the base-(V + 1) index.
// Preprocessors: "identity" (the words as float32, -1 for unfilled: torchgfn's default
// IdentityPreprocessor, which its benchmark runner uses), "khot" (one-hot of each word over
// {-1, 0, .., V-1}: [B, L (V + 1)]) and "onehot" (state index; enumerable).
// Thread-safety: immutable after construction; all members are const.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/non_autoregressive_bit_sequence_options.h"
#include "runtime/gfn/env/row_dynamics.h"

namespace gfn::core {

class NonAutoregressiveBitSequence final : public Environment {
 public:
  static constexpr std::int64_t kMaxEnumerableStates = std::int64_t{1} << 22;

  /// Reads env.word_size (1..16), env.seq_size (> 0, a multiple of word_size, < 8 or a
  /// multiple of 8), env.n_modes (>= 1; <= 5^(seq_size/8) for block modes),
  /// env.reward_exponent (finite), env.mode_threshold and env.modes_seed. Throws
  /// std::invalid_argument naming the field otherwise.
  explicit NonAutoregressiveBitSequence(const NonAutoregressiveBitSequenceOptions& options);

  std::int64_t word_size() const { return k_; }
  std::int64_t seq_size() const { return n_; }
  std::int64_t words() const { return l_; }
  std::int64_t n_words() const { return v_; }
  std::int64_t mode_threshold() const { return threshold_; }
  /// The mode set M as bits, int64 [n_modes, seq_size] in {0, 1}.
  const at::Tensor& modes() const { return modes_; }

  std::string name() const override { return "non_autoregressive_bit_sequence"; }
  std::int64_t state_dim() const override { return l_; }
  std::int64_t n_actions() const override { return l_ * v_ + 1; }
  bool every_state_terminates() const override { return false; }

  at::Tensor initial_states(std::int64_t n) const override;
  /// bool [B, L V + 1]: entry p V + w is "position p unfilled"; exit: "none unfilled".
  at::Tensor forward_masks(const at::Tensor& states) const override;
  /// bool [B, L V]: entry p V + w is "position p holds w".
  at::Tensor backward_masks(const at::Tensor& states) const override;
  at::Tensor step_unchecked(const at::Tensor& states, const at::Tensor& actions) const override;
  /// Clears position action / V (the word the action names is not checked).
  at::Tensor backward_step_unchecked(const at::Tensor& states,
                                     const at::Tensor& actions) const override;
  /// -reward_exponent * min Hamming distance to M / seq_size, float32 [B]; throws
  /// std::invalid_argument for invalid or incomplete states.
  at::Tensor log_reward(const at::Tensor& states) const override;
  /// Shape, dtype and entries in [-1, V).
  void check_states(const at::Tensor& states, const char* who) const override;

  std::unique_ptr<Preprocessor> make_preprocessor(PreprocessorKind kind) const override;
  /// Per-row masks and steps keyed by the base-(V + 1) index, or nullptr when it overflows.
  const RowDynamics* row_dynamics() const override { return key_fits_ ? &rows_ : nullptr; }

  bool enumerable() const override { return all_states_.defined(); }
  std::int64_t n_states() const override;
  const at::Tensor& all_states() const override;
  /// sum_p (s_p + 1) (V + 1)^(L-1-p), int64 [B].
  at::Tensor state_indices(const at::Tensor& states) const override;
  std::int64_t n_terminating_states() const override;
  const at::Tensor& terminating_states() const override;
  /// sum_p s_p V^(L-1-p), int64 [B].
  at::Tensor terminating_state_indices(const at::Tensor& states) const override;
  const at::Tensor& true_distribution() const override;
  double log_partition() const override;

  std::int64_t n_modes() const override { return modes_.size(0); }
  /// Within the threshold of some mode, bool [B]; throws like log_reward.
  at::Tensor is_mode(const at::Tensor& states) const override;
  /// 1 / Z when the threshold is 0 and the environment is enumerable (every mode has R = 1).
  std::optional<double> mode_probability() const override;
  /// Indices in [0, n_modes) of every mode within the threshold of each state.
  at::Tensor mode_hits(const at::Tensor& states) const override;

  /// Hamming distances of complete states to every mode, int64 [B, n_modes]; throws
  /// std::invalid_argument for invalid or incomplete states.
  at::Tensor mode_distances(const at::Tensor& states) const;
  /// BitSequence's test set (bit_sequence_modes.h flipped_modes) as complete states int64
  /// [n_modes * per_mode, L], mode-major. Throws std::invalid_argument if per_mode < 1.
  std::optional<at::Tensor> test_set(std::int64_t per_mode, std::uint64_t seed) const override;

 private:
  /// One row's dynamics: action a < L V places word a % V at position a / V (allowed while it
  /// is -1), exit once no position is -1; key = the base-(V + 1) index of s + 1.
  class Rows final : public RowDynamics {
   public:
    Rows(std::int64_t n_words, std::vector<std::int64_t> pow) : v_(n_words), pow_(std::move(pow)) {}
    void forward_mask(const std::int64_t* state, bool* mask) const override;
    void step(std::int64_t* state, std::int64_t action) const override;
    std::int64_t key(const std::int64_t* state) const override;

   private:
    std::int64_t v_;
    std::vector<std::int64_t> pow_;  ///< (V + 1)^(L-1-p)
  };
  /// Builds the enumeration members from the (V + 1)^L = `states` states.
  void enumerate(std::int64_t states);

  std::int64_t k_, n_, l_, v_;
  double reward_exponent_;
  std::int64_t threshold_;
  at::Tensor modes_;        ///< int64 [M, n]
  at::Tensor word_values_;  ///< int64 [V]: 0 .. V-1
  bool key_fits_ = false;   ///< (V + 1)^L < 2^62
  at::Tensor state_pow_;    ///< int64 [L]: (V + 1)^(L-1-p) (undefined unless key_fits_)
  Rows rows_{0, {}};        ///< row_dynamics() (key_fits_)
  at::Tensor term_pow_;     ///< int64 [L]: V^(L-1-p) (undefined unless enumerable)
  at::Tensor all_states_;   ///< undefined unless enumerable
  at::Tensor terminating_states_;
  at::Tensor true_dist_;
  double log_partition_ = 0.0;
};

}  // namespace gfn::core
