#pragma once
// Model-parallel tensor collectives with autograd (seed 002, torchshard.distributed:
// scatter, gather, reduce, copy). Each comes in two forms: on the model-parallel group of
// model_parallel.h (torchshard's form), or on an explicit transport::Group.
//
// Common rules:
//  - Tensors: CPU, dtype uint8 / int32 / int64 / float32 / float64 (reduce also complex64
//    / complex128). Autograd needs a floating dtype, as in LibTorch.
//  - `dim` may be any dimension of the tensor, negative counting from the end (torchshard
//    documents 0, 1 and -1; default -1, the last one).
//  - Blocking and collective over the group: every member calls the same op in the same
//    order with tensors of the same shape and dtype. The backward pass is collective too:
//    every member runs backward through the same ops in the same order. The group must
//    outlive the backward pass.
//  - A group of one process: every op returns its input unchanged (torchshard).
//  - Autograd: when grad mode is on and the input requires grad, the op records a LibTorch
//    autograd function (torch::autograd::Function); otherwise it is a plain collective.
//  - Errors: ModelParallelError (topology_errors.h) when the model-parallel group is not
//    initialized (overloads without a group), for a dimension outside the tensor, a size
//    along `dim` not divisible by the group size (scatter), shapes / dtypes differing
//    between members (gather; checked with one small extra all-gather), a non-member
//    caller, a non-CPU tensor or an unsupported dtype; transport::TransportError for
//    backend failures.

#include <cstdint>

#include "transport/transport.h"

namespace at {
class Tensor;
}  // namespace at

namespace gfn::compat::model_parallel {

/// torchshard scatter(tensor, dim): every member passes the same full tensor of size n*k
/// along `dim` (n = group size) and keeps its slice: group rank r gets the elements
/// r*k .. (r+1)*k-1 along `dim`. With n = 2, a 6x8 tensor gives 3x8 (dim 0) or 6x4
/// (dim 1 / -1). Backward: the gradient slices of all members are gathered (concatenated
/// along `dim`), so the input's gradient is the full n*k gradient.
at::Tensor scatter(const at::Tensor& tensor, std::int64_t dim = -1);
at::Tensor scatter(const at::Tensor& tensor, std::int64_t dim, transport::Group& group);

/// torchshard gather(tensor, dim): concatenates the members' tensors along `dim` in
/// group-rank order; every member gets the result. With n = 2, a 6x8 tensor on each
/// member gives 12x8 (dim 0) or 6x16 (dim 1 / -1). Backward: each member keeps its own
/// slice of the gradient (scatter), as torchshard.
at::Tensor gather(const at::Tensor& tensor, std::int64_t dim = -1);
at::Tensor gather(const at::Tensor& tensor, std::int64_t dim, transport::Group& group);

/// torchshard reduce(tensor): the element-wise sum over the members (all-reduce SUM);
/// every member gets it. Without autograd recording (grad mode off or the tensor does not
/// require grad) the sum is written in place into `tensor` (contiguous or not) and
/// `tensor` is returned, as torch.distributed.all_reduce; otherwise a new tensor is
/// returned and the gradient passes through unchanged (torchshard Reduce.backward).
at::Tensor reduce(const at::Tensor& tensor);
at::Tensor reduce(const at::Tensor& tensor, transport::Group& group);

/// torchshard copy(tensor): identity forward (returns `tensor`, or a view of it when
/// recorded); backward sums the gradient over the members (all-reduce SUM), so a tensor
/// used by every member receives the sum of their gradients.
at::Tensor copy(const at::Tensor& tensor);
at::Tensor copy(const at::Tensor& tensor, transport::Group& group);

}  // namespace gfn::compat::model_parallel
