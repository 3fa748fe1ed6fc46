#include "roles/planner/layout_options.h"

#include "runtime/config/fields.h"

namespace gfn::roles {

const config::Fields<LayoutOptions>& layout_fields() {
  using L = LayoutOptions;
  static const auto fields =
      config::Fields<L>()
          .add("num_buffers", &L::num_buffers,
               "Replay-buffer manager ranks; 0: no remote buffer, every rank but the "
               "coordinator trains.",
               config::at_least(0))
          .add("num_agent_groups", &L::num_agent_groups,
               "The trainers are split into this many agent groups, which average (or spawn) "
               "within themselves; must divide the number of trainers.",
               config::at_least(1))
          .add("coordinator", &L::coordinator,
               "The last rank becomes the coordinator (modes and baselines across managers).")
          .add("placement", &L::placement,
               "Where the buffer managers go: arithmetic ([t t t M][t t M] by rank), hostname "
               "(node-local managers), auto (hostname when num_buffers is a multiple of the "
               "number of nodes, else arithmetic).",
               config::AsInvalid{});
  return fields;
}

}  // namespace gfn::roles
