#pragma once
// The in-place averaging primitive: one raw buffer (pointer + count + dtype, no tensor)
// replaced by its element-wise mean over a group. Model averaging
// (runtime/distributed/model_averaging.h) calls it on the flat parameter or gradient
// buffer of runtime/gfn/fast/flat_adam.h FlatAdamW, and on the concatenated copy of the
// reference path (runtime/distributed/concat_averaging.h), so both paths reduce and divide
// the same way. No LibTorch.
//
// Method: one Group::all_reduce SUM in place, then each element divided by the GROUP size
// (IEEE division, x / float(size) for float32, as ATen's Tensor::div_ by a scalar), not by
// the world size (torchgfn gfn.utils.distributed.average_models divides by the world size).
// The sum order is the backend's (MPI_Allreduce, Gloo allreduce): the same buffer layout on
// the same backend and group gives the same bits.
//
// Blocking; collective over `group` (every member calls it with the same count and dtype,
// in the same order as its other collectives); not thread-safe with other collectives on
// the group or with writers of the buffer. Cost: one all-reduce of count elements, one pass.
// Errors: transport::TransportError if this rank is not a member or `dtype` is not
// float32 / float64 (both checked before any communication); the group's all_reduce errors.

#include <cstddef>

#include "transport/transport.h"

namespace gfn::dist {

/// Replaces data[0, count) (float32 or float64, as `dtype` says) by its mean over `group`.
void average_buffer(void* data, std::size_t count, transport::DType dtype, transport::Group& group);

}  // namespace gfn::dist
