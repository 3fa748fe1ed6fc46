#include "runtime/gfn/preprocessors.h"

#include <ATen/ATen.h>

#include <stdexcept>

#include "runtime/gfn/env/environment.h"

namespace gfn::core {

KHotPreprocessor::KHotPreprocessor(std::int64_t ndim, std::int64_t height, std::int64_t min_value)
    : ndim_(ndim),
      height_(height),
      min_value_(min_value),
      offsets_(at::arange(ndim, at::kLong) * height - min_value) {}

at::Tensor KHotPreprocessor::operator()(const at::Tensor& states) const {
  // One scatter of B*ndim ones at column j*height + s_j (no per-coordinate one_hot + cat).
  return at::zeros({states.size(0), ndim_ * height_}, at::kFloat)
      .scatter_(1, states + offsets_, 1.0);
}

OneHotPreprocessor::OneHotPreprocessor(const Environment& env)
    : env_(&env), n_states_(env.n_states()) {}

at::Tensor OneHotPreprocessor::operator()(const at::Tensor& states) const {
  const at::Tensor idx = env_->state_indices(states).view({-1, 1});
  return at::zeros({states.size(0), n_states_}, at::kFloat).scatter_(1, idx, 1.0);
}

at::Tensor IdentityPreprocessor::operator()(const at::Tensor& states) const {
  return states.to(at::kFloat);
}

std::unique_ptr<Preprocessor> make_preprocessor(PreprocessorKind kind, const Environment& env) {
  return env.make_preprocessor(kind);
}

}  // namespace gfn::core
