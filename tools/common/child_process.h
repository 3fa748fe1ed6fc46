#pragma once
// Running a gfn-train job (directly or through tools/mpirun.sh) from a tool, with its
// output in a log file and a time limit (Boost.Process). Shared by tools/quality-matrix
// and tools/gfn-bench-scaling.

#include <string>
#include <vector>

namespace gfn::tools {

struct ChildRun {
  int exit_code = -1;      ///< the child's exit code; -1 when it timed out
  bool timed_out = false;  ///< stopped after timeout_s (SIGTERM, then SIGKILL after grace_s)
  double wall_s = 0;       ///< seconds from start to exit (timeout_s when it timed out)
};

/// Runs `program args...` in `working_dir` with stdout and stderr written to `log_path`
/// (its directory is created) and stdin from /dev/null; waits at most `timeout_s`
/// seconds. A child still running then gets SIGTERM (mpirun forwards it to the ranks,
/// which stop at an iteration boundary) and, if it has not exited grace_s seconds later,
/// SIGKILL. Blocking.
ChildRun run_logged(const std::string& program, const std::vector<std::string>& args,
                    const std::string& working_dir, const std::string& log_path, double timeout_s,
                    double grace_s = 10);

/// A new directory under the system's temporary directory, named <prefix>-XXXXXX
/// (mkdtemp). Throws std::runtime_error when it cannot be created.
std::string make_temp_dir(const std::string& prefix);

/// A program to run: `name` made absolute when it names a path (contains '/'), else the
/// first regular file `name` in a PATH directory, else `name` unchanged.
std::string resolve_program(const std::string& name);

/// The whole file, or "" when it cannot be opened.
std::string read_text_file(const std::string& path);

/// The last line of `log` mentioning "error" or "failed", cut at 200 characters (a short
/// failure message); "" when none does.
std::string last_error_line(const std::string& log);

}  // namespace gfn::tools
