#include "runtime/timing/median_sample.h"

#include <algorithm>
#include <stdexcept>

namespace gfn::timing {

MedianSample::MedianSample(std::size_t capacity, std::uint64_t seed)
    : capacity_(capacity), rng_(seed) {
  if (capacity == 0) throw std::invalid_argument("MedianSample: capacity must be >= 1");
}

void MedianSample::add(double value) {
  ++count_;
  if (values_.size() < capacity_) {
    values_.push_back(value);
    return;
  }
  // Algorithm R: the count_-th value replaces a kept one with probability capacity / count_.
  std::uniform_int_distribution<std::int64_t> slot(0, count_ - 1);
  const std::int64_t j = slot(rng_);
  if (j < static_cast<std::int64_t>(capacity_)) values_[static_cast<std::size_t>(j)] = value;
}

double MedianSample::median() const {
  if (values_.empty()) return 0.0;
  std::vector<double> v = values_;
  const std::size_t n = v.size();
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2) return *mid;
  const double upper = *mid;
  const double lower = *std::max_element(v.begin(), mid);
  return 0.5 * (lower + upper);
}

}  // namespace gfn::timing
