#pragma once
// Errors of the group-topology helpers of runtime/compat/ (seeds 001 xffl.distributed
// and 002 torchshard.distributed). Every message names the function and the bad value.

#include <stdexcept>

namespace gfn::compat {

/// Invalid sharding / federated topology: a replica (hsdp) size or federated group size
/// that does not divide the world, sizes that do not add up to the world size, ...
/// (xffl logs these and falls back; here they are errors).
class TopologyError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Invalid arguments of setup_distributed_process_group: unknown backend, non-CPU device,
/// inconsistent node (group-local) rank / size, non-integer environment value.
class SetupError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Misuse of the model-parallel groups (torchshard.distributed): used before
/// model_parallel::init_process_group, initialized twice, a group size that does not divide
/// the world, a tensor dimension that does not split evenly over the group, shapes that
/// differ between the members of a gather.
class ModelParallelError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace gfn::compat
