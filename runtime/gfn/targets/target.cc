#include "runtime/gfn/targets/target.h"

#include <torch/csrc/autograd/autograd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <stdexcept>
#include <utility>

#include "runtime/gfn/targets/funnel_many_well.h"
#include "runtime/gfn/targets/gaussian_mixture.h"

namespace gfn::core {
namespace {

std::unique_ptr<Target> two_dimensional(const char* name, std::int64_t dim,
                                        std::unique_ptr<Target> (*make)()) {
  if (dim != 0 && dim != 2) {
    throw std::invalid_argument(
        fmt::format("target '{}' is 2-D only, got dimension {}", name, dim));
  }
  return make();
}

std::map<std::string, TargetFactory>& registry() {
  static std::map<std::string, TargetFactory> targets = {
      {"gmm2", [](std::int64_t d) { return two_dimensional("gmm2", d, make_gmm2); }},
      {"grid25", [](std::int64_t d) { return two_dimensional("grid25", d, make_grid25); }},
      {"funnel", [](std::int64_t d) { return std::make_unique<FunnelTarget>(d ? d : 10); }},
      {"hard_funnel",
       [](std::int64_t d) { return std::make_unique<FunnelTarget>(d ? d : 10, 3.0); }},
      {"many_well", [](std::int64_t d) { return std::make_unique<ManyWellTarget>(d ? d : 32); }},
  };
  return targets;
}

}  // namespace

at::Tensor Target::grad_log_reward(const at::Tensor& x) const {
  check_points(x, "Target::grad_log_reward");
  c10::AutoGradMode enable(true);
  const at::Tensor leaf = x.detach().clone().requires_grad_(true);
  const at::Tensor total = log_reward(leaf).sum();
  return torch::autograd::grad({total}, {leaf})[0].detach();
}

at::Tensor Target::sample(std::int64_t, at::Generator&) const {
  throw std::logic_error("target '" + name() + "' cannot be sampled exactly");
}

void Target::check_points(const at::Tensor& x, const char* who) const {
  if (!x.defined() || x.dim() != 2 || x.size(1) != dim() || x.scalar_type() != at::kFloat) {
    throw std::invalid_argument(
        fmt::format("{}: need float32 points [B, {}] for target '{}'", who, dim(), name()));
  }
}

std::unique_ptr<Target> make_target(const std::string& name, std::int64_t dim) {
  const auto it = registry().find(name);
  if (it == registry().end()) {
    throw std::invalid_argument(fmt::format("unknown target '{}'; the targets are: {}", name,
                                            fmt::join(target_names(), ", ")));
  }
  if (dim < 0) throw std::invalid_argument("target '" + name + "': dimension must be >= 0");
  return it->second(dim);
}

void register_target(const std::string& name, TargetFactory factory) {
  if (name.empty() || !factory) {
    throw std::invalid_argument("register_target: need a name and a factory");
  }
  registry()[name] = std::move(factory);
}

std::vector<std::string> target_names() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : registry()) names.push_back(name);
  return names;
}

}  // namespace gfn::core
