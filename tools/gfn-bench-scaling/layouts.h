#pragma once
// The layouts gfn-bench-scaling compares and the gfn-train command line of one run of
// each (tools/mpirun.sh -np <n> gfn-train --config <base> --set ...). Keys: the
// registry of runtime/config/config.cc; the per-trainer batch is train.batch_size /
// number of trainers (roles/trainer/trainer.cc), so train.batch_size is set to
// trainers x batch_per_trainer.

#include <cstdint>
#include <string>
#include <vector>

namespace gfn::bench_scaling {

struct Layout {
  int id = 0;
  std::string label;        ///< e.g. "2 trainers + 1 manager, sync"
  std::string short_label;  ///< e.g. "2t+1m sync" (goal lines, progress)
  std::string slug;         ///< run directory name, e.g. "L3-2t1m-sync"
  int trainers = 1;
  int managers = 0;         ///< layout.num_buffers
  std::string submit_mode;  ///< buffer.submit_mode; "" keeps the base config's
  /// The layout with the same trainers and no manager, that this one's efficiency is
  /// relative to; 0 = none (the layout has no manager).
  int baseline = 0;
  /// Not in the default selection: run only as another layout's baseline (or by id).
  bool hidden = false;
  int np() const { return trainers + managers; }
};

/// Layouts 1-6 and the hidden 7 (3 trainers, no manager: layout 6's baseline), by id.
const std::vector<Layout>& all_layouts();

/// The layout with this id. Throws std::invalid_argument for an unknown id.
const Layout& layout_by_id(int id);

/// The ids of the default selection: the layouts that are not hidden (1-6).
std::vector<int> default_layout_ids();

/// Parses --layouts: comma-separated ids or ranges ("1,3", "3-5", "1-6,7"). Duplicates
/// are dropped. Throws std::invalid_argument naming --layouts and the offending item for
/// an empty list, a non-number or an unknown id.
std::vector<int> parse_layout_list(const std::string& text);

/// The layouts one round runs, in order: `selected` plus the baselines they need, each
/// once, in the fixed order 1 2 3 4 5 7 6 (a baseline runs next to the layouts it is
/// compared with, so that a within-round ratio compares runs close in time).
std::vector<int> run_order(const std::vector<int>& selected);

/// Settings shared by every run (the options of gfn-bench-scaling).
struct RunSettings {
  std::string config = "configs/bench/distributed_3t1b.yaml";
  std::int64_t iterations = 1000;
  std::int64_t batch_per_trainer = 128;
  /// buffer.remote_buffer_freq of the layouts with a manager (the others keep 1).
  std::int64_t submit_every = 1;
  std::int64_t capacity = 10000;
  std::vector<std::string> extra_sets;  ///< passed through as --set, last (they win)
};

/// The `key=value` overrides of one run of `layout` writing into output_dir, in order:
/// layout.num_buffers, layout.coordinator=false, train.n_iterations, train.batch_size,
/// validation.enabled=false, buffer.capacity, buffer.remote_buffer_freq,
/// buffer.submit_mode (if the layout sets it), output.dir, then settings.extra_sets.
std::vector<std::string> set_list(const Layout& layout, const RunSettings& settings,
                                  const std::string& output_dir);

struct Command {
  std::string program;            ///< the MPI launcher
  std::vector<std::string> args;  ///< -np <n> <binary> --config <c> --set k=v ...
  std::string to_string() const;  ///< program and args joined by spaces (for printing)
};

/// `mpirun -np <layout.np()> binary --config <settings.config> --set <set_list...>`.
Command job_command(const Layout& layout, const RunSettings& settings, const std::string& mpirun,
                    const std::string& binary, const std::string& output_dir);

}  // namespace gfn::bench_scaling
