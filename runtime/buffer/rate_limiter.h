#pragma once
// Rate limiter between producers (trainer submissions) and consumers (remote
// sample requests) of a buffer manager, in the vocabulary of DeepMind Reverb's
// SampleToInsertRatio limiter (reverb/cc/rate_limiter.h):
//   samples_per_insert  target number of sampled items per inserted item (> 0);
//   min_size_to_sample  no sampling before the buffer holds this many items;
//   error_buffer        allowed deviation, in sampled items, around the target.
// With diff = inserts * samples_per_insert - samples (items), Reverb's bounds are
//   min_diff = min_size_to_sample * samples_per_insert - error_buffer,
//   max_diff = min_size_to_sample * samples_per_insert + error_buffer,
// a sample of n items is allowed iff size >= min_size_to_sample and
// diff - n >= min_diff, and inserts are "ahead" when diff > max_diff. Producers are
// never blocked here (trainers keep training on fresh data); insert pressure is
// only reported (inserts_ahead()). samples_per_insert = 0 disables the ratio (only
// min_size_to_sample applies). Thread-compatible.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace gfn::buffer {

struct RateLimiterOptions {
  double samples_per_insert = 0.0;      ///< >= 0; 0 = no ratio, only the minimum size
  std::int64_t min_size_to_sample = 1;  ///< >= 1 items
  double error_buffer = 1e9;            ///< >= 0 sampled items
};

struct SampleDecision {
  bool allowed = false;
  std::string reason;  ///< why not, when !allowed
};

class RateLimiter {
 public:
  /// Throws std::invalid_argument for negative / non-finite values or min size < 1.
  explicit RateLimiter(const RateLimiterOptions& options);
  void record_insert(std::int64_t items) { inserts_ += items; }
  void record_sample(std::int64_t items) { samples_ += items; }
  /// Whether `n` items may be sampled now from a buffer of `buffer_size` items.
  SampleDecision can_sample(std::int64_t n, std::int64_t buffer_size) const;
  /// True when inserts are ahead of the target ratio by more than the error buffer.
  bool inserts_ahead() const;
  double diff() const;
  std::int64_t inserts() const { return inserts_; }
  std::int64_t samples() const { return samples_; }
  /// Checkpoints: sets the counters of inserted and sampled items. Throws
  /// std::invalid_argument for a negative count.
  void restore_counts(std::int64_t inserts, std::int64_t samples) {
    if (inserts < 0 || samples < 0) {
      throw std::invalid_argument("rate limiter: negative counts in a restored state");
    }
    inserts_ = inserts;
    samples_ = samples;
  }

 private:
  RateLimiterOptions options_;
  double min_diff_, max_diff_;
  std::int64_t inserts_ = 0, samples_ = 0;
};

}  // namespace gfn::buffer
