#pragma once
// Shared helper of the libFuzzer targets (tests/fuzz/README in the main README's "Fuzzing"):
// FUZZ_CHECK aborts with the failed condition, so a violated property is reported by
// libFuzzer as a crash with its reproducer, like a sanitizer finding.

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)
