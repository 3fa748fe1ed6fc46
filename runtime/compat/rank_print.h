#pragma once
// helios.core.distributed global_print / local_print (seed 000) on the default process
// group: an info line through spdlog (runtime/log/logging.h) only on one global rank /
// one local rank. Without distribution this process is global and local rank 0.
// Non-blocking, no communication; thread-safe (spdlog).
//   gfn::compat::global_print("loss {:.3f}", loss);          // only global rank 0
//   gfn::compat::local_print_on(1, "node-local note");       // only local rank 1 of each node

#include <utility>

#include "runtime/compat/process_group.h"
#include "runtime/log/logging.h"

namespace gfn::compat {

/// helios global_print(*args, global_rank=0) with the default rank 0.
template <typename... Args>
void global_print(spdlog::format_string_t<Args...> fmt, Args&&... args) {
  log::log_on_rank(0, get_global_rank(), spdlog::level::info, fmt, std::forward<Args>(args)...);
}

/// helios global_print with an explicit `global_rank`.
template <typename... Args>
void global_print_on(int global_rank, spdlog::format_string_t<Args...> fmt, Args&&... args) {
  log::log_on_rank(global_rank, get_global_rank(), spdlog::level::info, fmt,
                   std::forward<Args>(args)...);
}

/// helios local_print(*args, local_rank=0) with the default local rank 0.
template <typename... Args>
void local_print(spdlog::format_string_t<Args...> fmt, Args&&... args) {
  log::log_on_rank(0, get_local_rank(), spdlog::level::info, fmt, std::forward<Args>(args)...);
}

/// helios local_print with an explicit `local_rank`.
template <typename... Args>
void local_print_on(int local_rank, spdlog::format_string_t<Args...> fmt, Args&&... args) {
  log::log_on_rank(local_rank, get_local_rank(), spdlog::level::info, fmt,
                   std::forward<Args>(args)...);
}

}  // namespace gfn::compat
