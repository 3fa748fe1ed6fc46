#pragma once
// YAML `layout:` (docs/configuration.md): how the world of ranks splits into trainers,
// buffer managers and a coordinator (rank_layout.h plans it; torchgfn RankLayout
// semantics). Plain value types, no dependency beyond runtime/config's headers.

#include "runtime/config/enum_names.h"

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::roles {

/// layout.placement: where the buffer managers go.
enum class Placement {
  kAuto,        ///< hostname when num_buffers % num_nodes == 0, else arithmetic
  kArithmetic,  ///< [t t t M][t t M] by rank
  kHostname,    ///< managers node-local (refused when the counts do not allow it)
};
inline constexpr config::EnumName<Placement> kPlacementNames[] = {
    {Placement::kAuto, "auto"},
    {Placement::kArithmetic, "arithmetic"},
    {Placement::kHostname, "hostname"}};
inline constexpr const auto& enum_names(Placement) { return kPlacementNames; }

struct LayoutOptions {
  int num_buffers = 0;       ///< replay-buffer manager ranks (0 = no remote buffer)
  int num_agent_groups = 1;  ///< trainers are split into this many averaging groups
  bool coordinator = false;  ///< last rank becomes the coordinator
  Placement placement = Placement::kAuto;
};

/// The `layout:` keys (layout_options.cc).
const config::Fields<LayoutOptions>& layout_fields();

}  // namespace gfn::roles
