// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The signature khetd puts on each pushed delivery (docs/http-api.md,
// "Pushed events"), computed here on its own with OpenSSL rather than with
// khetd's code, so that khet-load checks khetd's: the lower-case hex
// SHA-256 of secret + body + secret.
#ifndef KHET_TOOLS_LOAD_KHET_LOAD_PUSH_SIGNATURE_H_
#define KHET_TOOLS_LOAD_KHET_LOAD_PUSH_SIGNATURE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace khet::load {

std::string PushSignature(absl::string_view secret, absl::string_view body);

}  // namespace khet::load

#endif  // KHET_TOOLS_LOAD_KHET_LOAD_PUSH_SIGNATURE_H_
