#pragma once
// The whole text of a file written by a test ("" when it cannot be opened).

#include <fstream>
#include <sstream>
#include <string>

namespace gfn::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace gfn::testing
