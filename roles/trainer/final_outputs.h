#pragma once
// What a trainer produces at the end of its run (roles/trainer/trainer.h, after the drain):
// trainer-group rank 0's files (distribution.csv, model.pt, the export) and the union of the
// modes every trainer found (summary.json modes_found).
//
// Not thread-safe (reads the agent's model). Errors: std::runtime_error when a file cannot
// be written; the trainer group's collective errors.

#include <cstdint>
#include <set>
#include <vector>

#include "roles/experiment/experiment_config.h"

namespace gfn::core {
class Agent;
class ModeTracker;
}  // namespace gfn::core
namespace gfn::transport {
class Group;
}

namespace gfn::roles {

/// Trainer-group rank 0's files in output.dir: distribution.csv (runtime/output/
/// distribution_csv.h: the exact terminating-state distribution learned vs the true one;
/// with validation on an enumerable environment), model.pt (roles/trainer/final_model.h)
/// and, with output.export_model, the export (roles/trainer/model_export.h). A continuous
/// agent (Agent::continuous()) writes density.csv instead of distribution.csv (runtime/output/
/// density_csv.h: the learned and the true density on the validation grid; with validation
/// and an environment with a target), model.pt and the export (under torchgfn's Box
/// estimator names). Blocking I/O.
void write_final_files(const roles::ExperimentConfig& config, core::Agent& agent);

/// The union over the trainer group of every trainer's mode ids (Environment::mode_hits ids).
/// Collective over `trainers` (one all-gather of the ids).
std::set<std::int64_t> global_mode_union(transport::Group& trainers,
                                         const std::vector<std::int64_t>& mine);

/// The union of every trainer's discovered modes (a null tracker contributes none).
/// Collective over `trainers`.
std::set<std::int64_t> global_modes_found(transport::Group& trainers,
                                          const core::ModeTracker* tracker);

/// validation.fresh_samples: this trainer's share of the fresh samples (the first
/// n mod size ranks take one more).
std::int64_t fresh_sample_share(std::int64_t n, int rank, int size);

}  // namespace gfn::roles
