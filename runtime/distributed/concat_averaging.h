#pragma once
// The reference path of model averaging (runtime/distributed/model_averaging.h) for tensors
// that do not tile one buffer, e.g. torch::optim::AdamW's separate parameters
// (engine.optimizer: torch): every tensor flattened and concatenated (at::cat) into one
// buffer, averaged by runtime/distributed/buffer_averaging.h, copied back. The fast path
// (the flat optimizer's buffer averaged in place) must give the same bits as this one
// (tests/runtime/distributed/model_averaging_test.cc).
//
// Preconditions: `tensors` are defined CPU tensors of ONE floating dtype (float32 or
// float64) with the same count, shapes and order on every member. Blocking; collective over
// `group`; not thread-safe with other collectives on the group or writers of the tensors.
// Cost: one copy of every element in and one out, one all-reduce.
// Errors: transport::TransportError (not a member, an undefined, non-CPU, non-floating or
// mixed-dtype tensor; all checked before any communication); the group's all_reduce errors.

#include <vector>

namespace at {
class Tensor;
}  // namespace at
namespace gfn::transport {
class Group;
}  // namespace gfn::transport

namespace gfn::dist {

/// Replaces each of `tensors` (in place) by its mean over the group, through one
/// concatenated copy. No-op for an empty list.
void average_by_concatenation(const std::vector<at::Tensor>& tensors, transport::Group& group);

}  // namespace gfn::dist
