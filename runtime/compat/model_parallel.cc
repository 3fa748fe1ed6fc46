#include "runtime/compat/model_parallel.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "runtime/compat/process_group.h"
#include "runtime/compat/topology_errors.h"

namespace gfn::compat::model_parallel {
namespace {

struct State {
  std::unique_ptr<transport::Group> owned;  // null when the group is WORLD
  transport::Group* group = nullptr;
  int group_size = 0;
};

State& state() {
  static State s;
  return s;
}

}  // namespace

bool is_initialized() { return state().group != nullptr; }

void init_process_group(int group_size, transport::Transport& transport) {
  const int world = transport.world_size();
  if (group_size < 1) {
    throw ModelParallelError(fmt::format(
        "model_parallel::init_process_group: group_size must be in [1, world_size = {}], got {}",
        world, group_size));
  }
  if (is_initialized()) {
    throw ModelParallelError(
        "model_parallel::init_process_group: the model-parallel group is already initialized; "
        "call destroy_process_group first");
  }
  const int g = std::min(group_size, world);
  if (world % g != 0) {
    throw ModelParallelError(fmt::format(
        "model_parallel::init_process_group: the world size {} is not divisible by the group "
        "size {}",
        world, g));
  }
  State next;
  next.group_size = g;
  if (g == world) {
    next.group = &transport.world();
  } else {
    const int mine = transport.rank() / g;
    for (int i = 0; i < world / g; ++i) {
      std::vector<int> ranks(static_cast<std::size_t>(g));
      for (int j = 0; j < g; ++j) ranks[static_cast<std::size_t>(j)] = i * g + j;
      auto group = transport.new_group(ranks);  // collective over WORLD: every rank, every group
      if (i == mine) next.owned = std::move(group);
    }
    next.group = next.owned.get();
  }
  state() = std::move(next);
}

void init_process_group(int group_size) {
  require_dist("model_parallel::init_process_group");
  init_process_group(group_size, default_transport());
}

void destroy_process_group() { state() = State{}; }

transport::Group& get_group() {
  if (!is_initialized()) {
    throw ModelParallelError(
        "model_parallel::get_group: the model-parallel process group is not initialized (call "
        "model_parallel::init_process_group first)");
  }
  return *state().group;
}

int get_rank() { return is_initialized() ? state().group->rank() : -1; }

int get_world_size() { return is_initialized() ? state().group->size() : -1; }

int get_group_size() {
  if (!is_initialized()) {
    throw ModelParallelError(
        "model_parallel::get_group_size: the model-parallel process group is not initialized "
        "(call model_parallel::init_process_group first)");
  }
  return state().group_size;
}

}  // namespace gfn::compat::model_parallel
