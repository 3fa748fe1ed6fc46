#include "runtime/timing/timing_table.h"

#include <fmt/format.h>
#include <cereal/archives/portable_binary.hpp>

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace gfn::timing {

TimingTable::TimingTable(std::size_t max_rows) : max_rows_(max_rows) {
  if (max_rows == 1 || max_rows % 2 != 0) {
    throw std::invalid_argument(fmt::format(
        "TimingTable: max_rows must be 0 (unbounded) or an even number >= 2, got {}", max_rows));
  }
}

void TimingTable::begin_iteration() {
  const bool row_full = num_iterations_ % iterations_per_row_ == 0;
  ++num_iterations_;
  if (!row_full) return;
  if (max_rows_ != 0 && rows_ == max_rows_) compact();
  ++rows_;
  for (auto& d : durations_) d.push_back(0.0);
}

void TimingTable::compact() {
  for (auto& d : durations_) {
    for (std::size_t i = 0; i < rows_ / 2; ++i) d[i] = d[2 * i] + d[2 * i + 1];
    d.resize(rows_ / 2);
  }
  rows_ /= 2;
  iterations_per_row_ *= 2;
}

void TimingTable::add(const std::string& step, double seconds) {
  if (!std::isfinite(seconds) || seconds < 0.0) {
    throw std::invalid_argument(
        fmt::format("TimingTable::add: step '{}' got duration {} s (must be >= 0)", step, seconds));
  }
  if (num_iterations_ == 0) begin_iteration();
  auto it = index_.find(step);
  if (it == index_.end()) {
    it = index_.emplace(step, steps_.size()).first;
    steps_.push_back(step);
    durations_.emplace_back(rows_, 0.0);
  }
  durations_[it->second].back() += seconds;
}

const std::vector<double>& TimingTable::durations(const std::string& step) const {
  auto it = index_.find(step);
  if (it == index_.end()) throw std::out_of_range("TimingTable: unknown step '" + step + "'");
  return durations_[it->second];
}

double TimingTable::total(const std::string& step) const {
  double sum = 0.0;
  for (double d : durations(step)) sum += d;
  return sum;
}

void TimingTable::rebuild_index() {
  index_.clear();
  if (num_iterations_ < 0 || steps_.size() != durations_.size() || iterations_per_row_ < 1 ||
      max_rows_ == 1 || max_rows_ % 2 != 0) {
    throw std::runtime_error("TimingTable: inconsistent serialized table");
  }
  rows_ =
      static_cast<std::size_t>((num_iterations_ + iterations_per_row_ - 1) / iterations_per_row_);
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    if (durations_[i].size() != rows_) {
      throw std::runtime_error(fmt::format(
          "TimingTable: serialized step '{}' has {} durations for {} rows ({} iterations)",
          steps_[i], durations_[i].size(), rows_, num_iterations_));
    }
    if (!index_.emplace(steps_[i], i).second) {
      throw std::runtime_error("TimingTable: serialized step '" + steps_[i] + "' appears twice");
    }
  }
}

ScopedTimer::ScopedTimer(TimingTable& table, std::string step)
    : table_(table), step_(std::move(step)), start_(std::chrono::steady_clock::now()) {}

ScopedTimer::~ScopedTimer() { stop(); }

double ScopedTimer::stop() {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
  if (stopped_) return 0.0;
  stopped_ = true;
  table_.add(step_, elapsed.count());
  return elapsed.count();
}

std::vector<std::uint8_t> serialize_timing_table(const TimingTable& table) {
  std::ostringstream os(std::ios::binary);
  {
    cereal::PortableBinaryOutputArchive ar(os);
    ar(table);
  }
  const std::string s = os.str();
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

TimingTable deserialize_timing_table(const std::vector<std::uint8_t>& bytes) {
  std::istringstream is(std::string(bytes.begin(), bytes.end()), std::ios::binary);
  TimingTable table;
  try {
    cereal::PortableBinaryInputArchive ar(is);
    ar(table);
  } catch (const std::exception& e) {  // cereal::Exception, std::length_error, bad_alloc
    throw std::runtime_error(
        fmt::format("cannot read a timing table from {} bytes: {}", bytes.size(), e.what()));
  }
  return table;
}

}  // namespace gfn::timing
