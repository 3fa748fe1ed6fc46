#pragma once
// output.export (docs/export.md "Export to PyTorch and torchgfn"): trainer rank 0 writes, at the
// end of the run, into output.dir:
//   model_state_dict.pt  the estimators as torchgfn's state dict (runtime/output/
//                        torchgfn_export.h), a dict of float32 tensors for torch.load;
//   model.json           the sidecar: environment (its name and options as it describes
//                        them, Environment::describe; state_dim, n_actions), preprocessor,
//                        architecture (torchgfn MLP arguments for PF, PB and logF), loss,
//                        logZ and the key list;
//   model_check.pt       a batch of preprocessed states (the first <= 64 enumerated states,
//                        else initial states) with the PF / PB logits gfn-runtime computes
//                        for them, so a Python loader can check it computes the same
//                        (tools/load_in_torchgfn.py --check).
// Not thread-safe (uses the learner's model). Throws std::invalid_argument for a model
// that cannot be exported (NoisyNet layers), std::runtime_error on a write failure.

#include <string>

#include "roles/experiment/experiment_config.h"

namespace gfn::core {
class Learner;
}

namespace gfn::roles {

/// Writes the three files above into config.output.dir. Blocking file I/O, < 1 s for
/// the MLPs of configs/.
void export_model(core::Learner& learner, const roles::ExperimentConfig& config);

}  // namespace gfn::roles
