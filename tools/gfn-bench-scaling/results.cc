#include "tools/gfn-bench-scaling/results.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "tools/common/json_file.h"

namespace gfn::bench_scaling {
namespace fs = std::filesystem;
using gfn::tools::number_at;

JobFigures read_job_summary(const std::string& path) {
  const auto j = gfn::tools::read_json_file(path);
  JobFigures f;
  f.trajectories = number_at(j, "trajectories", path);
  f.wall_s = number_at(j, "wall_s", path);
  f.train_s = gfn::tools::optional_number_at(j, "train_s", path);
  f.ms_per_iteration = number_at(j, "ms_per_iteration", path);
  f.iterations = static_cast<std::int64_t>(number_at(j, "iterations", path));
  if (j.contains("ms_per_iteration_per_trainer") &&
      j.at("ms_per_iteration_per_trainer").is_array()) {
    for (const auto& v : j.at("ms_per_iteration_per_trainer")) {
      if (v.is_number()) f.ms_per_trainer.push_back(v.get<double>());
    }
  }
  if (!(f.wall_s > 0)) {
    throw std::runtime_error(fmt::format("{}: key 'wall_s' is not positive", path));
  }
  if (f.train_s && !(*f.train_s > 0)) {
    throw std::runtime_error(fmt::format("{}: key 'train_s' is not positive", path));
  }
  return f;
}

ManagerFigures read_manager_stats(const std::string& path) {
  const auto j = gfn::tools::read_json_file(path);
  ManagerFigures m;
  m.cpu_s = number_at(j, "cpu_s", path);
  m.wall_s = number_at(j, "wall_s", path);
  return m;
}

std::optional<ManagerFigures> read_managers(const std::string& output_dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(output_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("buffer_manager_", 0) == 0 && entry.path().extension() == ".json") {
      files.push_back(entry.path().string());
    }
  }
  if (files.empty()) return std::nullopt;
  std::sort(files.begin(), files.end());
  ManagerFigures total;
  total.managers = 0;
  for (const auto& file : files) {
    const auto m = read_manager_stats(file);
    total.cpu_s += m.cpu_s;
    total.wall_s = std::max(total.wall_s, m.wall_s);
    ++total.managers;
  }
  return total;
}

}  // namespace gfn::bench_scaling
