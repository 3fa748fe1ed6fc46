#include "tools/common/harness/report.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <stdexcept>

namespace gfn::harness {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "PASS";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kInfo:
      return "info";
    case Verdict::kNotMeasured:
      break;
  }
  return "n/a";
}

Verdict verdict_from_name(const std::string& name) {
  for (Verdict v : {Verdict::kPass, Verdict::kFail, Verdict::kNotMeasured, Verdict::kInfo}) {
    if (name == verdict_name(v)) return v;
  }
  throw std::invalid_argument("unknown verdict '" + name + "' (PASS, FAIL, n/a, info)");
}

Verdict judge_at_least(std::optional<double> value, double threshold) {
  if (!value) return Verdict::kNotMeasured;
  return *value >= threshold ? Verdict::kPass : Verdict::kFail;
}

Verdict judge_at_most(std::optional<double> value, double threshold) {
  if (!value) return Verdict::kNotMeasured;
  return *value <= threshold ? Verdict::kPass : Verdict::kFail;
}

Method& Method::describe(std::string timed_call, std::optional<int> warmup_count,
                         int repetition_count, std::string unit, std::vector<std::string> facts) {
  timed = std::move(timed_call);
  warmup = warmup_count;
  repetitions = repetition_count;
  repetition_unit = std::move(unit);
  notes = std::move(facts);
  return *this;
}

Case& Case::add(const std::string& figure, double value, const std::string& unit) {
  Figure f;
  f.unit = unit;
  if (std::isfinite(value)) f.value = value;
  figures[figure] = f;
  return *this;
}

Case& Case::add_missing(const std::string& figure, const std::string& unit) {
  figures[figure] = Figure{unit, std::nullopt, std::nullopt};
  return *this;
}

Case& Case::add(const std::string& figure, const Summary& summary, const std::string& unit) {
  figures[figure] = Figure{unit, std::nullopt, summary};
  return *this;
}

void write_report(const Report& report, const std::string& path) {
  std::ofstream out(path);
  out << to_json(report).dump(2) << "\n";
  out.close();
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write the JSON report", path));
}

namespace {

std::string repetitions_line(const Method& m) {
  std::string line = fmt::format("{} measured {}", m.repetitions, m.repetition_unit);
  if (m.warmup) line = fmt::format("{} warm-up + {}", *m.warmup, line);
  if (m.quick) line += " (--quick: reduced counts, not for comparison)";
  return line;
}

std::string machine_line(const Machine& m) {
  std::string load = "unknown";
  if (m.load_average.size() == 3) {
    load = fmt::format("{:.2f} {:.2f} {:.2f} (1/5/15 min)", m.load_average[0], m.load_average[1],
                       m.load_average[2]);
  }
  return fmt::format("{} ({}), {} logical CPUs, load average {} at start", m.cpu_model,
                     m.cpu_features.empty() ? "no AVX2/AVX-512" : m.cpu_features, m.logical_cpus,
                     load);
}

std::string blas_line(const Machine& m) {
  std::string line = m.blas;
  if (!m.blas_loaded) line += " (not loaded here: the libblas.so.3 the processes it starts load)";
  if (!m.blas_kernels.empty()) line += ", OpenBLAS kernels: " + m.blas_kernels;
  return line;
}

}  // namespace

std::string method_statement(const Method& m) {
  std::string out = fmt::format("# method    {}\n#           {}\n", m.timed, repetitions_line(m));
  for (const auto& note : m.notes) out += fmt::format("#           {}\n", note);
  out += fmt::format("# machine   {}\n", machine_line(m.machine));
  out += fmt::format("# BLAS      {}\n", blas_line(m.machine));
  out += fmt::format("# run       {}, git {}, host {}\n", m.machine.date, m.machine.git_commit,
                     m.machine.host);
  out += fmt::format("# command   {}\n", m.command);
  return out;
}

}  // namespace gfn::harness
