#pragma once
// Reward-prioritized sampler: P(i) = R_i^α / Σ_j R_j^α = softmax(α log R), with α the
// priority exponent (Reverb's Prioritized selector with priority R and priority_exponent α,
// reverb/cc/selectors/prioritized.h; α = 1 is torchgfn's ReplayBuffer with
// prioritized_sampling, α > 1 the sharper prioritisation of prioritised replay training,
// Vemgal et al. 2023).
//   Replacement::kAlways          n independent draws.
//   Replacement::kOnlyWhenNeeded  n <= size: n distinct items by Gumbel top-n (argsort of
//                                 α log R + Gumbel noise, i.e. successive draws ∝ R^α without
//                                 replacement, like torch.multinomial(replacement=False));
//                                 n > size: independent draws.
// Weights are shifted by the largest log reward (exp never overflows). Cost per select:
// O(size) to build the weights (plus O(size log n) for Gumbel top-n); insert / erase O(1).
// Items with log R = -inf are never drawn while another item can be. Thread-compatible.

#include "runtime/buffer/selectors/selector.h"
#include "runtime/buffer/selectors/slot_set.h"

namespace gfn::buffer {

class PrioritizedSampler final : public ItemSelector {
 public:
  /// priority_exponent α > 0 (std::invalid_argument otherwise; 1: proportional to R).
  explicit PrioritizedSampler(Replacement replacement, double priority_exponent = 1.0);
  const char* name() const override { return "prioritized"; }
  void insert(Slot slot, const ItemKey& key) override;
  void erase(Slot slot) override { live_.erase(slot); }
  std::int64_t size() const override { return live_.size(); }
  void select(std::int64_t n, std::mt19937_64& rng, std::vector<Slot>& out) override;
  std::vector<Slot> order() const override { return live_.slots(); }
  void restore_order(const std::vector<Slot>& order) override { live_.reorder(order); }

 private:
  Replacement replacement_;
  double exponent_;
  SlotSet live_;
  std::vector<float> log_reward_;  ///< per slot
  std::vector<double> weights_;    ///< scratch
};

}  // namespace gfn::buffer
