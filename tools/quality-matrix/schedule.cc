#include "tools/quality-matrix/schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/tokenizer.hpp>
#include <fstream>
#include <map>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace gfn::quality {
namespace {

using Tokenizer = boost::tokenizer<boost::escaped_list_separator<char>>;

std::vector<std::string> split_csv(const std::string& line) {
  std::string trimmed = line;
  if (!trimmed.empty() && trimmed.back() == '\r') trimmed.pop_back();
  Tokenizer tok(trimmed);
  return {tok.begin(), tok.end()};
}

template <typename T>
T parse_number(const std::string& text, const std::string& path, const std::string& column) {
  try {
    std::size_t used = 0;
    T value;
    if constexpr (std::is_integral_v<T>) {
      value = static_cast<T>(std::stoll(text, &used));
    } else {
      value = std::stod(text, &used);
    }
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw std::runtime_error(
      fmt::format("{}: column '{}' holds '{}', not a number", path, column, text));
}

}  // namespace

TorchgfnSchedule hypergrid_schedule() { return {"train_hypergrid.py", 100, true}; }

TorchgfnSchedule discrete_ebm_schedule() { return {"train_discreteebm.py", 100, false}; }

ValidationPoint last_validation(const TorchgfnSchedule& s, std::int64_t n_iterations,
                                std::int64_t batch_size, std::int64_t window) {
  if (n_iterations < 1 || s.interval < 1 || batch_size < 1 || window < 1) {
    throw std::invalid_argument(fmt::format(
        "last_validation: n_iterations {}, interval {}, batch_size {} and window {} must all "
        "be >= 1",
        n_iterations, s.interval, batch_size, window));
  }
  ValidationPoint p;
  p.n_iterations = n_iterations;
  const std::int64_t last = n_iterations - 1;  // torchgfn's last loop index
  p.torchgfn_iteration = s.also_last ? last : last - last % s.interval;
  p.iteration = p.torchgfn_iteration + 1;
  p.n_visited = std::min(p.iteration * batch_size, window);
  return p;
}

std::optional<std::int64_t> interval_for(const ValidationPoint& p) {
  if (p.is_last()) return std::nullopt;
  return p.iteration;
}

MetricsRow read_metrics_row(const std::string& path, std::int64_t iteration) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open metrics", path));
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error(fmt::format("{}: empty file", path));
  std::map<std::string, std::size_t> column;
  const auto header = split_csv(line);
  for (std::size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  for (const char* needed : {"iteration", "trajectories", "l1_visited"}) {
    if (column.count(needed) == 0) {
      throw std::runtime_error(fmt::format("{}: no column '{}' in the header", path, needed));
    }
  }
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto fields = split_csv(line);
    if (fields.size() != header.size()) {
      throw std::runtime_error(fmt::format("{}: a row has {} fields, the header {}: {}", path,
                                           fields.size(), header.size(), line));
    }
    const auto at = [&](const char* name) { return fields[column.at(name)]; };
    if (parse_number<std::int64_t>(at("iteration"), path, "iteration") != iteration) continue;
    MetricsRow row;
    row.iteration = iteration;
    row.trajectories = parse_number<std::int64_t>(at("trajectories"), path, "trajectories");
    row.l1_visited = parse_number<double>(at("l1_visited"), path, "l1_visited");
    if (column.count("n_visited") != 0) {
      row.n_visited = parse_number<std::int64_t>(at("n_visited"), path, "n_visited");
    }
    return row;
  }
  throw std::runtime_error(
      fmt::format("{}: no validation row at iteration {} (validation.interval?)", path, iteration));
}

void check_row(const MetricsRow& row, const ValidationPoint& p, std::int64_t batch_size) {
  if (row.iteration != p.iteration) {
    throw std::runtime_error(
        fmt::format("metrics row is iteration {}, expected {}", row.iteration, p.iteration));
  }
  if (row.trajectories != p.iteration * batch_size) {
    throw std::runtime_error(fmt::format(
        "metrics row at iteration {} has {} trajectories, expected {} x {} = {}", row.iteration,
        row.trajectories, p.iteration, batch_size, p.iteration * batch_size));
  }
  if (row.n_visited && *row.n_visited != p.n_visited) {
    throw std::runtime_error(fmt::format(
        "metrics row at iteration {} has n_visited {}, torchgfn's validation (iteration {}) has "
        "{}",
        row.iteration, *row.n_visited, p.torchgfn_iteration, p.n_visited));
  }
}

}  // namespace gfn::quality
