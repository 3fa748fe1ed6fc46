#pragma once
// The command-line front shared by the benchmark tools (CLI11; tools/common/harness/,
// docs/performance.md "Benchmark harness"). Every tool gets:
//   --json FILE  write the report (report.h, schema "gfn-bench/1") to FILE
//   --quick      a short run with reduced counts (each tool says which), for smoke tests
// and, where the tool has them, the warm-up and repetition counts under the tool's own
// names (kept from before the harness: "-w,--warmup_iters", "--iters", "--rounds", ...)
// plus the common aliases "--warmup" and "--repeats", checked alike (warm-up >= 0,
// repetitions >= 1). Not thread-safe; the Front must outlive app.parse().

#include <CLI/CLI.hpp>

#include <string>
#include <utility>

#include "tools/common/harness/report.h"

namespace gfn::harness {

class Front {
 public:
  /// Adds --json and --quick to `app`; quick_help says what --quick sets in this tool.
  Front(CLI::App& app, std::string tool, const std::string& quick_help);

  /// The warm-up count: the option names `names` (CLI11 syntax, e.g. "-w,--warmup_iters")
  /// and "--warmup" (once), a value >= 0, default shown in --help.
  CLI::Option* add_warmup(int& count, const std::string& names, const std::string& help);
  /// The repetition count: `names` and "--repeats", a value >= 1, default shown in --help.
  CLI::Option* add_repetitions(int& count, const std::string& names, const std::string& help);

  const std::string& tool() const { return tool_; }
  const std::string& json_path() const { return json_path_; }
  bool quick() const { return quick_; }

  /// After parsing: with --quick, `variable` = `value` unless `option` was given.
  template <class T, class V>
  void quick_default(const std::string& option, T& variable, V&& value) const {
    if (quick_ && app_.count(option) == 0) variable = std::forward<V>(value);
  }

  /// A Method with the command line, --quick and the machine described now; the tool
  /// states what is timed and the counts with Method::describe.
  Method method(int argc, char** argv) const;

  /// Writes `report` as JSON to --json's file, if --json was given. Throws
  /// std::runtime_error naming the file when it cannot be written.
  void write_json(const Report& report) const;

 private:
  CLI::App& app_;
  std::string tool_;
  std::string json_path_;
  bool quick_ = false;
};

/// The command line as one string: argv[0] and the arguments, separated by spaces.
std::string command_line(int argc, char** argv);

/// `names` (comma-separated CLI11 names) with `alias` appended unless one of them is it.
std::string with_alias(const std::string& names, const std::string& alias);

}  // namespace gfn::harness
