#pragma once
// The `walk` example environment's options (walk.cc; key env.height). Plain value type.

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

struct WalkOptions {
  int height = 8;  ///< length of the walk: states {0..height-1}
};

const config::Fields<WalkOptions>& walk_fields();

}  // namespace gfn::core
