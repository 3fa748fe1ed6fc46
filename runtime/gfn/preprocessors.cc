#include "runtime/gfn/preprocessors.h"

#include <ATen/ATen.h>

#include <stdexcept>
#include <string>

#include "runtime/gfn/env/environment.h"

namespace gfn::core {

KHotPreprocessor::KHotPreprocessor(std::int64_t ndim, std::int64_t height, std::int64_t min_value)
    : ndim_(ndim),
      height_(height),
      min_value_(min_value),
      offsets_(at::arange(ndim, at::kLong) * height - min_value) {}

at::Tensor KHotPreprocessor::operator()(const at::Tensor& states) const {
  at::Tensor out = at::zeros({states.size(0), ndim_ * height_}, at::kFloat);
  if (states.scalar_type() != at::kLong || states.dim() != 2 || states.size(1) != ndim_) {
    // One scatter of B*ndim ones at column j*height + s_j (no per-coordinate one_hot + cat).
    return out.scatter_(1, states + offsets_, 1.0);
  }
  // The same scatter as a loop (two ATen calls fewer; the sampler calls this once per step).
  // A value outside [min_value, min_value + height) is refused (scatter_ refused only columns
  // outside the row and silently set another coordinate's column otherwise).
  const at::Tensor s = states.contiguous();
  const std::int64_t* v = s.data_ptr<std::int64_t>();
  float* o = out.data_ptr<float>();
  const std::int64_t width = ndim_ * height_;
  for (std::int64_t i = 0; i < s.size(0); ++i) {
    for (std::int64_t j = 0; j < ndim_; ++j) {
      const std::int64_t value = v[i * ndim_ + j] - min_value_;
      if (value < 0 || value >= height_) {
        throw std::invalid_argument(
            "KHotPreprocessor: state value " + std::to_string(v[i * ndim_ + j]) + " outside [" +
            std::to_string(min_value_) + ", " + std::to_string(min_value_ + height_) + ")");
      }
      o[i * width + j * height_ + value] = 1.0f;
    }
  }
  return out;
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
