#include "tools/common/child_process.h"

#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <boost/process.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace gfn::tools {
namespace bp = boost::process;
namespace fs = std::filesystem;

namespace {

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

}  // namespace

ChildRun run_logged(const std::string& program, const std::vector<std::string>& args,
                    const std::string& working_dir, const std::string& log_path, double timeout_s,
                    double grace_s) {
  ChildRun out;
  const fs::path log_dir = fs::path(log_path).parent_path();
  if (!log_dir.empty()) fs::create_directories(log_dir);
  const auto start = std::chrono::steady_clock::now();
  bp::child child(program, bp::args(args), bp::start_dir(working_dir),
                  (bp::std_out & bp::std_err) > log_path, bp::std_in < bp::null);
  std::error_code ec;
  if (!child.wait_for(millis(timeout_s), ec)) {
    out.timed_out = true;
    out.wall_s = timeout_s;
    ::kill(child.id(), SIGTERM);
    if (!child.wait_for(millis(grace_s), ec)) child.terminate(ec);
    return out;
  }
  out.exit_code = child.exit_code();
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

std::string make_temp_dir(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory");
  return pattern;
}

std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return fs::absolute(name).string();
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "";
  for (std::size_t pos = 0; pos <= dirs.size();) {
    const auto colon = std::min(dirs.find(':', pos), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(pos, colon - pos)) / name;
    if (colon > pos && fs::is_regular_file(candidate)) return candidate.string();
    pos = colon + 1;
  }
  return name;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string last_error_line(const std::string& log) {
  std::istringstream in(log);
  std::string line, found;
  while (std::getline(in, line)) {
    if (line.find("error") != std::string::npos || line.find("failed") != std::string::npos) {
      found = line;
    }
  }
  if (found.size() > 200) found = found.substr(0, 200) + "...";
  return found;
}

}  // namespace gfn::tools
