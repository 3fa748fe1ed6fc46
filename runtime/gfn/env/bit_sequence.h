#pragma once
// BitSequence: the bit-sequence generation task of the Trajectory Balance paper
// (Malkin et al. 2022, "Trajectory balance: improved credit assignment in GFlowNets",
// sec. 5.2), in the append-only form of torchgfn's gfn.gym.BitSequence
// (src/gfn/gym/bitSequence.py). Registered as "bit_sequence".
//
// A sequence of n = env.seq_size bits is built k = env.word_size bits at a time:
// L = n / k words. States: int64 [B, L], each entry a word in [0, 2^k) or -1 (empty);
// s0 is all -1 and the filled words always form a prefix. Forward actions (2^k + 1):
// action w < 2^k appends word w (allowed while the sequence is incomplete), the last
// action is exit (allowed only when all L words are set). Backward action w removes
// the last word and is allowed only if that word is w (the DAG is a tree: PB is
// deterministic). Every trajectory has L + 1 actions.
//
// Mode set M (paper and torchgfn make_modes_set): H = {00000000, 11111111, 11110000,
// 00001111, 00111100}; each mode concatenates n / 8 elements of H drawn uniformly with
// replacement (rejecting duplicates) until env.n_modes distinct modes exist, from a
// generator seeded with env.modes_seed (needs n % 8 == 0 and n_modes <= 5^(n/8)).
//
// Reward: with d(x) = min_{y in M} Hamming(bits(x), y) (bits of each word most
// significant first), log R(x) = -beta * d(x) (env.beta, float32). torchgfn's
// `temperature` T is beta = 1/T; the TB paper's R(x) = exp(1 - d(x)/n) raised to a
// reward exponent b is, up to a constant, beta = b / n.
//
// Modes found (the paper's mode-discovery metric): a mode y in M is found when a sampled
// terminating state has Hamming(bits(x), y) <= env.mode_threshold bits (a negative
// threshold means n / 4). is_mode(x) is "x is within the threshold of some mode";
// mode_hits lists every mode within the threshold. The n / 4 default is OUR choice:
// torchgfn's BitSequence counts no modes (train_bit_sequences.py reports an exact L1 on 4-
// and 8-bit instances only), and the TB paper's distance threshold is not reproduced here.
// Rationale: for n = 120, a uniformly random sequence is within 30 bits of a given mode with
// probability 1.9e-8 (1.1e-6 for any of 60 modes, about 0.02 expected hits in 16,000
// samples), so a found mode reflects learned structure, not chance.
//
// Enumeration (exact validation, small n only): when sum_{l=0}^{L} 2^(k l) <= 2^22,
// states are ordered by length, then by the value of their words (base 2^k, first word
// most significant) - a topological order; terminating states by that value.
// Preprocessors: "khot" (one-hot of each word over {-1, 0, .., 2^k-1}: [B, L (2^k+1)]),
// "identity" (the words as float32, torchgfn's) and "onehot" (state index; enumerable).
// Thread-safety: immutable after construction; all members are const.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "runtime/gfn/env/bit_sequence_options.h"
#include "runtime/gfn/env/environment.h"

namespace gfn::core {

class BitSequence final : public Environment {
 public:
  static constexpr std::int64_t kMaxEnumerableStates = std::int64_t{1} << 22;

  /// Reads env.word_size (1..16), env.seq_size (> 0, a multiple of word_size and of 8),
  /// env.n_modes (>= 1, <= 5^(seq_size/8)), env.beta (finite), env.mode_threshold and
  /// env.modes_seed. Throws std::invalid_argument naming the field otherwise.
  explicit BitSequence(const BitSequenceOptions& options);

  std::int64_t word_size() const { return k_; }
  std::int64_t seq_size() const { return n_; }
  std::int64_t words() const { return l_; }
  std::int64_t mode_threshold() const { return threshold_; }
  /// The mode set M as bits, int64 [n_modes, seq_size] in {0, 1}.
  const at::Tensor& modes() const { return modes_; }

  std::string name() const override { return "bit_sequence"; }
  std::int64_t state_dim() const override { return l_; }
  std::int64_t n_actions() const override { return (std::int64_t{1} << k_) + 1; }
  bool every_state_terminates() const override { return false; }

  at::Tensor initial_states(std::int64_t n) const override;
  at::Tensor forward_masks(const at::Tensor& states) const override;
  at::Tensor backward_masks(const at::Tensor& states) const override;
  at::Tensor step_unchecked(const at::Tensor& states, const at::Tensor& actions) const override;
  /// Removes the last word (the action is implied by the state).
  at::Tensor backward_step_unchecked(const at::Tensor& states,
                                     const at::Tensor& actions) const override;
  /// -beta * min Hamming distance to M, float32 [B]; throws std::invalid_argument for
  /// invalid or incomplete states.
  at::Tensor log_reward(const at::Tensor& states) const override;
  /// Shape, dtype, entries in [-1, 2^k) and filled words forming a prefix.
  void check_states(const at::Tensor& states, const char* who) const override;

  std::unique_ptr<Preprocessor> make_preprocessor(PreprocessorKind kind) const override;

  bool enumerable() const override { return all_states_.defined(); }
  std::int64_t n_states() const override;
  const at::Tensor& all_states() const override;
  at::Tensor state_indices(const at::Tensor& states) const override;
  std::int64_t n_terminating_states() const override;
  const at::Tensor& terminating_states() const override;
  at::Tensor terminating_state_indices(const at::Tensor& states) const override;
  const at::Tensor& true_distribution() const override;
  double log_partition() const override;

  std::int64_t n_modes() const override { return modes_.size(0); }
  at::Tensor is_mode(const at::Tensor& states) const override;
  /// Indices in [0, n_modes) of every mode within the threshold of each state.
  at::Tensor mode_hits(const at::Tensor& states) const override;

  /// Bits of complete states, int64 [B, seq_size] (word bits most significant first).
  at::Tensor to_bits(const at::Tensor& states) const;
  /// Hamming distances to every mode, int64 [B, n_modes].
  at::Tensor mode_distances(const at::Tensor& states) const;
  /// Complete states int64 [B, L] from bits int64 [B, seq_size] in {0, 1} (inverse of
  /// to_bits). Throws std::invalid_argument for a wrong shape or a value outside {0, 1}.
  at::Tensor from_bits(const at::Tensor& bits) const;

  /// The test set of the TB paper's bit-sequence evaluation (Spearman correlation of
  /// log p_theta(x) and log R(x)), built as torchgfn's BitSequence.create_test_set: for
  /// each mode y of M in order, `per_mode` sequences, each y with f bits flipped, f drawn
  /// uniformly from {0, .., seq_size - 1} and the f positions without replacement, from a
  /// CPU generator seeded with `seed` (the draws differ from torchgfn's: other generator
  /// calls). Complete states int64 [n_modes * per_mode, L], mode-major. Duplicates are
  /// possible (e.g. f = 0 gives the mode itself). Throws std::invalid_argument if
  /// per_mode < 1.
  at::Tensor make_test_set(std::int64_t per_mode, std::uint64_t seed) const;
  /// make_test_set: the validation's test set (environment.h).
  std::optional<at::Tensor> test_set(std::int64_t per_mode, std::uint64_t seed) const override {
    return make_test_set(per_mode, seed);
  }

 private:
  at::Tensor lengths(const at::Tensor& states) const;  ///< int64 [B]: filled words

  std::int64_t k_, n_, l_;
  double beta_;
  std::int64_t threshold_;
  at::Tensor modes_;  ///< int64 [M, n]
  // Enumeration (undefined unless enumerable()).
  at::Tensor all_states_;
  at::Tensor terminating_states_;  ///< the last base^L rows of all_states_
  at::Tensor word_pow_;            ///< int64 [L]: (2^k)^(L-1-i)
  at::Tensor length_offset_;       ///< int64 [L + 1]: first index of each length
  at::Tensor true_dist_;
  double log_partition_ = 0.0;
};

}  // namespace gfn::core
