#include "runtime/buffer/replay_buffer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace gfn::buffer {
namespace {

// std heap functions build a max-heap under `less`; "greater" gives a min-heap.
struct HigherReward {
  template <class E>
  bool operator()(const E& a, const E& b) const {
    return a.log_reward > b.log_reward;
  }
};

}  // namespace

ReplayBuffer::ReplayBuffer(std::int64_t capacity) : capacity_(capacity) {
  if (capacity < 1) {
    throw std::invalid_argument("replay buffer capacity must be >= 1, got " +
                                std::to_string(capacity));
  }
}

std::int64_t ReplayBuffer::add(const std::vector<std::int64_t>& states,
                               const std::vector<float>& log_rewards, int ndim) {
  return add(states, log_rewards, ndim, {}, {});
}

std::int64_t ReplayBuffer::add(const std::vector<std::int64_t>& states,
                               const std::vector<float>& log_rewards, int ndim,
                               const std::vector<std::int32_t>& lengths,
                               const std::vector<std::int64_t>& actions) {
  const auto n = log_rewards.size();
  std::vector<std::size_t> offsets;  // start of item i's actions
  if (!lengths.empty() || !actions.empty()) {
    if (lengths.size() != n) {
      throw std::invalid_argument("replay buffer add: " + std::to_string(lengths.size()) +
                                  " trajectory lengths for " + std::to_string(n) + " items");
    }
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (lengths[i] < 0) {
        throw std::invalid_argument("replay buffer add: trajectory " + std::to_string(i) +
                                    " has negative length " + std::to_string(lengths[i]));
      }
      offsets.push_back(total);
      total += static_cast<std::size_t>(lengths[i]);
    }
    if (total != actions.size()) {
      throw std::invalid_argument("replay buffer add: trajectory lengths add up to " +
                                  std::to_string(total) + ", but " +
                                  std::to_string(actions.size()) + " actions were given");
    }
  }
  const auto actions_of = [&](std::size_t i) {
    if (offsets.empty()) return std::vector<std::int64_t>{};
    const auto first = actions.begin() + static_cast<std::ptrdiff_t>(offsets[i]);
    return std::vector<std::int64_t>(first, first + lengths[i]);
  };
  if (ndim < 1 || states.size() != n * static_cast<std::size_t>(ndim)) {
    throw std::invalid_argument("replay buffer add: " + std::to_string(states.size()) +
                                " state entries do not match " + std::to_string(n) +
                                " log rewards of ndim " + std::to_string(ndim));
  }
  if (n == 0) return 0;
  if (ndim_ != 0 && ndim != ndim_) {
    throw std::invalid_argument("replay buffer add: ndim " + std::to_string(ndim) +
                                " differs from the stored items' ndim " + std::to_string(ndim_));
  }
  ndim_ = ndim;
  const std::uint64_t first_serial = next_serial_;
  std::int64_t retained = 0;  // items of this batch currently in the heap
  for (std::size_t i = 0; i < n; ++i) {
    const float lr = log_rewards[i];
    if (!std::isfinite(lr)) continue;
    std::vector<std::int64_t> state(states.begin() + i * ndim, states.begin() + (i + 1) * ndim);
    if (size() < capacity_) {
      index_.insert(state.data(), ndim);
      heap_.push_back({lr, next_serial_++, std::move(state), actions_of(i)});
      std::push_heap(heap_.begin(), heap_.end(), HigherReward{});
      ++retained;
    } else if (lr > heap_.front().log_reward) {
      std::pop_heap(heap_.begin(), heap_.end(), HigherReward{});
      if (heap_.back().serial >= first_serial) --retained;  // evicted one of ours
      index_.erase(heap_.back().state.data());
      index_.insert(state.data(), ndim);
      heap_.back() = {lr, next_serial_++, std::move(state), actions_of(i)};
      std::push_heap(heap_.begin(), heap_.end(), HigherReward{});
      ++retained;
    }
  }
  sorted_valid_ = false;
  return retained;
}

std::int64_t ReplayBuffer::would_retain(const std::vector<float>& log_rewards) const {
  std::int64_t finite = 0;
  for (float lr : log_rewards) finite += std::isfinite(lr) ? 1 : 0;
  if (size() + finite <= capacity_) return finite;
  const float threshold =
      heap_.empty() ? -std::numeric_limits<float>::infinity() : heap_.front().log_reward;
  std::int64_t kept = 0;
  for (float lr : log_rewards) kept += (std::isfinite(lr) && lr >= threshold) ? 1 : 0;
  return kept;
}

float ReplayBuffer::min_log_reward() const {
  return heap_.empty() ? 0.f : heap_.front().log_reward;
}

float ReplayBuffer::max_log_reward() const {
  if (heap_.empty()) return 0.f;
  return std::max_element(
             heap_.begin(), heap_.end(),
             [](const Entry& a, const Entry& b) { return a.log_reward < b.log_reward; })
      ->log_reward;
}

const std::vector<ReplayItem>& ReplayBuffer::sorted_view() const {
  if (!sorted_valid_) {
    sorted_.clear();
    sorted_.reserve(heap_.size());
    for (const auto& e : heap_) sorted_.push_back({e.state, e.log_reward, e.actions});
    std::sort(sorted_.begin(), sorted_.end(),
              [](const ReplayItem& a, const ReplayItem& b) { return a.log_reward > b.log_reward; });
    sorted_valid_ = true;
  }
  return sorted_;
}

float ReplayBuffer::percentile_log_reward(double q) const {
  if (!(q >= 0.0 && q <= 100.0)) {
    throw std::invalid_argument("replay buffer percentile must be in [0, 100], got " +
                                std::to_string(q));
  }
  if (heap_.empty()) throw std::logic_error("replay buffer percentile of an empty buffer");
  const auto& view = sorted_view();  // descending
  const auto n = static_cast<double>(view.size());
  // Nearest rank on the ascending order: rank ceil(q/100 * n), at least 1.
  auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(q / 100.0 * n)));
  rank = std::min(rank, view.size());
  return view[view.size() - rank].log_reward;
}

std::vector<ReplayItem> ReplayBuffer::sample(std::int64_t n, bool prioritized,
                                             std::mt19937_64& rng) const {
  std::vector<ReplayItem> out;
  if (n <= 0 || heap_.empty()) return out;
  out.reserve(static_cast<std::size_t>(n));
  if (!prioritized) {
    std::uniform_int_distribution<std::size_t> pick(0, heap_.size() - 1);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto& e = heap_[pick(rng)];
      out.push_back({e.state, e.log_reward, e.actions});
    }
    return out;
  }
  // Probabilities proportional to exp(log_reward), shifted by the max for stability.
  float max_lr = heap_.front().log_reward;
  for (const auto& e : heap_) max_lr = std::max(max_lr, e.log_reward);
  std::vector<double> weights;
  weights.reserve(heap_.size());
  for (const auto& e : heap_) weights.push_back(std::exp(double(e.log_reward) - max_lr));
  std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
  for (std::int64_t i = 0; i < n; ++i) {
    const auto& e = heap_[pick(rng)];
    out.push_back({e.state, e.log_reward, e.actions});
  }
  return out;
}

}  // namespace gfn::buffer
