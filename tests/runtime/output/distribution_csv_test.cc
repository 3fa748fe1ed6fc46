#include "runtime/output/distribution_csv.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/read_file.h"

namespace gfn::output {
namespace {

using gfn::testing::read_file;

TEST(DistributionCsv, OneRowPerStateWithCoordinatesAndBothDistributions) {
  const auto path = (std::filesystem::temp_directory_path() / "gfn_distribution_test.csv").string();
  const auto states = at::tensor({0, 0, 0, 1, 1, 0}, at::kLong).view({3, 2});
  const auto learned = at::tensor({0.5, 0.25, 0.25}, at::kDouble);
  const auto truth = at::tensor({0.125, 0.375, 0.5}, at::kFloat);
  write_distribution_csv(path, states, learned, truth);
  EXPECT_EQ(read_file(path),
            "x0,x1,p_learned,p_true\n"
            "0,0,0.5,0.125\n"
            "0,1,0.25,0.375\n"
            "1,0,0.25,0.5\n");
}

TEST(DistributionCsv, RefusesInconsistentShapes) {
  const auto path = (std::filesystem::temp_directory_path() / "gfn_distribution_bad.csv").string();
  const auto states = at::zeros({3, 2}, at::kLong);
  EXPECT_THROW(write_distribution_csv(path, states, at::zeros({2}), at::zeros({3})),
               std::invalid_argument);
  EXPECT_THROW(
      write_distribution_csv(path, at::zeros({3}, at::kLong), at::zeros({3}), at::zeros({3})),
      std::invalid_argument);
  EXPECT_THROW(write_distribution_csv("/proc/not/here.csv", states, at::zeros({3}), at::zeros({3})),
               std::runtime_error);
}

}  // namespace
}  // namespace gfn::output
