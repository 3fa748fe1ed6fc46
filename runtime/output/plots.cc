#include "runtime/output/plots.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

extern char** environ;

namespace gfn::output {

std::string default_plot_script() { return GFN_PLOT_SCRIPT; }

std::string plot_python() {
  // Debian's interpreter, where apt installs python3-matplotlib (tools/setup.sh); a
  // python3 earlier on PATH (pyenv, a virtualenv) may lack it.
  const char* debian = "/usr/bin/python3";
  return access(debian, X_OK) == 0 ? debian : "python3";
}

PlotRun run_plots(const std::string& script, const std::string& run_dir) {
  PlotRun out;
  if (!std::filesystem::exists(script)) {
    out.message = fmt::format("plots skipped: {} not found", script);
    return out;
  }
  std::string python = plot_python();
  std::vector<char*> argv{python.data(), const_cast<char*>(script.c_str()),
                          const_cast<char*>(run_dir.c_str()), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ);
  if (rc != 0) {
    out.message = fmt::format(
        "plots skipped: cannot start {} ({}); install python3 and python3-matplotlib, "
        "then run {} {}",
        python, std::strerror(rc), script, run_dir);
    return out;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.ran = true;
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  out.message = out.exit_code == 0
                    ? fmt::format("plots written to {} (tools/gfn-plot)", run_dir)
                    : fmt::format("tools/gfn-plot failed on {} (exit code {}); see its message",
                                  run_dir, out.exit_code);
  return out;
}

}  // namespace gfn::output
