#pragma once
// The command line shared by gfn-runtime programs (CLI11):
//   --config FILE        YAML experiment (optional: without it the defaults are used)
//   --set KEY=VALUE      override one key, e.g. --set train.batch_size=64 (repeatable)
//   --print-config       print the effective configuration (YAML) and exit
//   --print-schema       print the reference of every key (Markdown) and exit
//   --resume DIR         gfn-train only: continue from a checkpoint (a run directory or one
//                        checkpoint directory; docs/checkpoints.md "Checkpoint and resume")
//   --help               usage
// The program turns the options into a configuration with its schema (schema.h; gfn-train:
// roles/experiment/experiment.h).

#include <iostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gfn::config {

struct CommandLine {
  std::string config_path;             ///< "" when --config was not given
  std::vector<std::string> overrides;  ///< each "section.key=value", in command-line order
  bool print_config = false;
  bool print_schema = false;  ///< --print-schema
  std::string resume;         ///< --resume: "" when not given (parse_command_line only)
  /// True after --help or a command-line error: the caller returns exit_code from
  /// main (0 for --help; the help or error text has already been printed).
  bool exit_now = false;
  int exit_code = 0;
};

/// Registers --config, --set, --print-config and --print-schema on `app`, writing into `cl` when
/// app.parse runs. For programs that add their own options to the same app; such a
/// caller catches CLI::ParseError itself and returns app.exit(e) from main.
void add_config_options(CLI::App& app, CommandLine& cl);

/// Parses argv with the options above. Never throws for bad command lines and
/// never calls std::exit: on --help it prints the usage to `out`, on an error
/// (unknown option, missing value, a --set without '=') it prints the message to
/// `err`; both set exit_now and exit_code (CLI11's app.exit(e)). Usage in main:
///   auto cl = gfn::config::parse_command_line(argc, argv);
///   if (cl.exit_now) return cl.exit_code;
CommandLine parse_command_line(int argc, const char* const* argv,
                               const std::string& program = "gfn-train",
                               std::ostream& out = std::cout, std::ostream& err = std::cerr);

}  // namespace gfn::config
