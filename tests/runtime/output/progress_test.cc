#include "runtime/output/progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace gfn::output {
namespace {

using output::ProgressMode;

TEST(ProgressFormat, Durations) {
  EXPECT_EQ(format_duration(0.4), "0s");
  EXPECT_EQ(format_duration(45.2), "45s");
  EXPECT_EQ(format_duration(187), "3m07s");
  EXPECT_EQ(format_duration(7500), "2h05m");
  EXPECT_EQ(format_duration(-1), "--");
  EXPECT_EQ(format_duration(NAN), "--");
  EXPECT_EQ(format_duration(INFINITY), "--");
}

TEST(ProgressFormat, RatesHaveThreeSignificantDigitsAndSiSuffixes) {
  EXPECT_EQ(format_rate(0.5), "0.50");
  EXPECT_EQ(format_rate(95.14), "95.1");
  EXPECT_EQ(format_rate(950), "950");
  EXPECT_EQ(format_rate(12345), "12.3k");
  EXPECT_EQ(format_rate(999.7), "1.00k");
  EXPECT_EQ(format_rate(197165), "197k");
  EXPECT_EQ(format_rate(2.5e6), "2.50M");
  EXPECT_EQ(format_rate(NAN), "--");
}

TEST(ProgressFormat, LineHasIterationRatesEtaLossAndModes) {
  ProgressSnapshot s;
  s.iteration = 120;
  s.total = 250;
  s.trajectories = 120 * 128;
  s.elapsed_s = 2.0;
  s.loss = 0.123456;
  s.modes_found = 3;
  s.n_modes = 4;
  // 60 it/s, 7,680 trajectories/s, (250 - 120) / 60 s = 2.17 s left.
  EXPECT_EQ(format_progress(s),
            "iteration 120/250 (48%) | 60.0 it/s | 7.68k traj/s | ETA 2s | loss 0.1235 | "
            "modes 3/4");
  s.n_modes = 0;  // an environment without modes: no modes part
  EXPECT_EQ(format_progress(s).find("modes"), std::string::npos);
  s.iteration = 0;
  s.elapsed_s = 0;  // nothing done yet: no rate, no ETA
  EXPECT_NE(format_progress(s).find("-- it/s | -- traj/s | ETA --"), std::string::npos);
}

TEST(ProgressFormat, Bar) {
  EXPECT_EQ(format_bar(48, 100, 10), "[####      ]");
  EXPECT_EQ(format_bar(0, 100, 4), "[    ]");
  EXPECT_EQ(format_bar(100, 100, 4), "[####]");
  EXPECT_EQ(format_bar(150, 100, 4), "[####]");
  EXPECT_EQ(format_bar(1, 0, 3), "[   ]");
}

TEST(ProgressMode, AutoIsBarOnATerminalElseLines) {
  EXPECT_EQ(resolve_progress_mode(ProgressMode::kAuto, true), ProgressMode::kBar);
  EXPECT_EQ(resolve_progress_mode(ProgressMode::kAuto, false), ProgressMode::kLines);
  EXPECT_EQ(resolve_progress_mode(ProgressMode::kOff, true), ProgressMode::kOff);
  EXPECT_EQ(resolve_progress_mode(ProgressMode::kLines, true), ProgressMode::kLines);
  EXPECT_EQ(resolve_progress_mode(ProgressMode::kBar, true), ProgressMode::kBar);
  EXPECT_EQ(resolve_progress_mode(ProgressMode::kBar, false), ProgressMode::kLines)
      << "no escape codes into a file";
}

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  for (int c; (c = std::fgetc(f)) != EOF;) out.push_back(static_cast<char>(c));
  return out;
}

TEST(ProgressReporter, BarRedrawsInPlaceAtMostEveryFifthOfASecondAndEndsTheLine) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ProgressReporter bar(ProgressMode::kBar, 10.0, f);
  ProgressSnapshot s{1, 10, 16, 0.1, 1.0, 0, 0};
  EXPECT_TRUE(bar.update(s));
  s.iteration = 2;
  s.elapsed_s = 0.2;  // 0.1 s later: not redrawn
  EXPECT_FALSE(bar.update(s));
  s.elapsed_s = 0.35;
  EXPECT_TRUE(bar.update(s));
  s.iteration = 10;
  s.elapsed_s = 0.36;  // the last iteration is always shown
  EXPECT_TRUE(bar.update(s));
  bar.finish();
  bar.finish();  // idempotent
  const auto out = contents(f);
  EXPECT_NE(out.find("\r\033[K[####################] iteration 10/10 (100%)"), std::string::npos);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\r'), 3);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1);
  EXPECT_EQ(out.back(), '\n');
  std::fclose(f);
}

TEST(ProgressReporter, LinesEveryNSecondsNeverOnTheBarStream) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ProgressReporter lines(ProgressMode::kLines, 5.0, f);
  ProgressSnapshot s{1, 100, 16, 0.1, 1.0, 0, 0};
  EXPECT_TRUE(lines.update(s));
  s.elapsed_s = 4.0;
  EXPECT_FALSE(lines.update(s));
  s.elapsed_s = 5.2;
  EXPECT_TRUE(lines.update(s));
  ProgressReporter off(ProgressMode::kOff, 5.0, f);
  s.iteration = 100;
  EXPECT_FALSE(off.update(s));
  lines.finish();
  EXPECT_EQ(contents(f), "");  // lines go to the log (spdlog), nothing drawn
  std::fclose(f);
}

}  // namespace
}  // namespace gfn::output
