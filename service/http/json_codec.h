// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Protobuf messages as the gateway's JSON: protobuf's canonical mapping,
// every field printed (defaults included), unknown fields refused.
#ifndef KHET_SERVICE_HTTP_JSON_CODEC_H_
#define KHET_SERVICE_HTTP_JSON_CODEC_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace khet {

// Reads a request body into `message` (cleared first). An empty body is
// `{}`. INVALID_ARGUMENT naming the message and the problem for malformed
// JSON, a wrong type or an unknown field.
absl::Status ParseJsonBody(absl::string_view body,
                           google::protobuf::Message* message);

// The message as one line of JSON.
std::string ToJson(const google::protobuf::Message& message);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_JSON_CODEC_H_
