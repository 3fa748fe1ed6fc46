#include "roles/trainer/final_model.h"

#include <torch/nn/module.h>

#include "runtime/gfn/agent.h"
#include "runtime/output/torchgfn_import.h"

namespace gfn::roles {
namespace {

output::NamedTensors parameters_of(core::Agent& agent) {
  output::NamedTensors out;
  for (const auto& p : agent.module().named_parameters()) out.emplace_back(p.key(), p.value());
  return out;
}

}  // namespace

void write_final_model(core::Agent& agent, const std::string& path) {
  output::NamedTensors copies;
  for (const auto& [name, tensor] : parameters_of(agent)) {
    copies.emplace_back(name, tensor.detach().contiguous().clone());
  }
  output::write_torch_dict(path, copies);
}

void read_final_model(core::Agent& agent, const std::string& path) {
  output::load_state_dict(parameters_of(agent), output::read_torch_dict(path), path,
                          output::Naming::kOurs);
}

}  // namespace gfn::roles
