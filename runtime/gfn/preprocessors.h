#pragma once
// Preprocessors turn environment states (int64 [B, state_dim]) into float32 network
// inputs, following torchgfn's gfn.preprocessors (KHotPreprocessor,
// OneHotPreprocessor / EnumPreprocessor, IdentityPreprocessor). Each environment picks
// the kinds it supports (preprocessor_kind.h; Environment::make_preprocessor). Stateless and
// thread-safe.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/gfn/preprocessor_kind.h"

namespace gfn::core {

class Environment;

class Preprocessor {
 public:
  virtual ~Preprocessor() = default;
  /// Width of the float32 output rows.
  virtual std::int64_t output_dim() const = 0;
  /// states int64 [B, ndim] (valid grid coordinates; not re-checked) -> float32 [B, output_dim()].
  virtual at::Tensor operator()(const at::Tensor& states) const = 0;
};

/// K-hot: one-hot of each coordinate (height wide), concatenated: [B, ndim*height].
/// Coordinates take values in [min_value, min_value + height) (HyperGrid: 0; states
/// with an "empty" -1 entry such as DiscreteEBM and BitSequence: -1).
class KHotPreprocessor final : public Preprocessor {
 public:
  KHotPreprocessor(std::int64_t ndim, std::int64_t height, std::int64_t min_value = 0);
  std::int64_t output_dim() const override { return ndim_ * height_; }
  at::Tensor operator()(const at::Tensor& states) const override;

 private:
  std::int64_t ndim_, height_, min_value_;
  at::Tensor offsets_;  ///< int64 [ndim]: j * height - min_value
};

/// One-hot of the state index (Environment::state_indices): [B, n_states]. Needs an
/// enumerable environment (throws std::domain_error otherwise); keeps a reference to it.
class OneHotPreprocessor final : public Preprocessor {
 public:
  explicit OneHotPreprocessor(const Environment& env);
  std::int64_t output_dim() const override { return n_states_; }
  at::Tensor operator()(const at::Tensor& states) const override;

 private:
  const Environment* env_;
  std::int64_t n_states_;
};

/// Identity: the coordinates as float32, [B, ndim].
class IdentityPreprocessor final : public Preprocessor {
 public:
  explicit IdentityPreprocessor(std::int64_t ndim) : ndim_(ndim) {}
  std::int64_t output_dim() const override { return ndim_; }
  at::Tensor operator()(const at::Tensor& states) const override;

 private:
  std::int64_t ndim_;
};

/// env.make_preprocessor(kind) (EnvOptions::preprocessor; HyperGrid: khot | onehot |
/// identity). Throws std::invalid_argument for a kind the environment lacks.
std::unique_ptr<Preprocessor> make_preprocessor(PreprocessorKind kind, const Environment& env);

}  // namespace gfn::core
