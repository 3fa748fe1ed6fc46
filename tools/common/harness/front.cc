#include "tools/common/harness/front.h"

#include <sstream>

namespace gfn::harness {

Front::Front(CLI::App& app, std::string tool, const std::string& quick_help)
    : app_(app), tool_(std::move(tool)) {
  app.add_option("--json", json_path_,
                 "Write every result as JSON to this file (one schema for all benchmark tools: "
                 "tool, method, cases, goals)");
  app.add_flag("--quick", quick_, "Quick run for smoke tests: " + quick_help);
}

CLI::Option* Front::add_warmup(int& count, const std::string& names, const std::string& help) {
  return app_.add_option(with_alias(names, "--warmup"), count, help)
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

CLI::Option* Front::add_repetitions(int& count, const std::string& names, const std::string& help) {
  return app_.add_option(with_alias(names, "--repeats"), count, help)
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

Method Front::method(int argc, char** argv) const {
  Method m;
  m.command = command_line(argc, argv);
  m.quick = quick_;
  m.machine = describe_machine();
  return m;
}

void Front::write_json(const Report& report) const {
  if (!json_path_.empty()) write_report(report, json_path_);
}

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

std::string with_alias(const std::string& names, const std::string& alias) {
  std::istringstream in(names);
  std::string name;
  while (std::getline(in, name, ',')) {
    if (name == alias) return names;
  }
  return names.empty() ? alias : names + "," + alias;
}

}  // namespace gfn::harness
