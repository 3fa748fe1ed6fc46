#pragma once
// FIFO remover (Reverb's Fifo selector, reverb/cc/selectors/fifo.h; torchgfn's
// ReplayBuffer without prioritized_capacity): selects the oldest held item (lowest insertion
// serial), so a full table keeps the `capacity` most recent items. select(n) returns that
// item n times. Always admits. Insert / erase / select O(log size). Thread-compatible.

#include <set>
#include <utility>

#include "runtime/buffer/selectors/selector.h"

namespace gfn::buffer {

class FifoRemover final : public ItemSelector {
 public:
  const char* name() const override { return "fifo"; }
  void insert(Slot slot, const ItemKey& key) override;
  void erase(Slot slot) override;
  std::int64_t size() const override { return static_cast<std::int64_t>(order_.size()); }
  void select(std::int64_t n, std::mt19937_64& rng, std::vector<Slot>& out) override;

 private:
  std::set<std::pair<std::uint64_t, Slot>> order_;  ///< (serial, slot), oldest first
  std::vector<std::uint64_t> serial_;               ///< per slot
};

}  // namespace gfn::buffer
