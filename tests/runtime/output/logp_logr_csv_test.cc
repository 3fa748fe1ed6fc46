#include "runtime/output/logp_logr_csv.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/read_file.h"

namespace gfn::output {
namespace {

using gfn::testing::read_file;

TEST(LogpLogrCsv, OneRowPerTestSequenceInOrder) {
  const auto path = (std::filesystem::temp_directory_path() / "gfn_logp_logr_test.csv").string();
  write_logp_logr_csv(path, at::tensor({-1.5, -20.25, 0.125}, at::kDouble),
                      at::tensor({-2.0f, -3.5f, 1.0f}));
  EXPECT_EQ(read_file(path), "log_p,log_r\n-1.5,-2\n-20.25,-3.5\n0.125,1\n");
}

TEST(LogpLogrCsv, RefusesMismatchedOrUndefinedTensors) {
  const auto path = (std::filesystem::temp_directory_path() / "gfn_logp_logr_bad.csv").string();
  EXPECT_THROW(write_logp_logr_csv(path, at::zeros({3}), at::zeros({2})), std::invalid_argument);
  EXPECT_THROW(write_logp_logr_csv(path, at::zeros({3, 1}), at::zeros({3})), std::invalid_argument);
  EXPECT_THROW(write_logp_logr_csv(path, at::Tensor(), at::zeros({3})), std::invalid_argument);
  EXPECT_THROW(write_logp_logr_csv("/proc/no/such.csv", at::zeros({1}), at::zeros({1})),
               std::runtime_error);
}

}  // namespace
}  // namespace gfn::output
