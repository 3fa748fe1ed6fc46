// The JSON form of report.h's Report: to_json, schema_problems, report_from_json.
#include <fmt/format.h>

#include <stdexcept>

#include "tools/common/harness/report.h"

namespace gfn::harness {
namespace {

using json = nlohmann::json;
using Problems = std::vector<std::string>;

const char* const kSummaryKeys[] = {"median", "p90", "p99", "min", "max", "mean", "stddev"};

// --- writing ----------------------------------------------------------------------------

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json figure_json(const Figure& f) {
  json j = {{"unit", f.unit}};
  if (!f.summary) {
    j["value"] = optional_number(f.value);
    return j;
  }
  const Summary& s = *f.summary;
  j["n"] = s.n;
  const double values[] = {s.median, s.p90, s.p99, s.min, s.max, s.mean, s.stddev};
  for (std::size_t i = 0; i < std::size(values); ++i) j[kSummaryKeys[i]] = values[i];
  return j;
}

json machine_json(const Machine& m) {
  return {{"cpu_model", m.cpu_model},
          {"cpu_features", m.cpu_features},
          {"logical_cpus", m.logical_cpus},
          {"blas", m.blas},
          {"blas_loaded", m.blas_loaded},
          {"blas_kernels", m.blas_kernels},
          {"load_average", m.load_average},
          {"host", m.host},
          {"date", m.date},
          {"git_commit", m.git_commit}};
}

json method_json(const Method& m) {
  return {{"timed", m.timed},
          {"warmup", m.warmup ? json(*m.warmup) : json(nullptr)},
          {"repetitions", m.repetitions},
          {"repetition_unit", m.repetition_unit},
          {"quick", m.quick},
          {"command", m.command},
          {"notes", m.notes},
          {"machine", machine_json(m.machine)}};
}

json case_json(const Case& c) {
  json figures = json::object();
  for (const auto& [name, f] : c.figures) figures[name] = figure_json(f);
  return {{"name", c.name}, {"parameters", c.parameters}, {"figures", figures}};
}

json goal_json(const Goal& g) {
  return {
      {"name", g.name}, {"criterion", g.criterion},           {"value", optional_number(g.value)},
      {"unit", g.unit}, {"verdict", verdict_name(g.verdict)}, {"detail", g.detail}};
}

// --- checking ---------------------------------------------------------------------------

bool is_string(const json& j) { return j.is_string(); }
bool is_number(const json& j) { return j.is_number(); }
bool is_number_or_null(const json& j) { return j.is_number() || j.is_null(); }
bool is_bool(const json& j) { return j.is_boolean(); }
bool is_object(const json& j) { return j.is_object(); }
bool is_array(const json& j) { return j.is_array(); }
bool is_count(const json& j) { return j.is_number_integer() && j.get<long long>() >= 0; }
bool is_positive(const json& j) { return j.is_number_integer() && j.get<long long>() >= 1; }
bool is_count_or_null(const json& j) { return j.is_null() || is_count(j); }

// Records a problem unless o[key] exists and satisfies `is`; true when it does.
bool expect(const json& o, const char* key, bool (*is)(const json&), const char* expected,
            const std::string& where, Problems& p) {
  if (!o.contains(key)) {
    p.push_back(fmt::format("{}{}: missing", where, key));
    return false;
  }
  if (!is(o.at(key))) {
    p.push_back(fmt::format("{}{}: not {}", where, key, expected));
    return false;
  }
  return true;
}

void expect_strings(const json& o, std::initializer_list<const char*> keys,
                    const std::string& where, Problems& p) {
  for (const char* key : keys) expect(o, key, is_string, "a string", where, p);
}

void check_machine(const json& m, const std::string& where, Problems& p) {
  expect_strings(
      m, {"cpu_model", "cpu_features", "blas", "blas_kernels", "host", "date", "git_commit"}, where,
      p);
  expect(m, "logical_cpus", is_count, "a count", where, p);
  expect(m, "blas_loaded", is_bool, "a boolean", where, p);
  if (expect(m, "load_average", is_array, "an array", where, p)) {
    for (const auto& v : m.at("load_average")) {
      if (!v.is_number()) p.push_back(where + "load_average: not an array of numbers");
    }
  }
}

void check_method(const json& m, Problems& p) {
  const std::string where = "method.";
  expect_strings(m, {"timed", "repetition_unit", "command"}, where, p);
  expect(m, "warmup", is_count_or_null, "a count or null", where, p);
  expect(m, "repetitions", is_positive, "a count >= 1", where, p);
  expect(m, "quick", is_bool, "a boolean", where, p);
  if (expect(m, "notes", is_array, "an array", where, p)) {
    for (const auto& n : m.at("notes")) {
      if (!n.is_string()) p.push_back("method.notes: not an array of strings");
    }
  }
  if (expect(m, "machine", is_object, "an object", where, p)) {
    check_machine(m.at("machine"), "method.machine.", p);
  }
}

void check_figure(const json& f, const std::string& where, Problems& p) {
  if (!f.is_object()) {
    p.push_back(where + ": not an object");
    return;
  }
  expect(f, "unit", is_string, "a string", where + ".", p);
  const bool single = f.contains("value"), summary = f.contains("median");
  if (single == summary) {
    p.push_back(where + (single ? ": both \"value\" and \"median\""
                                : ": no \"value\" and no "
                                  "\"median\""));
    return;
  }
  if (single) {
    expect(f, "value", is_number_or_null, "a number or null", where + ".", p);
    return;
  }
  expect(f, "n", is_positive, "a count >= 1", where + ".", p);
  for (const char* key : kSummaryKeys) expect(f, key, is_number, "a number", where + ".", p);
}

void check_case(const json& c, const std::string& where, Problems& p) {
  if (!c.is_object()) {
    p.push_back(where + ": not an object");
    return;
  }
  expect(c, "name", is_string, "a string", where + ".", p);
  expect(c, "parameters", is_object, "an object", where + ".", p);
  if (expect(c, "figures", is_object, "an object", where + ".", p)) {
    for (const auto& [name, f] : c.at("figures").items()) {
      check_figure(f, where + ".figures." + name, p);
    }
  }
}

void check_goal(const json& g, const std::string& where, Problems& p) {
  if (!g.is_object()) {
    p.push_back(where + ": not an object");
    return;
  }
  expect_strings(g, {"name", "criterion", "unit", "detail"}, where + ".", p);
  expect(g, "value", is_number_or_null, "a number or null", where + ".", p);
  if (expect(g, "verdict", is_string, "a string", where + ".", p)) {
    try {
      verdict_from_name(g.at("verdict").get<std::string>());
    } catch (const std::invalid_argument& e) {
      p.push_back(where + ".verdict: " + e.what());
    }
  }
}

// --- reading (after schema_problems found nothing) ---------------------------------------

std::optional<double> read_optional(const json& j) {
  return j.is_null() ? std::nullopt : std::optional<double>(j.get<double>());
}

Figure read_figure(const json& j) {
  Figure f;
  f.unit = j.at("unit").get<std::string>();
  if (j.contains("value")) {
    f.value = read_optional(j.at("value"));
    return f;
  }
  Summary s;
  s.n = j.at("n").get<std::size_t>();
  double* fields[] = {&s.median, &s.p90, &s.p99, &s.min, &s.max, &s.mean, &s.stddev};
  for (std::size_t i = 0; i < std::size(fields); ++i)
    *fields[i] = j.at(kSummaryKeys[i]).get<double>();
  f.summary = s;
  return f;
}

Machine read_machine(const json& j) {
  Machine m;
  m.cpu_model = j.at("cpu_model").get<std::string>();
  m.cpu_features = j.at("cpu_features").get<std::string>();
  m.logical_cpus = j.at("logical_cpus").get<int>();
  m.blas = j.at("blas").get<std::string>();
  m.blas_loaded = j.at("blas_loaded").get<bool>();
  m.blas_kernels = j.at("blas_kernels").get<std::string>();
  m.load_average = j.at("load_average").get<std::vector<double>>();
  m.host = j.at("host").get<std::string>();
  m.date = j.at("date").get<std::string>();
  m.git_commit = j.at("git_commit").get<std::string>();
  return m;
}

Method read_method(const json& j) {
  Method m;
  m.timed = j.at("timed").get<std::string>();
  m.warmup =
      j.at("warmup").is_null() ? std::nullopt : std::optional<int>(j.at("warmup").get<int>());
  m.repetitions = j.at("repetitions").get<int>();
  m.repetition_unit = j.at("repetition_unit").get<std::string>();
  m.quick = j.at("quick").get<bool>();
  m.command = j.at("command").get<std::string>();
  m.notes = j.at("notes").get<std::vector<std::string>>();
  m.machine = read_machine(j.at("machine"));
  return m;
}

Case read_case(const json& j) {
  Case c;
  c.name = j.at("name").get<std::string>();
  c.parameters = j.at("parameters");
  for (const auto& [name, f] : j.at("figures").items()) c.figures[name] = read_figure(f);
  return c;
}

Goal read_goal(const json& j) {
  Goal g;
  g.name = j.at("name").get<std::string>();
  g.criterion = j.at("criterion").get<std::string>();
  g.value = read_optional(j.at("value"));
  g.unit = j.at("unit").get<std::string>();
  g.verdict = verdict_from_name(j.at("verdict").get<std::string>());
  g.detail = j.at("detail").get<std::string>();
  return g;
}

}  // namespace

json to_json(const Report& report) {
  json cases = json::array(), goals = json::array();
  for (const auto& c : report.cases) cases.push_back(case_json(c));
  for (const auto& g : report.goals) goals.push_back(goal_json(g));
  return {{"schema", kSchema},
          {"tool", report.tool},
          {"method", method_json(report.method)},
          {"cases", cases},
          {"goals", goals}};
}

std::vector<std::string> schema_problems(const json& j) {
  Problems p;
  if (!j.is_object()) return {"the report is not a JSON object"};
  if (expect(j, "schema", is_string, "a string", "", p) && j.at("schema") != kSchema) {
    p.push_back(
        fmt::format("schema: \"{}\", expected \"{}\"", j.at("schema").get<std::string>(), kSchema));
  }
  expect(j, "tool", is_string, "a string", "", p);
  if (expect(j, "method", is_object, "an object", "", p)) check_method(j.at("method"), p);
  if (expect(j, "cases", is_array, "an array", "", p)) {
    for (std::size_t i = 0; i < j.at("cases").size(); ++i) {
      check_case(j.at("cases")[i], fmt::format("cases[{}]", i), p);
    }
  }
  if (expect(j, "goals", is_array, "an array", "", p)) {
    for (std::size_t i = 0; i < j.at("goals").size(); ++i) {
      check_goal(j.at("goals")[i], fmt::format("goals[{}]", i), p);
    }
  }
  return p;
}

Report report_from_json(const json& j) {
  const auto problems = schema_problems(j);
  if (!problems.empty()) {
    throw std::invalid_argument(
        fmt::format("not a {} report: {}", kSchema, fmt::join(problems, "; ")));
  }
  Report r;
  r.tool = j.at("tool").get<std::string>();
  r.method = read_method(j.at("method"));
  for (const auto& c : j.at("cases")) r.cases.push_back(read_case(c));
  for (const auto& g : j.at("goals")) r.goals.push_back(read_goal(g));
  return r;
}

}  // namespace gfn::harness
