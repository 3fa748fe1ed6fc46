// gfn-bench-python-env: the cost of a Python environment's calls (docs/performance.md "Python
// environments"). Times, on one thread, the batched members gfn-train calls per sampling step
// on the Python HyperGrid (examples/python_env/hypergrid.py), on the built-in HyperGrid, and
// a Python step that returns its input (noop_env.py: the overhead of one call with no work),
// in interleaved rounds; prints the median microseconds per call of each.
//
//   build/bin/gfn-bench-python-env [--ndim 2] [--height 8] [--batch 128] [--calls 2000]
//                                  [--rounds 5]      (from the repository root)

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/python/python_environment.h"

namespace {

using gfn::core::Environment;
using gfn::core::EnvOptions;

double microseconds_per_call(const std::function<void()>& call, int calls) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  const std::chrono::duration<double, std::micro> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count() / calls;
}

}  // namespace

int main(int argc, char** argv) {
  int ndim = 2, height = 8, batch = 128, calls = 2000, rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const int value = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--ndim")) ndim = value;
    if (!std::strcmp(argv[i], "--height")) height = value;
    if (!std::strcmp(argv[i], "--batch")) batch = value;
    if (!std::strcmp(argv[i], "--calls")) calls = value;
    if (!std::strcmp(argv[i], "--rounds")) rounds = value;
  }
  at::set_num_threads(1);
  gfn::python::install();
  EnvOptions builtin;
  builtin.get<gfn::core::HyperGridOptions>().ndim = ndim;
  builtin.get<gfn::core::HyperGridOptions>().height = height;
  EnvOptions python;
  python.name = "py_hypergrid";
  python.python = "hypergrid:HyperGrid";
  python.python_path = "examples/python_env:tools/gfn-bench-python-env";
  python.options = {{"ndim", std::to_string(ndim)}, {"height", std::to_string(height)}};
  EnvOptions noop = python;
  noop.python = "noop_env:NoOpStep";
  const auto cc = gfn::core::make_environment(builtin);
  const auto py = gfn::core::make_environment(python);
  const auto py_noop = gfn::core::make_environment(noop);
  // A batch of states mid-trajectory and allowed actions (coordinate 0 when it can grow).
  at::manual_seed(0);
  const at::Tensor states = at::randint(0, height - 1, {batch, ndim}, at::kLong);
  const at::Tensor actions = at::zeros({batch}, at::kLong);
  const std::vector<std::pair<std::string, std::function<void()>>> cases = {
      {"python no-op step (overhead)", [&] { py_noop->step_unchecked(states, actions); }},
      {"python forward_masks", [&] { py->forward_masks(states); }},
      {"built-in forward_masks", [&] { cc->forward_masks(states); }},
      {"python step", [&] { py->step_unchecked(states, actions); }},
      {"built-in step", [&] { cc->step_unchecked(states, actions); }},
      {"python log_reward", [&] { py->log_reward(states); }},
      {"built-in log_reward", [&] { cc->log_reward(states); }},
  };
  std::map<std::string, std::vector<double>> times;
  for (int r = 0; r < rounds; ++r) {
    for (const auto& [name, call] : cases)
      times[name].push_back(microseconds_per_call(call, calls));
  }
  fmt::print("HyperGrid ndim {} height {}, batch {}, {} calls x {} rounds, one thread\n", ndim,
             height, batch, calls, rounds);
  for (const auto& [name, call] : cases) {
    auto& t = times[name];
    std::sort(t.begin(), t.end());
    fmt::print("{:<32} {:8.2f} us/call (median; min {:.2f}, max {:.2f})\n", name, t[t.size() / 2],
               t.front(), t.back());
  }
  return 0;
}
