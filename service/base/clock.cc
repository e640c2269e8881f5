// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/base/clock.h"

namespace khet {
namespace {

class SystemClock final : public Clock {
 public:
  absl::Time Now() override { return absl::Now(); }
};

}  // namespace

Clock* RealClock() {
  static Clock* const clock = new SystemClock();
  return clock;
}

}  // namespace khet
