#pragma once
// The median of a stream of durations in bounded memory: every value while the stream is
// shorter than the capacity (exact median), then a uniform random sample of the stream of
// that size (reservoir sampling, Vitter's Algorithm R, with a fixed seed, so a run's result
// does not depend on anything but its values). Used for a trainer's median ms/iteration
// (summary.json ms_per_iteration) so that a long run does not keep one value per iteration
// (tools/soak.sh).
// Not thread-safe. add: O(1); median: O(capacity) (a copy and nth_element).

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace gfn::timing {

class MedianSample {
 public:
  static constexpr std::size_t kDefaultCapacity = std::size_t{1} << 16;  ///< 512 KiB

  /// Throws std::invalid_argument for a capacity of 0.
  explicit MedianSample(std::size_t capacity = kDefaultCapacity, std::uint64_t seed = 1);

  void add(double value);
  /// Median of the values kept (the mean of the two middle ones for an even count); 0 when
  /// nothing was added.
  double median() const;
  std::int64_t count() const { return count_; }  ///< values added
  std::size_t kept() const { return values_.size(); }

 private:
  std::size_t capacity_;
  std::int64_t count_ = 0;
  std::vector<double> values_;
  std::mt19937_64 rng_;
};

}  // namespace gfn::timing
