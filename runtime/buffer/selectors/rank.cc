#include "runtime/buffer/selectors/rank.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "runtime/buffer/selectors/gumbel_top_n.h"

namespace gfn::buffer {

RankSampler::RankSampler(Replacement replacement, double rank_weight)
    : replacement_(replacement), rank_weight_(rank_weight) {
  if (!(rank_weight > 0) || !std::isfinite(rank_weight)) {
    throw std::invalid_argument("RankSampler: the rank weight must be finite and > 0, got " +
                                std::to_string(rank_weight));
  }
}

void RankSampler::insert(Slot slot, const ItemKey& key) {
  const auto s = static_cast<std::size_t>(slot);
  if (s >= key_.size()) {
    key_.resize(s + 1);
    held_.resize(s + 1, 0);
  }
  if (held_[s]) throw std::logic_error("rank selector: slot inserted twice");
  order_.emplace(-key.log_reward, key.serial, slot);
  key_[s] = key;
  held_[s] = 1;
}

void RankSampler::erase(Slot slot) {
  const auto s = static_cast<std::size_t>(slot);
  if (slot < 0 || s >= key_.size() || !held_[s]) {
    throw std::logic_error("rank selector: erase of a slot it does not hold");
  }
  order_.erase({-key_[s].log_reward, key_[s].serial, slot});
  held_[s] = 0;
}

void RankSampler::select(std::int64_t n, std::mt19937_64& rng, std::vector<Slot>& out) {
  const std::size_t size = order_.size();
  const double offset = rank_weight_ * static_cast<double>(size);
  ranked_.clear();
  weights_.clear();
  for (const auto& entry : order_) {
    weights_.push_back(1.0 / (offset + static_cast<double>(ranked_.size())));
    ranked_.push_back(std::get<2>(entry));
  }
  if (replacement_ == Replacement::kAlways || static_cast<std::size_t>(n) > size) {
    std::discrete_distribution<std::size_t> pick(weights_.begin(), weights_.end());
    for (std::int64_t k = 0; k < n; ++k) out.push_back(ranked_[pick(rng)]);
    return;
  }
  // Gumbel top-n: argsort of log P + Gumbel noise = sampling without replacement.
  gumbel_top_n(
      ranked_, [&](std::size_t k) { return std::log(weights_[k]); }, n, rng, out);
}

}  // namespace gfn::buffer
