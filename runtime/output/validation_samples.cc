#include "runtime/output/validation_samples.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>

namespace gfn::output {
namespace {

/// The .npy version 1.0 header for little-endian float32 of `shape`, padded with spaces and
/// a newline so the data starts at a multiple of 64 bytes (numpy's alignment).
std::string npy_header(std::int64_t a, std::int64_t b, std::int64_t c) {
  std::string dict =
      fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}, {}), }}", a, b, c);
  const std::size_t unpadded = 10 + dict.size() + 1;  // magic, version, length; dict; '\n'
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::string header("\x93NUMPY\x01\x00", 8);
  const auto length = static_cast<std::uint16_t>(dict.size());
  header.push_back(static_cast<char>(length & 0xFF));
  header.push_back(static_cast<char>(length >> 8));
  return header + dict;
}

}  // namespace

std::string validation_samples_path(const std::string& dir, std::int64_t iteration) {
  return fmt::format("{}/samples/validation_{:08d}.npy", dir, iteration);
}

void write_validation_samples(const std::string& path, const at::Tensor& learned,
                              const at::Tensor& target) {
  if (!learned.defined() || !target.defined() || learned.dim() != 2 || target.dim() != 2 ||
      learned.size(0) < 1 || learned.size(1) < 1 || !learned.sizes().equals(target.sizes()) ||
      !at::isFloatingType(learned.scalar_type()) || !at::isFloatingType(target.scalar_type())) {
    throw std::invalid_argument(
        "validation samples: need learned and target floating tensors of one shape [n >= 1, "
        "k >= 1], for " +
        path);
  }
  const std::int64_t n = std::min(learned.size(0), kMaxValidationSamples);
  const at::Tensor both =
      at::stack({learned.narrow(0, 0, n), target.narrow(0, 0, n)}).to(at::kFloat).contiguous();
  static_assert(sizeof(float) == 4);
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const std::string header = npy_header(2, n, both.size(2));
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  // x86-64 and aarch64 are little-endian, as '<f4' says.
  out.write(reinterpret_cast<const char*>(both.data_ptr<float>()),
            static_cast<std::streamsize>(both.numel() * sizeof(float)));
  out.close();
  if (!out) throw std::runtime_error("validation samples: cannot write " + path);
}

void remove_validation_samples_after(const std::string& dir, std::int64_t iteration) {
  const std::filesystem::path samples = std::filesystem::path(dir) / "samples";
  std::error_code ec;
  if (!std::filesystem::is_directory(samples, ec)) return;
  const std::regex name(R"(validation_(\d{8})\.npy)");
  for (const auto& entry : std::filesystem::directory_iterator(samples, ec)) {
    std::smatch m;
    const std::string file = entry.path().filename().string();
    if (std::regex_match(file, m, name) && std::stoll(m[1].str()) > iteration) {
      std::filesystem::remove(entry.path(), ec);
    }
  }
}

}  // namespace gfn::output
