#pragma once
// Tensor collectives over a transport::Group (either backend), used by the topology and
// model-parallel helpers of runtime/compat/. Tensors live on the CPU; supported dtypes
// are uint8, int32, int64, float32, float64 (and complex64 / complex128 for the all-reduce
// sum, reduced as pairs of reals). Every function is blocking and collective over `group`:
// all members call it in the same order with tensors of the same shape and dtype.
// Not thread-safe with other collectives on the same group.
// Errors: ModelParallelError (topology_errors.h) for a non-member caller, a non-CPU tensor
// or an unsupported dtype; transport::TransportError for backend failures.

#include <vector>

#include "transport/transport.h"

namespace at {
class Tensor;
}  // namespace at

namespace gfn::compat {

/// The transport dtype of a tensor's scalar type (complex types map to their real part
/// type). Throws ModelParallelError naming `op` for an unsupported dtype.
transport::DType transport_dtype_of(const at::Tensor& tensor, const char* op);

/// All-reduces `tensor` in place over `group` with `op` (kSum also for complex tensors).
/// Every member ends with the same values. `tensor` must be contiguous.
void all_reduce_tensor_inplace(const at::Tensor& tensor, transport::Group& group,
                               transport::ReduceOp op, const char* op_name);

/// All-gathers `tensor` (shape S) from every member: returns a tensor of shape
/// [group.size(), S...] whose slice i is group rank i's tensor, on every member.
/// Checks first (one small extra all-gather) that every member passed the same shape and
/// dtype; throws ModelParallelError naming `op_name` and the differing ranks otherwise.
at::Tensor all_gather_stacked(const at::Tensor& tensor, transport::Group& group,
                              const char* op_name);

/// Broadcasts `tensors` (in place, contiguous CPU tensors) from group rank `root` to
/// every member, one fused buffer per dtype.
void broadcast_tensors_inplace(const std::vector<at::Tensor>& tensors, transport::Group& group,
                               int root, const char* op_name);

}  // namespace gfn::compat
