#pragma once
// samples/validation_<iteration, 8 digits>.npy: the samples of one validation of a continuous
// run with a target (runtime/gfn/validation.h ValidationResult::learned_points and
// target_points), read by tools/gfn-sample-metrics (the 2-Wasserstein distance and the RBF MMD
// with POT, sample_metrics.csv) and tools/gfn-plot (samples.png). The file is NumPy's .npy
// format version 1.0 (numpy.load reads it): little-endian float32 of shape [2, n, k], row 0
// the learned sampler's terminating states, row 1 as many exact samples of R / Z, in the
// target's coordinates (ContinuousEnvironment::target_coordinates: diffusion's x, without t).
// n is at most kMaxValidationSamples (the first n of the validation's samples). Not
// thread-safe; written by trainer rank 0 of the trainer group at each validation.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

namespace gfn::output {

/// Samples written per set: gfn-diffusion's eval_data_size (energy_sampling/train.py), which
/// keeps the exact optimal transport of tools/gfn-sample-metrics at about a second.
inline constexpr std::int64_t kMaxValidationSamples = 2000;

/// `dir`/samples/validation_<iteration, 8 digits>.npy.
std::string validation_samples_path(const std::string& dir, std::int64_t iteration);

/// Writes the first min(n, kMaxValidationSamples) rows of `learned` and `target` (any floating
/// dtype, [n, k] each, n >= 1, k >= 1) as float32 [2, n', k] to `path` (overwrites; creates the
/// parent directory). Cost O(n k). Throws std::invalid_argument on other shapes,
/// std::runtime_error naming the path if it cannot be written.
void write_validation_samples(const std::string& path, const at::Tensor& learned,
                              const at::Tensor& target);

/// Removes `dir`/samples/validation_*.npy files of iterations after `iteration` (a resumed
/// run writes them again; a fresh run passes -1 and removes all). No error when the directory
/// is absent.
void remove_validation_samples_after(const std::string& dir, std::int64_t iteration);

}  // namespace gfn::output
