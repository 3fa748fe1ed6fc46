#pragma once
// A model's parameters as one flat float32 vector, and their blend with another set: the
// arithmetic of a respawn (Learner::reinitialize_parameters) and of the spawn policies
// (runtime/distributed/spawn/combine.h, roles/trainer/spawn/). Not thread-safe with other
// writers of the tensors. Errors: std::invalid_argument for a parameter that is not a
// defined float32 CPU tensor, or for lists that differ in count or shapes. O(model size).

#include <cstdint>
#include <vector>

namespace at {
class Tensor;
}  // namespace at

namespace gfn::core {

/// own[i] = momentum * own[i] + (1 - momentum) * combined[i] for i < n (in place;
/// momentum 0 copies `combined`, 1 keeps `own`). Float32, as the flat parameter buffer.
void blend(float* own, const float* combined, std::int64_t n, double momentum);

/// A float32 [sum of numels] contiguous copy of `parameters`, in order (the layout of
/// SPAWN_PARAMS and of the donor_pull windows).
at::Tensor flatten_parameters(const std::vector<at::Tensor>& parameters);

/// Copies `flat` (flatten_parameters' layout) back into `parameters` in place (views stay
/// valid).
void assign_flat(const at::Tensor& flat, const std::vector<at::Tensor>& parameters);

/// Blends `parameters` (in place) with `fresh` ones of the same shapes:
/// momentum * own + (1 - momentum) * fresh.
void blend_parameters(const std::vector<at::Tensor>& parameters,
                      const std::vector<at::Tensor>& fresh, double momentum);

}  // namespace gfn::core
