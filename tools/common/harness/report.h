#pragma once
// The report every benchmark tool writes (tools/common/harness/, docs/performance.md
// "Benchmark harness"): the method statement (what is timed, warm-up, repetitions, the
// machine), the cases with their figures, and the goals with their verdicts; as text
// (method_statement) and as JSON of one schema for all tools (to_json, --json FILE):
//
//   {"schema": "gfn-bench/1", "tool": "gfn-bench-train",
//    "method": {"timed": "...", "warmup": 20, "repetitions": 200,
//               "repetition_unit": "iterations", "quick": false, "command": "...",
//               "notes": ["..."],
//               "machine": {"cpu_model": "...", "cpu_features": "avx512f avx2 fma",
//                           "logical_cpus": 2, "blas": "...", "blas_loaded": true,
//                           "blas_kernels": "SkylakeX", "load_average": [0.5, 0.4, 0.3],
//                           "host": "...", "date": "2026-11-25T19:41:07Z",
//                           "git_commit": "8afea80..."}},
//    "cases": [{"name": "hypergrid_2d_b16", "parameters": {...},
//               "figures": {"ms_per_iteration": {"unit": "ms", "n": 200, "median": 0.79,
//                                                "p90": ..., "p99": ..., "min": ...,
//                                                "max": ..., "mean": ..., "stddev": ...},
//                           "trajectories_per_s": {"unit": "1/s", "value": 20253.1}}}],
//    "goals": [{"name": "...", "criterion": "...", "value": 0.79, "unit": "ms",
//               "verdict": "PASS", "detail": "..."}]}
//
// A figure is either one value ("value", null when not measured) or the statistics of
// repeated measurements (stats.h Summary: n, median, p90, p99, min, max, mean, stddev).
// Verdicts: "PASS", "FAIL", "n/a" (not measured), "info" (shown, never judged).
// Not thread-safe (plain values); to_json / from_json are O(size of the report).

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/common/harness/machine.h"
#include "tools/common/harness/stats.h"

namespace gfn::harness {

/// The schema identifier every report carries in "schema".
inline constexpr const char* kSchema = "gfn-bench/1";

enum class Verdict { kPass, kFail, kNotMeasured, kInfo };

/// "PASS", "FAIL", "n/a", "info".
const char* verdict_name(Verdict v);
/// The verdict named by verdict_name; throws std::invalid_argument for another text.
Verdict verdict_from_name(const std::string& name);
/// kNotMeasured without a value, else kPass when value >= threshold (kFail otherwise).
Verdict judge_at_least(std::optional<double> value, double threshold);
/// kNotMeasured without a value, else kPass when value <= threshold (kFail otherwise).
Verdict judge_at_most(std::optional<double> value, double threshold);

struct Goal {
  std::string name;             ///< e.g. "small messages"
  std::string criterion;        ///< e.g. "mpi / raw-mpi median round trip <= 2.0x, ..."
  std::optional<double> value;  ///< the figure judged; nullopt when not measured
  std::string unit;             ///< of value ("ratio", "ms", "1/s", ...)
  Verdict verdict = Verdict::kNotMeasured;
  std::string detail;  ///< e.g. "worst 1.31x at 512 B"; may be empty
};

/// One figure of a case: a single value, or the statistics of repeated measurements.
struct Figure {
  std::string unit;
  std::optional<double> value;     ///< a single value (nullopt: not measured)
  std::optional<Summary> summary;  ///< set instead of value for repeated measurements
};

struct Case {
  std::string name;  ///< unique within the report, e.g. "raw-mpi/4096"
  /// What distinguishes the case (configuration, sizes, counts): any JSON object.
  nlohmann::json parameters = nlohmann::json::object();
  std::map<std::string, Figure> figures;  ///< by figure name, e.g. "ms_per_iteration"

  /// Adds (or replaces) a single-value figure; a non-finite value is stored as not
  /// measured. Returns *this.
  Case& add(const std::string& figure, double value, const std::string& unit);
  /// Adds a figure that is not measured (JSON null).
  Case& add_missing(const std::string& figure, const std::string& unit);
  /// Adds (or replaces) the statistics of repeated measurements. Returns *this.
  Case& add(const std::string& figure, const Summary& summary, const std::string& unit);
};

/// What the figures are and how they were measured.
struct Method {
  std::string timed;  ///< what is timed (the call, the clock, where)
  /// Untimed repetitions before the measured ones; nullopt when it differs per case
  /// (the notes then say how, and the cases carry it).
  std::optional<int> warmup = 0;
  int repetitions = 1;             ///< measured repetitions (per case)
  std::string repetition_unit;     ///< what one repetition is, e.g. "iterations", "rounds"
  bool quick = false;              ///< --quick: reduced counts, figures not for comparison
  std::string command;             ///< the command line
  std::vector<std::string> notes;  ///< formulas and other facts, one sentence each
  Machine machine;

  /// Sets what the tool states about its measurement (the fields above but command,
  /// quick and machine, which Front::method fills in). Returns *this.
  Method& describe(std::string timed_call, std::optional<int> warmup_count, int repetition_count,
                   std::string unit, std::vector<std::string> facts = {});
};

struct Report {
  std::string tool;  ///< the executable, e.g. "gfn-bench-train"
  Method method;
  std::vector<Case> cases;
  std::vector<Goal> goals;
};

nlohmann::json to_json(const Report& report);

/// Every way `j` departs from the schema (see the top of this file), each naming the
/// key, e.g. "cases[2].figures.ms_per_iteration: no \"value\" and no \"median\""; empty
/// when it conforms.
std::vector<std::string> schema_problems(const nlohmann::json& j);

/// The report `j` describes. Throws std::invalid_argument listing schema_problems(j)
/// when it does not conform.
Report report_from_json(const nlohmann::json& j);

/// Writes to_json(report) to `path` (indented). Throws std::runtime_error naming the file
/// when it cannot be written.
void write_report(const Report& report, const std::string& path);

/// The method statement as text, every line starting with "# ":
///   # method    <timed>
///   #           <warmup> warm-up + <repetitions> measured <unit>[, --quick]
///   #           <note> (one line per note)
///   # machine   <cpu model> (<features>), <n> logical CPUs, load average <1 5 15 min>
///   # BLAS      <library>[, OpenBLAS kernels: <set>]
///   # run       <date>, git <commit>, host <host>
///   # command   <command>
std::string method_statement(const Method& method);

}  // namespace gfn::harness
