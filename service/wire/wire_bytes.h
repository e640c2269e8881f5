// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Writing protobuf's wire format by hand, for the few bytes that are
// cached rather than built as messages (BoardWire): tags, varints and
// length-delimited fields.
#ifndef KHET_SERVICE_WIRE_WIRE_BYTES_H_
#define KHET_SERVICE_WIRE_WIRE_BYTES_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace khet::wire {

inline constexpr int kVarint = 0;
inline constexpr int kLengthDelimited = 2;

inline void AppendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

inline void AppendTag(std::string& out, uint32_t number, int wire_type) {
  AppendVarint(out, (static_cast<uint64_t>(number) << 3) |
                        static_cast<uint64_t>(wire_type));
}

inline void AppendLengthDelimited(std::string& out, uint32_t number,
                                  absl::string_view contents) {
  AppendTag(out, number, kLengthDelimited);
  AppendVarint(out, contents.size());
  out.append(contents.data(), contents.size());
}

}  // namespace khet::wire

#endif  // KHET_SERVICE_WIRE_WIRE_BYTES_H_
