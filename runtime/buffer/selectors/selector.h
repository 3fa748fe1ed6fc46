#pragma once
// Item selectors of the replay table (table.h), after Reverb's split
// (reverb/cc/selectors/interface.h and reverb/cc/table.h): a table stores the items, and
// selectors decide WHICH item a sample returns (the table's samplers) and WHICH item an
// insert into a full table evicts (its remover). A selector only sees slots (rows of the
// table's storage) and their keys; it never reads the items themselves.
//
// One file per selector:
//   uniform.h        every item equally likely                  (sampler)
//   prioritized.h    P(i) ∝ exp(log R_i), i.e. softmax(log R)  (sampler)
//   rank.h           P(i) ∝ 1 / (k N + rank of R_i)            (sampler)
//   fifo.h           the oldest item first                       (remover)
//   lowest_reward.h  the lowest log reward first                 (remover; may refuse)
//
// The table calls insert / erase for every item it stores / evicts, so a selector always
// knows the live slots. Removers are asked with select(1, ...) for their victim and with
// admits(incoming, victim) whether the incoming item may take its place (Reverb's removers
// always evict; the lowest-reward remover refuses an item that is not better).
//
// Thread-compatible: the table owns its selectors and calls them from one thread.

#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace gfn::buffer {

/// A row of the table's storage, in [0, capacity).
using Slot = std::int64_t;

/// What a selector may order by.
struct ItemKey {
  std::uint64_t serial = 0;  ///< insertion order (unique, increasing) of the table
  float log_reward = 0.f;    ///< natural log of the reward
};

/// How a sampler draws n items.
enum class Replacement {
  kAlways,  ///< n independent draws (Reverb; the manager's SAMPLE)
  /// without replacement when n <= size, with replacement when n > size (torchgfn's
  /// ReplayBuffer.sample; the trainer-local buffer)
  kOnlyWhenNeeded,
};

class ItemSelector {
 public:
  virtual ~ItemSelector() = default;
  /// The selector's name ("uniform", "prioritized", "rank", "fifo", "lowest_reward").
  virtual const char* name() const = 0;
  /// A new item now lives in `slot` (not currently held by this selector). O(log n) or better.
  virtual void insert(Slot slot, const ItemKey& key) = 0;
  /// The item in `slot` (held by this selector) is gone. O(log n) or better.
  virtual void erase(Slot slot) = 0;
  /// Items held.
  virtual std::int64_t size() const = 0;
  /// Appends n >= 1 slots to `out`; the selector holds at least one item (the table
  /// checks). Each file documents its rule and cost.
  virtual void select(std::int64_t n, std::mt19937_64& rng, std::vector<Slot>& out) = 0;
  /// As a remover: may `incoming` replace `victim` (the key of the slot select(1) chose)
  /// in a full table? The default always evicts.
  virtual bool admits(const ItemKey& /*incoming*/, const ItemKey& /*victim*/) const { return true; }
  /// The lowest log reward held, when this selector keeps its items ordered by it (the
  /// lowest-reward remover), else nullopt: ReplayTable::min_log_reward then costs O(1)
  /// instead of a scan of the table. nullopt when empty.
  virtual std::optional<float> lowest_log_reward() const { return std::nullopt; }

  // ---- Checkpoints (ReplayTable::save_state / restore_state, table.h). A restore
  // re-inserts every stored item in slot order; a selector whose order follows from the
  // keys (fifo, lowest_reward) is then exact, one that draws by position (uniform,
  // prioritized) also needs its own order back.
  /// The held slots in this selector's own order when it is not a function of the keys,
  /// else empty. O(size).
  virtual std::vector<Slot> order() const { return {}; }
  /// Rearranges the held slots into `order` (what order() returned for a selector holding
  /// the same slots). Throws std::invalid_argument if `order` is not a permutation of the
  /// held slots (or not empty, for a selector ordered by its keys). O(size).
  virtual void restore_order(const std::vector<Slot>& order) {
    if (!order.empty()) {
      throw std::invalid_argument(std::string("the ") + name() +
                                  " selector is ordered by its keys; a saved order was given");
    }
  }
};

}  // namespace gfn::buffer
