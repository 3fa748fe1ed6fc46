// Built against the installed package: the HyperGrid of the registry, by its installed headers
// and library. Prints its modes and exits 0 when a 2-D grid of height 8 has the expected 4.
#include <cstdio>

#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"

int main() {
  gfn::core::EnvOptions options;  // hypergrid, 2-D, height 8
  const auto env = gfn::core::make_environment(options);
  std::printf("consumer: %s with %lld modes\n", options.name.c_str(),
              static_cast<long long>(env->n_modes()));
  return env->n_modes() == 4 ? 0 : 1;
}
