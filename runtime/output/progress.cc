#include "runtime/output/progress.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

namespace gfn::output {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--";
  const auto s = static_cast<std::int64_t>(std::llround(seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  return fmt::format("{}h{:02d}m", s / 3600, (s % 3600) / 60);
}

std::string format_rate(double per_second) {
  if (!std::isfinite(per_second) || per_second < 0) return "--";
  const char* suffix = "";
  double v = per_second;
  if (v >= 999.5e3) {
    v /= 1e6;
    suffix = "M";
  } else if (v >= 999.5) {
    v /= 1e3;
    suffix = "k";
  }
  if (*suffix == '\0' && v >= 99.95) return fmt::format("{:.0f}", v);
  const int decimals = v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2;
  return fmt::format("{:.{}f}{}", v, decimals, suffix);
}

std::string format_progress(const ProgressSnapshot& s) {
  const double t = s.elapsed_s;
  const double it_rate = t > 0 ? s.iteration / t : NAN;
  const double traj_rate = t > 0 ? s.trajectories / t : NAN;
  const double eta = s.iteration > 0 && t > 0 ? (s.total - s.iteration) * t / s.iteration : NAN;
  const auto percent = s.total > 0 ? 100 * s.iteration / s.total : 0;
  std::string line = fmt::format(
      "iteration {}/{} ({}%) | {} it/s | {} traj/s | ETA {} | loss {:.4g}", s.iteration, s.total,
      percent, format_rate(it_rate), format_rate(traj_rate), format_duration(eta), s.loss);
  if (s.n_modes > 0) line += fmt::format(" | modes {}/{}", s.modes_found, s.n_modes);
  return line;
}

std::string format_bar(std::int64_t done, std::int64_t total, int width) {
  const auto w = std::max(width, 0);
  const auto filled =
      total > 0 ? static_cast<int>(std::clamp<std::int64_t>(done * w / total, 0, w)) : 0;
  return "[" + std::string(filled, '#') + std::string(w - filled, ' ') + "]";
}

ProgressMode resolve_progress_mode(ProgressMode mode, bool stderr_is_terminal) {
  // The bar redraws with terminal escape codes: never into a file or a pipe.
  if (mode == ProgressMode::kAuto || mode == ProgressMode::kBar) {
    return stderr_is_terminal ? ProgressMode::kBar : ProgressMode::kLines;
  }
  return mode;
}

ProgressReporter::ProgressReporter(ProgressMode mode, double every_s, std::FILE* out)
    : mode_(mode), every_s_(every_s), out_(out) {}

bool ProgressReporter::update(const ProgressSnapshot& s) {
  if (mode_ == ProgressMode::kOff || mode_ == ProgressMode::kAuto) return false;
  const bool bar = mode_ == ProgressMode::kBar;
  const bool last = s.iteration >= s.total;
  if (!last && s.elapsed_s - last_shown_s_ < (bar ? 0.2 : every_s_)) return false;
  last_shown_s_ = s.elapsed_s;
  if (bar) {
    std::fprintf(out_, "\r\033[K%s %s", format_bar(s.iteration, s.total, 20).c_str(),
                 format_progress(s).c_str());
    std::fflush(out_);
    bar_drawn_ = true;
  } else {
    spdlog::info("progress: {}", format_progress(s));
  }
  return true;
}

void ProgressReporter::clear_line() {
  if (!bar_drawn_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
}

void ProgressReporter::finish() {
  if (!bar_drawn_) return;
  std::fputc('\n', out_);
  std::fflush(out_);
  bar_drawn_ = false;
}

}  // namespace gfn::output
