#include "runtime/compat/rank_guards.h"

#include <spdlog/spdlog.h>

namespace gfn::compat {
namespace {

// `group`, else WORLD when distributed, else null (no distribution).
transport::Group* resolve(transport::Group* group, const char* caller) {
  if (group == nullptr) return is_dist_active() ? &world_group() : nullptr;
  if (!group->is_member()) {
    throw transport::TransportError(std::string(caller) +
                                    ": this rank is not a member of the group");
  }
  return group;
}

}  // namespace

bool is_distributed() { return is_dist_active(); }

bool is_main_process(transport::Group* group) {
  transport::Group* g = resolve(group, "is_main_process");
  return g == nullptr || g->rank() == 0;
}

void barrier(transport::Group* group) {
  if (transport::Group* g = resolve(group, "barrier")) g->barrier();
}

ZeroFirst::ZeroFirst(transport::Group* group) : group_(resolve(group, "ZeroFirst")) {
  main_ = group_ == nullptr || group_->rank() == 0;
  if (!main_) group_->barrier();  // wait until rank 0 has run its scope
}

ZeroFirst::~ZeroFirst() {
  if (group_ == nullptr || !main_) return;
  try {
    group_->barrier();  // release the others
  } catch (const std::exception& e) {
    spdlog::error("ZeroFirst: releasing the other ranks failed: {}", e.what());
  }
}

}  // namespace gfn::compat
