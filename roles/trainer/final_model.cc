#include "roles/trainer/final_model.h"

#include <torch/nn/module.h>

#include "runtime/gfn/estimators.h"
#include "runtime/gfn/learner.h"
#include "runtime/output/torchgfn_import.h"

namespace gfn::roles {
namespace {

output::NamedTensors parameters_of(core::Learner& learner) {
  output::NamedTensors out;
  for (const auto& p : learner.model().named_parameters()) out.emplace_back(p.key(), p.value());
  return out;
}

}  // namespace

void write_final_model(core::Learner& learner, const std::string& path) {
  output::NamedTensors copies;
  for (const auto& [name, tensor] : parameters_of(learner)) {
    copies.emplace_back(name, tensor.detach().contiguous().clone());
  }
  output::write_torch_dict(path, copies);
}

void read_final_model(core::Learner& learner, const std::string& path) {
  output::load_state_dict(parameters_of(learner), output::read_torch_dict(path), path,
                          output::Naming::kOurs);
}

}  // namespace gfn::roles
