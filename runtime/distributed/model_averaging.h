#pragma once
// Model and gradient averaging within a process group (docs/architecture.md,
// "Averaging"). Mirrors torchgfn gfn.utils.distributed.average_models /
// average_gradients, with two deliberate differences:
//  - the sum is divided by the GROUP size (torchgfn divides by the world size,
//    which is wrong whenever the group is not the whole world);
//  - all tensors are reduced in one all_reduce SUM per dtype (as DDP buckets and
//    Horovod fuse), then divided by the group size.
//
// Two paths, the same result bit for bit (the same values all-reduced in the same
// layout, the same division, both through runtime/distributed/buffer_averaging.h):
//  - in place (engine.optimizer: flat): when the tensors are contiguous consecutive
//    slices of one buffer, in order (runtime/gfn/fast/flat_adam.h FlatAdamW keeps every
//    parameter, and every gradient, in one such buffer), that buffer's raw memory is
//    all-reduced and divided in place (average_buffer): no copy;
//  - the reference path otherwise (engine.optimizer: torch, torch::optim::AdamW's
//    separate tensors): runtime/distributed/concat_averaging.h, concatenated into one
//    flat buffer per dtype, averaged, copied back.
//
// Preconditions (else the collective hangs or mixes data): every member calls the
// same function with tensors of the same count, shapes and dtypes, in the same
// order, and all members take the same path (same optimizer). Tensors must live on
// the CPU, be float32 or float64 (one all-reduce per dtype present; normally just
// float32). Blocking; collective over `group`; not thread-safe with other
// collectives on the same group or with writers of the tensors.
// Errors: transport::TransportError if this rank is not a member of `group` (checked
// before any communication), or for an undefined, non-CPU or non-floating tensor
// (checked before any communication); the group's all_reduce errors.

#include <vector>

namespace at {
class Tensor;
}  // namespace at
namespace torch::nn {
class Module;
}  // namespace torch::nn
namespace gfn::transport {
class Group;
}  // namespace gfn::transport

namespace gfn::dist {

/// Replaces every parameter of `model` by its mean over the group members.
void average_models(torch::nn::Module& model, transport::Group& group);

/// Replaces every parameter of `model` by group rank `root`'s (float32 or float64, in place;
/// one broadcast per parameter): how train.average gradients makes the members' models
/// identical before the first step, as torch DistributedDataParallel broadcasts rank 0's
/// parameters at construction. (Averaging independent initialisations instead would shrink
/// the weights' spread by sqrt(group size).) Blocking, collective over the members; throws
/// TransportError on a non-member, another dtype or a non-CPU tensor.
void broadcast_model(torch::nn::Module& model, transport::Group& group, int root = 0);

/// Replaces the gradient of every parameter of `model` by its mean over the group
/// members. Parameters without a gradient (undefined grad) are skipped: they must
/// be the same on every member.
void average_gradients(torch::nn::Module& model, transport::Group& group);

/// Replaces the values of `parameters` (in place) by their mean over the group.
void average_models(const std::vector<at::Tensor>& parameters, transport::Group& group);

/// Replaces the gradients of `parameters` (p.grad(), in place) by their mean over
/// the group; parameters with an undefined gradient are skipped.
void average_gradients(const std::vector<at::Tensor>& parameters, transport::Group& group);

/// Replaces each tensor of `tensors` (in place) by its mean over the group (the
/// primitive behind the functions above; in place on their shared buffer when they
/// tile one, see the file comment).
void average_tensors(const std::vector<at::Tensor>& tensors, transport::Group& group);

}  // namespace gfn::dist
