// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Abseil 20220623 (Debian bookworm's) has its own string_view, not
// std::string_view; Av bridges one to the other where the engine calls it.
#ifndef KHET_ENGINE_ABSL_VIEW_H_
#define KHET_ENGINE_ABSL_VIEW_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace khet {

inline absl::string_view Av(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace khet

#endif  // KHET_ENGINE_ABSL_VIEW_H_
