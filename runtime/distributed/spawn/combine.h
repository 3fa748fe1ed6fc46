#pragma once
// Applies a spawn decision (runtime/distributed/spawn/decision.h) to the members of an
// agent group: the replaced agents' parameters become the donors' weighted combination,
// blended with their own by the momentum (docs/spawn.md "Spawn policies"; torchgfn
// tutorials/examples/multinode/spawn_policy.py, AsyncSelectiveAveragingPolicy
// _handle_donor / _handle_replacer, done here as one collective instead of point-to-point
// streams).
//
// How: every member scales a flat float32 copy of its parameters by its donor weight
// (0 for a non-donor) and the group all-reduces the copies (SUM): one all-reduce of the
// model's size, the cost of one model average (runtime/distributed/model_averaging.h).
// Replaced members then set own = momentum * own + (1 - momentum) * sum; the others keep
// their parameters. reset_weights has no donors: no communication; the caller
// re-initialises its replaced agents (core::Learner::reinitialize_parameters).
//
// Preconditions (else the collective hangs or mixes data): every member calls it with the
// same decision (decide() on the same gathered metrics) and parameters of the same count,
// shapes and order. Blocking; collective over `group` when the decision replaces with
// donors; not thread-safe with other collectives on the group or writers of the tensors.
// Errors: transport::TransportError if this rank is not a member, or for a parameter
// that is undefined, not on the CPU or not float32 (checked before any communication);
// std::invalid_argument if decision.weights does not have group.size() entries; the
// group's all_reduce errors.

#include <vector>

#include "runtime/distributed/spawn/decision.h"
#include "runtime/gfn/flat_parameters.h"

namespace at {
class Tensor;
}  // namespace at
namespace gfn::transport {
class Group;
}  // namespace gfn::transport

namespace gfn::dist::spawn {

/// True if this member (group rank group.rank()) is among decision.replaced.
bool is_replaced(const Decision& decision, int group_rank);

/// Replaces this member's `parameters` (in place) by the donors' combination when it is
/// replaced, as described above; a no-op without a replacement or for reset_weights.
void combine_donors(const std::vector<at::Tensor>& parameters, const Decision& decision,
                    double momentum, transport::Group& group);

// The flat-parameter helpers the spawn policies build on (runtime/gfn/flat_parameters.h).
using core::assign_flat;
using core::blend_parameters;
using core::flatten_parameters;

}  // namespace gfn::dist::spawn
