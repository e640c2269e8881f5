// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The machine's load average, which the load tools print before they measure
// so that a busy machine shows in their figures.
#ifndef KHET_TOOLS_LOAD_COMMON_LOAD_AVERAGE_H_
#define KHET_TOOLS_LOAD_COMMON_LOAD_AVERAGE_H_

#include <string>

namespace khet {

// The 1, 5 and 15 minute load averages from /proc/loadavg, space-separated
// ("0.52 0.58 0.59"); blanks if it cannot be read.
std::string LoadAverage();

}  // namespace khet

#endif  // KHET_TOOLS_LOAD_COMMON_LOAD_AVERAGE_H_
