#include "runtime/gfn/flat_parameters.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace gfn::core {
namespace {

void check_parameters(const std::vector<at::Tensor>& parameters) {
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const auto& t = parameters[i];
    if (!t.defined() || !t.device().is_cpu() || t.scalar_type() != at::kFloat) {
      throw std::invalid_argument(
          fmt::format("flat parameters: parameter {} must be a defined float32 CPU tensor", i));
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

void blend(float* own, const float* combined, std::int64_t n, double momentum) {
  const auto keep = static_cast<float>(momentum);
  const auto take = static_cast<float>(1.0 - momentum);
  if (momentum == 0.0) {
    std::copy_n(combined, n, own);
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) own[i] = keep * own[i] + take * combined[i];
}

at::Tensor flatten_parameters(const std::vector<at::Tensor>& parameters) {
  check_parameters(parameters);
  c10::AutoGradMode no_grad(false);
  return flat_copy(parameters);
}

void assign_flat(const at::Tensor& flat, const std::vector<at::Tensor>& parameters) {
  std::int64_t total = 0;
  for (const auto& t : parameters) total += t.numel();
  if (flat.numel() != total) {
    throw std::invalid_argument(fmt::format(
        "flat parameters: {} flat values for parameters of {} values", flat.numel(), total));
  }
  c10::AutoGradMode no_grad(false);
  copy_back(flat, parameters);
}

void blend_parameters(const std::vector<at::Tensor>& parameters,
                      const std::vector<at::Tensor>& fresh, double momentum) {
  if (parameters.size() != fresh.size()) {
    throw std::invalid_argument(fmt::format("flat parameters: {} parameters but {} fresh ones",
                                            parameters.size(), fresh.size()));
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (!parameters[i].sizes().equals(fresh[i].sizes())) {
      throw std::invalid_argument(
          fmt::format("flat parameters: parameter {} has another shape", i));
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

}  // namespace gfn::core
