#pragma once
// spdlog set-up: every line is tagged with the rank and role of the process that
// wrote it, e.g.
//   [12:00:01.123] [rank 2 manager] [info] scored 64 trajectories
// plus rank-filtered helpers with the semantics of helios.core.distributed's
// global_print (only global rank 0 prints) and local_print (only local rank 0).

#include <spdlog/spdlog.h>

#include <string>
#include <utility>

namespace gfn::log {

/// Replaces spdlog's default logger by one writing to stderr (colour when a
/// terminal) with the pattern `[%H:%M:%S.%e] [rank <rank> <role>] [%l] %v` and the
/// given level. `sink` replaces stderr (tests capture output with an ostream sink).
/// Call once at start-up, before other threads log; may be called again (e.g. once
/// the role is known). Thread-safe logging afterwards (spdlog _mt sinks).
void setup_logging(int rank, const std::string& role,
                   spdlog::level::level_enum level = spdlog::level::info,
                   spdlog::sink_ptr sink = nullptr);

/// The logger of a process before its rank is known (command line, config, checkpoint
/// choice): setup_logging's sink and pattern tagged `[<program>]`. Colour only when stderr is
/// a terminal, so a log captured in a file has no escape codes (spdlog's own default logger
/// writes colour to stdout, which Open MPI's launcher makes a terminal).
void setup_startup_logging(const std::string& program);

/// The tag setup_logging puts on every line: "rank <rank> <role>".
std::string rank_tag(int rank, const std::string& role);

/// Logs through the default logger only when `my_rank == only_rank`.
template <typename... Args>
void log_on_rank(int only_rank, int my_rank, spdlog::level::level_enum level,
                 spdlog::format_string_t<Args...> fmt, Args&&... args) {
  if (my_rank == only_rank) spdlog::log(level, fmt, std::forward<Args>(args)...);
}

/// helios global_print: info line only on global rank 0.
template <typename... Args>
void global_print(int global_rank, spdlog::format_string_t<Args...> fmt, Args&&... args) {
  log_on_rank(0, global_rank, spdlog::level::info, fmt, std::forward<Args>(args)...);
}

/// helios local_print: info line only on local rank 0 (one line per node).
template <typename... Args>
void local_print(int local_rank, spdlog::format_string_t<Args...> fmt, Args&&... args) {
  log_on_rank(0, local_rank, spdlog::level::info, fmt, std::forward<Args>(args)...);
}

}  // namespace gfn::log
