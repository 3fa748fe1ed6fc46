#pragma once
// Model and gradient averaging within a process group (docs/architecture.md,
// "One training iteration"). Mirrors torchgfn gfn.utils.distributed.average_models /
// average_gradients, with two deliberate differences:
//  - the sum is divided by the GROUP size (torchgfn divides by the world size,
//    which is wrong whenever the group is not the whole world);
//  - all tensors are reduced in one fused flat buffer per dtype (as DDP buckets
//    and Horovod fuses): concatenate, one all_reduce SUM, divide, copy back.
//
// Preconditions (else the collective hangs or mixes data): every member calls the
// same function with tensors of the same count, shapes and dtypes, in the same
// order. Tensors must live on the CPU, be float32 or float64 (one buffer per
// dtype present; normally just float32). Blocking; collective over `group`; not
// thread-safe with other collectives on the same group.
// Errors: TransportError if this rank is not a member of `group` (checked before
// any communication), or for a non-CPU / non-floating tensor.

#include <vector>

namespace at {
class Tensor;
}  // namespace at
namespace torch::nn {
class Module;
}  // namespace torch::nn

namespace gfn::transport {

class Group;

/// Replaces every parameter of `model` by its mean over the group members.
void average_models(torch::nn::Module& model, Group& group);

/// Replaces the gradient of every parameter of `model` by its mean over the group
/// members. Parameters without a gradient (undefined grad) are skipped: they must
/// be the same on every member.
void average_gradients(torch::nn::Module& model, Group& group);

/// Replaces the values of `parameters` (in place) by their mean over the group.
void average_models(const std::vector<at::Tensor>& parameters, Group& group);

/// Replaces the gradients of `parameters` (p.grad(), in place) by their mean over
/// the group; parameters with an undefined gradient are skipped.
void average_gradients(const std::vector<at::Tensor>& parameters, Group& group);

/// Replaces each tensor of `tensors` (in place) by its mean over the group (the
/// fused primitive behind the functions above).
void average_tensors(const std::vector<at::Tensor>& tensors, Group& group);

}  // namespace gfn::transport
