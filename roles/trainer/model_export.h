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
// A continuous environment (Box, core::ContinuousLearner) writes the same three files under
// the names of torchgfn's Box estimators (src/gfn/gym/helpers/box_cartesian_utils.py,
// re-exported by box_utils.py; tutorials/examples/train_box.py): PF = BoxCartesianPFMLP
// ("pf.module.trunk.<i>.*", "pf.module.last_layer.*" inside BoxCartesianPFEstimator), PB =
// BoxCartesianPBMLP ("pb.module.*"; its trunk is PF's when tied; none with model.uniform_pb:
// torchgfn's UniformModule has no parameters), "logZ" for tb / zvar, and for db / subtb the
// BoxStateFlowModule ("logF.module.trunk.*", "logF.module.last_layer.*",
// "logF.module.logZ_value": DBGFlowNet has no logZ of its own). Its check batch is s0 and 63
// exact samples of R / Z (seed 0) with the raw PF / PB outputs and log F, the modules' inputs
// being the states themselves (BoxCartesian*MLP map them to 2 s - 1 inside). The polar Box
// (env.name box_polar) writes torchgfn's polar estimators (box_polar_utils.py): PF = BoxPFMLP
// ("pf.module.trunk.<i>.*", "pf.module.last_layer.*" with 1 + 3 K outputs, "pf.module.PFs0"
// [1, 5 K0], the s0 parameters), PB = BoxPBMLP (3 K outputs), both on the states themselves;
// its check's pf_logits are the last layer's raw outputs followed by PFs0 on every row.
// Not thread-safe (uses the learner's model). Throws std::invalid_argument for a model
// that cannot be exported (NoisyNet layers), std::runtime_error on a write failure.

#include <string>

#include "roles/experiment/experiment_config.h"

namespace gfn::core {
class ContinuousLearner;
class Learner;
}  // namespace gfn::core

namespace gfn::roles {

/// Writes the three files above into config.output.dir. Blocking file I/O, < 1 s for
/// the MLPs of configs/.
void export_model(core::Learner& learner, const roles::ExperimentConfig& config);
/// The same for a continuous environment's model (above).
void export_model(core::ContinuousLearner& learner, const roles::ExperimentConfig& config);

}  // namespace gfn::roles
