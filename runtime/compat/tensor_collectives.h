#pragma once
// Backend-agnostic collectives on LibTorch tensors over any process group, as
// torchgfn's gfn.utils.distributed (seed 003) barrier / broadcast / all_reduce /
// all_gather / get_rank / get_world_size: the same calls work whether the group
// belongs to the "mpi" or the "torch" (Gloo) transport.
//
// `group` null = WORLD of the default process group (runtime/compat/
// process_group.h); a group of another transport (e.g. roles::DistributedContext's
// trainer group) works as well. Tensors must live on the CPU (this runtime is
// CPU-only; the seed's device round-trip is therefore not needed); any layout and
// strides (non-contiguous tensors are reduced / filled through a contiguous copy).
// Every member calls with tensors of the same shape and dtype, in the same order.
// Blocking; not thread-safe with other collectives on the same group.
// Errors (before any communication): NotInitializedError when `group` is null and
// init_dist was not called ("<function>: called before gfn::compat::init_dist");
// transport::TransportError when this rank is not a member of the group;
// std::invalid_argument for a non-CPU or undefined tensor, an unsupported dtype,
// or mismatched output tensors. Communication failures: transport::TransportError.
// (barrier is in runtime/compat/rank_guards.h.)

#include <vector>

#include "transport/transport.h"

namespace at {
class Tensor;
}  // namespace at

namespace gfn::compat {

/// This process's rank in `group` (seed get_rank(group)); -1 if not a member.
int get_rank(transport::Group& group);
/// Number of members of `group` (seed get_world_size(group)).
int get_world_size(transport::Group& group);

/// Seed broadcast(tensor, src, group): overwrites `tensor` (in place) on every member
/// with its value on group rank `root`. Any dtype (sent as its bytes); the shape and
/// dtype must match on every member.
void broadcast(at::Tensor& tensor, int root, transport::Group* group = nullptr);

/// Seed all_reduce(tensor, op, group): element-wise reduction in place over the
/// members; every member gets the result. op: kSum, kMax, kMin (the seed's SUM / MAX /
/// MIN) or kAvg (floating dtypes only: sum / group size). Dtypes: uint8, int32, int64,
/// float32, float64.
void all_reduce(at::Tensor& tensor, transport::ReduceOp op = transport::ReduceOp::kSum,
                transport::Group* group = nullptr);

/// Seed all_gather(output_list, tensor, group): `output_list` holds one pre-allocated
/// tensor per member (same dtype and number of elements as `tensor`, any shape); entry
/// i receives group rank i's `tensor`. Any dtype.
void all_gather(std::vector<at::Tensor>& output_list, const at::Tensor& tensor,
                transport::Group* group = nullptr);

/// As above, allocating the outputs: one tensor per member with `tensor`'s shape and
/// dtype, in group-rank order.
std::vector<at::Tensor> all_gather(const at::Tensor& tensor, transport::Group* group = nullptr);

}  // namespace gfn::compat
