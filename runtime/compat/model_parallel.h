#pragma once
// Model-parallel process groups (seed 002, torchshard.distributed: init_process_group,
// destroy_process_group, is_initialized, get_group, get_rank, get_world_size,
// get_group_size). The tensor collectives on these groups (scatter / gather / reduce /
// copy) are in model_parallel_ops.h.
//
// The world is cut into consecutive groups of min(group_size, world size) ranks: group i
// holds global ranks i*g .. (i+1)*g-1 (torchshard's layout). Each process belongs to exactly
// one. The state is process-wide (like torchshard's module globals). Thread-safety: init /
// destroy must not race with anything else; the getters may be called from any thread.
// Namespace gfn::compat::model_parallel (the names clash with helios' gfn::compat getters).

#include "transport/transport.h"

namespace gfn::compat::model_parallel {

/// torchshard is_initialized: true between init_process_group and destroy_process_group.
bool is_initialized();

/// torchshard init_process_group(group_size): creates the model-parallel groups of
/// min(group_size, world size) consecutive ranks on `transport` and remembers this rank's.
/// Collective and blocking: every rank calls it (Transport::new_group is collective over
/// WORLD). A group size equal to the world reuses transport.world().
/// Errors (ModelParallelError, before any communication): group_size < 1 (torchshard's
/// default -1 is refused, as there), min(group_size, world) not dividing the world size,
/// already initialized.
void init_process_group(int group_size, transport::Transport& transport);

/// As above on the default process group (gfn::compat::init_dist). Throws
/// NotInitializedError (process_group.h) when the default process group is not active.
void init_process_group(int group_size = -1);

/// torchshard destroy_process_group: forgets (and releases) the model-parallel group.
/// A no-op when not initialized. Call it on every rank, before shutdown_dist.
void destroy_process_group();

/// torchshard get_group: this rank's model-parallel group (valid until
/// destroy_process_group). Throws ModelParallelError when not initialized.
transport::Group& get_group();

/// torchshard get_rank: this rank's rank within its model-parallel group, 0..g-1;
/// -1 when not part of a group (not initialized).
int get_rank();

/// torchshard get_world_size (as documented by the seed): the number of processes in this
/// rank's model-parallel group; -1 when not part of a group (not initialized).
/// (torchshard's code returns the global world size; both agree when g = world size.)
int get_world_size();

/// torchshard get_group_size: the model-parallel group size g = min(group_size, world).
/// Throws ModelParallelError when not initialized.
int get_group_size();

}  // namespace gfn::compat::model_parallel
