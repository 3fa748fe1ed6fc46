#pragma once
// What a trainer produces at the end of its run (roles/trainer/trainer.h, after the drain):
// trainer-group rank 0's files (distribution.csv, model.pt, the export) and the union of the
// modes every trainer found (summary.json modes_found).
//
// Not thread-safe (reads the learner's model). Errors: std::runtime_error when a file cannot
// be written; the trainer group's collective errors.

#include <cstdint>

#include "roles/experiment/experiment_config.h"

namespace gfn::core {
class Learner;
class ModeTracker;
}  // namespace gfn::core
namespace gfn::transport {
class Group;
}

namespace gfn::roles {

/// Trainer-group rank 0's files in output.dir: distribution.csv (runtime/output/
/// distribution_csv.h: the exact terminating-state distribution learned vs the true one;
/// with validation on an enumerable environment), model.pt (roles/trainer/final_model.h)
/// and, with output.export_model, the export (roles/trainer/model_export.h). Blocking I/O.
void write_final_files(const roles::ExperimentConfig& config, core::Learner& learner);

/// The number of distinct modes in the union over the trainer group of every trainer's
/// discovered modes (state indices; a null tracker contributes none). Collective over
/// `trainers` (one all-gather of the indices).
std::int64_t global_modes_found(transport::Group& trainers, const core::ModeTracker* tracker);

}  // namespace gfn::roles
