#pragma once
// What one gfn-bench-scaling run reads back from its output.dir (roles/run_job.cc):
// summary.json (trainer rank 0) and buffer_manager_<rank>.json (each manager).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gfn::bench_scaling {

/// summary.json's figures.
struct JobFigures {
  double trajectories = 0;  ///< trained on, all trainers
  double wall_s = 0;        ///< the whole job, start-up and final reports included
  /// run_trainer's time, max over trainers: excludes process and transport start-up and the
  /// final reports (nullopt: written by a gfn-train without the field).
  std::optional<double> train_s;
  double ms_per_iteration = 0;         ///< median over trainers of each one's median
  std::vector<double> ms_per_trainer;  ///< ms_per_iteration_per_trainer
  std::int64_t iterations = 0;
  /// The time trajectories/s is computed over: train_s, else wall_s.
  double busy_s() const { return train_s.value_or(wall_s); }
  double trajectories_per_s() const { return trajectories / busy_s(); }
  double wall_trajectories_per_s() const { return trajectories / wall_s; }
};

/// Reads summary.json at `path`. Throws std::runtime_error naming the file and the key
/// when it cannot be read, is not JSON, or trajectories / wall_s / ms_per_iteration /
/// iterations is missing or not a number; or when wall_s (or train_s) is not positive.
JobFigures read_job_summary(const std::string& path);

/// A buffer manager's CPU and wall time (buffer_manager_<rank>.json cpu_s, wall_s).
struct ManagerFigures {
  double cpu_s = 0;  ///< process CPU time (user + system) while the manager ran
  double wall_s = 0;
  int managers = 1;  ///< files read (several managers: cpu_s summed, wall_s the longest)
  double cpu_percent() const { return wall_s > 0 ? 100.0 * cpu_s / wall_s : 0.0; }
};

/// Reads one buffer_manager_<rank>.json. Throws std::runtime_error naming the file and
/// the key when cpu_s or wall_s is missing (a gfn-train that does not write them) or the
/// file cannot be read.
ManagerFigures read_manager_stats(const std::string& path);

/// Reads every buffer_manager_*.json in output_dir (cpu_s summed, wall_s the longest);
/// nullopt when there is none. Throws like read_manager_stats.
std::optional<ManagerFigures> read_managers(const std::string& output_dir);

}  // namespace gfn::bench_scaling
