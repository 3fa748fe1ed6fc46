#include "runtime/log/logging.h"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <memory>

namespace gfn::log {

std::string rank_tag(int rank, const std::string& role) {
  return fmt::format("rank {} {}", rank, role);
}

namespace {

void install(const std::string& tag, spdlog::level::level_enum level, spdlog::sink_ptr sink) {
  if (!sink) sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  std::string escaped;  // '%' starts a pattern flag: escape it in the role name
  for (char c : tag) escaped += (c == '%') ? std::string("%%") : std::string(1, c);
  auto logger = std::make_shared<spdlog::logger>("gfn", std::move(sink));
  logger->set_pattern("[%H:%M:%S.%e] [" + escaped + "] [%^%l%$] %v");
  logger->set_level(level);
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace

void setup_logging(int rank, const std::string& role, spdlog::level::level_enum level,
                   spdlog::sink_ptr sink) {
  install(rank_tag(rank, role), level, std::move(sink));
}

void setup_startup_logging(const std::string& program) {
  install(program, spdlog::level::info, nullptr);
}

}  // namespace gfn::log
