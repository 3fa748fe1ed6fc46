#pragma once
// Rank checks and rank-0 guards of utils.distributed (seed 004, axolotl-style helpers):
// is_distributed, is_main_process, barrier, zero_first, zero_only.
//
// Every function takes an optional process group (`nullptr` = WORLD, the default
// process group of runtime/compat/process_group.h); "rank 0" means group rank 0.
// Without distribution (init_dist not called, no group given) every function runs as
// a world of one: this process is the main process and barriers are no-ops, as in the
// seed. With a group this rank is not a member of: transport::TransportError.

#include <type_traits>
#include <utility>

#include "runtime/compat/process_group.h"

namespace gfn::compat {

/// True when the default process group is initialized (seed is_distributed). Same as
/// is_dist_active(). Non-blocking.
bool is_distributed();

/// True on group rank 0 of `group` (WORLD when null), and always true without
/// distribution (seed is_main_process). Non-blocking.
bool is_main_process(transport::Group* group = nullptr);

/// Blocks until every member of `group` (WORLD when null) has entered the barrier
/// (seed barrier); a no-op without distribution when no group is given.
void barrier(transport::Group* group = nullptr);

/// RAII form of seed zero_first: group rank 0 runs the guarded scope first, then the
/// others. The constructor blocks the non-zero ranks (barrier) until rank 0 leaves its
/// scope; the destructor of rank 0 enters that barrier. Every member must create the
/// guard. If rank 0's scope throws, the destructor still enters the barrier (the others
/// are released). A no-op without distribution.
///   { gfn::compat::ZeroFirst guard; download_dataset(); }  // rank 0 downloads, the others reuse
class ZeroFirst {
 public:
  explicit ZeroFirst(transport::Group* group = nullptr);
  ~ZeroFirst();
  ZeroFirst(const ZeroFirst&) = delete;
  ZeroFirst& operator=(const ZeroFirst&) = delete;

 private:
  transport::Group* group_ = nullptr;  // null: no distribution
  bool main_ = true;
};

/// Callable form of seed zero_first: runs `fn()` on group rank 0 first, then on the
/// others; returns what `fn` returns on every rank. Collective (two barrier phases as
/// ZeroFirst).
template <class F>
decltype(auto) zero_first(F&& fn, transport::Group* group = nullptr) {
  ZeroFirst guard(group);
  return std::forward<F>(fn)();
}

/// Seed zero_only: runs `fn()` only on the main process (group rank 0, or always
/// without distribution). Not collective, no barrier. Returns true when `fn` ran.
/// (C++ cannot skip a scope from a guard; `if (gfn::compat::is_main_process()) {...}` is
/// the scoped form.)
template <class F>
bool zero_only(F&& fn, transport::Group* group = nullptr) {
  if (!is_main_process(group)) return false;
  std::forward<F>(fn)();
  return true;
}

}  // namespace gfn::compat
