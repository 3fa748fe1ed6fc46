#pragma once
// Collectives on arbitrary values (not only scalars or tensors) of utils.distributed
// (seed 004): compute_and_broadcast, gather_from_all_ranks,
// gather_scalar_from_all_ranks, reduce_and_broadcast.
//
// Values travel as cereal binary bytes (runtime/compat/object_bytes.h): T must be
// default-constructible and cereal-serializable (include the cereal header of any
// standard container other than string / vector / pair / optional). Every member must
// call the same function with the same root, group and type, in the same order.
//
// `group` null = WORLD (runtime/compat/process_group.h); `root` is a group rank.
// Without distribution (init_dist not called, no group given) the functions run as a
// world of one, as in the seed: the value is computed locally and this process is
// the root (root must be 0).
// Blocking. Errors: transport::TransportError (this rank not a member, root not a group
// rank, communication failure); std::runtime_error when bytes cannot be decoded as T;
// whatever fn / reduce throw (on the rank that calls them: the other ranks then block
// until the transport timeout).

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/compat/object_bytes.h"
#include "runtime/compat/process_group.h"
#include "transport/gather.h"

namespace gfn::compat {
namespace value_detail {

// `group`, else WORLD when distributed, else null (a world of one).
inline transport::Group* resolve(transport::Group* group) {
  if (group != nullptr) return group;
  return is_dist_active() ? &world_group() : nullptr;
}

inline void check_local_root(int root, const char* caller) {
  if (root != 0) {
    throw transport::TransportError(std::string(caller) + ": root " + std::to_string(root) +
                                    " without distribution (a world of one has only rank 0)");
  }
}

// fn() when `x` is callable without arguments, else `x` itself.
template <class X>
decltype(auto) value_of(X&& x) {
  if constexpr (std::is_invocable_v<X&&>) {
    return std::invoke(std::forward<X>(x));
  } else {
    return std::forward<X>(x);
  }
}

template <class X>
using value_t = std::decay_t<decltype(value_of(std::declval<X>()))>;

}  // namespace value_detail

/// Seed compute_and_broadcast: `fn()` runs only on group rank `root`; every member
/// returns its result. Two broadcasts (length, bytes).
template <class F>
std::decay_t<std::invoke_result_t<F&>> compute_and_broadcast(F&& fn, int root = 0,
                                                             transport::Group* group = nullptr) {
  using T = std::decay_t<std::invoke_result_t<F&>>;
  transport::Group* g = value_detail::resolve(group);
  if (g == nullptr) {
    value_detail::check_local_root(root, "compute_and_broadcast");
    return fn();
  }
  transport::Bytes bytes;
  if (g->is_member() && g->rank() == root) bytes = to_bytes<T>(fn());
  broadcast_bytes(*g, bytes, root, "compute_and_broadcast");
  return from_bytes<T>(bytes, "compute_and_broadcast");
}

/// Seed gather_from_all_ranks: every member contributes `fn_or_value` (a callable
/// taking no arguments is called; anything else is the value itself). Group rank
/// `root` returns the values of all members in group-rank order; the others return
/// std::nullopt. Two all-gathers (transport::gather_bytes).
template <class X>
std::optional<std::vector<value_detail::value_t<X>>> gather_from_all_ranks(
    X&& fn_or_value, int root = 0, transport::Group* group = nullptr) {
  using T = value_detail::value_t<X>;
  transport::Group* g = value_detail::resolve(group);
  if (g == nullptr) {
    value_detail::check_local_root(root, "gather_from_all_ranks");
    return std::vector<T>{T(value_detail::value_of(std::forward<X>(fn_or_value)))};
  }
  if (!g->is_member()) {
    throw transport::TransportError(
        "gather_from_all_ranks: this rank is not a member of the group");
  }
  const T mine = value_detail::value_of(std::forward<X>(fn_or_value));
  auto all = transport::gather_bytes(*g, to_bytes<T>(mine), root);
  if (g->rank() != root) return std::nullopt;
  std::vector<T> out;
  out.reserve(all.size());
  for (const auto& b : all) out.push_back(from_bytes<T>(b, "gather_from_all_ranks"));
  return out;
}

/// Seed gather_scalar_from_all_ranks: gather_from_all_ranks restricted to arithmetic
/// values (int, float, double, bool, ...).
template <class X>
std::optional<std::vector<value_detail::value_t<X>>> gather_scalar_from_all_ranks(
    X&& fn_or_value, int root = 0, transport::Group* group = nullptr) {
  static_assert(std::is_arithmetic_v<value_detail::value_t<X>>,
                "gather_scalar_from_all_ranks: the value must be arithmetic; use "
                "gather_from_all_ranks for other types");
  return gather_from_all_ranks(std::forward<X>(fn_or_value), root, group);
}

/// Seed reduce_and_broadcast: every member computes `fn1()`; group rank 0 reduces the
/// values (in group-rank order) with `fn2(const std::vector<T>&)`; every member returns
/// that result. A gather (two all-gathers) and a broadcast (two broadcasts).
template <class F1, class F2>
auto reduce_and_broadcast(F1&& fn1, F2&& fn2, transport::Group* group = nullptr) {
  using T = std::decay_t<std::invoke_result_t<F1&>>;
  using R = std::decay_t<std::invoke_result_t<F2&, const std::vector<T>&>>;
  auto values = gather_from_all_ranks(fn1, 0, group);
  return compute_and_broadcast(
      [&]() -> R { return fn2(static_cast<const std::vector<T>&>(*values)); }, 0, group);
}

}  // namespace gfn::compat
