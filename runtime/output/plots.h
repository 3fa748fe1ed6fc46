#pragma once
// Runs tools/gfn-plot on a finished run directory (`output.plots: true`, README
// "Plots"): `/usr/bin/python3 <script> <run dir>`, no shell, the child's output going to this
// process's stdout / stderr. Blocking (waits for the child, typically a few seconds).
// Not thread-safe (fork/exec). Throws nothing: every outcome is returned.

#include <string>

namespace gfn::output {

struct PlotRun {
  bool ran = false;  ///< python3 was found and started
  int exit_code = -1;
  std::string message;  ///< one line for the log: what happened and what to do
};

/// The gfn-plot script of this source tree (set at build time, tools/gfn-plot).
std::string default_plot_script();

/// The interpreter: /usr/bin/python3 (Debian's, with python3-matplotlib) when it exists,
/// else python3 from PATH.
std::string plot_python();

/// Runs `plot_python() script run_dir`; ran = false with a message when the interpreter
/// cannot be started or the script does not exist.
PlotRun run_plots(const std::string& script, const std::string& run_dir);

}  // namespace gfn::output
