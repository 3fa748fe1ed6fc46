#pragma once
// Rank-based sampler (gfn-diffusion's ReplayBuffer with prioritized='rank',
// energy_sampling/buffer.py, after Tripp et al. 2020, "Sample-efficient optimization in the
// latent space of deep generative models via weighted retraining"; Sendera et al. 2024 use it
// for the replay of "TB + Expl. + LS"): the held items are ranked by log reward, highest first
// (rank 0; among equal rewards the older item first), and item i is drawn with probability
//   P(i) ∝ 1 / (k · N + rank_i)
// with N the items held and k the rank weight (gfn-diffusion: 0.01). Unlike prioritized.h the
// weights depend on the order of the rewards only, not on their scale, so a replay buffer of a
// target whose log rewards spread over hundreds of nats still replays more than its best item.
//   Replacement::kAlways          n independent draws (gfn-diffusion's WeightedRandomSampler
//                                 with replacement).
//   Replacement::kOnlyWhenNeeded  n <= size: n distinct items by Gumbel top-n on log P;
//                                 n > size: independent draws.
// Cost: insert / erase O(log size); select O(size) to walk the order and build the weights
// (plus O(size log n) for Gumbel top-n). The order follows from the keys (log reward, then
// insertion serial), so a checkpoint restore that re-inserts the items is exact. Items with
// log R = -inf rank last like any other. Thread-compatible.

#include <set>
#include <tuple>

#include "runtime/buffer/selectors/selector.h"

namespace gfn::buffer {

class RankSampler final : public ItemSelector {
 public:
  /// rank_weight k > 0 and finite (std::invalid_argument otherwise).
  RankSampler(Replacement replacement, double rank_weight);
  const char* name() const override { return "rank"; }
  void insert(Slot slot, const ItemKey& key) override;
  void erase(Slot slot) override;
  std::int64_t size() const override { return static_cast<std::int64_t>(order_.size()); }
  void select(std::int64_t n, std::mt19937_64& rng, std::vector<Slot>& out) override;

 private:
  Replacement replacement_;
  double rank_weight_;
  /// Highest log reward first (the key is negated), then the oldest.
  std::set<std::tuple<float, std::uint64_t, Slot>> order_;
  std::vector<ItemKey> key_;     ///< per slot
  std::vector<char> held_;       ///< per slot: 1 while this selector holds it
  std::vector<double> weights_;  ///< scratch, in rank order
  std::vector<Slot> ranked_;     ///< scratch: the slots in rank order
};

}  // namespace gfn::buffer
