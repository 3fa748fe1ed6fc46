#include "runtime/gfn/visited_states.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "runtime/gfn/env/environment.h"

namespace gfn::core {

VisitedTerminatingStates::VisitedTerminatingStates(const Environment& env, std::int64_t window)
    : env_(&env) {
  if (!env.enumerable()) {
    throw std::domain_error("VisitedTerminatingStates: environment \"" + env.name() +
                            "\" is not enumerable");
  }
  if (window < 1) {
    throw std::invalid_argument("VisitedTerminatingStates: window must be >= 1, got " +
                                std::to_string(window));
  }
  ring_.assign(static_cast<std::size_t>(window), -1);
  counts_.assign(static_cast<std::size_t>(env.n_terminating_states()), 0);
}

void VisitedTerminatingStates::add(const at::Tensor& terminating_states) {
  env_->check_states(terminating_states, "VisitedTerminatingStates::add");
  if (terminating_states.size(0) == 0) return;
  const at::Tensor idx = env_->terminating_state_indices(terminating_states).contiguous();
  const std::int64_t* p = idx.data_ptr<std::int64_t>();
  const std::int64_t n = idx.numel();
  const std::int64_t w = window();
  const auto t = static_cast<std::int64_t>(counts_.size());
  for (std::int64_t i = 0; i < n; ++i) {
    if (p[i] < 0 || p[i] >= t) {
      throw std::invalid_argument("VisitedTerminatingStates::add: terminating index " +
                                  std::to_string(p[i]) + " out of range [0, " + std::to_string(t) +
                                  ")");
    }
  }
  for (std::int64_t i = 0; i < n; ++i) {
    auto& slot = ring_[static_cast<std::size_t>(head_)];
    if (size_ == w) --counts_[static_cast<std::size_t>(slot)];  // evict the oldest
    slot = p[i];
    ++counts_[static_cast<std::size_t>(slot)];
    head_ = (head_ + 1) % w;
    if (size_ < w) ++size_;
  }
  total_ += n;
}

at::Tensor VisitedTerminatingStates::window_indices() const {
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(size_));
  const std::int64_t w = window();
  const std::int64_t oldest = size_ == w ? head_ : 0;
  for (std::int64_t i = 0; i < size_; ++i) {
    out.push_back(ring_[static_cast<std::size_t>((oldest + i) % w)]);
  }
  return at::tensor(out, at::kLong);
}

void VisitedTerminatingStates::restore(const at::Tensor& indices, std::int64_t total_added) {
  const at::Tensor idx = indices.to(at::kLong).contiguous();
  const std::int64_t n = idx.numel();
  const auto t = static_cast<std::int64_t>(counts_.size());
  if (n > window() || total_added < n) {
    throw std::invalid_argument("VisitedTerminatingStates::restore: " + std::to_string(n) +
                                " indices for a window of " + std::to_string(window()) + " after " +
                                std::to_string(total_added) + " additions");
  }
  const std::int64_t* p = idx.data_ptr<std::int64_t>();
  std::fill(ring_.begin(), ring_.end(), -1);
  std::fill(counts_.begin(), counts_.end(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    if (p[i] < 0 || p[i] >= t) {
      throw std::invalid_argument("VisitedTerminatingStates::restore: terminating index " +
                                  std::to_string(p[i]) + " out of range");
    }
    ring_[static_cast<std::size_t>(i)] = p[i];
    ++counts_[static_cast<std::size_t>(p[i])];
  }
  size_ = n;
  head_ = n % window();
  total_ = total_added;
}

at::Tensor VisitedTerminatingStates::distribution() const {
  if (size_ == 0) throw std::logic_error("VisitedTerminatingStates: no state visited yet");
  return at::tensor(counts_, at::kLong).to(at::kDouble) / static_cast<double>(size_);
}

}  // namespace gfn::core
