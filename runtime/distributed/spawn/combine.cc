#include "runtime/distributed/spawn/combine.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

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

/// A float32 [sum of numels] copy of the parameters, in order.
at::Tensor flat_copy(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> parts;
  parts.reserve(parameters.size());
  for (const auto& t : parameters) parts.push_back(t.detach().reshape({-1}));
  if (parts.empty()) return at::empty({0}, at::kFloat);
  return at::cat(parts).contiguous();
}

void copy_back(const at::Tensor& flat, const std::vector<at::Tensor>& parameters) {
  std::int64_t offset = 0;
  for (const auto& t : parameters) {
    const std::int64_t n = t.numel();
    t.detach().copy_(flat.narrow(0, offset, n).view(t.sizes()));
    offset += n;
  }
}

}  // namespace

at::Tensor flatten_parameters(const std::vector<at::Tensor>& parameters) {
  check_parameters(parameters);
  c10::AutoGradMode no_grad(false);
  return flat_copy(parameters);
}

void assign_flat(const at::Tensor& flat, const std::vector<at::Tensor>& parameters) {
  std::int64_t total = 0;
  for (const auto& t : parameters) total += t.numel();
  if (flat.numel() != total) {
    throw std::invalid_argument(
        fmt::format("spawn: {} flat values for parameters of {} values", flat.numel(), total));
  }
  c10::AutoGradMode no_grad(false);
  copy_back(flat, parameters);
}

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
  at::Tensor own = flat_copy(parameters);
  at::Tensor combined = own * decision.weights[static_cast<std::size_t>(group.rank())];
  group.all_reduce(combined.data_ptr(), static_cast<std::size_t>(combined.numel()),
                   transport::DType::kFloat32, transport::ReduceOp::kSum);
  if (!is_replaced(decision, group.rank())) return;
  blend(own.data_ptr<float>(), combined.data_ptr<float>(), own.numel(), momentum);
  copy_back(own, parameters);
}

void blend_parameters(const std::vector<at::Tensor>& parameters,
                      const std::vector<at::Tensor>& fresh, double momentum) {
  if (parameters.size() != fresh.size()) {
    throw std::invalid_argument(fmt::format("spawn blend: {} parameters but {} fresh ones",
                                            parameters.size(), fresh.size()));
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (!parameters[i].sizes().equals(fresh[i].sizes())) {
      throw std::invalid_argument(fmt::format("spawn blend: parameter {} has another shape", i));
    }
  }
  check_parameters(parameters);
  check_parameters(fresh);
  c10::AutoGradMode no_grad(false);
  at::Tensor own = flat_copy(parameters);
  at::Tensor other = flat_copy(fresh);
  blend(own.data_ptr<float>(), other.data_ptr<float>(), own.numel(), momentum);
  copy_back(own, parameters);
}

}  // namespace gfn::dist::spawn
