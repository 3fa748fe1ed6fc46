#pragma once
// The trained parameters of a run (docs/outputs.md "The run directory": model.pt):
// trainer rank 0 writes them at the end of every run, so that gfn-export (tools/gfn-export)
// can rebuild the model from the run's config.yaml later. A dict {our parameter name:
// float32 tensor} (runtime/gfn/estimators.h names, NoisyNet layers included) written by
// torch::pickle_save (Python: torch.load). This is the final model only, not a training
// checkpoint (no optimizer state, no buffer): runtime/checkpoint/ is separate.
// Not thread-safe (reads or writes the agent's model; a discrete or continuous one). Blocking file
// I/O, < 1 s for the MLPs of configs/.

#include <string>

namespace gfn::core {
class Agent;
}

namespace gfn::roles {

/// The file name inside output.dir.
inline constexpr const char* kFinalModelFile = "model.pt";

/// Writes `agent`'s named parameters (Agent::module(), agent.h) to `path`. Throws
/// std::runtime_error naming the path on a write failure.
void write_final_model(core::Agent& agent, const std::string& path);

/// Copies the parameters in `path` (written by write_final_model) into `agent`'s model.
/// Throws std::runtime_error (unreadable) or std::invalid_argument (a missing, unexpected or
/// differently shaped tensor: the config does not describe that model) naming path and tensor.
void read_final_model(core::Agent& agent, const std::string& path);

}  // namespace gfn::roles
