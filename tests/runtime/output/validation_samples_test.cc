#include "runtime/output/validation_samples.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gfn::output {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  return dir;
}

TEST(ValidationSamples, PathHasEightDigitIteration) {
  EXPECT_EQ(validation_samples_path("runs/x", 200), "runs/x/samples/validation_00000200.npy");
}

// The .npy header numpy.load parses (version 1.0, length field, dict, 64-byte alignment) and
// the float32 data: learned rows first, then the target's, in row-major order.
TEST(ValidationSamples, WritesNpyOfLearnedThenTarget) {
  const fs::path dir = fresh_dir("gfn_validation_samples_npy");
  const std::string path = validation_samples_path(dir.string(), 7);
  const at::Tensor learned =
      at::tensor({1.5, -2.0, 3.25, 4.0, 0.5, -0.125}, at::kDouble).view({3, 2});
  const at::Tensor target = at::tensor({9.0f, 8.0f, 7.0f, 6.0f, 5.0f, 4.0f}).view({3, 2});
  write_validation_samples(path, learned, target);
  const std::string bytes = read_bytes(path);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header_len =
      static_cast<unsigned char>(bytes[8]) |
      (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  const std::size_t data_start = 10 + header_len;
  EXPECT_EQ(data_start % 64, 0u);
  const std::string dict = bytes.substr(10, header_len);
  EXPECT_NE(dict.find("'descr': '<f4'"), std::string::npos) << dict;
  EXPECT_NE(dict.find("'fortran_order': False"), std::string::npos) << dict;
  EXPECT_NE(dict.find("'shape': (2, 3, 2)"), std::string::npos) << dict;
  EXPECT_EQ(dict.back(), '\n');
  ASSERT_EQ(bytes.size(), data_start + 12 * sizeof(float));
  float values[12];
  std::memcpy(values, bytes.data() + data_start, sizeof(values));
  const at::Tensor read = at::from_blob(values, {2, 3, 2}, at::kFloat).clone();
  EXPECT_TRUE(at::equal(read[0], learned.to(at::kFloat)));
  EXPECT_TRUE(at::equal(read[1], target));
}

TEST(ValidationSamples, KeepsAtMostTheFirstMaxSamples) {
  const fs::path dir = fresh_dir("gfn_validation_samples_cap");
  const std::string path = validation_samples_path(dir.string(), 1);
  const std::int64_t n = kMaxValidationSamples + 5;
  const at::Tensor learned = at::arange(n, at::kFloat).view({n, 1});
  write_validation_samples(path, learned, -learned);
  const std::string bytes = read_bytes(path);
  EXPECT_NE(bytes.find("'shape': (2, 2000, 1)"), std::string::npos);
  const std::size_t data_start =
      10 + (static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8));
  ASSERT_EQ(bytes.size(), data_start + 2 * kMaxValidationSamples * sizeof(float));
  float last_learned = 0, first_target = 1;
  std::memcpy(&last_learned, bytes.data() + data_start + (kMaxValidationSamples - 1) * 4, 4);
  std::memcpy(&first_target, bytes.data() + data_start + kMaxValidationSamples * 4, 4);
  EXPECT_EQ(last_learned, static_cast<float>(kMaxValidationSamples - 1));
  EXPECT_EQ(first_target, -0.0f);
}

TEST(ValidationSamples, RefusesMismatchedShapes) {
  const std::string path = (fs::temp_directory_path() / "gfn_validation_samples_bad.npy").string();
  EXPECT_THROW(write_validation_samples(path, at::zeros({3, 2}), at::zeros({2, 2})),
               std::invalid_argument);
  EXPECT_THROW(write_validation_samples(path, at::zeros({3}), at::zeros({3})),
               std::invalid_argument);
  EXPECT_THROW(write_validation_samples(path, at::zeros({0, 2}), at::zeros({0, 2})),
               std::invalid_argument);
  EXPECT_THROW(write_validation_samples(path, at::Tensor(), at::zeros({3, 2})),
               std::invalid_argument);
  EXPECT_THROW(
      write_validation_samples("/proc/no/such/x.npy", at::zeros({1, 1}), at::zeros({1, 1})),
      std::runtime_error);
}

TEST(ValidationSamples, RemovesOnlyFilesAfterTheIteration) {
  const fs::path dir = fresh_dir("gfn_validation_samples_remove");
  for (std::int64_t it : {100, 200, 300}) {
    write_validation_samples(validation_samples_path(dir.string(), it), at::ones({1, 1}),
                             at::ones({1, 1}));
  }
  std::ofstream(dir / "samples" / "notes.txt") << "kept";
  remove_validation_samples_after(dir.string(), 200);
  EXPECT_TRUE(fs::exists(validation_samples_path(dir.string(), 100)));
  EXPECT_TRUE(fs::exists(validation_samples_path(dir.string(), 200)));
  EXPECT_FALSE(fs::exists(validation_samples_path(dir.string(), 300)));
  remove_validation_samples_after(dir.string(), -1);
  EXPECT_FALSE(fs::exists(validation_samples_path(dir.string(), 100)));
  EXPECT_TRUE(fs::exists(dir / "samples" / "notes.txt"));
  remove_validation_samples_after((dir / "absent").string(), -1);  // no error
}

}  // namespace
}  // namespace gfn::output
