#pragma once
// The `line` example environment's options (line.cc; key env.height). Plain value type.

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

struct LineOptions {
  int height = 8;  ///< length of the line: states {0..height-1}
};

const config::Fields<LineOptions>& line_fields();

}  // namespace gfn::core
