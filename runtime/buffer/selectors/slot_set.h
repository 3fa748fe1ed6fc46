#pragma once
// The live slots of a selector as a dense array with O(1) insert and erase (swap with the
// last) and O(1) access by position, for the samplers that draw by position (uniform.h,
// prioritized.h). Reverb's uniform selector keeps its keys the same way. The order of
// slots() depends on the history of inserts and erases; a checkpoint saves it (reorder).
// Thread-compatible.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/buffer/selectors/selector.h"

namespace gfn::buffer {

class SlotSet {
 public:
  /// Throws std::logic_error if `slot` is negative or already held.
  void insert(Slot slot) {
    if (slot < 0) throw std::logic_error("selector: negative slot");
    if (static_cast<std::size_t>(slot) >= position_.size()) {
      position_.resize(static_cast<std::size_t>(slot) + 1, -1);
    }
    auto& pos = position_[static_cast<std::size_t>(slot)];
    if (pos >= 0) throw std::logic_error("selector: slot inserted twice");
    pos = static_cast<std::int64_t>(slots_.size());
    slots_.push_back(slot);
  }
  /// Throws std::logic_error if `slot` is not held.
  void erase(Slot slot) {
    if (slot < 0 || static_cast<std::size_t>(slot) >= position_.size() ||
        position_[static_cast<std::size_t>(slot)] < 0) {
      throw std::logic_error("selector: erase of a slot it does not hold");
    }
    const auto pos = position_[static_cast<std::size_t>(slot)];
    const Slot last = slots_.back();
    slots_[static_cast<std::size_t>(pos)] = last;
    position_[static_cast<std::size_t>(last)] = pos;
    slots_.pop_back();
    position_[static_cast<std::size_t>(slot)] = -1;
  }
  /// Rearranges the held slots into `order` (a permutation of slots(), e.g. saved by a
  /// checkpoint). Throws std::invalid_argument, changing nothing, if it is not one. O(size).
  void reorder(const std::vector<Slot>& order) {
    std::vector<char> seen(position_.size(), 0);
    bool ok = order.size() == slots_.size();
    for (std::size_t k = 0; ok && k < order.size(); ++k) {
      const Slot s = order[k];
      ok = s >= 0 && static_cast<std::size_t>(s) < position_.size() &&
           position_[static_cast<std::size_t>(s)] >= 0 && !seen[static_cast<std::size_t>(s)];
      if (ok) seen[static_cast<std::size_t>(s)] = 1;
    }
    if (!ok) {
      throw std::invalid_argument("selector: a saved order of " + std::to_string(order.size()) +
                                  " slots is not a permutation of the " +
                                  std::to_string(slots_.size()) + " held");
    }
    slots_ = order;
    for (std::size_t k = 0; k < slots_.size(); ++k) {
      position_[static_cast<std::size_t>(slots_[k])] = static_cast<std::int64_t>(k);
    }
  }
  std::int64_t size() const { return static_cast<std::int64_t>(slots_.size()); }
  /// The held slots, in no particular order.
  const std::vector<Slot>& slots() const { return slots_; }

 private:
  std::vector<Slot> slots_;
  std::vector<std::int64_t> position_;  ///< per slot: index in slots_, or -1
};

}  // namespace gfn::buffer
