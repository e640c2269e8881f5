// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_load/load_move_outcome.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/slice.h"
#include "khet/v1/game.pb.h"

namespace khet::load {
namespace {

// Reads a varint at `*at` in `bytes`; false past the end.
bool ReadVarint(const std::string& bytes, size_t* at, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && *at < bytes.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(bytes[(*at)++]);
    *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

}  // namespace

v1::Outcome OutcomeOf(const grpc::ByteBuffer& reply) {
  std::vector<grpc::Slice> slices;
  if (!reply.Dump(&slices).ok()) return v1::OUTCOME_UNSPECIFIED;
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  // Walks the fields of [from, to) and returns the bounds of the last
  // length-delimited field `number` (the contents), or false.
  auto find = [&bytes](size_t from, size_t to, uint64_t number, size_t* begin,
                       size_t* end) {
    bool found = false;
    size_t at = from;
    while (at < to) {
      uint64_t tag = 0;
      uint64_t n = 0;
      if (!ReadVarint(bytes, &at, &tag)) return false;
      switch (tag & 7) {
        case 0:
          if (!ReadVarint(bytes, &at, &n)) return false;
          if ((tag >> 3) == number) {
            *begin = at;  // a varint: its value is read by the caller
            *end = n;
            found = true;
          }
          break;
        case 1:
          at += 8;
          break;
        case 5:
          at += 4;
          break;
        case 2:
          if (!ReadVarint(bytes, &at, &n) || n > to - at) return false;
          if ((tag >> 3) == number) {
            *begin = at;
            *end = at + n;
            found = true;
          }
          at += n;
          break;
        default:
          return false;
      }
    }
    return found && at == to;
  };
  size_t result_begin = 0, result_end = 0;
  if (!find(0, bytes.size(), 4, &result_begin, &result_end)) {
    return v1::OUTCOME_UNSPECIFIED;
  }
  size_t unused = 0, outcome = 0;
  if (!find(result_begin, result_end, 1, &unused, &outcome)) {
    return v1::OUTCOME_UNSPECIFIED;
  }
  return static_cast<v1::Outcome>(outcome);
}

}  // namespace khet::load
