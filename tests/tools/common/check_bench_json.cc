// check_bench_json FILE TOOL [MIN_CASES [FIGURE...]]: checks that FILE, written by a
// benchmark tool's --json, is a report of the common schema (tools/common/harness/report.h)
// from TOOL, with at least MIN_CASES cases (default 1), and that every case has each
// FIGURE with a measured value or statistics. Prints "FILE: gfn-bench/1 report of TOOL, N
// cases, M goals" and exits 0; otherwise prints every problem and exits 1.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tools/common/harness/report.h"

namespace {

using gfn::harness::Report;

std::vector<std::string> problems_of(const nlohmann::json& j, const std::string& tool,
                                     std::size_t min_cases,
                                     const std::vector<std::string>& figures) {
  auto problems = gfn::harness::schema_problems(j);
  if (!problems.empty()) return problems;
  const Report r = gfn::harness::report_from_json(j);
  if (r.tool != tool) problems.push_back("tool: \"" + r.tool + "\", expected \"" + tool + "\"");
  if (r.cases.size() < min_cases) {
    problems.push_back("cases: " + std::to_string(r.cases.size()) + ", expected at least " +
                       std::to_string(min_cases));
  }
  for (const auto& c : r.cases) {
    for (const auto& name : figures) {
      const auto it = c.figures.find(name);
      if (it == c.figures.end() || (!it->second.value && !it->second.summary)) {
        problems.push_back("case " + c.name + ": figure " + name + " missing or not measured");
      }
    }
  }
  return problems;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: check_bench_json FILE TOOL [MIN_CASES [FIGURE...]]\n";
    return 2;
  }
  const std::string path = argv[1], tool = argv[2];
  const std::size_t min_cases = argc > 3 ? std::stoul(argv[3]) : 1;
  const std::vector<std::string> figures(argv + std::min(argc, 4), argv + argc);
  std::ifstream in(path);
  if (!in) {
    std::cerr << path << ": cannot open\n";
    return 1;
  }
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    std::cerr << path << ": not JSON: " << e.what() << "\n";
    return 1;
  }
  const auto problems = problems_of(j, tool, min_cases, figures);
  for (const auto& p : problems) std::cerr << path << ": " << p << "\n";
  if (!problems.empty()) return 1;
  std::cout << path << ": " << gfn::harness::kSchema << " report of " << tool << ", "
            << j.at("cases").size() << " cases, " << j.at("goals").size() << " goals\n";
  return 0;
}
