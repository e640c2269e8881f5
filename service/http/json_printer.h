// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Proto3 messages printed as JSON straight from the message (reflection,
// one pass, no binary round trip and no intermediate tree): byte for byte
// what google::protobuf::util::MessageToJsonString prints with
// always_print_primitive_fields (lowerCamelCase names, every singular
// scalar and repeated field, 64-bit integers quoted, enums by name,
// Timestamps in RFC 3339, its string escaping). json_printer_test holds the
// two against each other over random messages of every type.
//
// A message type with a map or a well-known type other than Timestamp, or a
// Timestamp out of its range, is handed to protobuf's printer whole, and so
// is a proto2 message (its defaults and presence are protobuf's own).
#ifndef KHET_SERVICE_HTTP_JSON_PRINTER_H_
#define KHET_SERVICE_HTTP_JSON_PRINTER_H_

#include <string>

#include "google/protobuf/message.h"

namespace khet {

// Appends `message` as one line of JSON to `out`.
void AppendJson(const google::protobuf::Message& message, std::string* out);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_JSON_PRINTER_H_
