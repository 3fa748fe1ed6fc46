#include "runtime/buffer/selectors/fifo.h"

#include <stdexcept>

namespace gfn::buffer {

void FifoRemover::insert(Slot slot, const ItemKey& key) {
  if (static_cast<std::size_t>(slot) >= serial_.size()) {
    serial_.resize(static_cast<std::size_t>(slot) + 1);
  }
  if (!order_.emplace(key.serial, slot).second) {
    throw std::logic_error("fifo selector: slot inserted twice");
  }
  serial_[static_cast<std::size_t>(slot)] = key.serial;
}

void FifoRemover::erase(Slot slot) {
  if (slot < 0 || static_cast<std::size_t>(slot) >= serial_.size() ||
      order_.erase({serial_[static_cast<std::size_t>(slot)], slot}) == 0) {
    throw std::logic_error("fifo selector: erase of a slot it does not hold");
  }
}

void FifoRemover::select(std::int64_t n, std::mt19937_64& /*rng*/, std::vector<Slot>& out) {
  for (std::int64_t k = 0; k < n; ++k) out.push_back(order_.begin()->second);
}

}  // namespace gfn::buffer
