// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What the fuzz targets share: a check that, when it fails, prints what
// broke and aborts, so that libFuzzer keeps the input as a crash.
#ifndef KHET_FUZZ_FUZZ_CHECK_H_
#define KHET_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string>

namespace khet::fuzz {

[[noreturn]] inline void Fail(const char* file, int line, const char* what,
                              const std::string& detail) {
  std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n%s\n", file, line,
               what, detail.c_str());
  std::abort();
}

}  // namespace khet::fuzz

// Aborts with `detail` (a std::string) when `condition` is false.
#define KHET_FUZZ_CHECK(condition, detail)                          \
  do {                                                              \
    if (!(condition)) {                                             \
      ::khet::fuzz::Fail(__FILE__, __LINE__, #condition, (detail)); \
    }                                                               \
  } while (false)

#endif  // KHET_FUZZ_FUZZ_CHECK_H_
