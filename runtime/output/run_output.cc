#include "runtime/output/run_output.h"

#include <filesystem>
#include <stdexcept>

namespace gfn::output {

void ensure_directory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output directory '" + dir + "': " + ec.message());
}

void write_json(const std::string& path, const nlohmann::json& value) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  out << value.dump(2) << '\n';
  if (!out) throw std::runtime_error("error while writing '" + path + "'");
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  out << text;
  if (!out) throw std::runtime_error("error while writing '" + path + "'");
}

CsvWriter::CsvWriter(const std::string& path, std::vector<std::string> columns, bool append_rows)
    : path_(path), columns_(std::move(columns)) {
  std::error_code ec;
  const bool has_rows = append_rows && std::filesystem::file_size(path, ec) > 0 && !ec;
  out_.open(path, append_rows ? std::ios::app : std::ios::trunc);
  if (!out_) throw std::runtime_error("cannot write '" + path + "'");
  if (!has_rows) append(columns_);
}

void CsvWriter::append(const std::vector<std::string>& values) {
  if (values.size() != columns_.size()) {
    throw std::invalid_argument("CSV row for '" + path_ + "' has " + std::to_string(values.size()) +
                                " values, the header has " + std::to_string(columns_.size()));
  }
  for (std::size_t i = 0; i < values.size(); ++i) out_ << (i ? "," : "") << values[i];
  out_ << '\n';
  out_.flush();
}

}  // namespace gfn::output
