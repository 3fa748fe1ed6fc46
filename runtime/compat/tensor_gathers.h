#pragma once
// Tensor gathers and reductions of helios.core.distributed (seed 000:
// gather_into_tensor, all_reduce_tensors) and torchgfn gfn.utils.distributed (seed 003:
// gather_distributed_data), written on the transport interface (both backends).
// Conventions and errors as runtime/compat/tensor_collectives.h: CPU tensors,
// `group` null = WORLD (NotInitializedError when init_dist was not called, as the
// seeds raise RuntimeError before initialization), blocking, collective over the group.

#include <cstdint>
#include <vector>

#include "transport/transport.h"

namespace at {
class Tensor;
}  // namespace at

namespace gfn::compat {

/// helios gather_into_tensor(tensor, size) (torch all_gather_into_tensor): every
/// member contributes `tensor` (same shape and dtype everywhere, any dtype); EVERY
/// member returns a new tensor of shape `size` holding the contributions one after the
/// other in group-rank order (row-major), e.g. tensor [2, 3] on 4 ranks, size {8, 3}:
/// rows 2r, 2r+1 are rank r's. std::invalid_argument unless the product of `size`
/// equals group size * tensor.numel().
at::Tensor gather_into_tensor(const at::Tensor& tensor, const std::vector<std::int64_t>& size,
                              transport::Group* group = nullptr);

/// The stacked form: returns [group size, *tensor.shape], entry r = group rank r's tensor.
at::Tensor gather_into_tensor(const at::Tensor& tensor, transport::Group* group = nullptr);

/// helios all_reduce_tensors(tensor): reduces `tensor` IN PLACE over the members (op
/// kSum by default, as torch.distributed.all_reduce) and returns it; every member gets
/// the same values. Dtypes as all_reduce (uint8, int32, int64, float32, float64).
at::Tensor all_reduce_tensors(at::Tensor tensor, transport::ReduceOp op = transport::ReduceOp::kSum,
                              transport::Group* group = nullptr);

/// helios all_reduce_tensors(list): the tensors are concatenated along dim 0 (as
/// torch.cat; 0-dim tensors count as one row, so shapes must agree beyond dim 0 and
/// dtypes must match), then reduced; returns the new reduced tensor, e.g. [2] and [3]
/// -> [5]. The inputs are not modified. std::invalid_argument for an empty list.
at::Tensor all_reduce_tensors(const std::vector<at::Tensor>& tensors,
                              transport::ReduceOp op = transport::ReduceOp::kSum,
                              transport::Group* group = nullptr);

/// torchgfn gather_distributed_data(local_tensor, training_group): every member
/// contributes `local` of shape [n_r, *rest] — n_r may differ per rank (0 allowed),
/// `rest` and the dtype must be the same on every member (any dtype). Group rank 0
/// returns the concatenation along dim 0 in group-rank order, shape
/// [sum_r n_r, *rest]; the other members return an undefined tensor (the seed's None).
/// std::invalid_argument for a 0-dim tensor (on the caller), or on group rank 0 when a
/// member's dtype or trailing shape differs (naming that rank; the others have already
/// returned). Cost: two all-gathers of the byte-serialized tensors (transport/gather.h;
/// traffic size * largest contribution per member).
at::Tensor gather_distributed_data(const at::Tensor& local, transport::Group* group = nullptr);

}  // namespace gfn::compat
