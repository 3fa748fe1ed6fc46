#pragma once
// Categorical draws with ATen's random stream (the sampler's action draws, sampler.h, and the
// state table's, fast/state_table.h). at::multinomial(p, 1) on a CPU float32 tensor draws
// q ~ Exp(1) of p's shape with exponential_ and returns argmax(p / q) per row (the
// exponential race: the first maximum), after ~10 ATen calls of checks (max, min, sums,
// two .item() synchronizations). The loops here draw the same numbers from the same
// generator and pick the same maxima: the same actions, draw for draw, and the generator
// left in the same state (tests/runtime/gfn/categorical_test.cc), at ~65 us less per call.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace gfn::core {

/// The Exp(1) draws of at::Tensor::exponential_(1.0, generator) on a float32 tensor of n
/// elements, n at a time. Without MKL (Debian's LibTorch), ATen's CPU kernel draws element by
/// element with at::exponential_distribution<double> from the CPUGeneratorImpl under its
/// mutex and casts to float: the same loop gives the same numbers and leaves the generator in
/// the same state. With MKL, or another device's generator, ATen seeds a stream per call
/// instead, so this calls exponential_ itself. Keeps a reference to the generator; not
/// thread-safe (one per sampling loop); the generator's mutex is taken per next().
class ExponentialDraws {
 public:
  explicit ExponentialDraws(at::Generator& generator);
  /// n draws, valid until the next call. Cost: n double-precision draws and logs.
  const float* next(std::int64_t n);

  /// next(n) in two phases, for callers that split the logs over threads
  /// (fast/fused_sampler.h): the generator's n 64-bit words (serial, under its mutex; valid
  /// until the next call), and draw(word) of each, which IS next(n)'s value at its position
  /// (ATen's exponential_distribution<double> on that word). Same generator state after.
  /// Throws std::logic_error when the draws come from ATen's exponential_ (uses_aten()).
  const std::uint64_t* next_words(std::int64_t n);
  /// The Exp(1) draw of one 64-bit word (see next_words). Pure; thread-safe.
  static float draw(std::uint64_t word);
  /// True if next() calls exponential_ itself (MKL, or another device's generator).
  bool uses_aten() const { return use_aten_; }

 private:
  at::Generator& generator_;
  bool use_aten_;
  std::vector<float> buffer_;
  std::vector<std::uint64_t> words_;
  at::Tensor tensor_;
};

/// argmax_a p[a] / q[a] over a = 0..k-1 (k >= 1): the winner of the exponential race of one
/// row, the first maximum as at::argmax (a NaN ratio wins, the first one). Branch-free
/// selects: which action wins is random, so a branch would mispredict about once per row.
/// Pure, thread-safe; cost k divisions.
inline std::int64_t race_winner(const float* p, const float* q, std::int64_t k) {
  std::int64_t winner = 0;
  float best = p[0] / q[0];
  for (std::int64_t a = 1; a < k; ++a) {
    const float v = p[a] / q[a];
    const bool better = v > best || (v != v && best == best);
    best = better ? v : best;
    winner = better ? a : winner;
  }
  return winner;
}

/// at::multinomial's checks of m rows of k probabilities (row-major): throws
/// std::invalid_argument on a negative, NaN or infinite probability or a row summing to 0
/// (sample_categorical's messages). Pure, thread-safe; cost m * k.
void check_probability_rows(const float* p, std::int64_t m, std::int64_t k);

/// One category per row of probs float32 [m, k] (rows need not sum to 1): int64 [m], the
/// draws of at::multinomial(probs, 1, /*replacement=*/false, generator).squeeze(1) draw for
/// draw. Throws std::invalid_argument, like at::multinomial, on a negative, NaN or infinite
/// probability or a row whose probabilities sum to 0. Other dtypes, layouts or devices call
/// at::multinomial. Not thread-safe for the same generator (ATen's own draws lock it).
at::Tensor sample_categorical(const at::Tensor& probs, at::Generator& generator);

}  // namespace gfn::core
