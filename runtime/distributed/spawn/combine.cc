#include "runtime/distributed/spawn/combine.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "runtime/gfn/flat_parameters.h"
#include "transport/transport.h"

namespace gfn::dist::spawn {
namespace {

using transport::TransportError;

void check_parameters(const std::vector<at::Tensor>& parameters) {
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const auto& t = parameters[i];
    if (!t.defined() || !t.device().is_cpu() || t.scalar_type() != at::kFloat) {
      throw TransportError(
          fmt::format("spawn combine: parameter {} must be a defined float32 CPU tensor", i));
    }
  }
}

}  // namespace

bool is_replaced(const Decision& decision, int group_rank) {
  return std::find(decision.replaced.begin(), decision.replaced.end(), group_rank) !=
         decision.replaced.end();
}

void combine_donors(const std::vector<at::Tensor>& parameters, const Decision& decision,
                    double momentum, transport::Group& group) {
  if (!group.is_member()) {
    throw TransportError(fmt::format(
        "spawn combine: this rank is not a member of the group of {} ranks", group.size()));
  }
  if (!decision.replace || decision.donors.empty()) return;
  if (static_cast<int>(decision.weights.size()) != group.size()) {
    throw std::invalid_argument(fmt::format("spawn combine: {} donor weights for a group of {}",
                                            decision.weights.size(), group.size()));
  }
  check_parameters(parameters);
  c10::AutoGradMode no_grad(false);
  at::Tensor own = core::flatten_parameters(parameters);
  at::Tensor combined = own * decision.weights[static_cast<std::size_t>(group.rank())];
  group.all_reduce(combined.data_ptr(), static_cast<std::size_t>(combined.numel()),
                   transport::DType::kFloat32, transport::ReduceOp::kSum);
  if (!is_replaced(decision, group.rank())) return;
  core::blend(own.data_ptr<float>(), combined.data_ptr<float>(), own.numel(), momentum);
  core::assign_flat(own, parameters);
}

}  // namespace gfn::dist::spawn
